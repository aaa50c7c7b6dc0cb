/* SPDX-License-Identifier: MIT */
/*
 * tests/compat.c — unmodified programs under libgmp. Each test runs a
 * program from tests/progs in a child process with LD_PRELOAD set for that
 * child only, kills it after a timeout, and checks its real output and
 * exit status. Where glibc's behaviour is the reference (error codes), the
 * same program also runs under NPTL and the outputs must be identical.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

/* Run a program under libgmp; require exit 0 and a line starting with
 * "PASS". Returns the run (caller frees) for further checks. */
static struct run expect_pass(const char *prog, const char *const args[],
			      const char *const env[], int timeout)
{
	const char *argv[16] = {prog_path(prog)};
	char path[4096];
	snprintf(path, sizeof path, "%s", argv[0]);
	argv[0] = path;
	for (int i = 0; args && args[i]; i++)
		argv[i + 1] = args[i];
	struct run r = run_prog(argv, env, timeout, true);
	if (run_code(&r) != 0 || count_prefix(r.out, "PASS") != 1)
		run_dump(prog, &r);
	cr_assert_eq(run_code(&r), 0, "%s: exit code %d", prog, run_code(&r));
	cr_assert_eq(count_prefix(r.out, "PASS"), 1, "%s: no PASS line", prog);
	return r;
}

/* Run under libgmp; require exit 0 and a final DONE line. */
static struct run expect_pass_or_done(const char *prog, const char *arg)
{
	char path[4096];
	snprintf(path, sizeof path, "%s", prog_path(prog));
	const char *argv[] = {path, arg, NULL};
	struct run r = run_prog(argv, NULL, 30, true);
	if (run_code(&r) != 0 || !strstr(r.out, "DONE"))
		run_dump(prog, &r);
	cr_assert_eq(run_code(&r), 0);
	cr_assert(strstr(r.out, "DONE"));
	return r;
}

Test(compat, create_join_storm, .timeout = 120)
{
	struct run r = expect_pass("create_join_storm", (const char *[]){"100", "500", NULL}, NULL, 100);
	cr_assert(strstr(r.out, "threads=50000"));
	run_free(&r);
}

/* 10,000 threads sleep 200 ms at a time on 2 processors. (At 20 ms they
 * would ask for 500,000 wake-ups a second, more than this machine's
 * switches can give: the main thread, preempted like any other, would
 * then take tens of seconds to create them all, and NPTL does not finish
 * at all.) */
Test(compat, ten_thousand_sleepers_on_few_os_threads, .timeout = 120)
{
	const char *env[] = {"GMPMAXPROCS=2", NULL};
	struct run r = expect_pass("sleepers", (const char *[]){"10000", "200", NULL}, env, 100);
	long os = -1;
	const char *p = strstr(r.out, "os_threads=");
	cr_assert(p, "no os_threads in output");
	os = atol(p + 11);
	cr_assert(os >= 1 && os <= 2 + 4, "OS threads %ld with GMPMAXPROCS=2", os);
	run_free(&r);
}

Test(compat, hundred_threads_print_intact_lines, .timeout = 60)
{
	struct run r = expect_pass("print_lines", NULL, (const char *[]){"GMPMAXPROCS=2", NULL}, 50);
	/* every stdout line is whole and appears once */
	static unsigned char seen[100][200];
	int n = 0;
	for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
		long id, v;
		int i;
		char word[32];
		if (strncmp(line, "PASS", 4) == 0)
			continue;
		int k = sscanf(line, "line %ld %d %31s %ld", &id, &i, word, &v);
		cr_assert(k == 4 && id >= 0 && id < 100 && i >= 0 && i < 200 &&
				  strcmp(word, "abcdefghijklmnopqrstuvwxyz") == 0 && v == id * 1000 + i &&
				  !seen[id][i],
			  "torn or repeated line: \"%s\"", line);
		seen[id][i] = 1;
		n++;
	}
	cr_assert_eq(n, 100 * 200, "%d lines", n);
	run_free(&r);
}

Test(compat, std_thread_create_join, .timeout = 60)
{
	struct run r = expect_pass("stdthread", (const char *[]){"500", NULL},
				   (const char *[]){"GMPMAXPROCS=2", NULL}, 50);
	run_free(&r);
}

Test(compat, tls_torture_with_migrations, .timeout = 120)
{
	struct run r = expect_pass("tls_torture", (const char *[]){"--expect-migration", NULL},
				   (const char *[]){"GMPMAXPROCS=2", NULL}, 100);
	run_free(&r);
}

Test(compat, tls_torture_one_processor, .timeout = 120)
{
	struct run r = expect_pass("tls_torture", NULL, (const char *[]){"GMPMAXPROCS=1", NULL}, 100);
	run_free(&r);
}

Test(compat, bad_input_same_errors_as_nptl, .timeout = 60)
{
	const char *argv[] = {NULL, NULL};
	char path[4096];
	snprintf(path, sizeof path, "%s", prog_path("bad_input"));
	argv[0] = path;
	struct run nptl = run_prog(argv, NULL, 30, false);
	struct run gmp = run_prog(argv, NULL, 30, true);
	if (run_code(&gmp) != 0 || strcmp(nptl.out, gmp.out) != 0) {
		run_dump("bad_input under NPTL", &nptl);
		run_dump("bad_input under libgmp", &gmp);
	}
	cr_assert_eq(run_code(&nptl), 0);
	cr_assert_eq(run_code(&gmp), 0);
	cr_assert(strstr(gmp.out, "DONE"));
	cr_assert_str_eq(gmp.out, nptl.out, "libgmp's results differ from NPTL's");
	run_free(&nptl);
	run_free(&gmp);
}

