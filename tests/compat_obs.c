/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_obs.c — the deadlock report and the thread dump (suite
 * "obs"). Each test runs tests/progs/obs_deadlock in a child process with
 * libgmp preloaded (never into this runner) and a timeout, and reads what
 * it printed on stderr and how it ended. Under NPTL these programs just
 * hang (or, for the dump, die of SIGQUIT silently): there is nothing to
 * compare, so NPTL runs only where the exit status is the point.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER "gmp: all threads are asleep - deadlock!\n"

static struct run run_obs(const char *mode, const char *debug, int timeout_s)
{
	char path[4096], env1[64];
	snprintf(path, sizeof path, "%s", prog_path("obs_deadlock"));
	snprintf(env1, sizeof env1, "GMPDEBUG=%s", debug);
	const char *argv[] = {path, mode, NULL};
	const char *env[] = {env1, NULL};
	return run_prog(argv, env, timeout_s, true);
}

static int count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* With deadlock=fatal the program is reported and exits 2 within a
 * second of its start (the report comes about 100 ms after the last
 * thread waits); stderr holds every string in `want`. */
static void reported(const char *mode, const char *const want[])
{
	double t0 = harness_now();
	struct run r = run_obs(mode, "deadlock=fatal", 10);
	double took = harness_now() - t0;
	if (run_code(&r) != 2)
		run_dump(mode, &r);
	cr_assert_eq(run_code(&r), 2, "%s: exit code %d%s, not 2", mode, run_code(&r),
		     r.timed_out ? " (timed out: no report)" : "");
	cr_assert_eq(count(r.err, HEADER), 1, "%s: the report is not there once", mode);
	cr_assert_lt(took, 1.0, "%s: reported after %.2f s, not within a second", mode, took);
	for (int i = 0; want[i]; i++)
		cr_assert(strstr(r.err, want[i]), "%s: the report lacks \"%s\":\n%s", mode, want[i],
			  r.err);
	run_free(&r);
}

#define WANT(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Two threads take two mutexes in opposite orders; main joins one. Each
 * is reported waiting for a mutex held by the other, with its function
 * in its backtrace; main waits in a join. */
Test(obs, mutex_order_deadlock_is_reported, .timeout = 30)
{
	reported("mutex", WANT("[waiting: mutex, ", "held by thread 3 (", "held by thread 2 (",
			       "in lock_a_then_b+", "in lock_b_then_a+",
			       "[waiting: thread join, ", "joining thread 2 (", "in main+"));
}

/* A thread waits on a condition variable nobody signals; main joins it. */
Test(obs, condvar_nobody_signals_is_reported, .timeout = 30)
{
	reported("cond", WANT("[waiting: condvar, ", ": condvar 0x", "in wait_forever+",
			      "[waiting: thread join, ", "in main+"));
}

/* The default (deadlock=report): the report is printed once and the
 * program keeps waiting, as under NPTL, until the test kills it. */
Test(obs, the_default_reports_once_and_keeps_waiting, .timeout = 30)
{
	struct run r = run_obs("mutex", "deadlock=report", 2);
	cr_assert(r.timed_out, "the program ended (code %d) instead of waiting", run_code(&r));
	cr_assert_eq(count(r.err, HEADER), 1, "the report is not there once:\n%s", r.err);
	run_free(&r);
}

/* Not deadlocks: every thread waits, but main waits where something from
 * outside may still come (a signal, a terminal, the network). Run 1.5 s
 * with deadlock=fatal: the program must still be waiting, unreported. */
static void not_reported(const char *mode)
{
	struct run r = run_obs(mode, "deadlock=fatal", 2);
	if (!r.timed_out || strstr(r.err, "deadlock"))
		run_dump(mode, &r);
	cr_assert(r.timed_out, "%s: ended with code %d", mode, run_code(&r));
	cr_assert_str_eq(r.out, "waiting\n");
	cr_assert(!strstr(r.err, "deadlock"), "%s: reported as a deadlock", mode);
	run_free(&r);
}

Test(obs, main_in_pause_is_not_a_deadlock, .timeout = 30)
{
	not_reported("pause");
}

Test(obs, main_in_sigwait_is_not_a_deadlock, .timeout = 30)
{
	not_reported("sigwait");
}

Test(obs, main_reading_a_descriptor_is_not_a_deadlock, .timeout = 30)
{
	not_reported("read");
}

Test(obs, main_in_epoll_wait_is_not_a_deadlock, .timeout = 30)
{
	not_reported("epoll");
}

/* obs_deadlock dump <n> with `debug` in GMPDEBUG, under libgmp or NPTL:
 * once it is ready, send it sig; it must die of sig. Returns its run. */
