/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the scheduler running in the test process: park/ready
 * hand-offs never lose a wake-up, an unlock callback that fails cancels
 * the park, sleeps end in deadline order and never early, Gs spread over
 * the Ms, and yielding lets every G progress on one P.
 */
#include "unit.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* --- ping-pong through park/ready --------------------------------------- */

#define ROUNDS 20000
static _Atomic(struct g *) parked[2];
static _Atomic int turn;
static int trace[2 * ROUNDS];
static _Atomic int ntrace;
static struct wg pp_wg;

/*
 * The publish-after-park protocol can race: a player may publish itself
 * after the other already flipped `turn` and looked for it. The other
 * player's next xchg finds it; the test must never hang. The publisher
 * stores, then loads, and the other side stores, then swaps: a full
 * fence between the store and the load (a Dekker pair: x86 may let a load
 * pass an earlier store) makes one of them see the other.
 */
static bool publish_checked(struct m *mp, struct g *gp, void *arg)
{
	int me = (int)(intptr_t)arg;
	st_rel(&parked[me], gp);
	fence_seq();
	if (ld_acq(&turn) == me) {
		struct g *expect = gp;
		/* our turn came while we were parking: cancel unless the other
		 * side took us to ready us */
		return !cas(&parked[me], &expect, (struct g *)NULL);
	}
	return true;
}

static void player_checked(void *arg)
{
	int me = (int)(intptr_t)arg;
	for (int i = 0; i < ROUNDS; i++) {
		while (ld_acq(&turn) != me)
			g_park(publish_checked, (void *)(intptr_t)me, WAIT_TEST);
		trace[xadd(&ntrace, 1)] = me;
		st_rel(&turn, 1 - me);
		struct g *other = xchg(&parked[1 - me], (struct g *)NULL);
		if (other)
			g_ready_any(other);
	}
	wg_done(&pp_wg);
}

Test(sched, park_ready_ping_pong_alternates, .timeout = 60)
{
	core_up(2);
	st_rlx(&pp_wg.left, 2);
	unit_go(player_checked, (void *)0);
	unit_go(player_checked, (void *)1);
	wg_wait(&pp_wg);
	cr_assert_eq(ntrace, 2 * ROUNDS);
	for (int i = 0; i < 2 * ROUNDS; i++)
		cr_assert_eq(trace[i], i % 2, "step %d ran player %d", i, trace[i]);
}

/* --- an unlock callback returning false cancels the park ---------------- */

static int cancel_calls, not_waiting;	/* not_waiting: callbacks that saw the wrong state */

/* Runs on g0: no Criterion calls here (they use TLS and stdio). */
static bool refuse(struct m *mp, struct g *gp, void *arg)
{
	cancel_calls++;
	/* unlockf runs with the G off its M but not yet WAITING: a waker
	 * that found it early must wait until the callback is done */
	if (g_status(gp) != G_RUNNING || gp->m != NULL || mp->curg != NULL)
		not_waiting++;
	return false;
}

Test(sched, failed_unlock_cancels_park, .timeout = 30)
{
	core_up(1);
	struct g *me = getg();
	for (int i = 0; i < 100; i++)
		g_park(refuse, NULL, WAIT_TEST);
	cr_assert_eq(cancel_calls, 100);
	cr_assert_eq(not_waiting, 0, "unlockf runs before the G is WAITING, off its M");
	cr_assert_eq(g_status(me), G_RUNNING);
}

/* --- sleeps end in deadline order, never early -------------------------- */

#define NS 60
static int64_t asked[NS], woke[NS];
static int order[NS];
static _Atomic int norder;
static struct wg sleep_wg;

static void sleeper(void *arg)
{
	int i = (int)(intptr_t)arg;
	int64_t start = rt_nanotime();
	g_sleep_until(start + asked[i]);
	woke[i] = rt_nanotime() - start;
	order[xadd(&norder, 1)] = i;
	wg_done(&sleep_wg);
}

Test(sched, sleeps_in_deadline_order, .timeout = 30)
{
	core_up(1);
	st_rlx(&sleep_wg.left, NS);
	for (int i = 0; i < NS; i++) {
		/* 5 ms apart: far more than a wake-up's latency */
		asked[i] = (int64_t)((i * 37) % NS) * 5000000 + 2000000;
		unit_go(sleeper, (void *)(intptr_t)i);
	}
	wg_wait(&sleep_wg);
	for (int i = 0; i < NS; i++)
		cr_assert(woke[i] >= asked[i], "G %d woke after %ld ns, asked %ld", i,
			  (long)woke[i], (long)asked[i]);
	for (int k = 1; k < NS; k++)
		cr_assert(asked[order[k - 1]] <= asked[order[k]], "wake order broken at %d", k);
}

/* --- work spreads over the Ms ----------------------------------------------- */

#define NW 64
static int tids[NW];
static struct wg spread_wg;

static void busy(void *arg)
{
	int i = (int)(intptr_t)arg;
	int64_t until = rt_nanotime() + 2000000;	/* 2 ms of CPU */
	while (rt_nanotime() < until)
		;
	tids[i] = (int)syscall(SYS_gettid);
	wg_done(&spread_wg);
}

Test(sched, idle_p_steals_work, .timeout = 30)
{
	core_up(2);
	st_rlx(&spread_wg.left, NW);
	for (int i = 0; i < NW; i++)
		unit_go(busy, (void *)(intptr_t)i);
	wg_wait(&spread_wg);
	int distinct = 1;
	for (int i = 1; i < NW; i++)
		if (tids[i] != tids[0])
			distinct = 2;
	cr_assert_eq(distinct, 2, "all Gs ran on one OS thread");
	cr_assert(ld_rlx(&sched.nsteal) > 0, "no steals counted");
}