/* prog (with one argument, or none when arg is NULL) prints the same
 * under NPTL and under libgmp with env, ending with DONE. */
static void same_as_nptl_arg(const char *prog, const char *arg, const char *const env[],
			     int timeout)
{
	char path[4096];
	snprintf(path, sizeof path, "%s", prog_path(prog));
	const char *argv[] = {path, arg, NULL};
	struct run nptl = run_prog(argv, NULL, timeout, false);
	struct run gmp = run_prog(argv, env, timeout, true);
	if (run_code(&gmp) != 0 || run_code(&nptl) != 0 || strcmp(nptl.out, gmp.out) != 0) {
		run_dump("under NPTL", &nptl);
		run_dump("under libgmp", &gmp);
	}
	cr_assert_eq(run_code(&nptl), 0, "%s under NPTL", prog);
	cr_assert_eq(run_code(&gmp), 0, "%s under libgmp", prog);
	cr_assert(strstr(gmp.out, "DONE"));
	cr_assert_str_eq(gmp.out, nptl.out, "%s: libgmp's output differs from NPTL's", prog);
	run_free(&nptl);
	run_free(&gmp);
}

/* prog prints the same under NPTL and under libgmp on 2 processors and
 * on 1. */
static void same_as_nptl(const char *prog, int timeout)
{
	same_as_nptl_arg(prog, NULL, (const char *[]){"GMPMAXPROCS=2", NULL}, timeout);
	same_as_nptl_arg(prog, NULL, (const char *[]){"GMPMAXPROCS=1", NULL}, timeout);
}

Test(compat, deferred_cancellation_same_as_nptl, .timeout = 60)
{
	same_as_nptl("cancel", 30);
}

Test(compat, signals_interrupt_sleeps_same_as_nptl, .timeout = 120)
{
	same_as_nptl("signals", 50);
}

/* A program whose malloc is jemalloc (as redis-server's is). libgmp's
 * start-up allocates, and jemalloc's first malloc locks mutexes and
 * creates a key: libgmp aborted ("re-entered itself"). libgmp's probe of
 * malloc's per-thread words, made on a scratch TCB, left jemalloc a
 * thread whose memory was gone: mallctl then crashed. Skipped where
 * configure did not find jemalloc. */
Test(compat, jemalloc_as_the_programs_malloc, .timeout = 60)
{
	if (access(prog_path("jemalloc_threads"), X_OK) != 0)
		cr_skip("tests/progs/jemalloc_threads was not built (no libjemalloc-dev)");
	same_as_nptl("jemalloc_threads", 30);
}

/* A pipe dup2'd onto standard output and input and used through stdio:
 * stdio's own write must block on a full pipe and its read wait for
 * data. libgmp's pipes are non-blocking in the kernel, and stdio got
 * EAGAIN (a C++ program's cout failed after 64 KiB). */
Test(compat, stdio_on_a_pipe_dup2ed_onto_stdout_and_stdin, .timeout = 60)
{
	same_as_nptl("stdio_dup2", 20);
}

/* prctl(PR_SET_NAME) names the calling thread (Rust's std does so), and
 * PR_GET_NAME reads it, both agreeing with pthread_[gs]etname_np; the
 * name does not leak to the thread that next runs on the OS thread. */
Test(compat, prctl_names_the_thread, .timeout = 60)
{
	same_as_nptl("prctl_name", 20);
}

/* The program's code that libgmp calls back (a pthread_once routine, a
 * key destructor) blocks on stdout's lock, held by a thread that must run
 * to let go; on one processor libgmp must take the processor from it as
 * from the program's own blocking calls. The same after a vfork child
 * exec'd (its exec must leave nothing behind in the parent's thread). */
Test(compat, callbacks_that_block_leave_others_running, .timeout = 60)
{
	const char *const one[] = {"GMPMAXPROCS=1", NULL};
	same_as_nptl_arg("callback_block", "once", one, 20);
	same_as_nptl_arg("callback_block", "dtor", one, 20);
	same_as_nptl_arg("callback_block", "vfork", one, 20);
}

/* set_tid_address is the thread's: its word is cleared and a futex
 * waiter on it woken when the thread ends (not when the OS thread it ran
 * on does, which never comes), and PR_GET_TID_ADDRESS reads it back (25
 * detached threads); glibc's own word, read with PR_GET_TID_ADDRESS, is
 * cleared too (25 joinable ones). */
Test(compat, set_tid_address_word_cleared_when_the_thread_ends, .timeout = 60)
{
	same_as_nptl("tid_address", 20);
}

/* Where glibc 2.36 hangs (a timed join with tv_nsec = 1e9 retries its
 * futex wait forever), libgmp answers EINVAL. */
Test(compat, timedjoin_bad_nanoseconds_is_einval, .timeout = 30)
{
	struct run r = expect_pass_or_done("bad_input", "--beyond-glibc");
	cr_assert(strstr(r.out, "timedjoin nsec=1e9                       EINVAL"), "%s", r.out);
	run_free(&r);
}

/* A malformed GMPMAXPROCS is reported once, by name, and the default is
 * used: the program still runs. */
static void bad_env(const char *assignment, const char *needle)
{
	const char *env[] = {assignment, NULL};
	struct run r = expect_pass("create_join_storm", (const char *[]){"2", "10", NULL}, env, 30);
	cr_assert(strstr(r.err, needle), "stderr lacks \"%s\": %s", needle, r.err);
	cr_assert_eq(count_prefix(r.err, "gmp:"), 1, "expected one message: %s", r.err);
	run_free(&r);
}

