/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_tls.c — per-thread storage under libgmp: one test (or a
 * pair) per PASS row of TLS.md §2. Each runs an unmodified program from
 * tests/progs/tls_* in a child process with libgmp preloaded for the child
 * only and a timeout. With GMPMAXPROCS=2 the program's threads switch away
 * and resume on other OS threads (the program is given --expect-migration
 * and fails unless that happened); with GMPMAXPROCS=1 they all share one
 * processor. A program prints what it checked and "PASS ..." last, or
 * "FAIL: ..." and exits 1. Where the output is deterministic the program
 * also runs under NPTL and both outputs must be identical.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_TIMEOUT 30

/* Extra environment of every run (one "K=V" or NULL), e.g. glibc tunables. */
static const char *extra_env;

/* Run a tls_* program: under libgmp with GMPMAXPROCS=procs (procs 0:
 * under NPTL). args may be NULL; --expect-migration is added when
 * procs >= 2 and migrate is set. */
static struct run run_tls(const char *prog, const char *const args[], int procs, bool migrate)
{
	char path[4096], env1[32];
	const char *argv[16];
	int n = 0;
	snprintf(path, sizeof path, "%s", prog_path(prog));
	argv[n++] = path;
	for (int i = 0; args && args[i]; i++)
		argv[n++] = args[i];
	if (procs >= 2 && migrate)
		argv[n++] = "--expect-migration";
	argv[n] = NULL;
	snprintf(env1, sizeof env1, "GMPMAXPROCS=%d", procs);
	const char *env[3] = {NULL, NULL, NULL};
	int ne = 0;
	if (procs)
		env[ne++] = env1;
	if (extra_env)
		env[ne++] = extra_env;
	return run_prog(argv, env, RUN_TIMEOUT, procs != 0);
}

static const char *last_line(const char *s, char *buf, size_t size)
{
	size_t len = strlen(s);
	while (len > 0 && s[len - 1] == '\n')
		len--;
	size_t start = len;
	while (start > 0 && s[start - 1] != '\n')
		start--;
	snprintf(buf, size, "%.*s", (int)(len - start), s + start);
	return buf;
}

/* Exit status 0, no FAIL line, and one PASS line, the last one. */
static void require_pass(const char *what, const struct run *r)
{
	char last[256];
	bool ok = run_code(r) == 0 && count_prefix(r->out, "FAIL") == 0 &&
		  count_prefix(r->out, "PASS") == 1 &&
		  strncmp(last_line(r->out, last, sizeof last), "PASS", 4) == 0;
	if (!ok)
		run_dump(what, r);
	cr_assert_eq(run_code(r), 0, "%s: exit code %d%s", what, run_code(r),
		     r->timed_out ? " (timed out)" : "");
	cr_assert_eq(count_prefix(r->out, "FAIL"), 0, "%s: a check failed", what);
	cr_assert_eq(count_prefix(r->out, "PASS"), 1, "%s: no PASS line", what);
	cr_assert(strncmp(last_line(r->out, last, sizeof last), "PASS", 4) == 0,
		  "%s: PASS is not the last line", what);
}

/* Pass under libgmp (GMPMAXPROCS=procs); returns the run (caller frees). */
static struct run expect_pass(const char *prog, const char *const args[], int procs)
{
	char what[256];
	snprintf(what, sizeof what, "%s, GMPMAXPROCS=%d", prog, procs);
	struct run r = run_tls(prog, args, procs, true);
	require_pass(what, &r);
	return r;
}

/* Pass under NPTL and under libgmp with GMPMAXPROCS=2, with migrations,
 * printing the same stdout. */
static void expect_pass_same_as_nptl(const char *prog, const char *const args[])
{
	char what[256];
	struct run nptl = run_tls(prog, args, 0, false);
	snprintf(what, sizeof what, "%s under NPTL", prog);
	require_pass(what, &nptl);
	struct run gmp = expect_pass(prog, args, 2);
	if (strcmp(nptl.out, gmp.out) != 0) {
		run_dump("under NPTL", &nptl);
		run_dump("under libgmp", &gmp);
	}
	cr_assert_str_eq(gmp.out, nptl.out, "%s: output differs from NPTL's", prog);
	run_free(&nptl);
	run_free(&gmp);
}

static void expect_pass_free(const char *prog, const char *const args[], int procs)
{
	struct run r = expect_pass(prog, args, procs);
	run_free(&r);
}

/* ---- row 1: errno -------------------------------------------------------- */

Test(tls, errno_follows_its_thread, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_errno", NULL);
}

