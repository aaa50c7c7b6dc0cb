/* SPDX-License-Identifier: MIT */
/* Threads glibc makes on its own (here the helper thread behind a
 * SIGEV_THREAD timer) are not Gs. From such a thread the program creates
 * and joins threads and sleeps; everything must work as usual. */
#include "common.h"
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

static atomic_int done;
static long joined_value = -1;
static int create_err = -1, join_err = -1;
static double slept = -1;

static void *child(void *arg)
{
	usleep(2000);
	return (void *)((long)arg + 1);
}

static void on_timer(union sigval sv)
{
	pthread_t t;
	void *res = NULL;
	create_err = pthread_create(&t, NULL, child, (void *)41L);
	if (create_err == 0)
		join_err = pthread_join(t, &res);
	joined_value = (long)res;
	double t0 = now_sec();
	usleep(5000);
	slept = now_sec() - t0;
	atomic_store(&done, 1);
}

int main(void)
{
	struct sigevent sev = {0};
	timer_t tm;
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = on_timer;
	CHECK(timer_create(CLOCK_MONOTONIC, &sev, &tm) == 0, "timer_create");
	struct itimerspec its = {.it_value = {.tv_sec = 0, .tv_nsec = 10000000}};
	CHECK(timer_settime(tm, 0, &its, NULL) == 0, "timer_settime");
	for (int i = 0; i < 5000 && !atomic_load(&done); i++)
		usleep(1000);
	CHECK(atomic_load(&done), "the timer thread never finished");
	CHECK(create_err == 0, "pthread_create from the timer thread: %d", create_err);
	CHECK(join_err == 0, "pthread_join from the timer thread: %d", join_err);
	CHECK(joined_value == 42, "joined value %ld", joined_value);
	CHECK(slept >= 0.005, "usleep(5000) returned after %.6f s", slept);
	timer_delete(tm);
	printf("PASS foreign threads\n");
	return 0;
}