static struct run dump_by_signal(const char *n, const char *debug, int sig, bool preload)
{
	char path[4096], env1[64];
	snprintf(path, sizeof path, "%s", prog_path("obs_deadlock"));
	snprintf(env1, sizeof env1, "GMPDEBUG=%s", debug);
	const char *argv[] = {path, "dump", n, NULL};
	const char *env[] = {env1, NULL};
	struct bg b;
	bg_start(&b, argv, env, preload);
	cr_assert(bg_pump(&b, "ready\n", harness_now() + 30), "the program did not get ready");
	kill(b.pid, sig);
	struct run r = bg_finish(&b, harness_now() + 30);
	const char *how = preload ? "under libgmp" : "under NPTL";
	if (run_code(&r) != -sig)
		run_dump(how, &r);
	cr_assert_eq(run_code(&r), -sig, "%s: code %d, not signal %d", how, run_code(&r), sig);
	return r;
}

/* SIGQUIT to a program with 1,000 threads waiting and no handler of its
 * own: every thread is listed (1,001 with main) with its backtrace, then
 * the process dies of SIGQUIT, as it does under NPTL. */
Test(obs, sigquit_dumps_every_thread_then_kills, .timeout = 60)
{
	struct run r = dump_by_signal("1000", "deadlock=off", SIGQUIT, false);
	run_free(&r);
	r = dump_by_signal("1000", "deadlock=off", SIGQUIT, true);
	cr_assert(strstr(r.err, "gmp: signal 3: every thread\n"), "no dump header");
	cr_assert_eq(count_prefix(r.err, "thread "), 1001, "threads listed: %d",
		     count_prefix(r.err, "thread "));
	cr_assert_geq(count(r.err, " in wait_forever+"), 1000);
	run_free(&r);
}

/* Run tests/trace_check.py on a trace file. */
static struct run trace_check(const char *trace, const char *creates)
{
	char script[4096];
	snprintf(script, sizeof script, "%s/tests/trace_check.py", TEST_SRCDIR);
	const char *check[] = {"/usr/bin/python3", script, trace, creates, NULL};
	struct run c = run_prog(check, NULL, 60, false);
	if (run_code(&c) != 0)
		run_dump("trace_check.py", &c);
	return c;
}

/* Run tests/progs/<prog> <arg> with GMPTRACE set (and `extra` in the
 * environment, may be NULL) under libgmp; it must end with `code` (see
 * run_code); then check the trace with `creates` (trace_check.py's
 * argument). Returns the check's run, which passed. */
static struct run traced(const char *prog, const char *arg, const char *extra, int code,
			 const char *creates)
{
	char trace[] = "/tmp/gmp-trace-XXXXXX", env1[64], path[4096];
	int fd = mkstemp(trace);
	cr_assert(fd >= 0);
	close(fd);
	snprintf(env1, sizeof env1, "GMPTRACE=%s", trace);
	snprintf(path, sizeof path, "%s", prog_path(prog));
	const char *argv[] = {path, arg, NULL};
	const char *env[] = {env1, extra, NULL};
	struct run r = run_prog(argv, env, 30, true);
	if (run_code(&r) != code)
		run_dump(prog, &r);
	cr_assert_eq(run_code(&r), code, "%s %s with GMPTRACE: code %d", prog, arg, run_code(&r));
	run_free(&r);
	struct run c = trace_check(trace, creates);
	unlink(trace);
	cr_assert_eq(run_code(&c), 0, "the trace does not check out:\n%s%s", c.out, c.err);
	return c;
}

/* GMPTRACE: 8 threads spinning on 2 processors (preempted every 10 ms)
 * for 1 s write a trace that tests/trace_check.py reads as valid JSON in
 * Chrome's trace-event format, whose running spans never overlap on any M,
 * with 8 thread creations and 8 exits, as the program made. */
Test(obs, event_trace_is_valid_json_with_consistent_spans, .timeout = 60)
{
	struct run c = traced("sig_preempt", "fair", "GMPMAXPROCS=2", 0, "8");
	const char *on = strstr(c.out, " running spans on ");
	cr_assert(on && atoi(on + strlen(" running spans on ")) >= 2,
		  "spans not on both processors' Ms: %s", c.out);
	run_free(&c);
}

/* GMPDEBUG=dump=SIGUSR2: SIGUSR2, which the program does not handle,
 * lists the threads (11 with main), then kills the process as SIGUSR2's
 * default action does. */
Test(obs, dump_on_another_signal, .timeout = 60)
{
	struct run r = dump_by_signal("10", "deadlock=off,dump=SIGUSR2", SIGUSR2, true);
	cr_assert(strstr(r.err, "gmp: signal 12: every thread\n"), "no dump header: %s", r.err);
	cr_assert_eq(count_prefix(r.err, "thread "), 11);
	run_free(&r);
}

/* A thread calls abort() while others sleep: the process dies of SIGABRT
 * as under NPTL, and the trace written out on the way is valid. */
Test(obs, event_trace_survives_abort, .timeout = 60)
{
	struct run c = traced("sig_crash", "abort", NULL, -SIGABRT, "-");
	run_free(&c);
}
