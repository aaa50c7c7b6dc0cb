/* SPDX-License-Identifier: MIT */
/*
 * bench/bench.h — helpers shared by the workloads. Each workload is an
 * ordinary pthread program that knows nothing about libgmp: it reads its
 * sizes from argv, measures itself (monotonic clock, /proc/self/status) and
 * prints exactly one line
 *
 *   RESULT name=<workload> key=value key=value ...
 *
 * that bench/run.sh parses. Diagnostics go to stderr.
 */
#ifndef GMP_BENCH_H
#define GMP_BENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* A number from a /proc/<pid>/status file ("Threads", "VmRSS", "VmHWM"),
 * or -1 (no such file or field). */
static inline long status_file_field(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[256];
	long v = -1;
	size_t kl = strlen(key);
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':')
			v = atol(line + kl + 1);
	fclose(f);
	return v;
}

/* The same from /proc/self/status. */
static inline long status_field(const char *key)
{
	return status_file_field("/proc/self/status", key);
}

static inline double now_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A positive integer argument, or the default. */
static inline long arg_long(int argc, char **argv, int i, long def)
{
	if (argc <= i)
		return def;
	char *end;
	long v = strtol(argv[i], &end, 10);
	if (*end || v <= 0) {
		fprintf(stderr, "%s: argument %d must be a positive integer, not '%s'\n", argv[0], i,
			argv[i]);
		exit(2);
	}
	return v;
}

/* A positive decimal number of seconds (at most an hour), or the default. */
static inline double arg_seconds(int argc, char **argv, int i, double def)
{
	if (argc <= i)
		return def;
	char *end;
	double v = strtod(argv[i], &end);
	if (*end || !(v > 0) || v > 3600) {
		fprintf(stderr, "%s: argument %d must be a number of seconds, not '%s'\n", argv[0], i,
			argv[i]);
		exit(2);
	}
	return v;
}

/* A little arithmetic that the compiler cannot drop: FNV-1a over `iters`
 * derived bytes. 100 iterations take about 0.1 us on a current core. */
static inline unsigned long compute(unsigned long seed, int iters)
{
	unsigned long h = 1469598103934665603ul ^ seed;
	for (int i = 0; i < iters; i++) {
		h ^= (unsigned char)(seed >> (i % 56)) + (unsigned)i;
		h *= 1099511628211ul;
	}
	return h;
}

/* Exits with a message naming `what` when a pthread call returned an error. */
static inline void must(int err, const char *what)
{
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, strerror(err));
		exit(1);
	}
}

/*
 * Start gate for the synchronization workloads: each of `n` worker threads
 * calls gate_wait, which returns only once the main thread has seen all n
 * arrive and called gate_open (which returns the time it opened). What is
 * measured from there includes neither creating the threads nor the order
 * in which they happened to start. A gate is statically initialised with
 * GATE_INITIALIZER and armed with gate_arm before each use, while no thread
 * is in it.
 */
struct gate {
	pthread_mutex_t lock;
	pthread_cond_t all_in; /* the main thread waits here for `arrived == n` */
	pthread_cond_t opened; /* the workers wait here for `open` */
	long n, arrived;
	int open;
};
#define GATE_INITIALIZER \
	{PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0}

static inline void gate_arm(struct gate *g, long n)
{
	g->n = n;
	g->arrived = 0;
	g->open = 0;
}

static inline void gate_wait(struct gate *g)
{
	must(pthread_mutex_lock(&g->lock), "gate: pthread_mutex_lock");
	if (++g->arrived == g->n)
		must(pthread_cond_signal(&g->all_in), "gate: pthread_cond_signal");
	while (!g->open)
		must(pthread_cond_wait(&g->opened, &g->lock), "gate: pthread_cond_wait");
	must(pthread_mutex_unlock(&g->lock), "gate: pthread_mutex_unlock");
}

static inline double gate_open(struct gate *g)
{
	must(pthread_mutex_lock(&g->lock), "gate: pthread_mutex_lock");
	while (g->arrived < g->n)
		must(pthread_cond_wait(&g->all_in, &g->lock), "gate: pthread_cond_wait");
	g->open = 1;
	double t0 = now_sec();
	must(pthread_cond_broadcast(&g->opened), "gate: pthread_cond_broadcast");
	must(pthread_mutex_unlock(&g->lock), "gate: pthread_mutex_unlock");
	return t0;
}

/* Creates a thread, or exits with the error; reap joins one the same way. */
static inline void spawn(pthread_t *t, void *(*fn)(void *), void *arg)
{
	must(pthread_create(t, NULL, fn, arg), "pthread_create");
}

static inline void reap(pthread_t t)
{
	must(pthread_join(t, NULL), "pthread_join");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of v[0..n-1] (sorts v). */
static inline double median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Peak-OS-thread sampler: a thread of the program that reads Threads: from
 * /proc/self/status every `period_us` until stopped. It counts itself (one
 * thread under either library); the workloads subtract nothing.
 */
struct sampler {
	pthread_t t;
	atomic_int stop;
	long peak;
	useconds_t period_us;
};

static void *sampler_main(void *arg)
{
	struct sampler *s = arg;
	while (!atomic_load(&s->stop)) {
		long n = status_field("Threads");
		if (n > s->peak)
			s->peak = n;
		usleep(s->period_us);
	}
	return NULL;
}

static inline void sampler_start(struct sampler *s, useconds_t period_us)
{
	atomic_store(&s->stop, 0);
	s->peak = status_field("Threads");
	s->period_us = period_us;
	int err = pthread_create(&s->t, NULL, sampler_main, s);
	if (err) {
		fprintf(stderr, "sampler: pthread_create: %s\n", strerror(err));
		exit(1);
	}
}

static inline long sampler_stop(struct sampler *s)
{
	atomic_store(&s->stop, 1);
	pthread_join(s->t, NULL);
	long n = status_field("Threads");
	return n > s->peak ? n : s->peak;
}

/*
 * Starts a copy of this program, as a new process image (so, under
 * LD_PRELOAD, with a libgmp of its own): `self --child` followed by the n
 * numbers given, in decimal. Exits with a message when it cannot.
 */
static inline pid_t exec_self_child(const char *self, int n, ...)
{
	char num[16][24];
	char *args[20] = {(char *)self, "--child"};
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n && i < 16; i++) {
		snprintf(num[i], sizeof num[i], "%ld", va_arg(ap, long));
		args[2 + i] = num[i];
	}
	va_end(ap);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", program_invocation_short_name, strerror(errno));
		exit(1);
	}
	if (pid == 0) {
		execv("/proc/self/exe", args);
		_exit(127);
	}
	return pid;
}

/*
 * Raises the soft limit on open files to the hard one: the socket
 * workloads hold thousands of descriptors, more than the usual soft limit
 * of 1,024. Returns the limit now in force (-1 if it cannot be read).
 */
static inline long raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur > (rlim_t)LONG_MAX ? LONG_MAX : (long)rl.rlim_cur;
}

#endif
