/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_api.c — compat tests of the thread API (suite "api"):
 * attributes, scope, exit paths, keys, C11 threads, sleeps, per-thread
 * properties and joins. Each test runs an ordinary pthread program from
 * tests/progs/api_* in a child process with libgmp preloaded (never into
 * this runner), with a timeout, and checks its output and exit status.
 * Where glibc's behaviour is deterministic the same program also runs
 * under NPTL, and libgmp's output and status must be identical to it
 * (also with a single processor, GMPMAXPROCS=1).
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXARGS 8

static struct run run_api(const char *prog, const char *const args[], const char *const env[],
			  int timeout, bool preload)
{
	char path[4096];
	const char *argv[MAXARGS + 2] = {path};
	snprintf(path, sizeof path, "%s", prog_path(prog));
	for (int i = 0; args && args[i] && i < MAXARGS; i++)
		argv[i + 1] = args[i];
	return run_prog(argv, env, timeout, preload);
}

static const char *args_str(const char *const args[])
{
	static char buf[256];
	buf[0] = '\0';
	for (int i = 0; args && args[i]; i++) {
		strncat(buf, " ", sizeof buf - strlen(buf) - 1);
		strncat(buf, args[i], sizeof buf - strlen(buf) - 1);
	}
	return buf;
}

/* Print the lines where a and b differ (for a failing comparison). */
static void print_diff(const char *a, const char *b)
{
	int line = 1;
	while (*a || *b) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
		if (la != lb || memcmp(a, b, la) != 0)
			fprintf(stderr, "line %d:\n  NPTL:   %.*s\n  libgmp: %.*s\n", line, (int)la, a,
				(int)lb, b);
		a += la + (a[la] == '\n');
		b += lb + (b[lb] == '\n');
		line++;
	}
}

/* Run under libgmp; require exit 0 and one line starting with "PASS".
 * The caller frees the run. */
static struct run expect_pass(const char *prog, const char *const args[],
			      const char *const env[], int timeout)
{
	struct run r = run_api(prog, args, env, timeout, true);
	if (run_code(&r) != 0 || count_prefix(r.out, "PASS") != 1)
		run_dump(prog, &r);
	cr_assert_eq(run_code(&r), 0, "%s%s under libgmp: exit code %d", prog, args_str(args),
		     run_code(&r));
	cr_assert_eq(count_prefix(r.out, "PASS"), 1, "%s%s: no PASS line", prog, args_str(args));
	return r;
}

/*
 * Run under NPTL and under libgmp (with the extra environment env, and
 * once more with GMPMAXPROCS=1 when also_one_proc): NPTL must end with
 * `code`, libgmp with the same code and exactly the same stdout. Returns
 * the libgmp run (caller frees).
 */
static struct run same_as_nptl(const char *prog, const char *const args[],
			       const char *const env[], int timeout, int code,
			       bool also_one_proc)
{
	struct run nptl = run_api(prog, args, NULL, timeout, false);
	if (run_code(&nptl) != code)
		run_dump("under NPTL", &nptl);
	cr_assert_eq(run_code(&nptl), code, "%s%s under NPTL: exit code %d, expected %d", prog,
		     args_str(args), run_code(&nptl), code);

	const char *one[] = {"GMPMAXPROCS=1", NULL};
	struct run gmp = {0};
	for (int pass = 0; pass < (also_one_proc ? 2 : 1); pass++) {
		const char *const *e = pass ? one : env;
		if (pass)
			run_free(&gmp);
		gmp = run_api(prog, args, e, timeout, true);
		bool same = strcmp(nptl.out, gmp.out) == 0;
		if (run_code(&gmp) != code || !same) {
			run_dump("under NPTL", &nptl);
			run_dump(pass ? "under libgmp, GMPMAXPROCS=1" : "under libgmp", &gmp);
			print_diff(nptl.out, gmp.out);
		}
		cr_assert_eq(run_code(&gmp), code, "%s%s under libgmp%s: exit code %d, NPTL's %d",
			     prog, args_str(args), pass ? " (GMPMAXPROCS=1)" : "",
			     run_code(&gmp), code);
		cr_assert(same, "%s%s: libgmp's output%s differs from NPTL's", prog, args_str(args),
			  pass ? " (GMPMAXPROCS=1)" : "");
	}
	run_free(&nptl);
	return gmp;
}

static void has_line(const struct run *r, const char *line)
{
	cr_assert(strstr(r->out, line), "output lacks \"%s\":\n%s", line, r->out);
}

/* ---- 1. attributes ------------------------------------------------------------- */

/* User stacks (malloc'ed, mmap'ed; freed after the join), guard size,
 * detach state, stack size, sched and affinity attributes,
 * pthread_getattr_np on running threads and on main, default attrs. */
