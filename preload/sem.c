/* SPDX-License-Identifier: MIT */
/*
 * preload/sem.c — unnamed POSIX semaphores that park Gs.
 *
 * glibc's 32-byte sem_t layout on x86-64 is kept exactly: the value in
 * the first 32-bit word, the number of waiters in the second, and at
 * offset 8 glibc's `private` word (sync.h): 0 for a semaphore made by
 * sem_init(pshared = 0), 128 for a process-shared one or a named one from
 * sem_open, which is glibc's: other processes may use it too.
 *
 * As Go's semaphores: sem_post adds to the value, then wakes the first
 * waiter if the waiter count says there may be one; a waiter counts
 * itself in, takes a unit if there is one, else queues (all under the
 * bucket lock), and after a wake-up tries again. The two sides publish
 * and then read each other's word, so one of them always sees the other.
 * A unit is never lost to a timeout: it stays in the value.
 *
 * sem_wait, sem_timedwait and sem_clockwait are cancellation points, and
 * a signal handler ends them with EINTR, as under glibc.
 */
#include "preload/sync.h"
#include "core/kwait.h"
#include "core/sched.h"
#include "core/waitq.h"

#include <errno.h>
#include <limits.h>
#include <semaphore.h>

struct gsem {
	_Atomic uint32_t value;
	_Atomic uint32_t nwait;
	int private;		/* glibc's */
	int pad;
};
_Static_assert(sizeof(struct gsem) <= sizeof(sem_t), "sem_t size");

static inline struct gsem *gs(sem_t *s)
{
	return (struct gsem *)(void *)s;
}
static inline bool glibcs(sem_t *s)
{
	return __atomic_load_n(&gs(s)->private, __ATOMIC_RELAXED) == SYNC_FUTEX_SHARED;
}

