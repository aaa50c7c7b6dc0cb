/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sync_util.h — helpers shared by the sync_* test programs
 * (mutexes, condition variables, rwlocks, barriers, semaphores ...), on
 * top of api_util.h. Like them, nothing here knows about libgmp.
 */
#ifndef GMP_TESTS_PROGS_SYNC_UTIL_H
#define GMP_TESTS_PROGS_SYNC_UTIL_H

#include "api_util.h"
#include <pthread.h>

/* Name of an error number, including the ones only sync calls return. */
static inline const char *sync_errname(int e)
{
	switch (e) {
	case EOWNERDEAD: return "EOWNERDEAD";
	case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
	case EOVERFLOW: return "EOVERFLOW";
	case EINTR: return "EINTR";
	default: return errname(e);
	}
}

/* Print "what: NAME" for a call's result (an error number). */
#define SAY_ERR(what, expr) SAY("%s: %s", what, sync_errname(expr))

/* Print "what: ret NAME" for a call that reports through errno. */
#define SAY_ERRNO(what, expr) do { \
	errno = 0; \
	int r_ = (expr); \
	int e_ = errno; \
	SAY("%s: %d %s", what, r_, r_ ? sync_errname(e_) : "0"); \
} while (0)

/* Stack size of the many small threads of these programs. */
#define SMALL_STACK (256 * 1024)

/* Start n threads fn((void *)i), i = 0..n-1, with small stacks. The
 * caller joins them with join_n. */
static inline pthread_t *spawn_n(int n, void *(*fn)(void *))
{
	pthread_t *t = calloc((size_t)n, sizeof *t);
	pthread_attr_t a;
	CHECK(t != NULL, "calloc");
	EXPECT_ERR(0, pthread_attr_init(&a));
	EXPECT_ERR(0, pthread_attr_setstacksize(&a, SMALL_STACK));
	for (long i = 0; i < n; i++)
		EXPECT_ERR(0, pthread_create(&t[i], &a, fn, (void *)i));
	EXPECT_ERR(0, pthread_attr_destroy(&a));
	return t;
}

/* Join the n threads of spawn_n; each must have returned NULL. */
static inline void join_n(pthread_t *t, int n)
{
	for (int i = 0; i < n; i++) {
		void *res = (void *)1;
		EXPECT_ERR(0, pthread_join(t[i], &res));
		CHECK(res == NULL, "thread %d returned %p", i, res);
	}
	free(t);
}

/* spawn_n and join_n at once. */
static inline void run_n(int n, void *(*fn)(void *))
{
	join_n(spawn_n(n, fn), n);
}

/* An absolute time on clock clk, ms milliseconds from now (may be < 0). */
static inline struct timespec deadline_ms(clockid_t clk, int64_t ms)
{
	return ns_ts(clock_ns(clk) + ms * 1000000);
}

/* A deadline long past (the epoch, on any clock). */
static inline struct timespec past_ts(void)
{
	struct timespec ts = {0, 0};
	return ts;
}

/* A deadline in the future whose tv_nsec is out of range. */
static inline struct timespec bad_ns_ts(clockid_t clk)
{
	struct timespec ts = deadline_ms(clk, 20);
	ts.tv_nsec = 1000000000;
	return ts;
}

/* Mix a value into a running xor/sum checksum pair. */
struct checksum {
	uint64_t sum, xor;
	long count;
};

static inline void checksum_add(struct checksum *c, uint64_t v)
{
	c->sum += v;
	c->xor ^= v * 0x9e3779b97f4a7c15ull;
	c->count++;
}

static inline void checksum_merge(struct checksum *into, const struct checksum *c)
{
	into->sum += c->sum;
	into->xor ^= c->xor;
	into->count += c->count;
}

/* The item number i of producer p (distinct for every p and i). */
static inline uint64_t item_value(int p, int i)
{
	return ((uint64_t)(p + 1) << 32) | (uint64_t)(i + 1);
}

/* What the consumers must have seen when np producers made n items each. */
static inline struct checksum expected_checksum(int np, int n)
{
	struct checksum c = {0, 0, 0};
	for (int p = 0; p < np; p++)
		for (int i = 0; i < n; i++)
			checksum_add(&c, item_value(p, i));
	return c;
}

#define CHECK_CHECKSUM(got, want) \
	CHECK((got).sum == (want).sum && (got).xor == (want).xor && (got).count == (want).count, \
	      "items %ld sum %llx xor %llx, expected %ld %llx %llx", (got).count, \
	      (unsigned long long)(got).sum, (unsigned long long)(got).xor, (want).count, \
	      (unsigned long long)(want).sum, (unsigned long long)(want).xor)

/* Run the subcommand named argv[1] from a table, or all of them in order
 * when there is none; prints "PASS <prog> <name>" (or "PASS <prog>"). */
struct subcommand {
	const char *name;
	void (*fn)(void);
	bool in_all;	/* part of the run without arguments */
};

static inline int run_subcommands(const char *prog, const struct subcommand *cmds, int argc,
				  char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1) {
		for (const struct subcommand *c = cmds; c->name; c++)
			if (strcmp(c->name, argv[1]) == 0) {
				c->fn();
				SAY("PASS %s %s", prog, c->name);
				return 0;
			}
		SAY("FAIL: %s: unknown subcommand %s", prog, argv[1]);
		return 1;
	}
	for (const struct subcommand *c = cmds; c->name; c++)
		if (c->in_all)
			c->fn();
	SAY("PASS %s", prog);
	return 0;
}

#endif