Test(api, attributes_same_as_nptl, .timeout = 60)
{
	struct run r = same_as_nptl("api_attr", NULL, NULL, 30, 0, true);
	has_line(&r, "malloc'ed stack: local inside it, getattr_np reports it");
	has_line(&r, "mmap'ed stack: local inside it, getattr_np reports it");
	has_line(&r, "threads created afterwards have 32 MiB stacks");
	has_line(&r, "PASS api_attr");
	run_free(&r);
}

/* ---- 2. scope ------------------------------------------------------------------- */

/* libgmp by design: PROCESS is the default scope (NPTL says SYSTEM). */
Test(api, default_scope_is_process, .timeout = 30)
{
	struct run r = expect_pass("api_scope", (const char *[]){"--default-only", NULL}, NULL, 20);
	has_line(&r, "default attr scope: PROCESS");
	run_free(&r);
}

/* Three PTHREAD_SCOPE_SYSTEM threads on one processor share OS threads
 * (/proc/self/status's Threads grows by less than 3), and keep their
 * scope in pthread_getattr_np. CPython sets SYSTEM on every thread: it
 * used to give each one an OS thread, and never reused them. */
Test(api, scope_system_threads_share_os_threads, .timeout = 30)
{
	struct run r = expect_pass("api_scope", (const char *[]){"--expect-shared", NULL},
				   (const char *[]){"GMPMAXPROCS=1", NULL}, 20);
	has_line(&r, "default attr scope: PROCESS");
	has_line(&r, "pthread_getattr_np: SYSTEM");
	has_line(&r, "3 SCOPE_SYSTEM threads: they share OS threads");
	run_free(&r);
}

/* ---- 3. exit paths (status and output compared with NPTL) ------------------------- */

Test(api, main_pthread_exit_waits_for_threads, .timeout = 30)
{
	struct run r = same_as_nptl("api_exit", (const char *[]){"main-exit", NULL}, NULL, 20, 0,
				    true);
	cr_assert_eq(count_prefix(r.out, "atexit handler"), 1, "%s", r.out);
	has_line(&r, "main's cleanup handler: ran");
	has_line(&r, "thread 2 ends\natexit handler: run 1, threads finished 3\n");
	run_free(&r);
}

Test(api, last_thread_pthread_exit_status_0, .timeout = 30)
{
	struct run r = same_as_nptl("api_exit", (const char *[]){"last-exit", NULL}, NULL, 20, 0,
				    true);
	has_line(&r, "thread 0 ends with pthread_exit\natexit handler: run 1, threads finished 1\n");
	run_free(&r);
}

Test(api, exit_3_from_thread_while_others_sleep, .timeout = 30)
{
	struct run r = same_as_nptl("api_exit", (const char *[]){"exit3", NULL}, NULL, 20, 3, true);
	cr_assert_eq(count_prefix(r.out, "atexit handler"), 1, "%s", r.out);
	cr_assert_eq(count_prefix(r.out, "FAIL"), 0, "%s", r.out);
	run_free(&r);
}

Test(api, return_7_from_main_while_threads_sleep, .timeout = 30)
{
	struct run r = same_as_nptl("api_exit", (const char *[]){"return7", NULL}, NULL, 20, 7,
				    true);
	cr_assert_eq(count_prefix(r.out, "atexit handler"), 1, "%s", r.out);
	run_free(&r);
}

Test(api, pthread_exit_value_from_nested_calls, .timeout = 30)
{
	struct run r = same_as_nptl("api_exit", (const char *[]){"nested", NULL}, NULL, 20, 0, true);
	has_line(&r, "PASS api_exit nested");
	run_free(&r);
}

Test(api, cleanup_handlers_in_c, .timeout = 30)
{
	struct run r = same_as_nptl("api_exit", (const char *[]){"cleanup", NULL}, NULL, 20, 0,
				    true);
	has_line(&r, "handlers ran: 3|76521; result 0x7");
	has_line(&r, "PASS api_exit cleanup");
	run_free(&r);
}

/* The same, compiled with -fexceptions: pthread_cleanup_push then uses
 * __attribute__((cleanup)) and the handlers run as the unwind passes. */
Test(api, cleanup_handlers_in_c_with_fexceptions, .timeout = 30)
{
	struct run r = same_as_nptl("api_exit_fx", (const char *[]){"cleanup", NULL}, NULL, 20, 0,
				    true);
	has_line(&r, "handlers ran: 3|76521; result 0x7");
	run_free(&r);
	r = same_as_nptl("api_exit_fx", (const char *[]){"main-exit", NULL}, NULL, 20, 0, true);
	has_line(&r, "main's cleanup handler: ran");
	run_free(&r);
}

/* C++: destructors of locals in every frame, catch (...) that rethrows,
 * thread_local destructors. */
Test(api, cxx_pthread_exit_unwinds, .timeout = 30)
{
	struct run r = same_as_nptl("api_unwind", NULL, NULL, 20, 0, true);
	has_line(&r, "pthread_exit through catch(...): C catch(...) B A -> 42");
	has_line(&r, "pthread_cleanup_push/pop in C++ with pthread_exit: h2 h3 I h1 O -> 47");
	has_line(&r, "100 threads touched the thread_local: 100 destructors ran");
	run_free(&r);
}

