/* SPDX-License-Identifier: MIT */
/*
 * bench/concurrent.c — many threads alive at once. Creates N threads
 * (default 100,000; 1,000,000 when built as maxthreads) that each sleep in
 * a loop, re-checking a shared flag every PERIOD ms (default 500; 5,000 for
 * maxthreads), so all of them stay alive until the main thread has seen
 * every one of them start and has measured:
 *
 *   - OS threads (Threads: in /proc/self/status),
 *   - memory: VmRSS at that moment minus VmRSS before the first create,
 *     per thread created, and VmHWM at the end minus that baseline, per
 *     thread; and the page tables (VmPTE) grown meanwhile, per thread,
 *     which RSS does not count.
 *
 * Then it sets the flag and joins them all. When pthread_create fails (NPTL
 * runs out of PIDs or memory mappings near 32,000 threads) it records how
 * many threads it reached and the error, and carries on with those.
 *
 * With IDLE_MS, once every thread has started it also sleeps IDLE_MS ms
 * itself and reports the process's CPU time per second of it
 * (`idle_cpu_ms_per_s`; -1 without): what a program of sleeping threads
 * costs while they sleep. That time is left out of the others.
 *
 *   concurrent [N [PERIOD_MS [IDLE_MS]]]
 *   maxthreads [N [PERIOD_MS [IDLE_MS]]]
 */
#include "bench.h"

#ifdef MAXTHREADS
#define NAME "maxthreads"
#define DEFAULT_N 1000000
#define DEFAULT_PERIOD_MS 5000
#else
#define NAME "concurrent"
#define DEFAULT_N 100000
#define DEFAULT_PERIOD_MS 500
#endif

static atomic_int release;
static atomic_long started;
static struct timespec period;

static void *sleeper(void *arg)
{
	atomic_fetch_add(&started, 1);
	while (!atomic_load(&release))
		nanosleep(&period, NULL);
	return arg;
}

int main(int argc, char **argv)
{
	long n = arg_long(argc, argv, 1, DEFAULT_N);
	long period_ms = arg_long(argc, argv, 2, DEFAULT_PERIOD_MS);
	long idle_ms = arg_long(argc, argv, 3, 0);
	pthread_t *t = malloc(sizeof *t * (size_t)n);
	const char *create_error = "none";
	long reached = 0, joined = 0;

	if (!t)
		return 1;
	memset(t, 0, sizeof *t * (size_t)n); /* in the baseline, not per thread */
	period.tv_sec = period_ms / 1000;
	period.tv_nsec = period_ms % 1000 * 1000000;
	long rss0 = status_field("VmRSS");
	long pte0 = status_field("VmPTE");

	double t0 = now_sec();
	for (; reached < n; reached++) {
		int err = pthread_create(&t[reached], NULL, sleeper, NULL);
		if (err) {
			create_error = strerrorname_np(err);
			fprintf(stderr, NAME ": pthread_create #%ld: %s\n", reached, strerror(err));
			break;
		}
	}
	double t_created = now_sec();
	/* Every thread created must have started; bounded wait. */
	double deadline = t_created + 60 + (double)reached / 10000;
	while (atomic_load(&started) < reached && now_sec() < deadline)
		usleep(1000);
	double t_alive = now_sec();
	long alive = atomic_load(&started);
	long os_threads = status_field("Threads");
	long rss = status_field("VmRSS");
	long pte = status_field("VmPTE");
	/* the process's CPU time while every thread sleeps (not counted in
	 * the times below) */
	double idle_cpu_ms_per_s = -1, idle = 0;
	if (idle_ms > 0) {
		struct rusage ru0, ru1;
		getrusage(RUSAGE_SELF, &ru0);
		double i0 = now_sec();
		usleep((useconds_t)(idle_ms * 1000));
		getrusage(RUSAGE_SELF, &ru1);
		idle = now_sec() - i0;
		double cpu = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec +
				      ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) * 1e3 +
			     (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec +
				      ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e3;
		idle_cpu_ms_per_s = cpu / idle;
		t_alive += idle;
	}

	atomic_store(&release, 1);
	for (long i = 0; i < reached; i++) {
		int err = pthread_join(t[i], NULL);
		if (err)
			fprintf(stderr, NAME ": pthread_join #%ld: %s\n", i, strerror(err));
		else
			joined++;
	}
	double t_end = now_sec();
	long hwm = status_field("VmHWM");
	double per = reached ? 1.0 / (double)reached : 0;

	printf("RESULT name=" NAME " n=%ld reached=%ld create_error=%s alive=%ld joined=%ld "
	       "seconds=%.3f create_seconds=%.3f join_seconds=%.3f os_threads=%ld "
	       "peak_os_threads=%ld rss_delta_kib=%ld kib_per_thread=%.2f hwm_kib_per_thread=%.2f "
	       "pte_kib_per_thread=%.2f rss_kib=%ld idle_cpu_ms_per_s=%.2f\n",
	       n, reached, create_error, alive, joined, t_end - t0 - idle, t_created - t0,
	       t_end - t_alive, os_threads, os_threads, rss - rss0, (double)(rss - rss0) * per,
	       (double)(hwm - rss0) * per, (double)(pte - pte0) * per, hwm, idle_cpu_ms_per_s);
	return alive == reached && joined == reached ? 0 : 1;
}
