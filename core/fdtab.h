/*
 * core/fdtab.h — what libgmp knows of each file descriptor.
 *
 * Descriptors the program creates through libgmp (socket, socketpair,
 * accept, accept4, pipe, pipe2, eventfd, timerfd_create, signalfd,
 * inotify_init*) are "polled": non-blocking in the kernel, with the
 * program's own view of O_NONBLOCK kept here. A call on a polled
 * descriptor that gets EAGAIN parks the G on the netpoller unless the
 * program asked for non-blocking I/O itself. Every other descriptor
 * (inherited, opened with open, made inside glibc) keeps its flags and
 * its calls are made as system calls that may block (GMP_BLOCKING).
 *
 * A polled descriptor is "demoted" to an ordinary one, with the kernel's
 * O_NONBLOCK set back to the program's view, when another process or
 * glibc's stdio is about to share it: before posix_spawn, and by fdopen.
 * exec puts the program's view back on every inheritable polled
 * descriptor.
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

#include <stdbool.h>
#include <stdint.h>

/* fdent.flags */
#define FD_POLLED	0x1	/* non-blocking in the kernel, parks on EAGAIN */
#define FD_USER_NB	0x2	/* the program asked for O_NONBLOCK */
#define FD_SOCKET	0x4	/* a socket (timeouts apply) */

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
/* A descriptor was made non-blocking in the kernel on the program's
 * behalf; user_nb is the program's own O_NONBLOCK. */
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
 * every duplicate sees it. */
void fd_set_user_nb(int fd, bool nb);
/* A socket timeout (SO_RCVTIMEO when rcv, else SO_SNDTIMEO) of ns was set
 * on polled descriptor fd: every duplicate has it. */
void fd_set_timeo(int fd, bool rcv, int64_t ns);
/* Make fd an ordinary descriptor: the kernel's O_NONBLOCK becomes the
 * program's view, and calls on it become system calls. */
void fd_demote(int fd);
/* fd's poll descriptor, registering fd on first use; NULL (with *err)
 * when the poller cannot watch it. */
struct pdesc *fd_pdesc(int fd, struct fdent *e, int *err);
/* Before exec: give every polled descriptor without FD_CLOEXEC the
 * program's view of O_NONBLOCK (restore = false), or after a failed exec
 * take it back (restore = true). */
void fd_exec_flags(bool restore);
/* Demote every polled descriptor without FD_CLOEXEC (before another
 * process starts with them: posix_spawn, system, popen). */
void fd_demote_inheritable(void);
/* In the child of fork: forget every poll descriptor (the poller starts
 * afresh: sched_after_fork). */
void fd_after_fork(void);
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
