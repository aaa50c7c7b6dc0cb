/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_waitq.c — the address-keyed wait table (core/waitq.c):
 * FIFO order, real-time priority order, per-address queues sharing a bucket, bitsets, timeouts,
 * interruption, requeue, waiters that are not Gs, and that a wake-up
 * racing a timeout is never lost.
 */
#include "unit.h"
#include "core/waitq.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>

#define NW 8

static _Atomic uint32_t word;
static _Atomic uint32_t word2;
static int order[NW];
static _Atomic int norder;
static _Atomic int results[NW];
static struct wg done_wg;

/* wait until n nodes are queued in the whole table */
static void await_queued(uint64_t n)
{
	while (wq_nwaiting() != n)
		g_yield();
}

static void fifo_waiter(void *arg)
{
	int i = (int)(intptr_t)arg;
	int r = wq_futex_wait(&word, 0, WQ_BITSET_ANY, 0, WAIT_TEST);
	results[i] = r;
	order[xadd(&norder, 1)] = i;
	wg_done(&done_wg);
}

Test(waitq, fifo_one_wake_at_a_time, .timeout = 30)
{
	core_up(2);
	st_rlx(&done_wg.left, NW);
	for (int i = 0; i < NW; i++) {
		unit_go(fifo_waiter, (void *)(intptr_t)i);
		await_queued(i + 1);
	}
	for (int i = 0; i < NW; i++) {
		cr_assert_eq(wq_futex_wake(&word, 1, WQ_BITSET_ANY), 1);
		while (ld_acq(&norder) != i + 1)
			g_yield();
	}
	wg_wait(&done_wg);
	for (int i = 0; i < NW; i++) {
		cr_assert_eq(order[i], i, "wake %d went to waiter %d", i, order[i]);
		cr_assert_eq(results[i], 0);
	}
	cr_assert_eq(wq_nwaiting(), 0);
	cr_assert_eq(wq_futex_wake(&word, 1, WQ_BITSET_ANY), 0, "nobody left");
}

static void addr2_waiter(void *arg)
{
	_Atomic uint32_t *a = arg;
	cr_assert_eq(wq_futex_wait(a, 0, WQ_BITSET_ANY, 0, WAIT_TEST), 0);
	xadd(&norder, 1);
	wg_done(&done_wg);
}

Test(waitq, addresses_sharing_a_bucket_have_separate_queues, .timeout = 30)
{
	core_up(2);
	/* two words of one array that hash to the same bucket */
	static _Atomic uint32_t arr[1 << 16];
	int j = -1;
	for (int k = 1; k < (1 << 16) && j < 0; k++)
		if (wq_bucket(&arr[k]) == wq_bucket(&arr[0]))
			j = k;
	cr_assert(j > 0, "no collision found");
	st_rlx(&done_wg.left, 4);
	unit_go(addr2_waiter, &arr[0]);
	await_queued(1);
	unit_go(addr2_waiter, &arr[j]);
	await_queued(2);
	unit_go(addr2_waiter, &arr[0]);
	await_queued(3);
	unit_go(addr2_waiter, &arr[j]);
	await_queued(4);
	/* waking the second address all at once leaves the first's */
	cr_assert_eq(wq_futex_wake(&arr[j], INT_MAX, WQ_BITSET_ANY), 2);
	while (ld_acq(&norder) != 2)
		g_yield();
	cr_assert_eq(wq_nwaiting(), 2);
	cr_assert_eq(wq_futex_wake(&arr[0], INT_MAX, WQ_BITSET_ANY), 2);
	wg_wait(&done_wg);
	cr_assert_eq(wq_nwaiting(), 0);
}

static void bitset_waiter(void *arg)
{
	int i = (int)(intptr_t)arg;
	results[i] = wq_futex_wait(&word, 0, 1u << i, 0, WAIT_TEST);
	order[xadd(&norder, 1)] = i;
	wg_done(&done_wg);
}

Test(waitq, bitsets_select_waiters, .timeout = 30)
{
	core_up(2);
	st_rlx(&done_wg.left, 3);
	for (int i = 0; i < 3; i++) {
		unit_go(bitset_waiter, (void *)(intptr_t)i);
		await_queued(i + 1);
	}
	cr_assert_eq(wq_futex_wake(&word, INT_MAX, 1u << 2), 1);
	while (ld_acq(&norder) != 1)
		g_yield();
	cr_assert_eq(order[0], 2);
	cr_assert_eq(wq_futex_wake(&word, INT_MAX, 1u << 1 | 1u), 2);
	wg_wait(&done_wg);
	cr_assert_eq(wq_nwaiting(), 0);
}

