/* SPDX-License-Identifier: MIT */
/*
 * core/waitq.h — the address-keyed wait table (after Go's runtime/sema.go).
 *
 * Every blocking synchronization object (mutex, condvar, rwlock, barrier,
 * semaphore, once, the futex system call) waits here: a fixed table of
 * buckets, each a short runtime lock and, for each address hashed to it,
 * one queue of waiters, in the kernel's futex order: a waiter with a
 * real-time policy (SCHED_FIFO, SCHED_RR) before every waiter of a lower
 * priority and every other waiter, first come first served among equals. A waiter is a node on the waiting thread's
 * own stack. The object keeps its state in its own memory (glibc's
 * layout); the table only holds who waits for it.
 *
 * Waiters are of two kinds, in the same queues: Gs park (g_park), and
 * threads that are not Gs (glibc's own helper threads, threads of
 * RTLD_DEEPBIND libraries, sysmon never) sleep in the kernel on a futex
 * word in their node. A waker does not care which.
 *
 * Protocol. Under the bucket lock the waiter checks its condition,
 * wq_push()es itself and calls wq_wait(), which parks and drops the lock
 * in one step (on g0, like every g_park unlock callback), so a waker that
 * holds the lock sees the waiter either not queued or queued and parked.
 * A waker pops nodes under the lock (wq_pop, wq_pop_all), may write their
 * `ticket` (what it hands over), and calls wq_wake on each, with or
 * without the lock. The node is the waiter's until wq_wake is done with
 * it; after wq_wake it must not be touched. A G may do more work between
 * wq_push and wq_wait (a condvar unlocks its mutex there), but it must not
 * yield or park in between: a waker that pops it then waits, spinning,
 * for it to park.
 *
 * Whoever takes a node off its queue decides how the wait ends: the waker
 * (wq_wait returns 0, woken) or the waiter itself after a timeout, a
 * signal or a cancellation (wq_wait returns ETIMEDOUT or EINTR with the
 * bucket lock held, so the caller can update its object's state in the
 * same critical section). A wake-up is never lost to a concurrent
 * timeout: if the waker popped the node first, the waiter reports 0.
 *
 * Lock order: a bucket lock comes before timers.lock and sched.lock
 * (wq_wait adds the G's timer while holding it; wq_wake may run with it
 * held). Two bucket locks are taken together only by wq_lock2, in address
 * order.
 */
#ifndef GMP_CORE_WAITQ_H
#define GMP_CORE_WAITQ_H

#include "core/lock.h"

#include <stdbool.h>
#include <stdint.h>

struct g;
struct p;
struct wq_bucket;

#define WQ_BITSET_ANY 0xffffffffu

struct waiter {
	uintptr_t addr;			/* what it waits for; under the lock */
	struct wq_bucket *b;		/* the bucket of addr; under the lock */
	struct g *g;			/* the waiting G, or NULL (not a G) */
	uint64_t seq;			/* g's armed wake-up seq */
	struct waiter *next, *prev;	/* the address's queue */
	struct waiter *qnext;		/* queue heads: next address's head */
	struct waiter *tail;		/* queue heads: last node */
	int64_t deadline;		/* CLOCK_MONOTONIC ns, 0 = none */
	/* futex bitset, or the object's kind of waiter (reader/writer);
	 * WQ_BITSET_ANY otherwise */
	uint32_t bitset;
	uint32_t ticket;		/* written by the waker before wq_wake */
	/* its place: the real-time priority (1..99) of a G with a real-time
	 * policy, 0 for every other waiter */
	int prio;
	bool queued;			/* on a queue; under the lock */
	/* 1 once the waker is done with the node; a waiter that is not a G
	 * sleeps on it in the kernel. */
	_Atomic uint32_t done;
};

struct wq_bucket {
	struct rt_mutex lock;
	struct waiter *heads;		/* one head node per address */
	int64_t nwait;			/* nodes queued; under lock */
} __attribute__((aligned(64)));

/* The bucket of addr. */
struct wq_bucket *wq_bucket(const void *addr);
/* In the child of fork: every queue emptied, every lock free (the
 * waiters were other threads, which are gone). */
void wq_after_fork(void);