static bool take(struct gsem *g)
{
	uint32_t v = __atomic_load_n(&g->value, __ATOMIC_SEQ_CST);
	while (v > 0) {
		if (__atomic_compare_exchange_n(&g->value, &v, v - 1, false, __ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			return true;
	}
	return false;
}

GMP_EXPORT int sem_init(sem_t *s, int pshared, unsigned value)
{
	GMP_ENTRY(sem_init, s, pshared, value);
	if (value > SEM_VALUE_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (pshared)
		return real_sem_init(s, pshared, value);
	struct gsem *g = gs(s);
	st_rlx(&g->value, value);
	st_rlx(&g->nwait, 0u);
	g->pad = 0;
	__atomic_store_n(&g->private, SYNC_FUTEX_PRIVATE, __ATOMIC_RELEASE);
	return 0;
}

GMP_EXPORT int sem_destroy(sem_t *s)
{
	GMP_ENTRY(sem_destroy, s);
	if (glibcs(s))
		return real_sem_destroy(s);
	return 0;	/* as glibc */
}

GMP_EXPORT int sem_post(sem_t *s)
{
	GMP_PASS(sem_post, s);
	if (glibcs(s)) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return real_sem_post(s);
	}
	GMP_LIB_SCOPE;
	struct gsem *g = gs(s);
	uint32_t v = __atomic_load_n(&g->value, __ATOMIC_RELAXED);
	do {
		if (v >= SEM_VALUE_MAX) {
			errno = EOVERFLOW;
			return -1;
		}
	} while (!__atomic_compare_exchange_n(&g->value, &v, v + 1, false, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	if (!__atomic_load_n(&g->nwait, __ATOMIC_SEQ_CST))
		return 0;
	struct wq_bucket *b = wq_lock(s);
	struct waiter *w = wq_pop(b, s, WQ_BITSET_ANY);
	wq_unlock(b);
	if (w)
		wq_wake(w);
	return 0;
}

GMP_EXPORT int sem_trywait(sem_t *s)
{
	GMP_PASS(sem_trywait, s);
	if (glibcs(s)) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return real_sem_trywait(s);
	}
	GMP_LIB_SCOPE;
	if (take(gs(s)))
		return 0;
	errno = EAGAIN;
	return -1;
}

GMP_EXPORT int sem_getvalue(sem_t *s, int *val)
{
	GMP_ENTRY(sem_getvalue, s, val);
	if (glibcs(s))
		return real_sem_getvalue(s, val);
	*val = (int)__atomic_load_n(&gs(s)->value, __ATOMIC_RELAXED);
	return 0;
}

/* deadline 0: none. Returns 0 or -1 with errno. */
static int sem_wait_slow(sem_t *s, int64_t deadline)
{
	struct gsem *g = gs(s);
	struct g *gp = getg();
	for (;;) {
		struct wq_bucket *b = wq_lock(s);
		xadd(&g->nwait, 1u);
		if (take(g)) {
			xadd(&g->nwait, -1u);
			wq_unlock(b);
			return 0;
		}
		if (deadline && rt_nanotime() >= deadline) {
			xadd(&g->nwait, -1u);
			wq_unlock(b);
			errno = ETIMEDOUT;
			return -1;
		}
		struct waiter w;
		wq_push(b, &w, s, WQ_BITSET_ANY, deadline, false);
		int r = wq_wait(b, &w, WAIT_SEM);
		if (r) {
			xadd(&g->nwait, -1u);
			wq_unlock(w.b);
			if (r == EINTR) {
				/* a cancellation ends the wait; so does a
				 * signal's handler, unless it is SA_RESTART
				 * and the wait has no timeout (the kernel's
				 * rule for glibc's futex wait) */
				if (gp) {
					door_testcancel(gp);
					bool restart;
					if (!door_signals_restart(gp, &restart) ||
					    (restart && !deadline))
						continue;
				}
			}
			errno = r;
			return -1;
		}
		/* woken: the unit may have gone to a newcomer; try again */
		xadd(&g->nwait, -1u);
		if (take(g))
			return 0;
		if (gp)
			door_testcancel(gp);
	}
}

/*
 * A semaphore that is glibc's (process-shared, named) is waited on in the
 * kernel, on its own word, by glibc's code, as a system call whose P is
 * handed on at once (core/kwait.h): the kernel wakes the waiters in its
 * order, real-time priorities first. libgmp's own signals (a
 * cancellation's, kwait_interrupt) and the nudge that runs a program's
 * handler there make the wait return EINTR even where the kernel would
 * restart it (kwait_signal_here). It goes back in unless a handler of the
 * program ended the wait as the kernel ends glibc's: any handler when the
 * program gave a deadline, one without SA_RESTART when it did not.
 */
/* Before the G sleeps on s: a look at its word while nobody sleeps there
 * (core/kwait.h, kwait_spin_budget). True when it took a unit. A timed
 * wait looks only while its deadline is further off than the look. */
static bool spin_glibc(struct g *gp, sem_t *s, clockid_t clk, const struct timespec *abs)
{
	int64_t budget = kwait_spin_budget(gp);
	if (!budget)
		return false;
	if (abs) {
		struct timespec now;
		if (real_clock_gettime(clk, &now) != 0 ||
		    (abs->tv_sec - now.tv_sec) * 1000000000 + (abs->tv_nsec - now.tv_nsec) <= budget)
			return false;
	}
	struct gsem *g = gs(s);
	int e = errno;
	int64_t t0 = rt_nanotime();
	bool got = false;
	for (unsigned i = 1; !__atomic_load_n(&g->nwait, __ATOMIC_RELAXED); i++) {
		if (__atomic_load_n(&g->value, __ATOMIC_RELAXED) && real_sem_trywait(s) == 0) {
			got = true;
			break;
		}
		arch_cpu_relax();
		if (i % 16 == 0 && rt_nanotime() - t0 >= budget)
			break;
	}
	errno = e;
	kwait_spin_result(gp, got, rt_nanotime() - t0);
	return got;
}

static int wait_glibc(sem_t *s, clockid_t clk, const struct timespec *abs)
{
	struct g *gp = getg();
	if (!gp) {
		if (!abs)
			return real_sem_wait(s);
		return real_sem_clockwait(s, clk, abs);
	}
	if (abs && !sync_deadline_ok(clk, abs)) {
		errno = EINVAL;	/* glibc's answer before it tries the semaphore */
		return -1;
	}
	door_testcancel(gp);
	int e0 = errno;
	if (real_sem_trywait(s) == 0)
		return 0;
	if (errno != EAGAIN)
		return -1;	/* glibc's error */
	errno = e0;
	if (spin_glibc(gp, s, clk, abs))
		return 0;
	for (;;) {
		uint32_t handled = gp->nhandled_user, intr = gp->nhandled_intr;
		if (!kwait_begin(gp, KWAIT_SEM, s))
			door_testcancel(gp);
		g_syscall_enter_wait();
		int r = abs ? real_sem_clockwait(s, clk, abs) : real_sem_wait(s);
		int e = errno;
		if (r == 0) {
			/* it runs on at once, without a P (g_syscall_run_on) */
			g_syscall_run_on();
			kwait_end(gp);
			return 0;
		}
		g_syscall_exit();
		kwait_end(gp);
		if (e == EINTR) {
			door_testcancel(gp);
			/* and the handlers of signals routed to it meanwhile */
			if (door_eintr_spurious(gp, handled))
				continue;	/* libgmp's own signal */
			if (!abs && gp->nhandled_intr == intr)
				continue;	/* SA_RESTART handlers, no deadline */
		}
		errno = e;
		return -1;
	}
}

static int sem_wait_common(sem_t *s, clockid_t clk, const struct timespec *abs)
{
	struct g *gp = getg();
	int64_t deadline = 0;
	if (abs) {
		if (!sync_deadline_ok(clk, abs)) {
			errno = EINVAL;
			return -1;
		}
	}
	if (gp)
		door_testcancel(gp);
	if (take(gs(s)))
		return 0;
	if (abs)
		timer_deadline(clk, abs, &deadline);
	return sem_wait_slow(s, deadline);
}

GMP_EXPORT int sem_wait(sem_t *s)
{
	GMP_PASS(sem_wait, s);
	if (glibcs(s)) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return wait_glibc(s, CLOCK_REALTIME, NULL);
	}
	GMP_LIB_SCOPE;
	return sem_wait_common(s, CLOCK_REALTIME, NULL);
}

GMP_EXPORT int sem_timedwait(sem_t *s, const struct timespec *abs)
{
	GMP_PASS(sem_timedwait, s, abs);
	if (glibcs(s)) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return wait_glibc(s, CLOCK_REALTIME, abs);
	}
	GMP_LIB_SCOPE;
	return sem_wait_common(s, CLOCK_REALTIME, abs);
}

GMP_EXPORT int sem_clockwait(sem_t *s, clockid_t clk, const struct timespec *abs)
{
	GMP_PASS(sem_clockwait, s, clk, abs);
	if (glibcs(s)) {
		GMP_LIB_SCOPE_NOSYNC;	/* kwait.h */
		return wait_glibc(s, clk, abs);
	}
	GMP_LIB_SCOPE;
	return sem_wait_common(s, clk, abs);
}
