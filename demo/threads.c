/* SPDX-License-Identifier: MIT */
/*
 * demo/threads.c — a thread-heavy program: 10,000 threads, each sleeping
 * 5 ms and computing a little, ten times over. It knows nothing about
 * libgmp; run it plainly (NPTL) or under libgmp and compare what it
 * prints: threads created, the most OS threads the process had at once
 * (sampled from /proc/self/status), wall time, and a checksum that must
 * not change.
 *
 *   threads [N [-q]]    N threads (default 10,000); -q prints only what
 *                       must not change (threads created, the checksum),
 *                       for gmprun --compare's output check
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_ulong checksum;
static atomic_int running;
static volatile int sampling = 1;
static long peak_os_threads;

static long os_threads(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long n = -1;
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "Threads:", 8) == 0)
			n = atol(line + 8);
	if (f)
		fclose(f);
	return n;
}

/* A little CPU work: an FNV-1a hash over a few hundred bytes. */
static unsigned long compute(unsigned long seed)
{
	unsigned long h = 1469598103934665603ul ^ seed;
	for (int i = 0; i < 400; i++) {
		h ^= (unsigned char)(seed >> (i % 56)) + (unsigned)i;
		h *= 1099511628211ul;
	}
	return h;
}

static void *worker(void *arg)
{
	unsigned long id = (unsigned long)arg, sum = 0;
	atomic_fetch_add(&running, 1);
	for (int round = 0; round < 10; round++) {
		usleep(5000);
		sum += compute(id * 10 + (unsigned long)round);
	}
	atomic_fetch_add(&checksum, sum);
	return NULL;
}

static void *sampler(void *arg)
{
	while (sampling) {
		long n = os_threads();
		if (n > peak_os_threads)
			peak_os_threads = n;
		usleep(2000);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	int quiet = argc > 2 && strcmp(argv[2], "-q") == 0;
	pthread_t *t = calloc((size_t)n, sizeof *t);
	pthread_t mon;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_create(&mon, NULL, sampler, NULL);
	int created = 0;
	for (int i = 0; i < n; i++) {
		if (pthread_create(&t[i], NULL, worker, (void *)(unsigned long)i) != 0)
			break;
		created++;
	}
	for (int i = 0; i < created; i++)
		pthread_join(t[i], NULL);
	sampling = 0;
	pthread_join(mon, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	double wall = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("threads created:  %d\n", created);
	if (!quiet) {
		printf("peak OS threads:  %ld\n", peak_os_threads);
		printf("wall time:        %.3f s\n", wall);
	}
	printf("checksum:         %016lx\n", (unsigned long)atomic_load(&checksum));
	return created == n ? 0 : 1;
}
