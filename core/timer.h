/* SPDX-License-Identifier: MIT */
/*
 * core/timer.h — per-P timer heaps.
 *
 * Each P owns a 4-ary min-heap of timers ordered by `when` (CLOCK_MONOTONIC
 * ns). Sleeps and timed waits put the waiting G's own timer on the heap of
 * the P it parks from; the scheduler runs expired timers of its P at the
 * top of sched_find_runnable, and an idle M that steals also runs expired
 * timers of other Ps. A timer function runs on g0 of the M holding `pp`,
 * with no heap lock held.
 */
#ifndef GMP_CORE_TIMER_H
#define GMP_CORE_TIMER_H

#include "core/lock.h"

#include <time.h>

struct p;

struct timer {
	/* Written by the owner before timer_add; read under the heap lock. */
	int64_t when;
	void (*f)(void *arg, uint64_t seq, struct p *pp);
	void *arg;
	uint64_t seq;
	/* The P whose heap holds this timer, NULL when not queued. Written
	 * under that heap's lock; read without it by timer_del to find it. */
	_Atomic(struct p *) pp;
	/* Position in the heap; under the heap's lock. */
	int32_t idx;
};

struct timers {
	struct rt_mutex lock;		/* see the lock order in sched.h */
	struct timer **heap;		/* under lock; grown with mremap */
	uint32_t len, cap;		/* under lock */
	/* heap[0]->when, or 0 when empty. Written under lock; read anywhere
	 * to decide cheaply whether the heap needs a look. */
	_Atomic int64_t minwhen;
};
/* Reserve a new P's heap (address space for many timers, see
 * TIMER_RESERVE in timer.c). */
void timers_init(struct timers *ts);

/* In the child of fork: forget every timer (their threads are gone). */
void timers_after_fork(struct timers *ts);
/* Queue t on pp's heap. t must not be queued. Any thread. */
void timer_add(struct timer *t, struct p *pp);
/* Remove t if it is queued; returns true if it was removed before firing.
 * Any thread. */
bool timer_del(struct timer *t);
/* Move every timer of from's heap to to's (from leaves service). Holds
 * both heap locks, in P id order. Any thread. */
void timers_move(struct p *from, struct p *to);
/* Run every timer of pp due at `now`, on behalf of the calling M, which
 * holds the P `runner` (the P readied Gs go to). Returns the `when` of the
 * next timer of pp, or 0 if none. */
int64_t timers_run(struct p *pp, struct p *runner, int64_t now);
/* Number of queued timers (for tests and schedtrace). */
uint32_t timers_len(struct p *pp);

/*
 * Convert an absolute timeout on clock clk (CLOCK_REALTIME or
 * CLOCK_MONOTONIC) to a CLOCK_MONOTONIC deadline in ns, never 0 (a time
 * already past gives a deadline in the past). Returns 0, or EINVAL for a
 * bad tv_nsec. Valid TLS (glibc's clock_gettime).
 */
int timer_deadline(clockid_t clk, const struct timespec *abs, int64_t *deadline);

/* Relative timeouts made again after an interruption, on CLOCK_MONOTONIC
 * deadlines where 0 means none: the deadline of a relative timeout (NULL
 * or centuries: none; negative: now); the time left in *buf (NULL without
 * a deadline, never negative); milliseconds left, rounded up (-1 without
 * a deadline). */
int64_t timer_rel_deadline(const struct timespec *rel);
int64_t timer_ms_deadline(int ms);
struct timespec *timer_left_ts(int64_t deadline, struct timespec *buf);
int timer_left_ms(int64_t deadline);

#endif
