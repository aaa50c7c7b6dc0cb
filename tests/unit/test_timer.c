/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the per-P timer heaps: timers fire in deadline order,
 * exactly once, only when due; deleting works before firing and reports
 * false after.
 */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

static struct p P;
#define NT 2000
static struct timer T[NT];
static int fired[NT];
static int64_t fired_when[NT];
static int nfired;

static void fire(void *arg, uint64_t seq, struct p *pp)
{
	int i = (int)(intptr_t)arg;
	cr_assert_eq(seq, (uint64_t)i + 1000, "seq passed through");
	cr_assert_eq(pp, &P);
	fired[i]++;
	fired_when[nfired++] = T[i].when;
}

static void setup(void)
{
	memset(&P, 0, sizeof P);
	memset(T, 0, sizeof T);
	memset(fired, 0, sizeof fired);
	nfired = 0;
	sched.gomaxprocs = 1;
	st_rlx(&sched.lastpoll, 1);	/* nobody polls: adding a timer may wakep */
	srand(42);
}

TestSuite(timer, .init = setup);

Test(timer, fire_in_order_once_when_due)
{
	for (int i = 0; i < NT; i++) {
		T[i].when = 1 + rand() % 100000;
		T[i].f = fire;
		T[i].arg = (void *)(intptr_t)i;
		T[i].seq = (uint64_t)i + 1000;
		timer_add(&T[i], &P);
	}
	cr_assert_eq(timers_len(&P), NT);
	int64_t min = INT64_MAX;
	for (int i = 0; i < NT; i++)
		if (T[i].when < min)
			min = T[i].when;
	cr_assert_eq(ld_rlx(&P.timers.minwhen), min);
	cr_assert_eq(timers_run(&P, &P, min - 1), min, "nothing due yet");
	cr_assert_eq(nfired, 0);
	for (int64_t now = 0; now <= 100000; now += 997)
		timers_run(&P, &P, now);
	timers_run(&P, &P, 100000);
	cr_assert_eq(nfired, NT);
	for (int i = 0; i < NT; i++)
		cr_assert_eq(fired[i], 1, "timer %d fired %d times", i, fired[i]);
	for (int i = 1; i < NT; i++)
		cr_assert(fired_when[i - 1] <= fired_when[i], "out of order at %d", i);
	cr_assert_eq(timers_len(&P), 0);
	cr_assert_eq(ld_rlx(&P.timers.minwhen), 0);
}

Test(timer, delete_before_and_after_firing)
{
	for (int i = 0; i < 100; i++) {
		T[i].when = 100 + i;
		T[i].f = fire;
		T[i].arg = (void *)(intptr_t)i;
		T[i].seq = (uint64_t)i + 1000;
		timer_add(&T[i], &P);
	}
	for (int i = 0; i < 100; i += 2)
		cr_assert(timer_del(&T[i]), "timer %d was queued", i);
	cr_assert_eq(timers_len(&P), 50);
	cr_assert_eq(ld_rlx(&P.timers.minwhen), 101);
	timers_run(&P, &P, 1000);
	for (int i = 0; i < 100; i++)
		cr_assert_eq(fired[i], i % 2, "timer %d", i);
	cr_assert(!timer_del(&T[1]), "a fired timer is not queued");
	cr_assert(!timer_del(&T[0]), "a deleted timer is not queued");
}
