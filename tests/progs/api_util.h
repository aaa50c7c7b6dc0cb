/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/api_util.h — helpers shared by the api_* test programs (on
 * top of common.h). Like them, it knows nothing about libgmp: everything
 * here is ordinary POSIX/glibc.
 */
#ifndef GMP_TESTS_PROGS_API_UTIL_H
#define GMP_TESTS_PROGS_API_UTIL_H

#include "common.h"
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Name of an error number the thread API may return. */
static inline const char *errname(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EDEADLK: return "EDEADLK";
	case ESRCH: return "ESRCH";
	case EBUSY: return "EBUSY";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ERANGE: return "ERANGE";
	case EAGAIN: return "EAGAIN";
	case EPERM: return "EPERM";
	case ENOTSUP: return "ENOTSUP";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	default: return "other";
	}
}

/* Require a call to return `want` (an error number). */
#define EXPECT_ERR(want, expr) do { \
	int e_ = (expr); \
	CHECK(e_ == (want), "%s returned %s (%d), expected %s", #expr, errname(e_), e_, \
	      errname(want)); \
} while (0)

/* A line of output, flushed at once (a test may _exit or exit abruptly). */
#define SAY(...) do { printf(__VA_ARGS__); printf("\n"); fflush(stdout); } while (0)

/* Wait for *flag to become non-zero, giving up the CPU between looks. */
static inline void wait_flag(atomic_int *flag)
{
	while (!atomic_load(flag))
		usleep(200);
}

/* Wait for *n to reach at least v. */
static inline void wait_count(atomic_int *n, int v)
{
	while (atomic_load(n) < v)
		usleep(200);
}

static inline int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static inline struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
	return ts;
}

static inline int64_t clock_ns(clockid_t clk)
{
	struct timespec ts;
	if (clock_gettime(clk, &ts) != 0)
		return -1;
	return ts_ns(&ts);
}

/* Burn CPU for about `ns` of this thread's CPU time. */
static inline void burn_cpu_ns(int64_t ns)
{
	int64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	volatile uint64_t x = 1;
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) - start < ns)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ull + 1;
}

#endif
