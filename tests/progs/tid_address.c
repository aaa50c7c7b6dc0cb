/*
 * tests/progs/tid_address.c — set_tid_address and PR_GET_TID_ADDRESS as
 * threads see them. An ordinary pthread program.
 *
 * 50 detached threads: each finds a clear-child-tid word set
 * (PR_GET_TID_ADDRESS: glibc's, in its descriptor), points it at a word
 * of main's with set_tid_address (which returns a thread id), reads that
 * back, waits for main to let it end, and ends. main waits on every word
 * with FUTEX_WAIT until it is 0: Linux writes 0 there and wakes one
 * waiter when the thread ends.
 *
 * Prints what it saw and "DONE", exits 0; else says what and exits 1.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum { N = 50 };

static _Atomic int words[N];
static atomic_int had_word, got_tid, read_back, go;

static void *thread(void *arg)
{
	int i = (int)(long)arg;
	int *before = NULL, *after = NULL;
	if (prctl(PR_GET_TID_ADDRESS, &before, 0, 0, 0) == 0 && before)
		atomic_fetch_add(&had_word, 1);
	if (syscall(SYS_set_tid_address, &words[i]) > 0)
		atomic_fetch_add(&got_tid, 1);
	if (prctl(PR_GET_TID_ADDRESS, &after, 0, 0, 0) == 0 && after == (int *)&words[i])
		atomic_fetch_add(&read_back, 1);
	/* main is already waiting on some words when they clear */
	while (!atomic_load(&go))
		usleep(100);
	return NULL;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < N; i++) {
		atomic_store(&words[i], 1);
		pthread_t t;
		if (pthread_create(&t, &a, thread, (void *)(long)i) != 0) {
			printf("FAIL pthread_create\n");
			return 1;
		}
	}
	atomic_store(&go, 1);
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	int cleared = 0;
	for (int i = 0; i < N; i++) {
		/* a thread whose word is never cleared fails the run after 10 s
		 * rather than hanging it */
		while (atomic_load(&words[i]) != 0) {
			struct timespec rel = {0, 100 * 1000000};
			syscall(SYS_futex, &words[i], FUTEX_WAIT, 1, &rel, NULL, 0);
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - start.tv_sec > 10)
				break;
		}
		cleared += atomic_load(&words[i]) == 0;
	}
	printf("threads that found a clear-child-tid word: %d/%d\n", atomic_load(&had_word), N);
	printf("set_tid_address returned a thread id: %d/%d\n", atomic_load(&got_tid), N);
	printf("PR_GET_TID_ADDRESS read it back: %d/%d\n", atomic_load(&read_back), N);
	printf("words cleared when their thread ended: %d/%d\n", cleared, N);
	if (atomic_load(&had_word) != N || atomic_load(&got_tid) != N ||
	    atomic_load(&read_back) != N || cleared != N) {
		printf("FAIL\n");
		return 1;
	}
	printf("DONE\n");
	return 0;
}
