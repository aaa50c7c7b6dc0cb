/* SPDX-License-Identifier: MIT */
/*
 * bench/cond_pingpong.c — a token bounced between two threads through a
 * mutex and two condition variables, N round trips (default 100,000). Each
 * side waits on its own condvar until the token is its own, increments it,
 * hands it over and signals the other side's condvar; every handover wakes
 * a sleeping thread, so this measures how fast a condvar wakes a waiter
 * and the woken thread gets the mutex. Each side checks the token it
 * receives. Reports round trips per second and microseconds per round
 * trip (one round trip: two handovers).
 *
 *   cond_pingpong [N]
 */
#include "bench.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake[2] = {PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER};
static int turn;   /* which side holds the token; under lock */
static long token; /* handovers so far; under lock */
static long n;
static long out_of_step; /* tokens received with the wrong value; under lock */
static double t_end;
static struct gate gate = GATE_INITIALIZER;

/* With `lock` held: waits until side `me` holds the token, and checks that
 * it is the one expected. */
static void receive(int me, long want)
{
	while (turn != me)
		must(pthread_cond_wait(&wake[me], &lock), "pthread_cond_wait");
	if (token != want)
		out_of_step++;
}

static void *side(void *arg)
{
	int me = (int)(long)arg;

	gate_wait(&gate);
	for (long k = 0; k < n; k++) {
		must(pthread_mutex_lock(&lock), "pthread_mutex_lock");
		receive(me, 2 * k + me);
		token++;
		turn = !me;
		must(pthread_cond_signal(&wake[!me]), "pthread_cond_signal");
		must(pthread_mutex_unlock(&lock), "pthread_mutex_unlock");
	}
	if (me == 0) { /* the last round trip ends when the token is back */
		must(pthread_mutex_lock(&lock), "pthread_mutex_lock");
		receive(0, 2 * n);
		t_end = now_sec();
		must(pthread_mutex_unlock(&lock), "pthread_mutex_unlock");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	n = arg_long(argc, argv, 1, 100000);
	pthread_t t[2];
	struct sampler smp;

	sampler_start(&smp, 5000);
	gate_arm(&gate, 2);
	for (long i = 0; i < 2; i++)
		spawn(&t[i], side, (void *)i);
	double t0 = gate_open(&gate);
	for (int i = 0; i < 2; i++)
		reap(t[i]);
	double secs = t_end - t0;
	long peak = sampler_stop(&smp);
	if (token != 2 * n || out_of_step) {
		fprintf(stderr, "cond_pingpong: %ld handovers, want %ld; %ld out of step\n", token,
			2 * n, out_of_step);
		return 1;
	}
	printf("RESULT name=cond_pingpong n=%ld seconds=%.6f round_trips_per_sec=%.0f "
	       "us_per_round_trip=%.3f peak_os_threads=%ld rss_kib=%ld\n",
	       n, secs, (double)n / secs, secs / (double)n * 1e6, peak, status_field("VmHWM"));
	return 0;
}
