/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sig_crash.c — a thread that crashes, among others that
 * run. An ordinary pthread program; core dumps are turned off first.
 *
 *   sig_crash overflow   a thread recurses without end: SIGSEGV
 *   sig_crash segv       a thread writes through a null pointer: SIGSEGV
 *   sig_crash abort      a thread calls abort(): SIGABRT
 *   sig_crash handler    a SIGSEGV handler (SA_SIGINFO) catches a null
 *                        write in a thread and leaves by siglongjmp;
 *                        prints the fault address and exits 0
 *
 * Prints "start" before the crash; the process should die of the signal.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Winfinite-recursion"
static int depth(int n)
{
	volatile char pad[1024];
	pad[0] = (char)n;
	return depth(n + 1) + pad[0];
}

static void *crasher(void *arg)
{
	const char *what = arg;
	struct timespec ts = {0, 10000000};
	nanosleep(&ts, NULL);
	if (strcmp(what, "overflow") == 0)
		return (void *)(long)depth(0);
	if (strcmp(what, "segv") == 0 || strcmp(what, "handler") == 0)
		*(volatile int *)(long)(what[0] == 'h' ? 16 : 0) = 1;
	if (strcmp(what, "abort") == 0)
		abort();
	return NULL;
}

static void *idler(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static sigjmp_buf env;
static void *fault_addr;

static void on_segv(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	fault_addr = info->si_addr;
	siglongjmp(env, 1);
}

static void *catcher(void *arg)
{
	if (sigsetjmp(env, 1) == 0)
		crasher(arg);
	printf("caught SIGSEGV at %p in the thread\n", fault_addr);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	struct rlimit rl = {0, 0};
	setrlimit(RLIMIT_CORE, &rl);
	pthread_t t;
	for (int i = 0; i < 4; i++)
		pthread_create(&t, NULL, idler, NULL);
	printf("start\n");
	fflush(stdout);
	if (strcmp(what, "handler") == 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGSEGV, &sa, NULL);
		pthread_create(&t, NULL, catcher, (void *)what);
		pthread_join(t, NULL);
		printf("PASS handler\n");
		return 0;
	}
	pthread_create(&t, NULL, crasher, (void *)what);
	pthread_join(t, NULL);
	printf("still alive\n");
	return 1;
}
