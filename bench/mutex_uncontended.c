/* SPDX-License-Identifier: MIT */
/*
 * bench/mutex_uncontended.c — the cost of a lock nobody else wants: one
 * thread locks and unlocks a default mutex N times in a row (default
 * 50,000,000), incrementing a counter while it holds it; the count is
 * checked. The loop runs in a created thread, not in main, so that both
 * libraries are past any single-threaded shortcut and it is a thread like
 * any other. Reports nanoseconds per lock+unlock pair and pairs per second.
 * Then the same thread calls gettid() N/100 times (a system call under
 * NPTL), and the nanoseconds per call are reported too.
 *
 *   mutex_uncontended [N]
 */
#include "bench.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long n;
static long counter; /* under lock */
static double secs, tid_secs;
static long tid_n, tid_sum;

static void *locker(void *arg)
{
	(void)arg;
	double t0 = now_sec();
	for (long i = 0; i < n; i++) {
		must(pthread_mutex_lock(&lock), "pthread_mutex_lock");
		counter++;
		must(pthread_mutex_unlock(&lock), "pthread_mutex_unlock");
	}
	secs = now_sec() - t0;
	tid_n = n / 100 > 0 ? n / 100 : 1;
	t0 = now_sec();
	for (long i = 0; i < tid_n; i++)
		tid_sum += gettid();
	tid_secs = now_sec() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	n = arg_long(argc, argv, 1, 50000000);
	pthread_t t;
	struct sampler smp;

	sampler_start(&smp, 5000);
	spawn(&t, locker, NULL);
	reap(t);
	long peak = sampler_stop(&smp);
	if (counter != n) {
		fprintf(stderr, "mutex_uncontended: counter %ld, want %ld\n", counter, n);
		return 1;
	}
	if (tid_sum / tid_n <= 0) {
		fprintf(stderr, "mutex_uncontended: gettid() gave no id\n");
		return 1;
	}
	printf("RESULT name=mutex_uncontended n=%ld seconds=%.6f ns_per_op=%.2f ops_per_sec=%.0f "
	       "gettid_ns=%.2f peak_os_threads=%ld rss_kib=%ld\n",
	       n, secs, secs / (double)n * 1e9, (double)n / secs, tid_secs / (double)tid_n * 1e9,
	       peak, status_field("VmHWM"));
	return 0;
}
