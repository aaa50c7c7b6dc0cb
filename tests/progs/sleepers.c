/* SPDX-License-Identifier: MIT */
/* N threads sleep concurrently, MS milliseconds at a time (default 20);
 * the main thread reads the OS thread count from /proc/self/status while
 * all of them are alive and prints it. Each thread checks it slept at
 * least as long as asked.
 *
 *   sleepers [N [MS]] */
#include "common.h"
#include <pthread.h>
#include <stdatomic.h>

static atomic_int started, short_sleeps;
static volatile int release;
static int period_ms = 20;

static void *sleeper(void *arg)
{
	atomic_fetch_add(&started, 1);
	while (!release) {
		double t0 = now_sec();
		usleep((useconds_t)period_ms * 1000);
		if (now_sec() - t0 < period_ms / 1000.0 - 0.001)
			atomic_fetch_add(&short_sleeps, 1);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10000;
	if (argc > 2)
		period_ms = atoi(argv[2]);
	pthread_t *t = malloc(sizeof *t * n);
	for (int i = 0; i < n; i++)
		CHECK(pthread_create(&t[i], NULL, sleeper, NULL) == 0, "create %d", i);
	while (atomic_load(&started) < n)
		usleep(1000);
	long threads = status_field("Threads");
	usleep(100000);
	release = 1;
	for (int i = 0; i < n; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "join %d", i);
	CHECK(atomic_load(&short_sleeps) == 0, "%d sleeps returned early", atomic_load(&short_sleeps));
	printf("threads=%d os_threads=%ld\n", n, threads);
	printf("PASS sleepers\n");
	return 0;
}
