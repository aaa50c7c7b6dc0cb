/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the run queues: FIFO order, runnext, overflow to the
 * global queue, and stealing (every G seen exactly once, a steal takes
 * half), also with thieves racing the owner.
 */
#include "unit.h"

#include <pthread.h>
#include <string.h>

static struct p P[3];

static void setup(void)
{
	os_init();
	memset(P, 0, sizeof P);
	for (int i = 0; i < 3; i++) {
		P[i].id = i;
		P[i].status = P_RUNNING;
	}
	sched.gomaxprocs = 3;
}

static struct g *gs[1024];

static void make_gs(int n)
{
	for (int i = 0; i < n; i++)
		if (!gs[i])
			cr_assert((gs[i] = g_alloc()));
}

static int index_of(struct g *gp)
{
	for (int i = 0; i < 1024; i++)
		if (gs[i] == gp)
			return i;
	return -1;
}

TestSuite(runq, .init = setup);

Test(runq, fifo_order)
{
	bool inherit;
	make_gs(10);
	for (int i = 0; i < 10; i++)
		runq_put(&P[0], gs[i], false);
	cr_assert_eq(runq_len(&P[0]), 10);
	for (int i = 0; i < 10; i++) {
		cr_assert_eq(runq_get(&P[0], &inherit), gs[i]);
		cr_assert(!inherit);
	}
	cr_assert_null(runq_get(&P[0], &inherit));
	cr_assert(runq_empty(&P[0]));
}

Test(runq, runnext_first_and_kicks_previous_to_tail)
{
	bool inherit;
	make_gs(3);
	runq_put(&P[0], gs[0], false);
	runq_put(&P[0], gs[1], true);
	runq_put(&P[0], gs[2], true);	/* gs[1] goes to the tail */
	cr_assert_eq(runq_get(&P[0], &inherit), gs[2]);
	cr_assert(inherit, "runnext inherits the time slice");
	cr_assert_eq(runq_get(&P[0], &inherit), gs[0]);
	cr_assert_eq(runq_get(&P[0], &inherit), gs[1]);
	cr_assert(runq_empty(&P[0]));
}

/* find_runnable's fairness rule takes the ring's head past runnext */
Test(runq, ring_get_passes_over_runnext)
{
	bool inherit;
	make_gs(3);
	runq_put(&P[0], gs[0], false);
	runq_put(&P[0], gs[1], false);
	runq_put(&P[0], gs[2], true);
	cr_assert_eq(runq_get_ring(&P[0]), gs[0]);
	cr_assert_eq(runq_get(&P[0], &inherit), gs[2]);
	cr_assert(inherit);
	cr_assert_eq(runq_get_ring(&P[0]), gs[1]);
	cr_assert_null(runq_get_ring(&P[0]));
	cr_assert(runq_empty(&P[0]));
}

Test(runq, overflow_moves_half_to_global)
{
	bool inherit;
	make_gs(300);
	for (int i = 0; i < 300; i++)
		runq_put(&P[0], gs[i], false);
	int local = (int)runq_len(&P[0]);
	cr_assert_eq(local + ld_rlx(&sched.runqsize), 300);
	cr_assert(local <= RUNQ_SIZE);
	cr_assert(ld_rlx(&sched.runqsize) >= RUNQ_SIZE / 2 + 1);
	static int seen[300];
	memset(seen, 0, sizeof seen);
	struct g *gp;
	while ((gp = runq_get(&P[0], &inherit)))
		seen[index_of(gp)]++;
	while (sched.runqhead) {
		gp = sched.runqhead;
		sched.runqhead = gp->schedlink;
		seen[index_of(gp)]++;
	}
	sched.runqtail = NULL;
	st_rlx(&sched.runqsize, 0);
	for (int i = 0; i < 300; i++)
		cr_assert_eq(seen[i], 1, "G %d seen %d times", i, seen[i]);
}

/* Go's RunSchedLocalQueueStealTest: for every fill level, a steal takes
 * half (rounded up) and no G is lost or duplicated. */
Test(runq, steal_takes_half_every_g_once)
{
	bool inherit;
	make_gs(RUNQ_SIZE);
	for (int n = 0; n < RUNQ_SIZE; n++) {
		for (int i = 0; i < n; i++)
			runq_put(&P[0], gs[i], false);
		struct g *got = runq_steal(&P[1], &P[0], true);
		int stolen = got ? 1 : 0;
		static int seen[RUNQ_SIZE];
		memset(seen, 0, sizeof seen);
		if (got)
			seen[index_of(got)]++;
		struct g *gp;
		while ((gp = runq_get(&P[1], &inherit))) {
			seen[index_of(gp)]++;
			stolen++;
		}
		while ((gp = runq_get(&P[0], &inherit)))
			seen[index_of(gp)]++;
		for (int i = 0; i < n; i++)
			cr_assert_eq(seen[i], 1, "n=%d: G %d seen %d times", n, i, seen[i]);
		cr_assert(stolen == n / 2 || stolen == n / 2 + (n % 2),
			  "n=%d: stole %d", n, stolen);
	}
}

Test(runq, steal_takes_runnext_of_an_idle_p)
{
	bool inherit;
	make_gs(1);
	P[0].status = P_IDLE;
	runq_put(&P[0], gs[0], true);
	cr_assert_null(runq_steal(&P[1], &P[0], false), "runnext only when asked");
	cr_assert_eq(runq_steal(&P[1], &P[0], true), gs[0]);
	cr_assert_null(runq_get(&P[0], &inherit));
}

/* Owner keeps putting and taking while two thieves steal: every G is
 * taken exactly once. */
#define RACE_N 200000
static _Atomic int taken[1024];
static _Atomic int done_put;

static void *thief(void *arg)
{
	struct p *mine = arg;
	bool inherit;
	for (;;) {
		struct g *gp = runq_steal(mine, &P[0], true);
		if (gp) {
			xadd(&taken[index_of(gp)], 1);
			while ((gp = runq_get(mine, &inherit)))
				xadd(&taken[index_of(gp)], 1);
		} else if (ld_acq(&done_put) && runq_empty(&P[0])) {
			return NULL;
		}
	}
}

Test(runq, owner_and_two_thieves_race, .timeout = 60)
{
	bool inherit;
	make_gs(1024);
	pthread_t t[2];
	pthread_create(&t[0], NULL, thief, &P[1]);
	pthread_create(&t[1], NULL, thief, &P[2]);
	int put = 0;
	for (int i = 0; i < RACE_N; i++) {
		/* each G is on a queue at most once at a time: reuse a G only
		 * after it has been taken */
		int k = i % 1024;
		/* never let the ring overflow to the global queue */
		while (runq_len(&P[0]) >= RUNQ_SIZE - 8) {
			struct g *gp = runq_get(&P[0], &inherit);
			if (gp)
				xadd(&taken[index_of(gp)], 1);
		}
		if (i >= 1024)
			while (ld_acq(&taken[k]) < i / 1024)
				arch_cpu_relax();
		runq_put(&P[0], gs[k], (i % 5) == 0);
		put++;
		if (i % 3 == 0) {
			struct g *gp = runq_get(&P[0], &inherit);
			if (gp)
				xadd(&taken[index_of(gp)], 1);
		}
	}
	struct g *gp;
	while ((gp = runq_get(&P[0], &inherit)))
		xadd(&taken[index_of(gp)], 1);
	st_rel(&done_put, 1);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	long total = 0;
	for (int i = 0; i < 1024; i++)
		total += taken[i];
	cr_assert_eq(total, put, "took %ld of %d", total, put);
	cr_assert_eq(ld_rlx(&sched.runqsize), 0);
}
