/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/jemalloc_threads.c — a program whose malloc is jemalloc
 * (linked in, as redis-server is). jemalloc locks pthread mutexes and
 * creates a pthread key inside its first malloc, keeps a list of every
 * thread it has seen, and creates its background threads with the
 * pthread_create it finds with dlsym(RTLD_NEXT).
 *
 * 16 threads allocate and free; then mallctl reads and walks jemalloc's
 * state, turns background threads on, runs 16 more threads, turns them
 * off, and reads the statistics. Prints each call's result and "DONE".
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

#define NT 16

static void *work(void *arg)
{
	long sum = 0;
	for (int i = 0; i < 10000; i++) {
		char *p = malloc(16 + i % 4000);
		if (!p)
			return NULL;
		memset(p, i, 16);
		sum += p[3];
		free(p);
	}
	return arg;
}

static int run_threads(void)
{
	pthread_t t[NT];
	static char tag[NT];
	int ok = 0;
	for (int i = 0; i < NT; i++)
		if (pthread_create(&t[i], NULL, work, &tag[i]) != 0)
			return -1;
	for (int i = 0; i < NT; i++) {
		void *r;
		pthread_join(t[i], &r);
		ok += r == &tag[i];
	}
	return ok;
}

int main(void)
{
	printf("threads that allocated: %d\n", run_threads());
	unsigned n;
	size_t sz = sizeof n;
	printf("mallctl arenas.narenas: %d\n", mallctl("arenas.narenas", &n, &sz, NULL, 0));
	bool on = true, off = false, old;
	sz = sizeof old;
	printf("mallctl background_thread on: %d (was %d)\n",
	       mallctl("background_thread", &old, &sz, &on, sizeof on), old);
	printf("threads that allocated: %d\n", run_threads());
	printf("mallctl background_thread off: %d\n",
	       mallctl("background_thread", NULL, NULL, &off, sizeof off));
	uint64_t epoch = 1;
	sz = sizeof epoch;
	printf("mallctl epoch: %d\n", mallctl("epoch", &epoch, &sz, &epoch, sz));
	size_t allocated;
	sz = sizeof allocated;
	printf("mallctl stats.allocated: %d\n", mallctl("stats.allocated", &allocated, &sz, NULL, 0));
	printf("DONE\n");
	return 0;
}
