/*
 * bench/mutex_uncontended.c — the cost of a lock nobody else wants: one
 * thread locks and unlocks a default mutex N times in a row (default
 * 50,000,000), incrementing a counter while it holds it; the count is
 * checked. The loop runs in a created thread, not in main, so that both
 * libraries are past any single-threaded shortcut and it is a thread like
 * any other. Reports nanoseconds per lock+unlock pair and pairs per second.
 *
 *   mutex_uncontended [N]
 */
#include "bench.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long n;
static long counter; /* under lock */
static double secs;

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
	printf("RESULT name=mutex_uncontended n=%ld seconds=%.6f ns_per_op=%.2f ops_per_sec=%.0f "
	       "peak_os_threads=%ld rss_kib=%ld\n",
	       n, secs, secs / (double)n * 1e9, (double)n / secs, peak, status_field("VmHWM"));
	return 0;
}
