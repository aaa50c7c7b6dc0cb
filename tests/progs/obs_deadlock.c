/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/obs_deadlock.c — programs whose threads all end up waiting,
 * for libgmp's deadlock report. An ordinary pthread program; core dumps
 * are turned off first.
 *
 *   obs_deadlock mutex    two threads take two mutexes in opposite orders
 *                         (lock_a_then_b, lock_b_then_a); main joins one:
 *                         a deadlock
 *   obs_deadlock cond     a thread waits on a condition variable nobody
 *                         signals (wait_forever); main joins it: a deadlock
 *   obs_deadlock pause    4 threads wait on a condvar; main is in pause():
 *                         not a deadlock (a signal may come)
 *   obs_deadlock sigwait  the same with main in sigwait(SIGUSR1)
 *   obs_deadlock read     the same with main reading a FIFO nobody writes
 *                         (a blocking read on a descriptor libgmp did not
 *                         make, like a terminal's)
 *   obs_deadlock epoll    the same with main in epoll_wait on an empty set
 *   obs_deadlock dump N   N threads wait on a condvar, main joins them;
 *                         prints "ready" first (for a thread dump)
 *
 * Prints "waiting" (or "ready") once every thread is about to wait; never
 * ends by itself.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t bar;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

__attribute__((noinline)) static void *lock_a_then_b(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&a);
	pthread_barrier_wait(&bar);
	pthread_mutex_lock(&b);
	return NULL;
}

__attribute__((noinline)) static void *lock_b_then_a(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&b);
	pthread_barrier_wait(&bar);
	pthread_mutex_lock(&a);
	return NULL;
}

static atomic_int nwaiting;	/* wait_forever threads past their lock */

__attribute__((noinline)) static void *wait_forever(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	atomic_fetch_add(&nwaiting, 1);
	for (;;)
		pthread_cond_wait(&never, &mu);
	return NULL;
}

static void waiters(int n)
{
	pthread_t t;
	for (int i = 0; i < n; i++)
		pthread_create(&t, NULL, wait_forever, NULL);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	struct rlimit rl = {0, 0};
	setrlimit(RLIMIT_CORE, &rl);
	pthread_t t1, t2;
	if (strcmp(what, "mutex") == 0) {
		pthread_barrier_init(&bar, NULL, 2);
		pthread_create(&t1, NULL, lock_a_then_b, NULL);
		pthread_create(&t2, NULL, lock_b_then_a, NULL);
		printf("waiting\n");
		fflush(stdout);
		pthread_join(t1, NULL);
	} else if (strcmp(what, "cond") == 0) {
		pthread_create(&t1, NULL, wait_forever, NULL);
		printf("waiting\n");
		fflush(stdout);
		pthread_join(t1, NULL);
	} else if (strcmp(what, "pause") == 0) {
		waiters(4);
		printf("waiting\n");
		fflush(stdout);
		pause();
	} else if (strcmp(what, "sigwait") == 0) {
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &s, NULL);
		waiters(4);
		printf("waiting\n");
		fflush(stdout);
		int sig;
		sigwait(&s, &sig);
	} else if (strcmp(what, "read") == 0) {
		char path[64];
		snprintf(path, sizeof path, "/tmp/obs-fifo-%d", (int)getpid());
		mkfifo(path, 0600);
		int fd = open(path, O_RDWR);
		unlink(path);
		waiters(4);
		printf("waiting\n");
		fflush(stdout);
		char c;
		if (read(fd, &c, 1) < 0)
			return 1;
	} else if (strcmp(what, "epoll") == 0) {
		int ep = epoll_create1(0);
		waiters(4);
		printf("waiting\n");
		fflush(stdout);
		struct epoll_event ev;
		epoll_wait(ep, &ev, 1, -1);
	} else if (strcmp(what, "dump") == 0) {
		int n = argc > 2 ? atoi(argv[2]) : 1000;
		waiters(n);
		/* every waiter counted itself holding mu, which it gives up
		 * only in pthread_cond_wait: with mu, all of them wait there */
		while (atomic_load(&nwaiting) < n)
			sched_yield();
		pthread_mutex_lock(&mu);
		printf("ready\n");
		fflush(stdout);
		for (;;)
			pthread_cond_wait(&never, &mu);
	} else {
		fprintf(stderr, "usage: obs_deadlock mutex|cond|pause|sigwait|read|epoll|dump [N]\n");
		return 2;
	}
	return 1;
}
