/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_sigq.c — the queue of signals on their way to Gs
 * (core/sigq.c): a standard signal is pending at most once for the
 * process and once per thread, also once routed to a thread that has not
 * yet taken it; real-time signals queue every instance; a thread's own
 * signals are taken before the process's; a process's signal is taken
 * while it is being routed.
 */
#include "unit.h"
#include "core/sigq.h"

#include <pthread.h>
#include <signal.h>

static struct wg done_wg;

static void quiet(void *arg)
{
	(void)arg;
	wg_done(&done_wg);
}

static siginfo_t info_of(int sig, int code)
{
	siginfo_t si = {0};
	si.si_signo = sig;
	si.si_code = code;
	return si;
}

/* main blocks sig; gp, made but not yet run (one P, which main keeps),
 * does not: every process signal is routed to gp. */
static struct g *taker_for(struct g *mg, int sig)
{
	sigq_mask_change(0, sigq_bit(sig));
	st_rel(&mg->sigmask, sigq_bit(sig));
	st_rlx(&done_wg.left, 1);
	return unit_go(quiet, NULL);
}

/* The pool holds 512 records: were every kill of a routed signal a
 * record of its own, these posts would fail from the 513th on. */
Test(sigq, a_routed_standard_signal_merges_with_later_ones, .timeout = 30)
{
	struct g *mg = core_up(1);
	struct g *gp = taker_for(mg, SIGUSR1);
	for (int i = 0; i < 2000; i++) {
		siginfo_t si = info_of(SIGUSR1, SI_USER);
		cr_assert(sigq_post(NULL, &si), "post %d failed", i);
		sigq_poll(NULL);
	}
	cr_assert(sigq_pending_for(gp), "not routed to the thread that takes it");
	cr_assert_eq(sigq_pending_mask(gp), sigq_bit(SIGUSR1));
	siginfo_t out;
	cr_assert(sigq_take_mask(gp, sigq_bit(SIGUSR1), true, &out));
	cr_assert_eq(out.si_signo, SIGUSR1);
	cr_assert_not(sigq_take_mask(gp, sigq_bit(SIGUSR1), true, &out),
		      "a standard signal was pending more than once");
	cr_assert_eq(sigq_pending_mask(gp), 0);
	wg_wait(&done_wg);
}

/* An OS thread routes (as sysmon does) while main posts: a record caught
 * moving from posted to routed is still the one pending instance. */
static _Atomic bool routing_stop;

static void *router(void *arg)
{
	(void)arg;
	while (!ld_acq(&routing_stop)) {
		st_rel(&sched.sigpoll, 1);
		sigq_poll(NULL);
	}
	return NULL;
}

Test(sigq, a_standard_signal_merges_while_it_is_being_routed, .timeout = 60)
{
	struct g *mg = core_up(1);
	struct g *gp = taker_for(mg, SIGUSR1);
	pthread_t t;
	st_rel(&routing_stop, false);
	cr_assert_eq(pthread_create(&t, NULL, router, NULL), 0);
	siginfo_t out;
	for (int round = 0; round < 5000; round++) {
		for (int i = 0; i < 200; i++) {
			siginfo_t si = info_of(SIGUSR1, SI_USER);
			cr_assert(sigq_post(NULL, &si), "round %d: post %d failed", round, i);
		}
		while (!sigq_pending_for(gp))
			sigq_poll(NULL);
		cr_assert(sigq_take_mask(gp, sigq_bit(SIGUSR1), true, &out));
		cr_assert_not(sigq_take_mask(gp, sigq_bit(SIGUSR1), true, &out),
			      "round %d: a standard signal was pending more than once", round);
	}
	st_rel(&routing_stop, true);
	pthread_join(t, NULL);
	cr_assert_eq(sigq_pending_mask(gp), 0);
	wg_wait(&done_wg);
}

/* A thread's own instance and the process's are two: the thread's is
 * taken first. */
Test(sigq, thread_and_process_instances_are_kept_apart, .timeout = 30)
{
	struct g *mg = core_up(1);
	struct g *gp = taker_for(mg, SIGUSR2);
	siginfo_t p = info_of(SIGUSR2, SI_USER), t = info_of(SIGUSR2, SI_TKILL);
	for (int i = 0; i < 3; i++) {
		cr_assert(sigq_post(NULL, &p));
		sigq_poll(NULL);
		cr_assert(sigq_post(gp, &t));
		sigq_poll(NULL);
	}
	siginfo_t out;
	cr_assert(sigq_take_mask(gp, sigq_bit(SIGUSR2), true, &out));
	cr_assert_eq(out.si_code, SI_TKILL, "the thread's own first");
	cr_assert(sigq_take_mask(gp, sigq_bit(SIGUSR2), true, &out));
	cr_assert_eq(out.si_code, SI_USER);
	cr_assert_not(sigq_take_mask(gp, sigq_bit(SIGUSR2), true, &out));
	wg_wait(&done_wg);
}

/* A process's signal is taken however far its routing got: posted, being
 * routed by sysmon (which every post wakes) or routed. A take that came
 * while sysmon held the record found nothing. */
Test(sigq, a_process_signal_is_taken_while_it_is_routed, .timeout = 30)
{
	struct g *mg = core_up(1);
	struct g *gp = taker_for(mg, SIGUSR1);
	siginfo_t p = info_of(SIGUSR1, SI_USER), out;
	for (int i = 0; i < 20000; i++) {
		cr_assert(sigq_post(NULL, &p), "post %d failed", i);
		for (int spin = i % 64; spin > 0; spin--)
			arch_cpu_relax();
		cr_assert(sigq_take_mask(gp, sigq_bit(SIGUSR1), true, &out),
			  "round %d: the pending signal was not taken", i);
	}
	wg_wait(&done_wg);
}

/* Real-time signals queue: every instance is taken, in posting order. */
Test(sigq, real_time_instances_queue, .timeout = 30)
{
	struct g *mg = core_up(1);
	int rt = SIGRTMIN + 2;
	struct g *gp = taker_for(mg, rt);
	for (int i = 0; i < 100; i++) {
		siginfo_t si = info_of(rt, SI_QUEUE);
		si.si_value.sival_int = i;
		cr_assert(sigq_post(NULL, &si));
		sigq_poll(NULL);
	}
	siginfo_t out;
	for (int i = 0; i < 100; i++) {
		cr_assert(sigq_take_mask(gp, sigq_bit(rt), true, &out), "instance %d missing", i);
		cr_assert_eq(out.si_value.sival_int, i);
	}
	cr_assert_not(sigq_take_mask(gp, sigq_bit(rt), true, &out));
	wg_wait(&done_wg);
}