Test(waitq, value_mismatch_and_timeout, .timeout = 30)
{
	core_up(2);
	st_rlx(&word, 5);
	cr_assert_eq(wq_futex_wait(&word, 4, WQ_BITSET_ANY, 0, WAIT_TEST), EAGAIN);
	int64_t t0 = rt_nanotime();
	cr_assert_eq(wq_futex_wait(&word, 5, WQ_BITSET_ANY, t0 + 5000000, WAIT_TEST), ETIMEDOUT);
	cr_assert_geq(rt_nanotime() - t0, 5000000, "returned before the deadline");
	cr_assert_eq(wq_nwaiting(), 0, "a timed-out node stays queued");
	/* a deadline already past */
	cr_assert_eq(wq_futex_wait(&word, 5, WQ_BITSET_ANY, 1, WAIT_TEST), ETIMEDOUT);
	cr_assert_eq(wq_nwaiting(), 0);
}

static void interrupted_waiter(void *arg)
{
	(void)arg;
	results[0] = wq_futex_wait(&word, 0, WQ_BITSET_ANY, 0, WAIT_TEST);
	wg_done(&done_wg);
}

Test(waitq, claim_interrupts_a_wait, .timeout = 30)
{
	core_up(2);
	st_rlx(&done_wg.left, 1);
	struct g *gp = unit_go(interrupted_waiter, NULL);
	await_queued(1);
	/* what pthread_cancel and signal routing do */
	cr_assert(g_claim(gp, 0));
	g_ready_any(gp);
	wg_wait(&done_wg);
	cr_assert_eq(results[0], EINTR);
	cr_assert_eq(wq_nwaiting(), 0);
}

static void requeued_waiter(void *arg)
{
	(void)arg;
	results[0] = wq_futex_wait(&word, 0, WQ_BITSET_ANY, 0, WAIT_TEST);
	wg_done(&done_wg);
}

Test(waitq, requeue_moves_waiters, .timeout = 30)
{
	core_up(2);
	st_rlx(&done_wg.left, 1);
	unit_go(requeued_waiter, NULL);
	await_queued(1);
	struct wq_bucket *b1, *b2;
	wq_lock2(&word, &word2, &b1, &b2);
	cr_assert_eq(wq_requeue(b1, &word, b2, &word2, INT_MAX), 1);
	wq_unlock2(b1, b2);
	cr_assert_eq(wq_futex_wake(&word, INT_MAX, WQ_BITSET_ANY), 0);
	cr_assert_eq(wq_futex_wake(&word2, INT_MAX, WQ_BITSET_ANY), 1);
	wg_wait(&done_wg);
	cr_assert_eq(results[0], 0);
}

/* Waiters with real-time priorities are woken highest first, equals and
 * ordinary waiters first come first served, as the kernel's futex queues
 * order them; a requeue keeps that order. */
static const int prios[NW] = {0, 10, 30, 10, 0, 30, 20, 0};

static void prio_waiter(void *arg)
{
	int i = (int)(intptr_t)arg;
	struct g *gp = getg();
	gp->schedpolicy = prios[i] ? (i & 1 ? SCHED_RR : SCHED_FIFO) : SCHED_OTHER;
	gp->schedprio = prios[i];
	int r = wq_futex_wait(&word, 0, WQ_BITSET_ANY, 0, WAIT_TEST);
	results[i] = r;
	order[xadd(&norder, 1)] = i;
	gp->schedpolicy = SCHED_OTHER;
	gp->schedprio = 0;
	wg_done(&done_wg);
}

