/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_tids.c — compat tests of thread ids (suite "tids"). Each
 * test runs tests/progs/tids in a child process with a timeout: first
 * under NPTL, where it must pass, then with libgmp preloaded (never into
 * this runner), with the default processors and with one, and compares
 * output and exit status.
 *
 * Under libgmp a thread is not an OS thread: it runs on whichever one is
 * free. Its id must not follow the OS thread: gettid() is its own for
 * its whole life, and a signal or an affinity mask sent to that id
 * reaches it wherever it runs.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define RUN_TIMEOUT 30
#define TEST_TIMEOUT (3 * RUN_TIMEOUT + 10)

static void same_as_nptl(const char *sub)
{
	sub_same_as_nptl("tids", sub, RUN_TIMEOUT);
}

/* 1,000 threads: gettid() and syscall(SYS_gettid) agree, stay the same
 * over 100 yields, differ between live threads; main's is the pid. */
Test(tids, ids_are_distinct_and_constant, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("ids");
}

/* tgkill, SYS_tgkill and SYS_tkill to 50 threads, parked and running:
 * each handler runs on its own thread; an ended thread's id: ESRCH. */
Test(tids, tgkill_reaches_the_thread_of_the_id, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("tgkill");
}

/* sched_setaffinity(tid) from main pins that thread, and
 * sched_getaffinity(tid) reads its mask back. */
Test(tids, setaffinity_of_a_tid_pins_that_thread, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("affinity");
}

/* 8 named threads read their own name and state in /proc/thread-self and
 * /proc/self/task/<id> (open and fopen); main reads each one's name by
 * its id; /proc/self/task lists what Threads: counts. */
Test(tids, proc_files_of_a_thread_are_its_own, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("proc");
}

/* Policy, priority, nice value and I/O priority set by another thread's
 * id are that thread's, read back by id and by the thread itself. */
Test(tids, scheduling_calls_take_a_thread_id, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("sched");
}

/* A SIGEV_THREAD_ID timer for a thread's id signals that thread. */
Test(tids, thread_timer_signals_its_thread, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("timer");
}

/* CPython: threading.get_native_id() in 200 threads, distinct and
 * constant; main's is the process id. Same output as under NPTL. */
Test(tids, python_native_ids_are_distinct, .timeout = TEST_TIMEOUT)
{
	char script[4096];
	snprintf(script, sizeof script, "%s/tests/progs/native_ids.py", TEST_SRCDIR);
	const char *argv[] = {"/usr/bin/python3", script, NULL};
	struct run n = run_prog(argv, NULL, RUN_TIMEOUT, false);
	if (run_code(&n) != 0)
		run_dump("under NPTL", &n);
	cr_assert_eq(run_code(&n), 0, "native_ids.py fails under NPTL");
	struct run g = run_prog(argv, NULL, RUN_TIMEOUT, true);
	if (run_code(&g) != 0 || strcmp(n.out, g.out) != 0) {
		run_dump("under libgmp", &g);
		run_show_difference(n.out, g.out);
	}
	cr_assert_eq(run_code(&g), 0, "native_ids.py under libgmp: exit code %d", run_code(&g));
	cr_assert_str_eq(g.out, n.out);
	run_free(&n);
	run_free(&g);
}

/* A pipe whose signals another thread owns by its id (F_SETOWN_EX,
 * F_OWNER_TID) signals that thread, with plain SIGIO and with its
 * F_SETSIG signal; F_GETOWN_EX, F_GETOWN, F_GETSIG read back. */
Test(tids, descriptor_signals_go_to_the_owner_thread, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("owner");
}

/* Two threads block in an inline read(2); main lists /proc/self/task and
 * opens each listed id's stat and syscall: every id opens the task of
 * that id, and both readers are found in read. The process id, which the
 * listing shows as the first OS thread's, opened the OS thread main ran
 * on: that one was seen twice and the first OS thread never. */
Test(tids, proc_task_listing_and_opening_agree, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("scan");
}