Test(compat, gmpmaxprocs_abc, .timeout = 30)
{
	bad_env("GMPMAXPROCS=abc", "GMPMAXPROCS=\"abc\": expected an integer from 1 to 1024");
}

Test(compat, gmpmaxprocs_zero_and_junk, .timeout = 60)
{
	bad_env("GMPMAXPROCS=0", "GMPMAXPROCS=\"0\"");
	bad_env("GMPMAXPROCS=2x", "GMPMAXPROCS=\"2x\"");
	bad_env("GMPMAXPROCS=99999", "GMPMAXPROCS=\"99999\"");
}

Test(compat, gmpdebug_unknown_key, .timeout = 30)
{
	bad_env("GMPDEBUG=bogus=1", "unknown key \"bogus\"");
}

Test(compat, schedtrace_prints_sched_lines, .timeout = 30)
{
	const char *env[] = {"GMPDEBUG=schedtrace=10", "GMPMAXPROCS=2", NULL};
	struct run r = expect_pass("sleepers", (const char *[]){"200", NULL}, env, 30);
	cr_assert(count_prefix(r.err, "SCHED ") >= 2, "stderr: %s", r.err);
	cr_assert(strstr(r.err, "gomaxprocs=2"));
	cr_assert_eq(count_prefix(r.err, "  P0:"), 0, "no detail without scheddetail");
	run_free(&r);
}

Test(compat, scheddetail_lists_p_m_and_waiting_threads, .timeout = 30)
{
	const char *env[] = {"GMPDEBUG=schedtrace=20,scheddetail=1", "GMPMAXPROCS=2", NULL};
	struct run r = expect_pass("sleepers", (const char *[]){"50", NULL}, env, 30);
	cr_assert(count_prefix(r.err, "  P0: status=") >= 1, "stderr: %s", r.err);
	cr_assert(count_prefix(r.err, "  P1: status=") >= 1);
	cr_assert(count_prefix(r.err, "  M0: ") >= 1);
	cr_assert(strstr(r.err, "(waiting sleep)"), "a sleeping thread is shown waiting");
	run_free(&r);
}

/* Running out of address space makes pthread_create return EAGAIN. The
 * limits differ in where the address space runs out: at 1800 and 1900 MiB
 * a new stack arena fits only with a single slot (which once gave every
 * later thread a stack past the end of the mapping, and a crash). After
 * the joins, rounds of half as many threads must all be created, as under
 * NPTL: at 1024 MiB they once got EAGAIN early (the joined threads'
 * stacks were kept by the processor each had ended on). */
Test(compat, out_of_memory_is_eagain, .timeout = 150)
{
	static const char *const limits[] = {"1024", "3072", "1900", "1800"};
	char path[4096];
	snprintf(path, sizeof path, "%s", prog_path("exhaust"));
	struct run n = run_prog((const char *[]){path, "1024", NULL}, NULL, 50, false);
	if (run_code(&n) != 0)
		run_dump("exhaust under NPTL", &n);
	cr_assert_eq(run_code(&n), 0, "the program fails under NPTL");
	run_free(&n);
	for (int i = 0; i < 4; i++) {
		/* 30 rounds where they failed (each round about 1 in 8) */
		const char *rounds = i == 0 ? "30" : "10";
		struct run r = expect_pass("exhaust", (const char *[]){limits[i], rounds, NULL},
					   (const char *[]){"GMPMAXPROCS=2", NULL}, 50);
		cr_assert(strstr(r.out, "then pthread_create returned EAGAIN"), "limit %s MiB",
			  limits[i]);
		cr_assert(strstr(r.out, "PASS exhaust") && strstr(r.out, rounds), "limit %s MiB",
			  limits[i]);
		run_free(&r);
	}
}

/* No descriptor free (RLIMIT_NOFILE): blocking reads on a socket and on
 * a pipe after poll, sleeps, a condition variable and create+join work as
 * under NPTL, and a pipe can be made once descriptors are given back.
 * libgmp's poller needs descriptors of its own; when it could not make
 * them, read() on the socket failed with EMFILE. */
Test(compat, blocking_calls_wait_with_no_descriptor_free, .timeout = 60)
{
	same_as_nptl_arg("limits", "nofile", (const char *[]){"GMPMAXPROCS=2", NULL}, 20);
	same_as_nptl_arg("limits", "nofile", (const char *[]){"GMPMAXPROCS=1", NULL}, 20);
}

/* No memory mapping left (vm.max_map_count taken): threads blocked in
 * reads, poll, sleeps and a condition variable are all woken, round after
 * round, as under NPTL. libgmp ended the process ("timer_add: out of
 * memory for the timer heap", then "m_alloc: out of memory"); with one
 * processor, a poll that could not get a poll descriptor waited as a
 * system call whose OS thread libgmp could not replace, and main's sleep
 * never ended. */
Test(compat, blocking_calls_wait_with_no_mapping_free, .timeout = 90)
{
	same_as_nptl_arg("limits", "maps", (const char *[]){"GMPMAXPROCS=2", NULL}, 30);
	same_as_nptl_arg("limits", "maps", (const char *[]){"GMPMAXPROCS=1", NULL}, 30);
}

/* The same with the address space RLIMIT_AS allows used up: every mmap
 * fails with ENOMEM, as when no mapping is left, and libgmp cannot make
 * an OS thread (its stack) either. */