Test(tls, errno_one_processor, .timeout = 40)
{
	expect_pass_free("tls_errno", NULL, 1);
}

/* ---- row 2: __thread in the program ------------------------------------- */

Test(tls, thread_vars_init_image_values_addresses, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_thread_vars", NULL);
}

Test(tls, thread_vars_one_processor, .timeout = 40)
{
	expect_pass_free("tls_thread_vars", NULL, 1);
}

/* ---- rows 3 and 3b: __thread in a dlopen'ed library -------------------- */

/* Run tls_dlopen on a library libtool built in tests/progs/.libs. */
static void dlopen_test(const char *lib, int procs)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", build_path("tests/progs/.libs"), lib);
	if (procs == 2)
		expect_pass_same_as_nptl("tls_dlopen", (const char *[]){path, NULL});
	else
		expect_pass_free("tls_dlopen", (const char *[]){path, NULL}, procs);
}

Test(tls, dlopen_global_dynamic_tls, .timeout = 60)
{
	dlopen_test("libtls_gd.so", 2);
}

Test(tls, dlopen_global_dynamic_tls_one_processor, .timeout = 40)
{
	dlopen_test("libtls_gd.so", 1);
}

Test(tls, dlopen_initial_exec_tls_seen_by_older_threads, .timeout = 60)
{
	dlopen_test("libtls_ie.so", 2);
}

Test(tls, dlopen_initial_exec_tls_one_processor, .timeout = 40)
{
	dlopen_test("libtls_ie.so", 1);
}

/* ---- row 4: C++ thread_local destructors ------------------------------- */

Test(tls, thread_local_destructors_once_on_their_thread, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_thread_local_dtor", NULL);
}

Test(tls, thread_local_destructors_one_processor, .timeout = 40)
{
	expect_pass_free("tls_thread_local_dtor", NULL, 1);
}

/* glibc runs a thread's thread_local destructors before its pthread key
 * destructors; a thread_local destructor still sees the key values. */
Test(tls, thread_local_destructors_run_before_key_destructors, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_thread_local_dtor", (const char *[]){"--key-order", NULL});
}

/* ---- row 5: malloc/free storm ----------------------------------------- */

Test(tls, malloc_storm_cross_thread_frees, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_malloc_storm", NULL);
}

Test(tls, malloc_storm_one_processor, .timeout = 40)
{
	expect_pass_free("tls_malloc_storm", NULL, 1);
}

/* No tcache, one arena: every small block goes through the fastbins, whose
 * atomic updates need every thread to look multi-threaded to glibc. */
Test(tls, malloc_storm_fastbins_one_arena, .timeout = 60)
{
	extra_env = "GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1";
	expect_pass_same_as_nptl("tls_malloc_storm", (const char *[]){"--small", NULL});
	extra_env = NULL;
}

/* ---- row 6: printf from many threads ----------------------------------- */

#define PF_NT 64
#define PF_NL 200

/* Every "p ID N abc...z ID*1000+N" line whole; each thread's lines numbered
 * 0, 1, 2, ... in order, at least PF_NL of them; as many lines in all as
 * the PASS line says. */
static void check_printf_lines(char *out)
{
	static int next[PF_NT];
	long n = 0, said = -1;
	memset(next, 0, sizeof next);
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		long id, v;
		int i;
		char word[32];
		if (strncmp(line, "PASS", 4) == 0) {
			cr_assert(sscanf(line, "PASS printf: %ld lines", &said) == 1, "\"%s\"", line);
			continue;
		}
		int k = sscanf(line, "p %ld %d %31s %ld", &id, &i, word, &v);
		cr_assert(k == 4 && id >= 0 && id < PF_NT && strcmp(word, "abcdefghijklmnopqrstuvwxyz") == 0 &&
				  v == id * 1000 + i,
			  "torn line: \"%s\"", line);
		cr_assert_eq(i, next[id], "thread %ld: line %d where %d was due", id, i, next[id]);
		next[id]++;
		n++;
	}
	for (int id = 0; id < PF_NT; id++)
		cr_assert(next[id] >= PF_NL, "thread %d: %d lines, want at least %d", id, next[id], PF_NL);
	cr_assert_eq(n, said, "%ld lines, the program wrote %ld", n, said);
}

Test(tls, printf_lines_whole_and_in_order, .timeout = 60)
{
	struct run r = expect_pass("tls_printf", NULL, 2);
	check_printf_lines(r.out);
	run_free(&r);
	struct run nptl = run_tls("tls_printf", NULL, 0, false);
	require_pass("tls_printf under NPTL", &nptl);
	check_printf_lines(nptl.out);
	run_free(&nptl);
}

