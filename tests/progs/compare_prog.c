/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/compare_prog.c — a small pthread program for gmprun
 * --compare's tests. It starts and joins 20 threads, then:
 *
 *   compare_prog fixed    prints the same line every time, exits 0
 *   compare_prog varies   prints the time in nanoseconds, exits 0
 *   compare_prog exit3    prints a line, exits 3
 *   compare_prog crashgmp aborts when LD_PRELOAD names libgmp (so it
 *                         crashes under libgmp only), else prints a line
 *   compare_prog stdin    prints what its standard input holds
 *   compare_prog signals  exits 4 when it starts with SIGPIPE, SIGINT or
 *                         SIGQUIT ignored (a runner's own settings leaked)
 */
#include "common.h"

#include <pthread.h>
#include <signal.h>

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	pthread_t t[20];
	for (int i = 0; i < 20; i++)
		CHECK(pthread_create(&t[i], NULL, nothing, NULL) == 0, "pthread_create");
	for (int i = 0; i < 20; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	if (strcmp(what, "fixed") == 0) {
		printf("20 threads started and joined\n");
		return 0;
	}
	if (strcmp(what, "varies") == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("%ld.%09ld\n", (long)ts.tv_sec, ts.tv_nsec);
		return 0;
	}
	if (strcmp(what, "exit3") == 0) {
		printf("ending with 3\n");
		return 3;
	}
	if (strcmp(what, "crashgmp") == 0) {
		const char *pre = getenv("LD_PRELOAD");
		if (pre && strstr(pre, "libgmp"))
			abort();
		printf("no libgmp here\n");
		return 0;
	}
	if (strcmp(what, "signals") == 0) {
		static const int sigs[] = {SIGPIPE, SIGINT, SIGQUIT};
		for (int i = 0; i < 3; i++) {
			struct sigaction sa;
			if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) {
				printf("signal %d ignored\n", sigs[i]);
				return 4;
			}
		}
		printf("default dispositions\n");
		return 0;
	}
	if (strcmp(what, "stdin") == 0) {
		char buf[256];
		while (fgets(buf, sizeof buf, stdin))
			fputs(buf, stdout);
		return 0;
	}
	fprintf(stderr, "usage: compare_prog fixed|varies|exit3|crashgmp|stdin|signals\n");
	return 2;
}