Test(compat, blocking_calls_wait_with_no_address_space_free, .timeout = 90)
{
	same_as_nptl_arg("limits", "as", (const char *[]){"GMPMAXPROCS=2", NULL}, 30);
	same_as_nptl_arg("limits", "as", (const char *[]){"GMPMAXPROCS=1", NULL}, 30);
}

/* After setuid(nobody) the process is no longer dumpable and its
 * /proc/self/task/TID/syscall files belong to root: libgmp could not read
 * where a thread blocked in an inline system call was, never took its
 * processor back, and with every processor held that way the program
 * hung. */
Test(compat, inline_blocking_calls_after_setuid, .timeout = 60)
{
	same_as_nptl_arg("limits", "setuid", (const char *[]){"GMPMAXPROCS=2", NULL}, 20);
	same_as_nptl_arg("limits", "setuid", (const char *[]){"GMPMAXPROCS=1", NULL}, 20);
}

/* The same under RLIMIT_NPROC of what NPTL needs plus one: every OS
 * thread libgmp failed to make left a new M behind (spawns repeated by
 * the thousand while the limit held). */
Test(compat, inline_blocking_calls_under_nproc_limit, .timeout = 60)
{
	same_as_nptl_arg("limits", "nproc", (const char *[]){"GMPMAXPROCS=2", NULL}, 20);
	same_as_nptl_arg("limits", "nproc", (const char *[]){"GMPMAXPROCS=1", NULL}, 20);
}

Test(compat, threads_glibc_makes_create_join_and_sleep, .timeout = 30)
{
	struct run r = expect_pass("foreign_threads", NULL, (const char *[]){"GMPMAXPROCS=2", NULL}, 20);
	run_free(&r);
}

/* Where a field of glibc's thread layout is not found, libgmp says which,
 * once, and every call goes to glibc: threads are real OS threads again.
 * Published, probed and fixed-place fields alike. */
Test(compat, unknown_glibc_layout_passes_through, .timeout = 120)
{
	static const char *const fields[] = {"size", "sigmask", "tls_state",
					     "_dl_stack_cache_lock", "getrandom_buf"};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		char var[64], want[80];
		snprintf(var, sizeof var, "GMP_TEST_UNKNOWN_LAYOUT=%s", fields[i]);
		snprintf(want, sizeof want, "thread layout not found (%s: ", fields[i]);
		const char *env[] = {var, NULL};
		struct run r = expect_pass("sleepers", (const char *[]){"300", NULL}, env, 50);
		cr_assert_eq(count_prefix(r.err, "gmp: warning:"), 1, "stderr: %s", r.err);
		cr_assert(strstr(r.err, want), "%s: %s", want, r.err);
		cr_assert(strstr(r.err, "passes every call through to glibc"), "%s", r.err);
		const char *p = strstr(r.out, "os_threads=");
		cr_assert(p && atol(p + 11) > 300, "threads are OS threads again: %s", r.out);
		run_free(&r);
	}
	const char *env[] = {"GMP_TEST_UNKNOWN_LAYOUT=size", NULL};
	struct run r = expect_pass("tls_torture", NULL, env, 50);
	run_free(&r);
}

/* The layout libgmp finds at start-up on this glibc: every field found,
 * each where the table of a tested version has it (2.36, 2.41; tls_state
 * too, found later on the first thread), and libgmp then takes over (a
 * few OS threads for 300 sleepers). */
Test(compat, glibc_layout_found_matches_table, .timeout = 60)
{
	static const char *const fields[] = {"size", "list", "tid", "robust_prev",
		"robust_head", "cancelhandling", "specific_1stblock", "specific",
		"specific_used", "user_stack", "start_routine", "stackblock",
		"stackblock_size", "guardsize", "res", "sigmask", "tls_state",
		"getrandom_buf", "rseq_area", "_dl_stack_used", "_dl_stack_user",
		"_dl_stack_cache_lock"};
	const char *env[] = {"GMPDEBUG=layout=1", "GMPMAXPROCS=2", NULL};
	struct run r = expect_pass("sleepers", (const char *[]){"300", NULL}, env, 50);
	const char *ver = gnu_get_libc_version();
	char head[80];
	snprintf(head, sizeof head, "gmp: glibc %s layout", ver);
	cr_assert(strstr(r.err, head), "no layout printed: %s", r.err);
	if (strcmp(ver, "2.36") == 0 || strcmp(ver, "2.41") == 0)
		cr_assert(strstr(r.err, "confirmed by the table of this version"), "%s", r.err);
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		char line[64];
		snprintf(line, sizeof line, "gmp:   %s ", fields[i]);
		cr_assert(strstr(r.err, line), "field %s not printed: %s", fields[i], r.err);
	}
	/* tls_state: found on the first thread libgmp starts */
	cr_assert(strstr(r.err, " p (in the first thread libgmp started)"), "%s", r.err);
	cr_assert_eq(count_prefix(r.err, "gmp: warning:"), 0, "%s", r.err);
	const char *p = strstr(r.out, "os_threads=");
	/* the 2 Ps' Ms, the first OS thread, sysmon, and the Ms that took a
	 * P over while another's system call lasted (as the 10,000 sleepers) */
	cr_assert(p && atol(p + 11) <= 2 + 4, "libgmp took over: %s", r.out);
	run_free(&r);
}

/* --- gmprun ---------------------------------------------------------------- */

static struct run gmprun_env(const char *const args[], const char *const env[], int timeout)
{
	static char exe[4096];
	const char *argv[16] = {exe};
	snprintf(exe, sizeof exe, "%s", build_path("gmprun"));
	for (int i = 0; args[i]; i++)
		argv[i + 1] = args[i];
	return run_prog(argv, env, timeout, false);
}