Test(tls, printf_one_processor, .timeout = 40)
{
	struct run r = expect_pass("tls_printf", NULL, 1);
	check_printf_lines(r.out);
	run_free(&r);
}

/* ---- row 6b: flockfile across a migration ------------------------------ */

#define FL_NT 16
#define FL_NR 8

/* Blocks "B ph id r", "L ph id r 0".."3", "E ph id r" are contiguous;
 * phase 1 then phase 2, NT*NR blocks each. */
static void check_flock_blocks(char *out)
{
	int cur_id = -1, cur_r = -1, cur_ph = -1, next_k = 0, blocks[3] = {0, 0, 0};
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char c;
		int ph, id, r, k;
		if (strncmp(line, "PASS", 4) == 0)
			continue;
		int n = sscanf(line, "%c %d %d %d %d", &c, &ph, &id, &r, &k);
		cr_assert(n >= 4 && (ph == 1 || ph == 2), "bad line \"%s\"", line);
		if (c == 'B') {
			cr_assert(cur_id < 0, "block %d/%d/%d starts inside block %d/%d/%d", ph, id, r,
				  cur_ph, cur_id, cur_r);
			cr_assert(ph == 1 ? blocks[2] == 0 : blocks[1] == FL_NT * FL_NR,
				  "phase 1 and 2 blocks are mixed");
			cur_ph = ph, cur_id = id, cur_r = r, next_k = 0;
		} else if (c == 'L') {
			cr_assert(ph == cur_ph && id == cur_id && r == cur_r && n == 5 && k == next_k,
				  "line \"%s\" inside block %d/%d/%d at line %d", line, cur_ph, cur_id,
				  cur_r, next_k);
			next_k++;
		} else {
			cr_assert(c == 'E' && ph == cur_ph && id == cur_id && r == cur_r && next_k == 4,
				  "block %d/%d/%d ends with \"%s\"", cur_ph, cur_id, cur_r, line);
			cur_id = -1;
			blocks[ph]++;
		}
	}
	cr_assert(cur_id < 0, "the last block is not closed");
	cr_assert_eq(blocks[1], FL_NT * FL_NR, "%d phase-1 blocks", blocks[1]);
	cr_assert_eq(blocks[2], FL_NT * FL_NR, "%d phase-2 blocks", blocks[2]);
}

Test(tls, flockfile_held_across_migration_keeps_blocks_whole, .timeout = 60)
{
	struct run r = expect_pass("tls_flockfile", NULL, 2);
	check_flock_blocks(r.out);
	run_free(&r);
	struct run nptl = run_tls("tls_flockfile", NULL, 0, false);
	require_pass("tls_flockfile under NPTL", &nptl);
	check_flock_blocks(nptl.out);
	run_free(&nptl);
}

Test(tls, flockfile_one_processor, .timeout = 40)
{
	struct run r = expect_pass("tls_flockfile", NULL, 1);
	check_flock_blocks(r.out);
	run_free(&r);
}

/* ---- row 7: setjmp/longjmp --------------------------------------------- */

Test(tls, setjmp_longjmp_across_migration, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_setjmp", NULL);
}

Test(tls, setjmp_longjmp_one_processor, .timeout = 40)
{
	expect_pass_free("tls_setjmp", NULL, 1);
}

/* ---- row 8: stack protector -------------------------------------------- */

Test(tls, stack_protector_frame_straddles_migration, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_stack_protector", NULL);
}

Test(tls, stack_protector_one_processor, .timeout = 40)
{
	expect_pass_free("tls_stack_protector", NULL, 1);
}

/* ---- row 9: sched_getcpu ----------------------------------------------- */

Test(tls, sched_getcpu_agrees_with_getcpu_syscall, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_getcpu", NULL);
}

Test(tls, sched_getcpu_one_processor, .timeout = 40)
{
	expect_pass_free("tls_getcpu", NULL, 1);
}

/* ---- row 10: pthread_self ---------------------------------------------- */

Test(tls, pthread_self_stable_and_equal_to_glibcs, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_pthread_self", NULL);
}

Test(tls, pthread_self_one_processor, .timeout = 40)
{
	expect_pass_free("tls_pthread_self", NULL, 1);
}

/* ---- row 11: strerror, locale, ctype ----------------------------------- */

Test(tls, strerror_uselocale_ctype_per_thread, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_locale", NULL);
}

Test(tls, strerror_uselocale_ctype_one_processor, .timeout = 40)
{
	expect_pass_free("tls_locale", NULL, 1);
}

