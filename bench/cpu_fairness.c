/* SPDX-License-Identifier: MIT */
/*
 * bench/cpu_fairness.c — threads that only compute, more of them than
 * there are processors. T threads (default 8) start together (a start
 * gate) and each spins in a loop of the program's own code, with no call
 * into the C library and no system call: it increments its own counter
 * until it sees a stop flag (a relaxed atomic load, every iteration). The
 * main thread sleeps S seconds (default 2; decimals allowed) in nanosleep,
 * then sets the flag and joins them.
 *
 * Nothing in the loop gives the processor back: a thread shares it with
 * the others only if the scheduler takes it away. Reports the iterations
 * of all threads per second, the fairness (the fewest iterations done by
 * one thread / the most done by one thread; 1 is perfectly fair, 0 means
 * a thread starved), `min_share` (the fewest / the mean, T threads each
 * getting an equal share is 1) and how much later than S seconds the main
 * thread's sleep returned (`late_ms`): a sleeper among spinners must still
 * be woken on time. The count of threads that did no iteration at all is
 * `starved`; the program exits 1 after its RESULT line when there are any.
 *
 *   cpu_fairness [T [S]]      e.g. cpu_fairness 8 2
 */
#include "bench.h"

/* One spinning thread, alone on its cache line(s). */
struct spinner {
	pthread_t t;
	unsigned long iters;
} __attribute__((aligned(64)));

static atomic_int stop;
static struct gate gate = GATE_INITIALIZER;

static void *spin(void *arg)
{
	struct spinner *me = arg;
	unsigned long n = 0;

	gate_wait(&gate);
	/* The atomic load is made on every iteration (the compiler may not
	 * hoist it out of the loop), so the loop runs as many times as it
	 * can until the flag is set; n is stored and reported, so it cannot
	 * be dropped either. */
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		n++;
	me->iters = n;
	return NULL;
}

int main(int argc, char **argv)
{
	long nt = arg_long(argc, argv, 1, 8);
	double secs = arg_seconds(argc, argv, 2, 2);
	struct spinner *sp = aligned_alloc(64, (size_t)nt * sizeof *sp);

	if (!sp)
		return 1;
	gate_arm(&gate, nt);
	for (long i = 0; i < nt; i++) {
		sp[i].iters = 0;
		spawn(&sp[i].t, spin, &sp[i]);
	}
	double t0 = gate_open(&gate);

	struct timespec req = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
	double t_sleep = now_sec();
	while (nanosleep(&req, &req) != 0 && errno == EINTR)
		;
	double late = now_sec() - t_sleep - secs;
	/* every spinner is alive now: their OS threads under NPTL, the
	 * runtime's under libgmp */
	long os_threads = status_field("Threads");
	double t_stop = now_sec();
	atomic_store(&stop, 1);

	unsigned long total = 0, fewest = ~0ul, most = 0;
	long starved = 0;
	for (long i = 0; i < nt; i++) {
		reap(sp[i].t);
		total += sp[i].iters;
		if (sp[i].iters < fewest)
			fewest = sp[i].iters;
		if (sp[i].iters > most)
			most = sp[i].iters;
		starved += sp[i].iters == 0;
	}
	double window = t_stop - t0;
	printf("RESULT name=cpu_fairness threads=%ld seconds=%g window_seconds=%.4f iters=%lu "
	       "iters_per_sec=%.0f fewest=%lu most=%lu fairness=%.4f min_share=%.4f late_ms=%.3f "
	       "starved=%ld peak_os_threads=%ld rss_kib=%ld\n",
	       nt, secs, window, total, (double)total / window, fewest, most,
	       most ? (double)fewest / (double)most : 0.0,
	       total ? (double)fewest * (double)nt / (double)total : 0.0, late * 1e3, starved,
	       os_threads, status_field("VmHWM"));
	if (starved) {
		fprintf(stderr, "cpu_fairness: %ld of %ld threads did no iteration in %.3f s\n", starved,
			nt, window);
		return 1;
	}
	return 0;
}