static struct run gmprun(const char *const args[], int timeout)
{
	return gmprun_env(args, NULL, timeout);
}

Test(compat, gmprun_stats, .timeout = 60)
{
	char prog[4096];
	snprintf(prog, sizeof prog, "%s", prog_path("create_join_storm"));
	struct run r = gmprun((const char *[]){"-p", "2", "--stats", "--", prog, "3", "40", NULL}, 50);
	if (run_code(&r) != 0)
		run_dump("gmprun --stats", &r);
	cr_assert_eq(run_code(&r), 0);
	cr_assert(strstr(r.out, "PASS storm threads=120"));
	cr_assert(strstr(r.err, "gmprun: threads created:    120\n"), "%s", r.err);
	cr_assert(strstr(r.err, "gmprun: processors:         2\n"), "%s", r.err);
	const char *p = strstr(r.err, "gmprun: peak OS threads:");
	cr_assert(p);
	long os = atol(p + strlen("gmprun: peak OS threads:"));
	cr_assert(os >= 1 && os <= 2 + 4, "peak OS threads %ld", os);
	cr_assert(strstr(r.err, "gmprun: hand-offs:          "), "%s", r.err);
	cr_assert(strstr(r.err, "gmprun: preemptions:        "), "%s", r.err);
	run_free(&r);

	/* the waits by reason: threads that sleep until main releases them,
	 * and main joins them while they sleep (in the storm above, main may
	 * be preempted after its creates, and find every thread ended) */
	snprintf(prog, sizeof prog, "%s", prog_path("sleepers"));
	r = gmprun((const char *[]){"-p", "2", "--stats", "--", prog, "4", "20", NULL}, 50);
	if (run_code(&r) != 0)
		run_dump("gmprun --stats sleepers", &r);
	cr_assert_eq(run_code(&r), 0);
	p = strstr(r.err, "gmprun: waits:              ");
	cr_assert(p && strstr(p, "sleep ") && strstr(p, "join "), "%s", r.err);
	run_free(&r);

	snprintf(prog, sizeof prog, "%s", prog_path("create_join_storm"));
	r = gmprun((const char *[]){"--stats=json", prog, "1", "5", NULL}, 50);
	cr_assert_eq(run_code(&r), 0);
	cr_assert(strstr(r.err, "{\"threads_created\": 5, "), "%s", r.err);
	cr_assert(strstr(r.err, "\"handoffs\": "), "%s", r.err);
	cr_assert(strstr(r.err, "\"waits\": {\"sleep\": "), "%s", r.err);
	cr_assert(strstr(r.err, "\"mutex\": "), "%s", r.err);
	run_free(&r);
}

/* The kernel work libgmp adds: thread-pointer writes (by the path that
 * made them), futex calls, epoll, eventfd, signals, per switch. */
static unsigned long long stat_line(const char *err, const char *label)
{
	const char *p = strstr(err, label);
	cr_assert(p, "no \"%s\" in: %s", label, err);
	return strtoull(p + strlen(label), NULL, 10);
}

Test(compat, gmprun_stats_kernel_work, .timeout = 60)
{
	char prog[4096];
	snprintf(prog, sizeof prog, "%s", prog_path("create_join_storm"));
	bool insn = (getauxval(AT_HWCAP2) & 2) != 0;
	for (int forced = 0; forced <= 1; forced++) {
		const char *env[] = {forced ? "GMPDEBUG=fsbase=syscall" : NULL, NULL};
		struct run r = gmprun_env((const char *[]){"-p", "2", "--stats", "--", prog, "3",
							   "40", NULL}, env, 50);
		if (run_code(&r) != 0)
			run_dump("gmprun --stats", &r);
		cr_assert_eq(run_code(&r), 0);
		unsigned long long sw = stat_line(r.err, "gmprun: context switches:   ");
		unsigned long long tpw = stat_line(r.err, "gmprun: thread-ptr writes:  ");
		/* every G's first run writes its thread pointer; no switch
		 * writes it twice (a few more: TCB set-up, idle Ms) */
		cr_assert(sw >= 120 && tpw >= 120 && tpw <= sw + 2 * 120 + 16,
			  "switches %llu, writes %llu", sw, tpw);
		const char *how = insn && !forced ? ", with WRFSBASE\n" : ", with arch_prctl (";
		cr_assert(strstr(r.err, how), "want \"%s\" in: %s", how, r.err);
		stat_line(r.err, "gmprun: futex sleeps:       ");
		stat_line(r.err, "gmprun: futex wake-ups:     ");
		stat_line(r.err, "gmprun: epoll_wait calls:   ");
		stat_line(r.err, "gmprun: eventfd writes:     ");
		stat_line(r.err, "gmprun: signals sent:       ");
		cr_assert(strstr(r.err, " per switch)"), "%s", r.err);
		run_free(&r);
	}
	struct run r = gmprun((const char *[]){"--stats=json", prog, "1", "5", NULL}, 50);
	cr_assert_eq(run_code(&r), 0);
	cr_assert(strstr(r.err, "\"tp_writes\": "), "%s", r.err);
	cr_assert(strstr(r.err, insn ? "\"tp_wrfsbase\": 1" : "\"tp_wrfsbase\": 0"), "%s", r.err);
	cr_assert(strstr(r.err, "\"futex_wakes\": "), "%s", r.err);
	run_free(&r);
}

/* With affinity on, threads of a condvar producer/consumer program are
 * handed to OS threads that look for work holding their thread pointer
 * (gmprun says how many), and the program's output is NPTL's. */