Test(api, cxx_main_pthread_exit_destroys_locals, .timeout = 30)
{
	struct run r = same_as_nptl("api_unwind", (const char *[]){"main-exit", NULL}, NULL, 20, 0,
				    true);
	has_line(&r, "main's local destroyed\nthe other thread ends\natexit handler\n");
	run_free(&r);
}

/* glibc runs a thread's thread_local destructors before its key
 * destructors. */
Test(api, cxx_thread_local_dtors_before_key_dtors, .timeout = 30)
{
	struct run r = same_as_nptl("api_unwind", (const char *[]){"dtor-order", NULL}, NULL, 20, 0,
				    false);
	run_free(&r);
}

/* ---- 4. keys -------------------------------------------------------------------------- */

Test(api, keys_same_as_nptl, .timeout = 60)
{
	struct run r = same_as_nptl("api_keys", NULL, NULL, 30, 0, true);
	has_line(&r, "destructor that always sets a new value: called 4 times");
	has_line(&r, "200 keys: a thread sets and reads all, each destructor runs once");
	has_line(&r, "tss: 200 at once, each destructor runs once with its value");
	run_free(&r);
}

/* A value the last destructor round left must not show up in a later
 * thread. */
Test(api, keys_no_value_left_for_later_threads, .timeout = 30)
{
	struct run r = same_as_nptl("api_keys", (const char *[]){"leftover", NULL}, NULL, 20, 0,
				    false);
	run_free(&r);
}

/* ---- 5. C11 threads ---------------------------------------------------------------------- */

Test(api, c11_threads_same_as_nptl, .timeout = 60)
{
	struct run r = same_as_nptl("api_c11", NULL, NULL, 30, 0, true);
	has_line(&r, "thrd_exit(5) ten calls deep: the joiner gets 5");
	run_free(&r);
}

/* ---- 6. sleeps ------------------------------------------------------------------------------ */

Test(api, sleeps_never_early, .timeout = 60)
{
	struct run r = same_as_nptl("api_sleep", NULL, NULL, 30, 0, true);
	cr_assert_eq(count_prefix(r.out, "thread: "), 2 * 20 + 1, "%s", r.out);
	has_line(&r, "1000 threads slept at once: 1000 woke");
	run_free(&r);
}

/* ---- 7. per-thread properties ------------------------------------------------------------------ */

Test(api, thread_properties_same_as_nptl, .timeout = 60)
{
	struct run r = same_as_nptl("api_props", NULL, NULL, 30, 0, true);
	has_line(&r, "pthread_getcpuclockid: the clock of a sleeping thread stands still");
	run_free(&r);
}

/* A thread starts with its creator's affinity mask. */
Test(api, affinity_inherited_from_creator, .timeout = 30)
{
	struct run r = same_as_nptl("api_props", (const char *[]){"inherit", NULL}, NULL, 20, 0,
				    false);
	run_free(&r);
}

/* A thread pinned to one CPU runs on that CPU. */
Test(api, affinity_pins_the_thread, .timeout = 30)
{
	struct run r = same_as_nptl("api_props", (const char *[]){"pinned", NULL}, NULL, 20, 0,
				    false);
	run_free(&r);
}

/* ---- 8. joins ------------------------------------------------------------------------------------ */

Test(api, joins_same_as_nptl, .timeout = 60)
{
	struct run r = same_as_nptl("api_join", NULL, NULL, 30, 0, true);
	has_line(&r, "PASS api_join");
	run_free(&r);
}

Test(api, join_error_codes_same_as_nptl, .timeout = 30)
{
	struct run r = same_as_nptl("api_join", (const char *[]){"codes", NULL}, NULL, 20, 0, true);
	has_line(&r, "DONE");
	run_free(&r);
}

Test(api, thread_joins_main_after_its_pthread_exit, .timeout = 30)
{
	struct run r = same_as_nptl("api_join", (const char *[]){"join-main", NULL}, NULL, 20, 0,
				    true);
	has_line(&r, "a thread joins main after main's pthread_exit(0x77): 0, value 0x77");
	run_free(&r);
}

/* pthread_join(3): EINVAL when another thread is already joining. glibc
 * 2.36 fails to detect it (the second joiner waits too, and may hang), so
 * this runs under libgmp only. */
Test(api, second_concurrent_join_gets_einval, .timeout = 30)
{
	struct run r = expect_pass("api_join", (const char *[]){"two-joins", NULL}, NULL, 20);
	run_free(&r);
	r = expect_pass("api_join", (const char *[]){"two-joins", NULL},
			(const char *[]){"GMPMAXPROCS=1", NULL}, 20);
	run_free(&r);
}
