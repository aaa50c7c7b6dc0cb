/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_live.c — compat tests of liveness (suite "live"). Each
 * test runs tests/progs/live_loops in a child process with a timeout:
 * first under NPTL, where it must pass, then with libgmp preloaded (never
 * into this runner), with the default processors and with one, and
 * compares output and exit status.
 *
 * In every program some threads never wait: they call into the C
 * library or libgmp in a tight loop, where asynchronous preemption must
 * not stop them. Under libgmp they give their processor up only at the
 * doors of those calls; without that the main thread's sleep never ends
 * (or a signal's handler never runs) and the test fails at its timeout.
 * Each program takes about 1 s under NPTL.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_TIMEOUT 30
#define TEST_TIMEOUT (3 * RUN_TIMEOUT + 10)

/* One run of live_loops sub (see run_sub). */
static struct run run_live(const char *sub, int procs, const char *extra)
{
	return run_sub("live_loops", sub, procs, extra, RUN_TIMEOUT);
}

/* sub passes under NPTL, and prints the same and exits 0 under libgmp
 * with its default processors and with one. */
static void same_as_nptl(const char *sub)
{
	sub_same_as_nptl("live_loops", sub, RUN_TIMEOUT);
}

/* ---- threads in a loop of calls, main asleep ------------------------------------- */

/* 4 threads read() a cached file in a loop; main sleeps 1 s, then stops
 * and joins them. The reads never block, so the loopers' processor is
 * in a system call or in libc nearly all the time. */
Test(live, read_loop_lets_main_wake, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("read");
}

/* The same run on one processor shows its preemptions at doors in
 * libgmp's statistics. */
Test(live, read_loop_yields_at_doors, .timeout = TEST_TIMEOUT)
{
	char stats[] = "/tmp/gmp-live-stats-XXXXXX", env[64];
	int fd = mkstemp(stats);
	cr_assert(fd >= 0);
	close(fd);
	snprintf(env, sizeof env, "GMP_STATS=%s", stats);
	struct run r = run_live("read", 1, env);
	FILE *f = fopen(stats, "r");
	char line[2048] = "";
	long n = -1;
	if (f) {
		while (fgets(line, sizeof line, f)) {
			char *p = strstr(line, "door_preemptions=");
			if (p)
				n = atol(p + strlen("door_preemptions="));
		}
		fclose(f);
	}
	unlink(stats);
	if (run_code(&r) != 0)
		run_dump("under libgmp, GMPMAXPROCS=1", &r);
	cr_assert_eq(run_code(&r), 0, "read under libgmp, GMPMAXPROCS=1: exit code %d",
		     run_code(&r));
	cr_assert_gt(n, 0, "no preemption at a door in 1 s of 4 reading threads (%ld)", n);
	run_free(&r);
}

Test(live, pread_loop_lets_main_wake, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("pread");
}

/* syscall(SYS_getpid): the program's own system call, made through
 * glibc's syscall(), which libgmp interposes but does not interpret */
Test(live, syscall_loop_lets_main_wake, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("getpid");
}

Test(live, sched_yield_loop_lets_main_wake, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("yield");
}

Test(live, trylock_loop_lets_main_wake, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("trylock");
}

Test(live, sem_post_trywait_loop_lets_main_wake, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sem");
}

Test(live, clock_gettime_loop_lets_main_wake, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("clock");
}

/* ---- signal storms ----------------------------------------------------------------- */

/* 2 threads kill() the process with SIGUSR1 and SIGUSR2 as fast as they
 * can while a worker loops on pthread_mutex_trylock; each sender waits
 * now and then for its signal's handler to have run (a lost signal
 * hangs it); main sleeps 1 s, stops them, and waits for one more run of
 * each handler. */
Test(live, signal_storm_at_the_process_ends, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("storm");
}

/* The same with the senders and main blocking both signals: every one
 * of them is the looping worker's to handle, at its doors. */
Test(live, signal_storm_taken_by_a_looping_thread_ends, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("stormblock");
}

/* pthread_kill storms at the looping worker. */
Test(live, pthread_kill_storm_at_a_looping_thread_ends, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("tkill");
}

/* The worker, the only thread that takes the signals, ends in the middle
 * of the storm, with signals sent to the process on their way to it;
 * main then unblocks them. Linux keeps a process signal pending until a
 * thread takes it: so must libgmp, or a sender waits forever for its
 * handler. */
Test(live, process_signals_outlive_the_thread_they_were_routed_to, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("stormexit");
}

/* A handler that writes a wake-up descriptor main polls (as CPython's
 * event loops do), with signals arriving while main is inside poll's and
 * select's own work: the handler must not run there (it would take the
 * descriptor's lock poll holds, or wake the thread it interrupts). */
Test(live, handler_writing_the_polled_descriptor_ends, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("wakefd");
}

/* ---- every runnable thread runs ---------------------------------------------------- */

/* With every processor taken by threads that never wait, threads woken
 * by a timer, a pipe (the netpoller), a condition variable and a signal
 * are each woken 100 times, one round a millisecond: each wake-up must
 * be taken within a few slices, or the program's 20 s bound runs out
 * (NPTL takes about 0.2 s). */
Test(live, every_kind_of_wakeup_runs_among_loopers, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("wakeups");
}

/* 2 threads take 2,000 signals each in sigwait, each sent by its own
 * sender as soon as the last was taken, so that it often arrives while
 * the waiter is between queueing itself and parking; loopers keep every
 * processor busy. A signal found pending at the park must not leave the
 * waiter claimable by the router that delivers it (that made the router
 * wait for ever on a thread that was never going to park: an abort). */
Test(live, sigwait_takes_signals_arriving_as_it_parks, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sigwaits");
}
