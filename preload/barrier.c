/* SPDX-License-Identifier: MIT */
/*
 * preload/barrier.c — barriers that park Gs; spinlocks that yield.
 *
 * glibc's 32-byte pthread_barrier_t layout is kept where it matters:
 * offset 12 is glibc's `shared` word (sync.h): 0 for a private barrier,
 * 128 for a process-shared one, which is glibc's. libgmp
 * uses the words before it: threads arrived in this round, the round
 * number, the count. Everything happens under the bucket lock of the
 * barrier's address; the last thread to arrive starts the next round,
 * wakes the others and is the serial thread.
 */
#include "preload/sync.h"
#include "core/sched.h"
#include "core/waitq.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>

struct gbarrier {
	uint32_t arrived;
	uint32_t round;
	uint32_t count;
	int shared;		/* glibc's */
	uint32_t pad[4];
};
_Static_assert(sizeof(struct gbarrier) == sizeof(pthread_barrier_t), "barrier size");

static inline struct gbarrier *gb(pthread_barrier_t *b)
{
	return (struct gbarrier *)(void *)b;
}
static inline bool glibcs(pthread_barrier_t *b)
{
	return __atomic_load_n(&gb(b)->shared, __ATOMIC_RELAXED) == SYNC_FUTEX_SHARED;
}

GMP_EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr,
				    unsigned count)
{
	GMP_ENTRY(pthread_barrier_init, b, attr, count);
	int pshared = PTHREAD_PROCESS_PRIVATE;
	if (attr)
		pthread_barrierattr_getpshared(attr, &pshared);
	if (pshared != PTHREAD_PROCESS_PRIVATE)
		return real_pthread_barrier_init(b, attr, count);
	if (count == 0 || count >= UINT_MAX / 2)
		return EINVAL;
	struct gbarrier *g = gb(b);
	*g = (struct gbarrier){.count = count, .shared = SYNC_FUTEX_PRIVATE};
	return 0;
}

GMP_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b)
{
	GMP_ENTRY(pthread_barrier_destroy, b);
	if (glibcs(b))
		return real_pthread_barrier_destroy(b);
	struct wq_bucket *q = wq_lock(b);
	bool busy = gb(b)->arrived != 0;
	wq_unlock(q);
	return busy ? EBUSY : 0;
}

GMP_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	GMP_ENTRY(pthread_barrier_wait, b);
	if (glibcs(b))	/* glibc's waits in the kernel: the P is handed on at once */
		return GMP_BLOCKING_NOW(int, false, real_pthread_barrier_wait(b));
	struct gbarrier *g = gb(b);
	struct wq_bucket *q = wq_lock(b);
	if (++g->arrived == g->count) {
		g->arrived = 0;
		g->round++;
		struct waiter *list = wq_pop_all(q, b, NULL);
		wq_unlock(q);
		wq_wake_list(list);
		return PTHREAD_BARRIER_SERIAL_THREAD;
	}
	uint32_t round = g->round;
	for (;;) {
		struct waiter w;
		wq_push(q, &w, b, WQ_BITSET_ANY, 0, false);
		if (!wq_wait(q, &w, WAIT_BARRIER))
			return 0;
		/* a signal: run it, then wait on unless the round is over */
		wq_unlock(w.b);
		sync_interrupted();
		q = wq_lock(b);
		if (g->round != round) {
			wq_unlock(q);
			return 0;
		}
	}
}

/* --- spinlocks ----------------------------------------------------------------- */

/* An int, 0 free, 1 held (glibc's x86-64 spinlocks count down from 1:
 * under pass-through every spinlock function is glibc's, never a mix). A
 * spinning G yields its P after a
 * bounded spin, so a holder that is not running (descheduled, or waiting
 * for this very P) gets to run and release it, and runs the handlers of
 * signals sent to it meanwhile. Process-shared spinlocks work the same
 * (they never sleep). */
#define SPIN_ROUNDS 100

GMP_EXPORT int pthread_spin_init(pthread_spinlock_t *l, int pshared)
{
	GMP_PASS(pthread_spin_init, l, pshared);
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
	return 0;
}

GMP_EXPORT int pthread_spin_destroy(pthread_spinlock_t *l)
{
	GMP_PASS(pthread_spin_destroy, l);
	return 0;
}

GMP_EXPORT int pthread_spin_lock(pthread_spinlock_t *l)
{
	GMP_ENTRY(pthread_spin_lock, l);
	for (;;) {
		if (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) == 0)
			return 0;
		for (int i = 0; i < SPIN_ROUNDS && __atomic_load_n(l, __ATOMIC_RELAXED); i++)
			arch_cpu_relax();
		if (!__atomic_load_n(l, __ATOMIC_RELAXED))
			continue;
		struct g *gp = getg();
		if (gp) {
			/* a signal for the spinning thread: its handler runs
			 * now, as the kernel would run it in the spin */
			door_signals_kept(gp);
			g_yield();
		} else {
			real_sched_yield();
		}
	}
}

GMP_EXPORT int pthread_spin_trylock(pthread_spinlock_t *l)
{
	GMP_PASS(pthread_spin_trylock, l);
	int z = 0;
	return __atomic_compare_exchange_n(l, &z, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)
		       ? 0
		       : EBUSY;
}

GMP_EXPORT int pthread_spin_unlock(pthread_spinlock_t *l)
{
	GMP_PASS(pthread_spin_unlock, l);
	__atomic_store_n(l, 0, __ATOMIC_RELEASE);
	return 0;
}