/* ---- row 12: dlerror --------------------------------------------------- */

Test(tls, dlerror_per_thread, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_dlerror", NULL);
}

Test(tls, dlerror_one_processor, .timeout = 40)
{
	expect_pass_free("tls_dlerror", NULL, 1);
}

/* ---- row 13: signal handlers run as the interrupted thread ------------- */

/* Part 2 sends SIGUSR1 to the id a spinning thread published (gettid(),
 * the thread's own wherever it runs) and waits for that thread's
 * handler; the spinner withdraws its id after a while and publishes it
 * again after a sched_yield or a short sleep. */
Test(tls, signal_handler_runs_as_interrupted_thread, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_signal", NULL);
}

/* One processor: the main thread sees the published id only when the
 * spinner is preempted in its spin. A slice that began again at each of
 * the spinner's yields (about every 2 ms) never ended inside the spin:
 * main and spinner took turns for ever. */
Test(tls, signal_handler_one_processor, .timeout = 40)
{
	expect_pass_free("tls_signal", NULL, 1);
}

/* ---- row 14: recursive mutex, dl_iterate_phdr -------------------------- */

Test(tls, recursive_mutex_owner_and_dl_iterate_phdr_exclusion, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_recursive_mutex", NULL);
}

Test(tls, recursive_mutex_one_processor, .timeout = 40)
{
	expect_pass_free("tls_recursive_mutex", NULL, 1);
}

/* ---- row 16: glibc's own pthread_create from a thread ------------------ */

Test(tls, glibc_pthread_create_from_a_thread, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_real_thread", NULL);
}

Test(tls, glibc_pthread_create_one_processor, .timeout = 40)
{
	expect_pass_free("tls_real_thread", NULL, 1);
}

/* ---- rows 17 and 24: fork from a thread -------------------------------- */

Test(tls, fork_from_a_thread_child_runs_malloc_printf, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_fork", NULL);
}

Test(tls, fork_one_processor, .timeout = 40)
{
	expect_pass_free("tls_fork", NULL, 1);
}

/* ---- row 21: raise and abort ------------------------------------------- */

Test(tls, raise_runs_handler_synchronously, .timeout = 60)
{
	expect_pass_same_as_nptl("tls_raise_abort", NULL);
}

Test(tls, raise_one_processor, .timeout = 40)
{
	expect_pass_free("tls_raise_abort", NULL, 1);
}

static void expect_sigabrt(int procs)
{
	struct run r = run_tls("tls_raise_abort", (const char *[]){"abort", NULL}, procs, false);
	char what[64];
	snprintf(what, sizeof what, "tls_raise_abort abort, GMPMAXPROCS=%d", procs);
	if (run_code(&r) != -6 || !strstr(r.out, "abort: calling abort()"))
		run_dump(what, &r);
	cr_assert_eq(run_code(&r), -6, "%s: code %d, want death by SIGABRT", what, run_code(&r));
	cr_assert(strstr(r.out, "abort: calling abort() in a thread"), "%s: no line before abort",
		  what);
	cr_assert_eq(count_prefix(r.out, "FAIL"), 0, "%s: %s", what, r.out);
	run_free(&r);
}

Test(tls, abort_in_a_thread_ends_process_with_sigabrt, .timeout = 60)
{
	expect_sigabrt(0);
	expect_sigabrt(2);
	expect_sigabrt(1);
}

/* ---- threads handed to the OS thread that holds their thread pointer ----
 * Where a thread-pointer write is a system call, a thread made runnable
 * goes to the OS thread that still holds its TCB, if that one is looking
 * for work, and runs there without the write (GMPDEBUG=affinity, on
 * here whatever this machine's write costs; spin keeps OS threads looking
 * long enough for it to happen). errno, __thread and malloc's per-thread
 * state must still be each thread's own. */
static const char *const affinity_env = "GMPDEBUG=fsbase=syscall,affinity=on,spin=200";

Test(tls, errno_with_affinity_handoffs, .timeout = 60)
{
	extra_env = affinity_env;
	expect_pass_same_as_nptl("tls_errno", NULL);
	extra_env = NULL;
}

Test(tls, thread_vars_with_affinity_handoffs, .timeout = 60)
{
	extra_env = affinity_env;
	expect_pass_same_as_nptl("tls_thread_vars", NULL);
	extra_env = NULL;
}

Test(tls, malloc_storm_with_affinity_handoffs, .timeout = 60)
{
	extra_env = affinity_env;
	expect_pass_same_as_nptl("tls_malloc_storm", NULL);
	extra_env = NULL;
}