Test(compat, gmprun_stats_affinity_handoffs, .timeout = 60)
{
	char prog[4096];
	snprintf(prog, sizeof prog, "%s", prog_path("sync_queue"));
	const char *env[] = {"GMPDEBUG=fsbase=syscall,affinity=on,spin=200", NULL};
	struct run r = gmprun_env((const char *[]){"-p", "2", "--stats", "--", prog, "cond", NULL},
				  env, 50);
	if (run_code(&r) != 0)
		run_dump("gmprun --stats sync_queue", &r);
	cr_assert_eq(run_code(&r), 0);
	cr_assert(strstr(r.out, "PASS"), "%s", r.out);
	unsigned long long sw = stat_line(r.err, "gmprun: context switches:   ");
	unsigned long long h = stat_line(r.err, "gmprun: handed to spinners: ");
	cr_assert(h > 0 && h <= sw, "hand-offs %llu of %llu switches", h, sw);
	run_free(&r);
}

/* A thread that moves to SCHED_FIFO and back around each lock keeps the
 * OS thread it got the first time and pays one kernel call per change:
 * no migration between OS threads per change (bench/rt_churn, 2 threads
 * x 2,000 loops, the statistics of its child process). */
Test(compat, realtime_changes_keep_their_os_thread, .timeout = 60)
{
	char stats[] = "/tmp/gmp-rtchurn-XXXXXX";
	int fd = mkstemp(stats);
	cr_assert(fd >= 0);
	close(fd);
	char env1[64];
	snprintf(env1, sizeof env1, "GMP_STATS=%s", stats);
	const char *argv[] = {build_path("bench/rt_churn"), "1", "2", "2000", NULL};
	const char *env[] = {env1, "GMPMAXPROCS=2", NULL};
	struct run r = run_prog(argv, env, 50, true);
	if (run_code(&r) != 0)
		run_dump("rt_churn", &r);
	cr_assert_eq(run_code(&r), 0);
	if (strstr(r.out, "skipped=EPERM")) {
		unlink(stats);
		run_free(&r);
		cr_skip_test("SCHED_FIFO is not permitted here");
	}
	cr_assert(strstr(r.out, "RESULT name=rt_churn "), "%s", r.out);
	FILE *f = fopen(stats, "r");
	cr_assert(f);
	char line[4096];
	bool seen = false;
	while (fgets(line, sizeof line, f)) {
		const char *c = strstr(line, " threads_created=2 ");
		if (!c)
			continue;	/* the parent's line */
		seen = true;
		long sw = atol(strstr(line, " context_switches=") + 18);
		long os = atol(strstr(line, " peak_os_threads=") + 17);
		/* 8,000 changes of policy: a few switches to start, end and
		 * meet at the gate, none per change; the two threads' OS
		 * threads beside the runtime's own */
		cr_assert(sw < 400, "context switches %ld for 8,000 changes: %s", sw, line);
		cr_assert(os <= 8, "peak OS threads %ld: %s", os, line);
	}
	fclose(f);
	unlink(stats);
	cr_assert(seen, "no statistics of the child process");
	run_free(&r);
}

/* gmprun --stats of a program libgmp passed through says so, rather
 * than that the program did not end through exit. */
Test(compat, gmprun_stats_under_passthrough, .timeout = 60)
{
	char prog[4096];
	snprintf(prog, sizeof prog, "%s", prog_path("sleepers"));
	setenv("GMP_TEST_UNKNOWN_LAYOUT", "tls_state", 1);
	struct run r = gmprun((const char *[]){"--stats", "--", prog, "50", NULL}, 50);
	unsetenv("GMP_TEST_UNKNOWN_LAYOUT");
	cr_assert_eq(run_code(&r), 0, "%s", r.err);
	cr_assert(strstr(r.err, "thread layout not found (tls_state: "), "%s", r.err);
	cr_assert(strstr(r.err, "gmprun: no statistics: libgmp passed every call through"),
		  "%s", r.err);
	run_free(&r);
}

Test(compat, gmprun_exit_status_and_bad_options, .timeout = 60)
{
	char prog[4096];
	snprintf(prog, sizeof prog, "%s", prog_path("exit_status"));
	struct run r = gmprun((const char *[]){prog, "7", NULL}, 20);
	cr_assert_eq(run_code(&r), 7);
	run_free(&r);
	r = gmprun((const char *[]){"--stats", prog, "0", "15", NULL}, 20);
	cr_assert_eq(run_code(&r), 128 + 15, "SIGTERM gives 143, got %d", run_code(&r));
	cr_assert(strstr(r.err, "no statistics"), "%s", r.err);
	run_free(&r);
	r = gmprun((const char *[]){"-p", "0", prog, NULL}, 20);
	cr_assert_eq(run_code(&r), 2);
	cr_assert(strstr(r.err, "-p wants a processor count from 1 to 1024"), "%s", r.err);
	run_free(&r);
	r = gmprun((const char *[]){"--bogus", prog, NULL}, 20);
	cr_assert_eq(run_code(&r), 2);
	run_free(&r);
}

/* --- gmprun --compare --------------------------------------------------------- */

/* The line of the report whose label is `label` (static buffer). */
static const char *report_line(const char *out, const char *label)
{
	static char line[1024];
	const char *p = out;
	while ((p = strstr(p, label))) {
		if (p == out || p[-1] == '\n') {
			size_t n = strcspn(p, "\n");
			snprintf(line, sizeof line, "%.*s", (int)n, p);
			return line;
		}
		p++;
	}
	return NULL;
}

