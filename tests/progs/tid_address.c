/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/tid_address.c — set_tid_address and PR_GET_TID_ADDRESS as
 * threads see them. An ordinary pthread program.
 *
 * 50 threads, each of which finds its clear-child-tid word set
 * (PR_GET_TID_ADDRESS: glibc's, in its descriptor):
 * - 25 detached ones point it at a word of main's with set_tid_address
 *   (which returns a thread id), read it back, and end;
 * - 25 joinable ones leave glibc's word and hand it to main.
 * main waits on every word with FUTEX_WAIT, no timeout, until it is 0:
 * Linux writes 0 there and wakes a waiter when the thread ends. A word
 * never cleared ends the run after 20 s (SIGALRM) instead of hanging it.
 *
 * Prints what it saw and "DONE", exits 0; else says what and exits 1.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { N = 50, OWN = 25 };

static _Atomic int words[OWN];
static int *_Atomic glibc_word[N];
static atomic_int had_word, got_tid, read_back, go;

static void *thread(void *arg)
{
	int i = (int)(long)arg;
	int *before = NULL, *after = NULL;
	if (prctl(PR_GET_TID_ADDRESS, &before, 0, 0, 0) == 0 && before)
		atomic_fetch_add(&had_word, 1);
	if (i < OWN) {
		if (syscall(SYS_set_tid_address, &words[i]) > 0)
			atomic_fetch_add(&got_tid, 1);
		if (prctl(PR_GET_TID_ADDRESS, &after, 0, 0, 0) == 0 && after == (int *)&words[i])
			atomic_fetch_add(&read_back, 1);
	} else {
		atomic_store(&glibc_word[i], before);
	}
	/* main waits on some words before their threads end */
	while (!atomic_load(&go))
		usleep(100);
	return NULL;
}

static void wait_zero(int *w)
{
	int v;
	while ((v = __atomic_load_n(w, __ATOMIC_ACQUIRE)) != 0)
		syscall(SYS_futex, w, FUTEX_WAIT, v, NULL, NULL, 0);
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL: a word was not cleared within 20 s\n";
	write(1, msg, sizeof msg - 1);
	_exit(1);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	alarm(20);
	pthread_attr_t det;
	pthread_attr_init(&det);
	pthread_attr_setdetachstate(&det, PTHREAD_CREATE_DETACHED);
	pthread_t t[N];
	for (int i = 0; i < N; i++) {
		if (i < OWN)
			atomic_store(&words[i], 1);
		if (pthread_create(&t[i], i < OWN ? &det : NULL, thread, (void *)(long)i) != 0) {
			printf("FAIL pthread_create\n");
			return 1;
		}
	}
	/* the joinable threads' words, once they have handed them over */
	int handed = 0;
	for (int i = OWN; i < N; i++) {
		while (!atomic_load(&glibc_word[i]))
			usleep(100);
		handed++;
	}
	atomic_store(&go, 1);
	for (int i = 0; i < OWN; i++)
		wait_zero((int *)&words[i]);
	for (int i = OWN; i < N; i++) {
		wait_zero(atomic_load(&glibc_word[i]));
		pthread_join(t[i], NULL);
	}
	alarm(0);
	printf("threads that found a clear-child-tid word: %d/%d\n", atomic_load(&had_word), N);
	printf("set_tid_address returned a thread id: %d/%d\n", atomic_load(&got_tid), OWN);
	printf("PR_GET_TID_ADDRESS read it back: %d/%d\n", atomic_load(&read_back), OWN);
	printf("words cleared when their thread ended: %d/%d set, %d/%d glibc's\n", OWN, OWN, handed,
	       N - OWN);
	if (atomic_load(&had_word) != N || atomic_load(&got_tid) != OWN ||
	    atomic_load(&read_back) != OWN) {
		printf("FAIL\n");
		return 1;
	}
	printf("DONE\n");
	return 0;
}
