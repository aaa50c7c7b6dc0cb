/* SPDX-License-Identifier: MIT */
/*
 * core/netpoll.h — the network poller: one epoll instance on which Gs
 * wait for file descriptors to become readable or writable, and where an
 * idle M blocks until the next timer.
 *
 * After Go's netpoll_epoll.go and netpoll.go. Every descriptor the program
 * waits on gets a poll descriptor (struct pdesc), registered once with
 * epoll, edge-triggered, for both directions. A G that got EAGAIN parks on
 * its pdesc for one direction (netpoll_wait); an edge for that direction
 * wakes one waiting G, or, when none waits, is remembered (`ready`) for
 * the next one. Since an edge may stand for more data than the woken G
 * takes, a G woken this way that then succeeds passes the wake-up on to
 * the next G waiting in the same direction (netpoll_pass), so several Gs
 * may wait on one descriptor (a pool of threads in accept()).
 *
 * poll, select and epoll_wait wait on many descriptors at once: they queue
 * "poll waiters" (struct np_waiter with `poll` set) on each, which every
 * edge wakes and which take no readiness away from the others.
 *
 * Descriptors are type-stable (never freed, reused from a free list), and
 * each epoll registration carries a tag that changes on reuse, so an event
 * for a descriptor closed meanwhile is dropped. Closing wakes every G
 * waiting on the descriptor with EBADF.
 *
 * The scheduler polls without blocking when it finds nothing else to run,
 * sysmon polls when nobody has for 10 ms, and at most one idle M at a time
 * blocks in netpoll until the earliest timer (sched.lastpoll == 0 says one
 * does); netpoll_break wakes it through an eventfd.
 */
#ifndef GMP_CORE_NETPOLL_H
#define GMP_CORE_NETPOLL_H

#include "core/lock.h"

#include <stdbool.h>
#include <stdint.h>

struct g;
struct pdesc;

enum { NP_READ = 0, NP_WRITE = 1 };

/* One waiting G's place in a pdesc's queue for one direction; lives on the
 * waiting G's stack. */
struct np_waiter {
	struct pdesc *pd;		/* set by the caller */
	uint8_t mode;			/* NP_READ or NP_WRITE; set by the caller */
	bool poll;			/* a poll waiter (see above) */
	bool queued;			/* on pd's queue; under pd's lock */
	int result;			/* 0, or EBADF when closed; by the waker */
	struct np_waiter *next;		/* pd's queue; under pd's lock */
	struct g *g;
	uint64_t seq;			/* g's armed wake-up */
	_Atomic uint32_t fired;		/* taken off the queue by a waker */
};

/* Register fd with the poller. Returns its descriptor, or NULL with *err
 * set: EPERM for a file epoll cannot watch (regular files, directories),
 * or the error of creating the epoll instance or of epoll_ctl. Valid TLS
 * or not; no malloc. */
struct pdesc *netpoll_open(int fd, int *err);
/* Make the first poll descriptors (a slab) now, at start-up: a program
 * whose memory mappings run out later can still wait on its first
 * descriptors in the poller rather than in system calls that each hold
 * an OS thread libgmp might not be able to make. */
void netpoll_reserve(void);
/* fd is about to be closed (or replaced): drop its registration, wake
 * every G waiting on it with EBADF, and release pd. Not for g0. */
void netpoll_close(struct pdesc *pd, int fd);
/* Forget an edge seen before the caller's next attempt at I/O in `mode`
 * (Go's pollReset): any edge after this call is kept. Cheap. */
void netpoll_reset(struct pdesc *pd, int mode);
/* Park the calling G until pd is ready in `mode`, the CLOCK_MONOTONIC
 * deadline passes (0: none), a signal or a cancellation claims the wait,
 * or pd is closed. Returns 0 (ready: try again), ETIMEDOUT, EINTR or
 * EBADF. Only for Gs. */
int netpoll_wait(struct pdesc *pd, int mode, int64_t deadline, uint8_t reason);
/* The calling G was woken by netpoll_wait and its I/O then succeeded:
 * wake the next G waiting on pd in `mode`, if any. */
void netpoll_pass(struct pdesc *pd, int mode);

/* Something this process did made pd ready in `mode` (it wrote into the
 * other end of a pipe or socket pair): wake its waiters now, as an edge
 * would, rather than when the poller sees the edge. Cheap when nobody
 * waits. */
void netpoll_notify(struct pdesc *pd, int mode);

/* Waiting on many descriptors (poll, select, epoll_wait): netpoll_arm
 * queues n poll waiters, with pd and mode filled in, for the calling G.
 * The caller then checks readiness once more with a system call that does
 * not block (and does not yield), and either calls netpoll_disarm or
 * netpoll_park, which parks until one of them fires, the deadline passes
 * or a signal claims the wait, takes every waiter off its queue, and
 * returns 0 (something fired), ETIMEDOUT or EINTR. Only for Gs. */
void netpoll_arm(struct np_waiter *ws, int n);
int netpoll_park(struct np_waiter *ws, int n, int64_t deadline, uint8_t reason);
void netpoll_disarm(struct np_waiter *ws, int n);

/* Poll for ready descriptors, blocking up to delay ns (delay < 0: until
 * netpoll_break; 0: not at all). The Gs made runnable are returned as a
 * list linked through g->schedlink (RUNNABLE, on no queue), their number
 * in *n. TLS-free (runs on g0 and in sysmon). */
struct g *netpoll(int64_t delay, int *n);
/* Wake the M blocked in netpoll, or make its next netpoll return at once.
 * Any thread; TLS-free. */
void netpoll_break(void);
/* In the child of fork: the epoll instance is shared with the parent, so
 * the child lets go of it (and of every registration and waiter it
 * inherited) and makes its own on its next registration. The caller
 * forgets every pdesc it holds. */
void netpoll_after_fork(void);
/* Is fd one of the poller's own descriptors? */
bool netpoll_owns_fd(int fd);
/* Is there any G waiting on a descriptor? (Worth a poll.) */
bool netpoll_any_waiters(void);
/* The descriptor a poll descriptor stands for (for dumps; racy). */
int netpoll_pd_fd(const void *pd);

#endif
