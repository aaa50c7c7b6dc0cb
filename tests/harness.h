/*
 * tests/harness.h — running an unmodified program in a child process,
 * with libgmp preloaded for that child only, a hard timeout, and its
 * output captured. Used by the Criterion compat tests.
 */
#ifndef GMP_TESTS_HARNESS_H
#define GMP_TESTS_HARNESS_H

#include <stdbool.h>

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