static inline struct wq_bucket *wq_lock(const void *addr)
{
	struct wq_bucket *b = wq_bucket(addr);
	rt_lock(&b->lock);
	return b;
}
static inline void wq_unlock(struct wq_bucket *b)
{
	rt_unlock(&b->lock);
}
/* Lock the buckets of two addresses (once if they share one). */
void wq_lock2(const void *a1, const void *a2, struct wq_bucket **b1, struct wq_bucket **b2);
void wq_unlock2(struct wq_bucket *b1, struct wq_bucket *b2);

/*
 * Queue the calling thread's node w for addr (b locked, b = its bucket):
 * behind the waiters of its priority or higher, or in front of the
 * waiters of its priority or lower when lifo, with its bitset and deadline
 * (CLOCK_MONOTONIC ns, 0: none) for wq_wait. Fills in the rest of w: its
 * owner (the calling G, armed for a wake-up, or none), ticket, done.
 * Valid TLS (a G or another thread).
 */
void wq_push(struct wq_bucket *b, struct waiter *w, const void *addr, uint32_t bitset,
	     int64_t deadline, bool lifo);

/* Under b's lock: the first waiter of addr (not removed), or NULL. */
struct waiter *wq_peek(struct wq_bucket *b, const void *addr);
/* Under b's lock: remove and return the first waiter of addr whose bitset
 * meets `bitset`, or NULL. */
struct waiter *wq_pop(struct wq_bucket *b, const void *addr, uint32_t bitset);
/* Under b's lock: remove every waiter of addr; returns the first, the rest
 * follow through ->next (read it before waking the node), and their
 * number in *n when n is not NULL. */
struct waiter *wq_pop_all(struct wq_bucket *b, const void *addr, uint32_t *n);
/* Under b's lock: does addr have waiters? */
static inline bool wq_empty(struct wq_bucket *b, const void *addr)
{
	return wq_peek(b, addr) == NULL;
}
/* Under the locks of both buckets (wq_lock2): move up to n waiters of
 * from, first first, to to's queue, each in its place there. Returns how
 * many moved. */
int wq_requeue(struct wq_bucket *bf, const void *from, struct wq_bucket *bt, const void *to, int n);

/*
 * Wait after wq_push (b locked). deadline: CLOCK_MONOTONIC ns, 0 for none.
 * Returns 0 when a waker popped the node (b unlocked), or ETIMEDOUT / EINTR
 * with the node removed and its bucket LOCKED (w->b: a requeue may have
 * moved it): EINTR means a signal was routed to
 * the G (run it with door_signals) or it was cancelled, or, for a
 * thread that is not a G, a signal interrupted its sleep.
 */
int wq_wait(struct wq_bucket *b, struct waiter *w, uint8_t reason);
/*
 * wq_wait for a wait that a signal's handler does not end (a condition
 * variable's, as NPTL's): when a signal interrupts the G, its handlers
 * run with the node still queued, so that no wake-up meant for it is
 * lost, and the G waits again. It ends with EINTR (the node removed, its
 * bucket locked) only when stop(gp) says so (a cancellation to act on).
 * A thread that is not a G waits as in wq_wait.
 */
int wq_wait_resuming(struct wq_bucket *b, struct waiter *w, uint8_t reason,
		     bool (*stop)(struct g *gp));

/* Wake a popped node: ready its G or wake its thread. After this call the
 * node belongs to its waiter again. Valid TLS, not g0. */
void wq_wake(struct waiter *w);
/* Wake every node of a list from wq_pop_all. */
void wq_wake_list(struct waiter *w);

/* Futex-style helpers for objects whose state is one 32-bit word. */
/* Wait while *addr == val (checked under the lock). 0 when woken (or the
 * value differed: EAGAIN), ETIMEDOUT, EINTR. */
int wq_futex_wait(_Atomic uint32_t *addr, uint32_t val, uint32_t bitset, int64_t deadline,
		  uint8_t reason);
/* Wake up to n waiters of addr whose bitset meets bitset; returns how
 * many. */
int wq_futex_wake(const void *addr, int n, uint32_t bitset);
/* The same from g0, which has no G: the woken Gs go to pp. */
int wq_futex_wake_on(const void *addr, int n, uint32_t bitset, struct p *pp);

/* Number of waiters queued in the whole table (tests, schedtrace). */
uint64_t wq_nwaiting(void);

#endif