static void wake_in_priority_order(bool requeue)
{
	core_up(2);
	st_rlx(&done_wg.left, NW);
	st_rlx(&norder, 0);
	for (int i = 0; i < NW; i++) {
		unit_go(prio_waiter, (void *)(intptr_t)i);
		await_queued(i + 1);
	}
	_Atomic uint32_t *from = &word;
	if (requeue) {
		struct wq_bucket *b1, *b2;
		wq_lock2(&word, &word2, &b1, &b2);
		cr_assert_eq(wq_requeue(b1, &word, b2, &word2, INT_MAX), NW);
		wq_unlock2(b1, b2);
		from = &word2;
	}
	for (int i = 0; i < NW; i++) {
		cr_assert_eq(wq_futex_wake(from, 1, WQ_BITSET_ANY), 1);
		while (ld_acq(&norder) != i + 1)
			g_yield();
	}
	wg_wait(&done_wg);
	static const int want[NW] = {2, 5, 6, 1, 3, 0, 4, 7};
	for (int i = 0; i < NW; i++)
		cr_assert_eq(order[i], want[i], "wake %d went to waiter %d (priority %d), not %d", i,
			     order[i], prios[order[i]], want[i]);
	cr_assert_eq(wq_nwaiting(), 0);
}

Test(waitq, real_time_waiters_wake_highest_priority_first, .timeout = 30)
{
	wake_in_priority_order(false);
}

Test(waitq, a_requeue_keeps_priority_order, .timeout = 30)
{
	wake_in_priority_order(true);
}

/* a thread that is not a G waits; a G wakes it, and the other way round */
static void *foreign_waiter(void *arg)
{
	(void)arg;
	results[0] = wq_futex_wait(&word, 0, WQ_BITSET_ANY, 0, WAIT_TEST);
	while (wq_nwaiting() != 1)
		sched_yield();
	results[1] = wq_futex_wake(&word2, 1, WQ_BITSET_ANY);
	return NULL;
}

Test(waitq, threads_that_are_not_gs, .timeout = 30)
{
	core_up(2);
	results[0] = results[1] = -1;
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, foreign_waiter, NULL), 0);
	await_queued(1);
	cr_assert_eq(wq_futex_wake(&word, 1, WQ_BITSET_ANY), 1);
	cr_assert_eq(wq_futex_wait(&word2, 0, WQ_BITSET_ANY, 0, WAIT_TEST), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_assert_eq(results[0], 0);
	cr_assert_eq(results[1], 1);
	/* and a timeout for it */
	int64_t t0 = rt_nanotime();
	cr_assert_eq(wq_futex_wait(&word, 0, WQ_BITSET_ANY, t0 + 2000000, WAIT_TEST), ETIMEDOUT);
}

/* Wakes racing timeouts: every wake-up the wakers count was received by a
 * waiter as a wake-up (0), never swallowed by a timeout. */
#define RACE_ROUNDS 3000
static _Atomic int waiter_done;
static _Atomic long nwoken_seen, nwakes_made;

static void race_waiter(void *arg)
{
	(void)arg;
	for (int i = 0; i < RACE_ROUNDS; i++) {
		int64_t d = rt_nanotime() + 1000 * (i % 50);
		int r = wq_futex_wait(&word, 0, WQ_BITSET_ANY, d, WAIT_TEST);
		cr_assert(r == 0 || r == ETIMEDOUT, "r=%d", r);
		if (r == 0)
			xadd(&nwoken_seen, 1);
	}
	st_rel(&waiter_done, 1);
	wg_done(&done_wg);
}

static void race_waker(void *arg)
{
	(void)arg;
	uint32_t x = 12345;
	while (!ld_acq(&waiter_done)) {
		xadd(&nwakes_made, wq_futex_wake(&word, 1, WQ_BITSET_ANY));
		x = x * 1103515245 + 12345;
		for (uint32_t k = (x >> 16) % 2000; k; k--)
			arch_cpu_relax();
		if ((x >> 8) % 4 == 0)
			g_yield();
	}
	wg_done(&done_wg);
}

Test(waitq, wake_racing_timeout_is_never_lost, .timeout = 60)
{
	core_up(2);
	st_rlx(&done_wg.left, 2);
	unit_go(race_waiter, NULL);
	unit_go(race_waker, NULL);
	wg_wait(&done_wg);
	cr_assert_eq(wq_nwaiting(), 0);
	cr_assert_eq(ld_acq(&nwoken_seen), ld_acq(&nwakes_made),
		     "waiters saw %ld wake-ups, wakers made %ld", ld_acq(&nwoken_seen),
		     ld_acq(&nwakes_made));
	cr_assert_gt(ld_acq(&nwakes_made), 0, "the race never happened");
}