Test(compat, gmprun_compare_same_and_different_output, .timeout = 120)
{
	char prog[4096];
	snprintf(prog, sizeof prog, "%s", prog_path("compare_prog"));
	struct run r = gmprun((const char *[]){"--compare", "-n", "2", "--", prog, "fixed", NULL}, 100);
	if (run_code(&r) != 0)
		run_dump("gmprun --compare fixed", &r);
	cr_assert_eq(run_code(&r), 0);
	cr_assert(strstr(r.out, "output                identical in all 4 runs (30 bytes"), "%s", r.out);
	const char *l = report_line(r.out, "exit status");
	cr_assert(l && strstr(l, "exit 0 x2") && strstr(strstr(l, "exit 0 x2") + 1, "exit 0 x2"),
		  "%s", r.out);
	cr_assert(report_line(r.out, "peak OS threads"), "%s", r.out);
	cr_assert(report_line(r.out, "peak live threads"), "%s", r.out);
	cr_assert(report_line(r.out, "involuntary switches"), "%s", r.out);
	/* the program's own output is digested, never shown */
	cr_assert(!strstr(r.out, "20 threads started and joined"), "%s", r.out);
	run_free(&r);

	r = gmprun((const char *[]){"--compare", "-n", "2", "--", prog, "varies", NULL}, 100);
	cr_assert_eq(run_code(&r), 1, "%s", r.out);
	cr_assert(strstr(r.out, "output                DIFFERS between runs:"), "%s", r.out);
	run_free(&r);

	r = gmprun((const char *[]){"--compare", "-n", "2", "--no-output-check", "--", prog, "varies",
				    NULL}, 100);
	cr_assert_eq(run_code(&r), 0, "%s", r.out);
	cr_assert(strstr(r.out, "not compared (--no-output-check)"), "%s", r.out);
	run_free(&r);

	/* standard input from a file, given to every run whole */
	char in[] = "/tmp/gmp-compare-in-XXXXXX";
	int fd = mkstemp(in);
	cr_assert(fd >= 0);
	cr_assert(write(fd, "one line\n", 9) == 9);
	close(fd);
	r = gmprun((const char *[]){"--compare", "-n", "2", "--stdin", in, "--", prog, "stdin", NULL},
		   100);
	unlink(in);
	cr_assert_eq(run_code(&r), 0, "%s", r.out);
	cr_assert(strstr(r.out, "identical in all 4 runs (9 bytes"), "%s", r.out);
	run_free(&r);
}

Test(compat, gmprun_compare_exit_status_and_crash, .timeout = 120)
{
	char prog[4096];
	snprintf(prog, sizeof prog, "%s", prog_path("compare_prog"));
	/* the same exit status under both: no difference */
	struct run r = gmprun((const char *[]){"--compare", "-n", "1", "--", prog, "exit3", NULL}, 100);
	cr_assert_eq(run_code(&r), 0, "%s", r.out);
	const char *l = report_line(r.out, "exit status");
	cr_assert(l && strstr(l, "exit 3 x1") && strstr(strstr(l, "exit 3 x1") + 1, "exit 3 x1"),
		  "%s", r.out);
	run_free(&r);

	/* a crash under one variant only: shown, the other runs still made */
	r = gmprun((const char *[]){"--compare", "-n", "2", "--", prog, "crashgmp", NULL}, 100);
	cr_assert_eq(run_code(&r), 1, "%s", r.out);
	l = report_line(r.out, "exit status");
	cr_assert(l && strstr(l, "exit 0 x2") && strstr(l, "Aborted x2"), "%s", r.out);
	cr_assert(strstr(r.out, "DIFFERS"), "%s", r.out);
	run_free(&r);

	/* the program starts with the signal dispositions it would have had */
	r = gmprun((const char *[]){"--compare", "-n", "1", "--", prog, "signals", NULL}, 100);
	cr_assert_eq(run_code(&r), 0, "%s", r.out);
	l = report_line(r.out, "exit status");
	cr_assert(l && strstr(l, "exit 0 x1") && !strstr(l, "exit 4"), "%s", r.out);
	run_free(&r);

	/* a run that outlives --timeout is killed and shown as such */
	r = gmprun((const char *[]){"--compare", "-n", "1", "--timeout", "0.5", "--", "sleep", "30",
				    NULL}, 100);
	cr_assert_eq(run_code(&r), 1, "%s", r.out);
	l = report_line(r.out, "exit status");
	cr_assert(l && strstr(l, "timed out x1"), "%s", r.out);
	run_free(&r);
}

