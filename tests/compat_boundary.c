/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_boundary.c — compat tests of the boundary between libgmp
 * and the kernel (suite "boundary"). Each test runs tests/progs/boundary
 * in a child process with a timeout: first under NPTL, where it must
 * pass, then with libgmp preloaded (never into this runner), with the
 * default processors and with one, and compares output and exit status.
 *
 * Every program reaches the kernel past libgmp's functions: an inline
 * system call instruction, splice, sendfile, glibc's own reads behind
 * fgets and fread, a program exec'd on a shared socket. What it finds
 * there must be the flags it set (a blocking descriptor blocks), and no
 * signal it did not ask for (a wait the kernel never restarts is not
 * interrupted).
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <unistd.h>

#define RUN_TIMEOUT 30
#define TEST_TIMEOUT (3 * RUN_TIMEOUT + 10)

static void same_as_nptl(const char *sub)
{
	sub_same_as_nptl("boundary", sub, RUN_TIMEOUT);
}

/* Reads and writes made with the program's own `syscall` instruction on
 * a pipe and a socket pair, the other side 100 ms late: each blocks and
 * moves everything (not EAGAIN at once). */
Test(boundary, inline_syscalls_block_on_pipes_and_sockets, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("inline");
}

/* splice and tee from an empty pipe, sendfile of 400 KiB to a slow
 * reader, copy_file_range into a pipe and between files. */
Test(boundary, splice_tee_sendfile_copy_file_range_block, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("splice");
}

/* fgets on an fdopen'ed socket and fread on a popen stream, in 50
 * threads at once. */
Test(boundary, stdio_reads_inside_glibc_block, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("stdio");
}

/* A forked child execs a program on one end of a socket pair that the
 * parent keeps, and both check every byte. */
Test(boundary, exec_child_shares_a_socket, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("forkexec");
}

/* epoll_wait, poll and nanosleep made with the program's own `syscall`
 * instruction beside spinning threads: the kernel never restarts these
 * after a signal handler, so no signal of libgmp's may reach the thread
 * (sysmon takes the processor of a thread blocked there without one). */
Test(boundary, inline_waits_never_see_eintr, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("noeintr");
}

/* 2 threads blocked in inline reads for 1 s, 8 spinning: every spinner
 * runs meanwhile, with the default processors and with one. */
Test(boundary, threads_blocked_unseen_leave_the_processors, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("unseen");
}

/* liburing: io_uring_wait_cqe (io_uring_enter, never restarted) for a
 * recv, a read and an accept that other threads satisfy 200 ms later,
 * and a wait with a timeout, beside spinning threads: no -EINTR. */
static void uring(const char *sub)
{
	if (access(prog_path("uring"), X_OK) != 0)
		cr_skip_test("liburing was not found when the tests were built");
	sub_same_as_nptl("uring", sub, RUN_TIMEOUT);
}

Test(boundary, io_uring_wait_is_not_interrupted, .timeout = TEST_TIMEOUT)
{
	uring("wait");
}

Test(boundary, io_uring_wait_with_timeout_is_not_interrupted, .timeout = TEST_TIMEOUT)
{
	uring("timeout");
}

/* select interrupted by a signal leaves the sets as Linux does, and a
 * retry with them works (CPython's asyncio select loop does this). */
Test(boundary, select_interrupted_keeps_its_sets, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("select");
}

/* poll and select on nothing in a process of one thread, ended by a
 * signal: the OS thread that takes it is idle, and sysmon routes it. */
Test(boundary, a_signal_ends_a_wait_on_nothing, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("signalonly");
}

/* signalonly, then select, in one process, 20 times under libgmp: the
 * wake-ups of the waits on nothing, made before libgmp watched any
 * descriptor, once left the poller's wake-up flag set with nothing
 * written, and the M that then waited for the pipe slept through the
 * writer's 100 ms timer for good (about 1 run in 25). */
Test(boundary, a_timer_fires_after_waits_on_nothing, .timeout = 3 * RUN_TIMEOUT + 10)
{
	same_as_nptl("thenselect");
	for (int i = 0; i < 20; i++) {
		struct run r = run_sub("boundary", "thenselect", 0, NULL, 10);
		if (run_code(&r) != 0)
			run_dump("under libgmp", &r);
		cr_assert_eq(run_code(&r), 0, "run %d of thenselect under libgmp: exit code %d", i,
			     run_code(&r));
		run_free(&r);
	}
}

/* A process-shared semaphore, a named one and a process-shared barrier
 * that a forked child posts or reaches: another process's futex, which
 * only glibc's wait sees (multiprocessing's locks are such semaphores). */
Test(boundary, process_shared_semaphores_and_barriers_wake, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("psem");
}

/* F_GETFL and /proc/self/fdinfo agree for every kind of descriptor
 * libgmp polls, after F_SETFL, FIONBIO and dup. */
Test(boundary, kernel_flags_are_the_programs, .timeout = TEST_TIMEOUT)
{
	same_as_nptl("flags");
}
