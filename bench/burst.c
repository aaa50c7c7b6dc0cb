/* SPDX-License-Identifier: MIT */
/*
 * bench/burst.c — a burst of short-lived threads: create T threads (default
 * 10,000) that each compute a little (ITERS rounds of FNV-1a, about 1-2 us),
 * then join them all; repeat the burst R times (default 5) in the same
 * process. The first burst runs on a cold process (no thread has been made
 * yet); the later ones can reuse whatever the thread library kept. Reports
 * the first burst and the median of the others separately, and the measured
 * cost of one thread's computation alone. Results are checked.
 *
 *   burst [T [R [ITERS]]]
 */
#include "bench.h"

static int iters;

static void *child(void *arg)
{
	return (void *)compute((unsigned long)arg, iters);
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 10000);
	long reps = arg_long(argc, argv, 2, 5);
	iters = (int)arg_long(argc, argv, 3, 800);
	pthread_t *t = calloc((size_t)n, sizeof *t);
	double *warm = calloc((size_t)reps, sizeof *warm);
	double cold = 0;
	unsigned long want = 0;
	struct sampler smp;

	if (!t || !warm || reps < 2) {
		fprintf(stderr, "burst: needs R >= 2 (one cold burst, then warm ones)\n");
		return 2;
	}
	/* The work alone, on this thread, before any thread exists. */
	double w0 = now_sec();
	for (long i = 0; i < n; i++)
		want += compute((unsigned long)i, iters);
	double work_us = (now_sec() - w0) / (double)n * 1e6;

	sampler_start(&smp, 1000);
	for (long r = 0; r < reps; r++) {
		unsigned long sum = 0;
		double t0 = now_sec();
		for (long i = 0; i < n; i++) {
			int err = pthread_create(&t[i], NULL, child, (void *)i);
			if (err) {
				fprintf(stderr, "burst %ld: pthread_create #%ld: %s\n", r, i,
					strerror(err));
				return 1;
			}
		}
		for (long i = 0; i < n; i++) {
			void *res;
			int err = pthread_join(t[i], &res);
			if (err) {
				fprintf(stderr, "burst %ld: pthread_join #%ld: %s\n", r, i, strerror(err));
				return 1;
			}
			sum += (unsigned long)res;
		}
		double secs = now_sec() - t0;
		if (sum != want) {
			fprintf(stderr, "burst %ld: results sum to %lx, want %lx\n", r, sum, want);
			return 1;
		}
		if (r == 0)
			cold = secs;
		else
			warm[r - 1] = secs;
	}
	long peak = sampler_stop(&smp);
	double warm_med = median(warm, (int)reps - 1);
	printf("RESULT name=burst n=%ld reps=%ld cold_seconds=%.6f warm_seconds=%.6f "
	       "cold_us_per_thread=%.3f warm_us_per_thread=%.3f work_us=%.3f peak_os_threads=%ld "
	       "rss_kib=%ld\n",
	       n, reps, cold, warm_med, cold / (double)n * 1e6, warm_med / (double)n * 1e6, work_us,
	       peak, status_field("VmHWM"));
	return 0;
}