Test(compat, gmprun_compare_procs_and_json, .timeout = 120)
{
	char prog[4096], json[] = "/tmp/gmp-compare-json-XXXXXX", svg[] = "/tmp/gmp-compare-svg-XXXXXX";
	snprintf(prog, sizeof prog, "%s", prog_path("compare_prog"));
	int fd = mkstemp(json);
	cr_assert(fd >= 0);
	close(fd);
	fd = mkstemp(svg);
	cr_assert(fd >= 0);
	close(fd);
	struct run r = gmprun((const char *[]){"--compare", "-n", "2", "--procs", "1,2", "--json", json,
					       "--svg", svg, "--", prog, "fixed", NULL}, 100);
	if (run_code(&r) != 0)
		run_dump("gmprun --compare --procs", &r);
	cr_assert_eq(run_code(&r), 0);
	cr_assert(strstr(r.out, "NPTL") && strstr(r.out, "libgmp P=1") && strstr(r.out, "libgmp P=2"),
		  "%s", r.out);
	run_free(&r);

	/* the JSON, checked by Python's parser: 6 runs, 2 per variant, the
	 * processors of each libgmp variant, every figure present */
	char script[2048];
	snprintf(script, sizeof script,
		 "import json, sys\n"
		 "d = json.load(open(sys.argv[1]))\n"
		 "assert d['reps'] == 2 and d['output_identical'] is True, d\n"
		 "assert [v['gmpmaxprocs'] for v in d['variants']] == [0, 1, 2], d['variants']\n"
		 "assert [v['library'] for v in d['variants']] == ['nptl', 'libgmp', 'libgmp']\n"
		 "runs = d['runs']\n"
		 "assert len(runs) == 6, runs\n"
		 "for r in runs:\n"
		 "    assert r['end'] == 'exit' and r['code'] == 0, r\n"
		 "    assert r['output_bytes'] == 30 and r['wall_s'] > 0, r\n"
		 "    assert r['peak_os_threads'] >= 1 and r['peak_live_threads'] >= 1, r\n"
		 "    for k in ('user_s', 'sys_s', 'peak_rss_kib', 'voluntary_switches',\n"
		 "              'involuntary_switches', 'output_digest'):\n"
		 "        assert k in r, (k, r)\n"
		 "assert sorted(r['variant'] for r in runs) == "
		 "sorted(['NPTL', 'libgmp P=1', 'libgmp P=2'] * 2)\n"
		 "print('json ok')\n");
	r = run_prog((const char *[]){"/usr/bin/python3", "-c", script, json, NULL}, NULL, 30, false);
	unlink(json);
	cr_assert_eq(run_code(&r), 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "json ok"));
	run_free(&r);

	FILE *f = fopen(svg, "r");
	cr_assert(f);
	char head[256] = "";
	cr_assert(fread(head, 1, sizeof head - 1, f) > 0);
	fclose(f);
	unlink(svg);
	cr_assert(strstr(head, "<svg"), "%s", head);
}

Test(compat, gmprun_compare_bad_options, .timeout = 60)
{
	char prog[4096];
	snprintf(prog, sizeof prog, "%s", prog_path("compare_prog"));
	const char *const bad[][6] = {
		{"--compare", "-n", "0", prog, "fixed", NULL},
		{"--compare", "-n", "x", prog, "fixed", NULL},
		{"--compare", "--procs", "0,2", prog, "fixed", NULL},
		{"--compare", "--procs", "", prog, "fixed", NULL},
		{"--compare", "--timeout", "-1", prog, "fixed", NULL},
		{"--compare", "--json", NULL},
		{"--compare", "--bogus", prog, "fixed", NULL},
		{"--compare", NULL},
		{"--compare", "--stdin", "/nonexistent/file", prog, "fixed", NULL},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct run r = gmprun(bad[i], 20);
		cr_assert_eq(run_code(&r), 2, "case %zu: %s", i, r.err);
		cr_assert(strstr(r.err, "gmprun: "), "case %zu: %s", i, r.err);
		run_free(&r);
	}
	struct run r = gmprun((const char *[]){"--compare", "--help", NULL}, 20);
	cr_assert_eq(run_code(&r), 0);
	cr_assert(strstr(r.out, "usage: gmprun --compare"), "%s", r.out);
	run_free(&r);
	/* a program that cannot be run */
	r = gmprun((const char *[]){"--compare", "-n", "1", "/nonexistent/program", NULL}, 20);
	cr_assert_eq(run_code(&r), 127, "%s%s", r.out, r.err);
	run_free(&r);
}

/* A thread blocked in waitpid, waitid, system(), semop, msgrcv, flock,
 * open and read of a FIFO, long reads of a regular file, or a read made
 * with syscall(2) on a pipe made the same way leaves the others running,
 * also with one processor: its P is handed on while it waits (without
 * that the program deadlocks and the timeout fails it). The last is a
 * call libgmp cannot see: sysmon finds its M blocked. */
Test(compat, blocked_calls_leave_others_running, .timeout = 60)
{
	static const char *const calls[] = {"waitpid", "waitid", "system", "semop", "msgrcv",
					    "flock", "fifo", "file reads", "raw read"};
	char stats[64], statsenv[80];
	snprintf(stats, sizeof stats, "/tmp/gmp-blocked-%d.stats", (int)getpid());
	snprintf(statsenv, sizeof statsenv, "GMP_STATS=%s", stats);
	for (int k = 0; k < 2; k++) {
		unlink(stats);
		const char *const env[] = {k ? "GMPMAXPROCS=1" : "GMPMAXPROCS=2", statsenv, NULL};
		struct run r = expect_pass("blocked_calls", NULL, env, 25);
		/* with one processor, sysmon must have taken it back (it says so
		 * in the statistics gmprun --stats shows) */
		if (k) {
			FILE *f = fopen(stats, "r");
			char line[512] = "";
			cr_assert(f && fgets(line, sizeof line, f), "no statistics line");
			fclose(f);
			const char *rt = strstr(line, "retakes=");
			cr_assert(rt && atoll(rt + 8) > 0, "no P retaken: %s", line);
			const char *bl = strstr(line, "blocked=");
			cr_assert(bl && atoll(bl + 8) > 0, "no M found blocked: %s", line);
		}
		for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
			char line[128];
			snprintf(line, sizeof line, "%s: the other thread made 1000 steps meanwhile",
				 calls[i]);
			cr_assert(strstr(r.out, line), "no \"%s\"", line);
		}
		run_free(&r);
	}
	unlink(stats);
}