/* --- a P taken out of service ---------------------------------------------- */

#define NO 32
static struct wg out_wg;

/* Sleeps (a timer on the heap of the P it parks from), then computes
 * 1 ms. */
static void sleep_then_busy(void *arg)
{
	g_sleep_until(rt_nanotime() + (int64_t)(intptr_t)arg * 1000000);
	int64_t until = rt_nanotime() + 1000000;
	while (rt_nanotime() < until)
		;
	wg_done(&out_wg);
}

/* P 1 is on the idle list, where every pidleget from now on reads the
 * lowered nactive and passes it by. (Its status alone says too little: an
 * M that read nactive before the change may be taking it off the list,
 * to run one G on it before schedule() sends it out of service.) */
static bool p1_parked_out_of_service(void)
{
	bool found = false;
	rt_lock(&sched.lock);
	for (struct p *pp = sched.pidle; pp && !found; pp = pp->link)
		found = pp == sched.allp[1];
	rt_unlock(&sched.lock);
	return found;
}

/* With nactive 1, P 1 leaves service: the Gs and the timers it had go on
 * running on P 0, and nobody hands P 1 out again; back at 2 it runs Gs. */
Test(sched, p_out_of_service_hands_over_gs_and_timers, .timeout = 30)
{
	core_up(2);
	st_rlx(&out_wg.left, NO);
	for (int i = 0; i < NO; i++)
		unit_go(sleep_then_busy, (void *)(intptr_t)(5 + i % 4));
	st_rlx(&sched.nactive, 1);
	/* P 1's M leaves at its next scheduling (within a G's 1 ms) */
	int64_t deadline = rt_nanotime() + 2000000000;
	while (!p1_parked_out_of_service() && rt_nanotime() < deadline)
		g_yield();
	cr_assert(p1_parked_out_of_service(), "P 1 still runs");
	uint64_t sw1 = sched.allp[1]->nswitch;
	wg_wait(&out_wg);
	cr_assert_eq(sched.allp[1]->nswitch, sw1, "P 1 ran Gs out of service");
	cr_assert_eq(timers_len(sched.allp[1]), 0u, "timers left on P 1");

	/* back in service: Gs spread over both Ps again */
	st_rlx(&sched.nactive, 2);
	sched_wakep();
	st_rlx(&out_wg.left, NO);
	for (int i = 0; i < NO; i++)
		unit_go(sleep_then_busy, (void *)(intptr_t)1);
	wg_wait(&out_wg);
	cr_assert(sched.allp[1]->nswitch > sw1, "P 1 back in service ran nothing");
}

/* --- yielding: every G makes progress on one P ------------------------------ */

#define NY 8
static _Atomic int progress[NY];
static _Atomic int stop_yield;
static struct wg yield_wg;

static void yielder(void *arg)
{
	int i = (int)(intptr_t)arg;
	while (!ld_acq(&stop_yield)) {
		xadd(&progress[i], 1);
		g_yield();
	}
	wg_done(&yield_wg);
}

Test(sched, yield_round_robin_on_one_p, .timeout = 30)
{
	core_up(1);
	st_rlx(&yield_wg.left, NY);
	for (int i = 0; i < NY; i++)
		unit_go(yielder, (void *)(intptr_t)i);
	/* main yields too, until every G ran many times */
	for (;;) {
		int low = ld_acq(&progress[0]);
		for (int i = 1; i < NY; i++)
			if (ld_acq(&progress[i]) < low)
				low = ld_acq(&progress[i]);
		if (low >= 1000)
			break;
		g_yield();
	}
	st_rel(&stop_yield, 1);
	wg_wait(&yield_wg);
	for (int i = 0; i < NY; i++)
		cr_assert(progress[i] >= 1000);
}

/* --- a G in a blocking system call lets go of its P -------------------------- */

static _Atomic int sc_progress, sc_in_call, sc_done;
static struct wg sc_wg;

/* Blocks in the kernel until the other G has made progress: a futex wait
 * on sc_progress that only the other G's steps can end. */
static void sc_blocker(void *arg)
{
	(void)arg;
	g_syscall_enter();
	st_rel(&sc_in_call, 1);
	while (ld_acq(&sc_progress) < 100)
		os_futex_wait((_Atomic uint32_t *)&sc_progress, (uint32_t)ld_acq(&sc_progress), 1000000);
	g_syscall_exit();
	st_rel(&sc_done, 1);
	wg_done(&sc_wg);
}

static void sc_stepper(void *arg)
{
	(void)arg;
	while (!ld_acq(&sc_in_call))
		g_yield();
	for (int i = 0; i < 100; i++) {
		xadd(&sc_progress, 1);
		os_futex_wake((_Atomic uint32_t *)&sc_progress, 1);
		g_yield();
	}
	wg_done(&sc_wg);
}

Test(sched, syscall_lets_go_of_the_p, .timeout = 30)
{
	core_up(1);
	st_rlx(&sc_wg.left, 2);
	unit_go(sc_blocker, NULL);
	unit_go(sc_stepper, NULL);
	wg_wait(&sc_wg);
	cr_assert_eq(ld_acq(&sc_progress), 100);
	cr_assert(ld_acq(&sc_done));
	/* and the fast path: nobody took the P, the G keeps it */
	struct g *me = getg();
	struct p *pp = me->m->p;
	g_syscall_enter();
	cr_assert_eq(g_status(me), G_SYSCALL);
	g_syscall_exit();
	cr_assert_eq(g_status(me), G_RUNNING);
	cr_assert_eq(me->m->p, pp);
}
