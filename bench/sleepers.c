/* SPDX-License-Identifier: MIT */
/*
 * bench/sleepers.c — many threads that mostly sleep: T threads (default
 * 10,000), each sleeping 1 ms (usleep(1000)) K times (default 20) with a
 * little computation in between. Reports the wall time from the first
 * create to the last join, and its ratio to the ideal (K x 1 ms: what it
 * would take if every thread slept exactly in parallel). Results are
 * checked.
 *
 * With `gate` as the third argument, all T threads are alive at once: each
 * waits at a start gate before its first sleep, and the clock starts when
 * the main thread, having seen all T arrive, opens it (creating the threads
 * is then not in the time, and is reported apart, as create_seconds). When
 * pthread_create fails there (NPTL stops near 32,000 threads), it reports
 * how many it reached and the error, lets those end without sleeping,
 * joins them and exits with status 1: the run did not have T threads.
 *
 *   sleepers [T [K [gate]]]
 */
#include "bench.h"

static long rounds;
static atomic_ulong checksum;
static int gated;               /* `gate`: every thread waits at the gate first */
static struct gate gate = GATE_INITIALIZER;
static atomic_int abandon;      /* set when not all threads could be created */

static void *sleeper(void *arg)
{
	unsigned long id = (unsigned long)arg, sum = 0;
	if (gated) {
		gate_wait(&gate);
		if (atomic_load(&abandon))
			return NULL;
	}
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

	if (argc > 3) {
		if (strcmp(argv[3], "gate") != 0) {
			fprintf(stderr, "sleepers: the third argument can only be 'gate', not '%s'\n",
				argv[3]);
			return 2;
		}
		gated = 1;
		gate_arm(&gate, n);
	}
	if (!t)
		return 1;
	for (long i = 0; i < n; i++)
		for (long r = 0; r < rounds; r++)
			want += compute((unsigned long)i * 64 + (unsigned long)r, 100);

	sampler_start(&smp, 1000);
	double t_start = now_sec(), t0 = t_start, t_created = t_start;
	for (long i = 0; i < n; i++) {
		int err = pthread_create(&t[i], NULL, sleeper, (void *)i);
		if (err && gated) {
			double t_failed = now_sec();
			long at_failure = status_field("Threads");
			fprintf(stderr, "sleepers: pthread_create #%ld: %s\n", i, strerror(err));
			/* the i threads created are at the gate: release them to end */
			atomic_store(&abandon, 1);
			must(pthread_mutex_lock(&gate.lock), "pthread_mutex_lock");
			gate.n = i;
			must(pthread_mutex_unlock(&gate.lock), "pthread_mutex_unlock");
			gate_open(&gate);
			for (long j = 0; j < i; j++)
				reap(t[j]);
			long peak = sampler_stop(&smp);
			printf("RESULT name=sleepers n=%ld rounds=%ld gate=1 reached=%ld create_error=%s "
			       "create_seconds=%.6f peak_os_threads=%ld rss_kib=%ld\n",
			       n, rounds, i, strerrorname_np(err), t_failed - t_start, peak > at_failure ? peak : at_failure,
			       status_field("VmHWM"));
			return 1;
		}
		if (err) {
			fprintf(stderr, "sleepers: pthread_create #%ld: %s\n", i, strerror(err));
			return 1;
		}
	}
	long at_gate = 0; /* OS threads with all T alive, at the gate */
	if (gated) {
		t_created = now_sec();
		at_gate = status_field("Threads");
		t0 = gate_open(&gate);
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
	if (at_gate > peak)
		peak = at_gate;
	if (atomic_load(&checksum) != want) {
		fprintf(stderr, "sleepers: checksum %lx, want %lx\n", atomic_load(&checksum), want);
		return 1;
	}
	double ideal = (double)rounds * 1e-3;
	printf("RESULT name=sleepers n=%ld rounds=%ld", n, rounds);
	if (gated)
		printf(" gate=1 reached=%ld create_error=none create_seconds=%.6f", n,
		       t_created - t_start);
	printf(" seconds=%.6f ideal_seconds=%.3f x_ideal=%.2f peak_os_threads=%ld rss_kib=%ld\n",
	       secs, ideal, secs / ideal, peak, status_field("VmHWM"));
	return 0;
}
