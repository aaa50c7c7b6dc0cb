/* SPDX-License-Identifier: MIT */
/*
 * tests/harness.h — running an unmodified program in a child process,
 * with libgmp preloaded for that child only, a hard timeout, and its
 * output captured. Used by the Criterion compat tests.
 */
#ifndef GMP_TESTS_HARNESS_H
#define GMP_TESTS_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

struct run {
	int status;		/* wait status */
	bool timed_out;		/* killed by the harness */
	char *out;		/* captured stdout, NUL-terminated */
	char *err;		/* captured stderr */
};

/* Path of a file in the build tree (static buffer, one at a time). */
const char *build_path(const char *rel);
/* Path of a test program in tests/progs. */
const char *prog_path(const char *name);

/*
 * Run argv[0] (a path) with args, with libgmp preloaded when `preload`,
 * extra environment entries env ("K=V", NULL-terminated, may be NULL),
 * and a timeout in seconds after which the child is killed with SIGKILL.
 */
struct run run_prog(const char *const argv[], const char *const env[], int timeout_s,
		    bool preload);
void run_free(struct run *r);
/* Run test program prog (tests/progs) with one argument, sub. procs: -1
 * under NPTL, 0 under libgmp with its default processors, n > 0 with
 * GMPMAXPROCS=n; extra: one more environment entry or NULL. */
struct run run_sub(const char *prog, const char *sub, int procs, const char *extra,
		   int timeout_s);

/* Criterion asserts that test program prog run with argument sub prints
 * "PASS <sub>" last and exits 0 under NPTL, and prints exactly the same
 * and exits 0 under libgmp, with its default processors and with one
 * (GMPMAXPROCS=1); each run within timeout_s seconds. */
void sub_same_as_nptl(const char *prog, const char *sub, int timeout_s);

/* The same in steps, for a program that runs in the background while the
 * test does other things: bg_start forks it; bg_pump collects its output
 * until stdout holds `needle` (NULL: until both pipes end) or the
 * deadline (harness_now() seconds) passes, true if found (or ended);
 * bg_kill kills it; bg_finish waits for it to end by the deadline (else
 * kills it) and returns the run, as run_prog does. */
struct bg {
	int pid;
	int fd[2];		/* stdout, stderr; -1 once at end of file */
	struct run r;		/* out and err grow as the output comes */
	size_t len[2], cap[2];
	bool done;
};
double harness_now(void);
void bg_start(struct bg *b, const char *const argv[], const char *const env[], bool preload);
bool bg_pump(struct bg *b, const char *needle, double deadline);
void bg_kill(struct bg *b);
struct run bg_finish(struct bg *b, double deadline);

/* Exit code, or -signal, or -1000 on timeout. */
int run_code(const struct run *r);
/* Print the run's output with a title (for failing tests). */
void run_dump(const char *title, const struct run *r);
/* Report on stderr the first line where two outputs (NPTL's, libgmp's)
 * part. */
void run_show_difference(const char *nptl, const char *gmp);
/* Count lines of s that start with prefix. */
int count_prefix(const char *s, const char *prefix);

#endif
