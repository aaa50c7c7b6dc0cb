/* SPDX-License-Identifier: MIT */
/*
 * bench/create_join.c — thread churn, one at a time: create one thread,
 * join it, N times in a row (N default 20,000). Each thread returns a value
 * derived from its argument; the sum is checked. Reports the total time and
 * the time per create+join.
 *
 *   create_join [N]
 */
#include "bench.h"

static void *child(void *arg)
{
	return (void *)((long)arg * 3 + 1);
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 20000);
	long long sum = 0, want = 0;
	struct sampler smp;

	sampler_start(&smp, 2000);
	double t0 = now_sec();
	for (long i = 0; i < n; i++) {
		pthread_t t;
		void *res;
		int err = pthread_create(&t, NULL, child, (void *)i);
		if (err) {
			fprintf(stderr, "create_join: pthread_create #%ld: %s\n", i, strerror(err));
			return 1;
		}
		err = pthread_join(t, &res);
		if (err) {
			fprintf(stderr, "create_join: pthread_join #%ld: %s\n", i, strerror(err));
			return 1;
		}
		sum += (long)res;
		want += i * 3 + 1;
	}
	double secs = now_sec() - t0;
	long peak = sampler_stop(&smp);
	if (sum != want) {
		fprintf(stderr, "create_join: results sum to %lld, want %lld\n", sum, want);
		return 1;
	}
	printf("RESULT name=create_join n=%ld seconds=%.6f us_per_op=%.3f peak_os_threads=%ld "
	       "rss_kib=%ld\n",
	       n, secs, secs / (double)n * 1e6, peak, status_field("VmHWM"));
	return 0;
}
