/* SPDX-License-Identifier: MIT */
/*
 * core/fdtab.h — what libgmp knows of each file descriptor.
 *
 * Descriptors the program creates through libgmp (socket, socketpair,
 * accept, accept4, pipe, pipe2, eventfd, timerfd_create, signalfd,
 * inotify_init*) are "polled": they keep exactly the flags the program
 * gave them, in the kernel, and libgmp's own calls on them ask for
 * non-blocking behaviour per call (RWF_NOWAIT, MSG_DONTWAIT), parking the
 * G on the netpoller on EAGAIN unless the program asked for O_NONBLOCK
 * (FD_USER_NB, which mirrors the kernel's flag as far as libgmp saw it
 * set). A kind of descriptor that refuses RWF_NOWAIT in one direction
 * (EOPNOTSUPP, before any I/O: eventfd writes, inotify) is polled first
 * in that direction from then on, and the call then made as a system
 * call that may block. Every other descriptor (inherited, opened with
 * open, made inside glibc) is not polled: its calls are made as system
 * calls that may block (GMP_BLOCKING). Code libgmp does not see (glibc's
 * own reads, an inline syscall instruction, another process sharing the
 * descriptor) finds the program's flags and blocks as under NPTL.
 *
 * The table is indexed by descriptor number, in chunks mapped on first
 * use; entries are never freed. Entries change when libgmp sees a
 * descriptor made, closed or duplicated; one closed where libgmp cannot
 * see it (inside glibc, fclose aside) keeps its stale entry until its
 * number is reused by a call libgmp sees.
 */
#ifndef GMP_CORE_FDTAB_H
#define GMP_CORE_FDTAB_H

#include "core/netpoll.h"
#include "core/rt.h"

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* fdent.flags */
#define FD_POLLED	0x1	/* tried without blocking per call, parks on EAGAIN */
#define FD_USER_NB	0x2	/* the program asked for O_NONBLOCK */
#define FD_SOCKET	0x4	/* a socket (timeouts apply) */
#define FD_POLLFIRST_R	0x8	/* RWF_NOWAIT refused for reads: poll first */
#define FD_POLLFIRST_W	0x10	/* and for writes */
#define FD_TASKFILE	0x20	/* a thread's file under /proc (shim/file.c) */
#define FD_LISTENS	0x40	/* a socket that listens (shim/net.c accept4) */
#define FD_SIGNALFD	0x80	/* a signalfd, of the signals in sigmask */

struct fdent {
	_Atomic uint32_t flags;
	_Atomic(struct pdesc *) pd;	/* registered with the poller, or NULL */
	/* SO_RCVTIMEO / SO_SNDTIMEO of polled sockets, ns (0: none) */
	_Atomic int64_t rcvtimeo, sndtimeo;
	/* The other end (fd + 1, 0: unknown) of a pipe or socket pair made
	 * here: I/O on one end wakes the Gs waiting on the other at once. A
	 * hint only: the kernel's edge still comes. */
	_Atomic int peer;
	/* The next descriptor (fd + 1) sharing this one's open file
	 * description (made by dup), in a ring; 0: none. O_NONBLOCK and the
	 * socket timeouts belong to the description, so they change for the
	 * whole ring. Under the ring lock. */
	int dupnext;
	/* The thread id (a G's) that fcntl(F_SETOWN_EX, F_OWNER_TID) made
	 * the owner of the descriptor's signals, which the kernel sends to
	 * libgmp's service thread instead (shim/net.c); 0: none. sig_user is
	 * then the program's F_SETSIG value (0: plain SIGIO), the kernel's
	 * being SIGIO for 0 so that the signal names the descriptor. */
	_Atomic int sig_owner;
	_Atomic int sig_user;
	/* FD_TASKFILE: the G whose file under /proc this is, opened as the
	 * file of OS thread task_tid (the one the G ran on) */
	_Atomic(struct g *) task_g;
	_Atomic int task_tid;
	/* FD_SIGNALFD: the signals it reads (sigq_bit), the mask belonging
	 * to the open file description as O_NONBLOCK does: the same in
	 * every duplicate. */
	_Atomic uint64_t sigmask;
};

/* The entry of fd, or NULL when libgmp never recorded anything there. */
struct fdent *fd_get(int fd);
/* The entry of fd, made if needed; NULL only for an impossible fd or
 * when memory runs out. */
struct fdent *fd_entry(int fd);
/* Is fd polled? Returns its entry if so. */
static inline struct fdent *fd_polled(int fd)
{
	struct fdent *e = fd_get(fd);
	return e && (ld_rlx(&e->flags) & FD_POLLED) ? e : NULL;
}
/* A pollable descriptor was made for the program; user_nb is its
 * O_NONBLOCK. */
void fd_created(int fd, bool user_nb, bool socket);
/* fd is about to be closed or replaced, or a call libgmp does not track
 * made it: wake Gs waiting on it (EBADF) and forget it. Does nothing in a
 * vfork child, which shares the table with its parent (one getpid, only
 * for an entry that holds something). */
void fd_forget(int fd);
/* a and b are the two ends of one pipe or socket pair. */
void fd_set_peers(int a, int b);
/* newfd became a duplicate of oldfd (dup, dup2, dup3, F_DUPFD). */
void fd_dup(int oldfd, int newfd);
/* The program set (nb) or cleared O_NONBLOCK on polled descriptor fd:
 * every duplicate sees it, as in the kernel. */
void fd_set_user_nb(int fd, bool nb);
/* Polled descriptor fd is a signalfd of the signals in mask (signalfd
 * made it, or gave it a new mask): every duplicate reads them. */
void fd_set_sigmask(int fd, uint64_t mask);
/* Was a signalfd ever recorded (fd_set_sigmask)? */
bool fd_signalfds(void);
/* A socket timeout (SO_RCVTIMEO when rcv, else SO_SNDTIMEO) of ns was set
 * on polled descriptor fd: every duplicate has it. The kernel applies it
 * to blocking calls alone, so libgmp's parked ones keep it here. */
void fd_set_timeo(int fd, bool rcv, int64_t ns);
/* fd's poll descriptor, registering fd on first use; NULL (with *err)
 * when the poller cannot watch it. */
struct pdesc *fd_pdesc(int fd, struct fdent *e, int *err);
/* fd refused RWF_NOWAIT in `mode` (NP_READ, NP_WRITE): poll
 * it first in that direction from now on, with its duplicates. */
void fd_refuse_nowait(int fd, int mode);
/* In the child of fork: forget every poll descriptor (the poller starts
 * afresh: sched_after_fork). */
void fd_after_fork(void);
/* A signal that reached libgmp's service thread: if a descriptor whose
 * owner is a G (sig_owner) sent it, that G's id, and in *out the signal
 * as the program asked for it (plain SIGIO when its F_SETSIG is 0);
 * else 0. Async-signal-safe. */
int fd_sig_owner(const siginfo_t *info, siginfo_t *out);

/* libgmp's own descriptors (the poller's): invisible to the program. */
bool fd_internal(int fd);

/* After I/O in `mode` on e's descriptor succeeded: wake the Gs waiting on
 * its peer for the other direction. */
static inline void fd_kick_peer(struct fdent *e, int mode)
{
	int p = ld_rlx(&e->peer);
	if (!p)
		return;
	struct fdent *pe = fd_get(p - 1);
	struct pdesc *pd = pe ? ld_acq(&pe->pd) : NULL;
	if (pd)
		netpoll_notify(pd, mode == NP_READ ? NP_WRITE : NP_READ);
}

#endif
