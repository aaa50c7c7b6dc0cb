/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/tls_common.h — shared by the tls_* programs, which check the
 * rows of TLS.md §2 with many threads that give up their processor (yield,
 * short sleeps) in the middle of what they check. Under a user-level
 * scheduler with several OS threads a thread may resume on another OS
 * thread: tls_switch() notices that with gettid() before and after, and
 * with --expect-migration a program fails unless it happened at least once.
 *
 * The number of switches and migrations differs from run to run, so it is
 * printed on stderr; stdout holds only what must be the same every time
 * (and the same under NPTL), ending with a line "PASS ..." or "FAIL: ...".
 */
#ifndef GMP_TESTS_PROGS_TLS_COMMON_H
#define GMP_TESTS_PROGS_TLS_COMMON_H

#include "common.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

static long tls_nswitch, tls_nmigr;
static bool tls_expect_migration;

/* Look for --expect-migration among the arguments; returns true if seen. */
static inline bool tls_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--expect-migration") == 0)
			tls_expect_migration = true;
	return tls_expect_migration;
}

/* Give up the processor: usually a yield, every third time a short sleep.
 * Returns true when the thread came back on another OS thread. */
static inline bool tls_switch(unsigned i)
{
	int before = os_tid();
	if (i % 3 == 0)
		usleep(20 + (i % 5) * 10);
	else
		sched_yield();
	bool moved = os_tid() != before;
	__atomic_fetch_add(&tls_nswitch, 1, __ATOMIC_RELAXED);
	if (moved)
		__atomic_fetch_add(&tls_nmigr, 1, __ATOMIC_RELAXED);
	return moved;
}

/*
 * Loop condition for a thread's rounds: i < nr; with --expect-migration,
 * rounds go on (up to 100 * nr) while no thread has resumed on another OS
 * thread yet. On a busy machine the kernel may keep a scheduler's second
 * OS thread off the CPU for the whole of a short run; the checks are only
 * worth something once threads really migrate between them.
 */
static inline bool tls_more(unsigned i, unsigned nr)
{
	if (i < nr)
		return true;
	return tls_expect_migration && i < 100 * nr &&
	       __atomic_load_n(&tls_nmigr, __ATOMIC_RELAXED) == 0;
}

/* Count a migration observed some other way (gettid compared by hand). */
static inline void tls_count_migration(int before)
{
	if (os_tid() != before)
		__atomic_fetch_add(&tls_nmigr, 1, __ATOMIC_RELAXED);
}

/* Print the switch and migration counts on stderr; with
 * --expect-migration, fail (stdout, return 1) when nothing migrated. */
static inline int tls_migration_verdict(void)
{
	long s = __atomic_load_n(&tls_nswitch, __ATOMIC_RELAXED);
	long m = __atomic_load_n(&tls_nmigr, __ATOMIC_RELAXED);
	fprintf(stderr, "switches=%ld migrations=%ld\n", s, m);
	if (tls_expect_migration && m == 0) {
		printf("FAIL: no thread ever resumed on another OS thread (%ld switches)\n", s);
		fflush(stdout);
		return 1;
	}
	return 0;
}

#endif
