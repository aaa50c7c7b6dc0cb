/*
 * bench/sleepers.c — many threads that mostly sleep: T threads (default
 * 10,000), each sleeping 1 ms (usleep(1000)) K times (default 20) with a
 * little computation in between. Reports the wall time from the first
 * create to the last join, and its ratio to the ideal (K x 1 ms: what it
 * would take if every thread slept exactly in parallel). Results are
 * checked.
 *
 *   sleepers [T [K]]
 */
#include "bench.h"

static long rounds;
static atomic_ulong checksum;

static void *sleeper(void *arg)
{
	unsigned long id = (unsigned long)arg, sum = 0;
	for (long r = 0; r < rounds; r++) {
		usleep(1000);
		sum += compute(id * 64 + (unsigned long)r, 100);
	}
	atomic_fetch_add(&checksum, sum);
	return NULL;
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, 10000);
	rounds = arg_long(argc, argv, 2, 20);
	pthread_t *t = calloc((size_t)n, sizeof *t);
	unsigned long want = 0;
	struct sampler smp;

	if (!t)
		return 1;
	for (long i = 0; i < n; i++)
		for (long r = 0; r < rounds; r++)
			want += compute((unsigned long)i * 64 + (unsigned long)r, 100);

	sampler_start(&smp, 1000);
	double t0 = now_sec();
	for (long i = 0; i < n; i++) {
		int err = pthread_create(&t[i], NULL, sleeper, (void *)i);
		if (err) {
			fprintf(stderr, "sleepers: pthread_create #%ld: %s\n", i, strerror(err));
			return 1;
		}
	}
	for (long i = 0; i < n; i++) {
		int err = pthread_join(t[i], NULL);
		if (err) {
			fprintf(stderr, "sleepers: pthread_join #%ld: %s\n", i, strerror(err));
			return 1;
		}
	}
	double secs = now_sec() - t0;
	long peak = sampler_stop(&smp);
	if (atomic_load(&checksum) != want) {
		fprintf(stderr, "sleepers: checksum %lx, want %lx\n", atomic_load(&checksum), want);
		return 1;
	}
	double ideal = (double)rounds * 1e-3;
	printf("RESULT name=sleepers n=%ld rounds=%ld seconds=%.6f ideal_seconds=%.3f "
	       "x_ideal=%.2f peak_os_threads=%ld rss_kib=%ld\n",
	       n, rounds, secs, ideal, secs / ideal, peak, status_field("VmHWM"));
	return 0;
}
