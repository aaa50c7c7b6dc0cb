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
