/* SPDX-License-Identifier: MIT */
/*
 * preload/cond.c — condition variables that park Gs.
 *
 * glibc's 48-byte pthread_cond_t is kept; libgmp uses only its first word,
 * the number of queued waiters (a hint that lets a signal with nobody
 * waiting return at once), and reads glibc's __wrefs flags written by
 * pthread_cond_init: bit 0 process-shared (then glibc's implementation
 * serves the object), bit 1 CLOCK_MONOTONIC for timed waits. The waiters
 * themselves are the wait table's queue for the condvar's address.
 *
 * No lost wake-ups: a waiter queues itself before it unlocks the mutex,
 * so any signal after the unlock finds it. Broadcast takes the whole
 * queue at once: exactly the waiters present at the call. Both symbol
 * versions glibc exports (GLIBC_2.3.2 and the old GLIBC_2.2.5) reach these
 * definitions: the object's size and all-zero initializer are the same.
 *
 * A wait is a cancellation point: the cancelled thread relocks the mutex
 * before its cleanup handlers run, and a signal it had consumed is passed
 * to another waiter. A signal handler for the waiting thread runs while
 * it waits (outside the mutex, still queued), and the wait goes on, as
 * under NPTL.
 */
#include "preload/sync.h"
#include "core/kwait.h"
#include "core/sched.h"
#include "core/waitq.h"

#include <errno.h>

#define COND_SHARED	1u
#define COND_MONOTONIC	2u

static inline _Atomic uint32_t *nwait(pthread_cond_t *c)
{
	return (_Atomic uint32_t *)(void *)c;
}
static inline unsigned cflags(pthread_cond_t *c)
{
	return __atomic_load_n(&c->__data.__wrefs, __ATOMIC_RELAXED);
}

GMP_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
	gmp_init();
	return real_pthread_cond_init(c, attr);	/* zeroes it, writes the flags */
}

GMP_EXPORT int pthread_cond_destroy(pthread_cond_t *c)
{
	GMP_ENTRY(pthread_cond_destroy, c);
	if (cflags(c) & COND_SHARED)
		return real_pthread_cond_destroy(c);
	struct wq_bucket *b = wq_lock(c);
	bool busy = !wq_empty(b, c);
	wq_unlock(b);
	return busy ? EBUSY : 0;
}

static int cond_signal(pthread_cond_t *c)
{
	if (!__atomic_load_n(nwait(c), __ATOMIC_SEQ_CST))
		return 0;
	struct wq_bucket *b = wq_lock(c);
	struct waiter *w = wq_pop(b, c, WQ_BITSET_ANY);
	if (w)
		xadd(nwait(c), -1u);
	wq_unlock(b);
	if (w)
		wq_wake(w);
	return 0;
}

GMP_EXPORT int pthread_cond_signal(pthread_cond_t *c)
{
	GMP_PASS(pthread_cond_signal, c);
	if (cflags(c) & COND_SHARED) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return real_pthread_cond_signal(c);
	}
	GMP_LIB_SCOPE;
	return cond_signal(c);
}

GMP_EXPORT int pthread_cond_broadcast(pthread_cond_t *c)
{
	GMP_PASS(pthread_cond_broadcast, c);
	if (cflags(c) & COND_SHARED) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return real_pthread_cond_broadcast(c);
	}
	GMP_LIB_SCOPE;
	if (!__atomic_load_n(nwait(c), __ATOMIC_SEQ_CST))
		return 0;
	struct wq_bucket *b = wq_lock(c);
	uint32_t n;
	struct waiter *list = wq_pop_all(b, c, &n);
	xadd(nwait(c), -n);
	wq_unlock(b);
	wq_wake_list(list);
	return 0;
}

/*
 * A process-shared condvar is glibc's: a G waits in glibc's code, in the
 * kernel, as a system call whose P is handed on at once (core/kwait.h).
 * A cancellation broadcasts to get it out; it then returns with the
 * mutex held, and acts on the cancellation here, as NPTL's cleanup does
 * (a wake-up it took is passed on, not swallowed).
 */
GMP_HOT static int wait_glibc(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
		      const struct timespec *abs)
{
	struct g *gp = getg();
	if (!gp) {
		if (!abs)
			return real_pthread_cond_wait(c, m);
		return real_pthread_cond_clockwait(c, m, clk, abs);
	}
	if (!kwait_begin(gp, KWAIT_COND, c))
		door_testcancel(gp);
	g_syscall_enter_wait();
	int r = abs ? real_pthread_cond_clockwait(c, m, clk, abs) : real_pthread_cond_wait(c, m);
	/* it holds the mutex again, which others (in other processes too)
	 * wait for: it runs on at once, without a P (g_syscall_enter_wait) */
	kwait_end(gp);
	if (g_cancel_acts(gp)) {
		if (r == 0)
			real_pthread_cond_signal(c);
		door_testcancel(gp);
	}
	return r;
}

/* clk < 0: no timeout. */
static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
		     const struct timespec *abs)
{
	struct g *gp = getg();
	if (gp)
		door_testcancel(gp);
	int64_t deadline = 0;
	if (abs) {
		int e = timer_deadline(clk, abs, &deadline);
		if (e)
			return e;
	}
	int e = mutex_check_owner(m);
	if (e)
		return e;

	struct waiter w;
	struct wq_bucket *b = wq_lock(c);
	wq_push(b, &w, c, WQ_BITSET_ANY, deadline, false);
	xadd(nwait(c), 1u);
	wq_unlock(b);

	gmp_mutex_unlock(m, false);
	b = wq_lock(c);
	/* the wait ends early only for a cancellation it acts on; a
	 * signal's handler runs and the wait goes on, as under NPTL */
	int r = wq_wait_resuming(b, &w, WAIT_COND, g_cancel_acts);
	if (r) {
		xadd(nwait(c), -1u);
		wq_unlock(w.b);
		if (r == EINTR)
			sync_interrupted();
	}
	e = gmp_mutex_lock(m);
	if (e)
		return e;
	if (gp && g_cancel_acts(gp)) {
		if (r == 0)
			cond_signal(c);	/* do not swallow the wake-up */
		door_testcancel(gp);
	}
	return r == ETIMEDOUT ? ETIMEDOUT : 0;
}

GMP_HOT GMP_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	/* the wait's first atomic (glibc's too) writes the line its kind
	 * is read from */
	arch_prefetchw(c);
	GMP_PASS(pthread_cond_wait, c, m);
	if (cflags(c) & COND_SHARED) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return wait_glibc(c, m, 0, NULL);
	}
	GMP_LIB_SCOPE;
	return cond_wait(c, m, -1, NULL);
}

GMP_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				      const struct timespec *abs)
{
	GMP_PASS(pthread_cond_timedwait, c, m, abs);
	unsigned f = cflags(c);
	if (f & COND_SHARED) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return wait_glibc(c, m, (f & COND_MONOTONIC) ? CLOCK_MONOTONIC : CLOCK_REALTIME, abs);
	}
	GMP_LIB_SCOPE;
	return cond_wait(c, m, (f & COND_MONOTONIC) ? CLOCK_MONOTONIC : CLOCK_REALTIME, abs);
}

GMP_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
				      const struct timespec *abs)
{
	GMP_PASS(pthread_cond_clockwait, c, m, clk, abs);
	if (!sync_clock_ok(clk))
		return EINVAL;
	if (cflags(c) & COND_SHARED) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return wait_glibc(c, m, clk, abs);
	}
	GMP_LIB_SCOPE;
	return cond_wait(c, m, clk, abs);
}
