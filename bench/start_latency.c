/*
 * bench/start_latency.c — how long a new thread waits before it runs.
 * C creators (default 4) each keep up to K of their threads alive
 * (default 1,024): a creator makes a thread whenever one of its K places
 * is free, N times in all (default 20,000). Each thread, at its first
 * instruction, records the time since its creator called pthread_create,
 * computes ITERS rounds of FNV-1a (default 800, about 1.5 µs), and ends
 * (detached), which frees its place. The creators start together at a
 * gate; the main thread waits for them and for every thread to end.
 *
 * Reports the median, 99th percentile and largest start latency in
 * microseconds over all C x N threads, and threads started per second.
 *
 *   start_latency [C [K [N [ITERS]]]]
 */
#include "bench.h"

#include <semaphore.h>
#include <stdint.h>

struct start {
	double t0;		/* when the creator called pthread_create */
	double *lat;		/* where the thread writes its latency */
	sem_t *places;		/* its creator's free places */
};

struct creator {
	pthread_t t;
	long n;
	int k;
	sem_t places;
	struct start *starts;
	double *lat;
};

static int iters;
static struct gate gate = GATE_INITIALIZER;
static pthread_attr_t detached;
static atomic_ulong sink;

static void *child(void *arg)
{
	struct start *s = arg;
	*s->lat = (now_sec() - s->t0) * 1e6;
	atomic_fetch_add_explicit(&sink, compute((unsigned long)(uintptr_t)s, iters),
				  memory_order_relaxed);
	sem_post(s->places);
	return NULL;
}

static void wait_place(sem_t *s)
{
	while (sem_wait(s) != 0)
		if (errno != EINTR) {
			fprintf(stderr, "start_latency: sem_wait: %s\n", strerror(errno));
			exit(1);
		}
}

static void *creator_main(void *arg)
{
	struct creator *c = arg;
	gate_wait(&gate);
	for (long i = 0; i < c->n; i++) {
		wait_place(&c->places);
		struct start *s = &c->starts[i];
		s->lat = &c->lat[i];
		s->places = &c->places;
		pthread_t t;
		s->t0 = now_sec();
		int err = pthread_create(&t, &detached, child, s);
		if (err) {
			fprintf(stderr, "start_latency: pthread_create #%ld: %s\n", i, strerror(err));
			exit(1);
		}
	}
	/* every place free again: all of its threads have ended */
	for (int i = 0; i < c->k; i++)
		wait_place(&c->places);
	return NULL;
}

int main(int argc, char **argv)
{
	int nc = (int)arg_long(argc, argv, 1, 4);
	int k = (int)arg_long(argc, argv, 2, 1024);
	long n = arg_long(argc, argv, 3, 20000);
	iters = (int)arg_long(argc, argv, 4, 800);
	if (nc < 1 || k < 1 || n < 1) {
		fprintf(stderr, "usage: start_latency [C [K [N [ITERS]]]] (all >= 1)\n");
		return 2;
	}
	struct creator *cs = calloc((size_t)nc, sizeof *cs);
	double *all = calloc((size_t)nc * (size_t)n, sizeof *all);
	if (!cs || !all) {
		fprintf(stderr, "start_latency: out of memory\n");
		return 1;
	}
	must(pthread_attr_init(&detached), "pthread_attr_init");
	must(pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED),
	     "pthread_attr_setdetachstate");
	struct sampler smp;
	sampler_start(&smp, 2000);
	gate_arm(&gate, nc);
	for (int c = 0; c < nc; c++) {
		cs[c].n = n;
		cs[c].k = k;
		cs[c].lat = all + (size_t)c * (size_t)n;
		cs[c].starts = calloc((size_t)n, sizeof *cs[c].starts);
		if (!cs[c].starts || sem_init(&cs[c].places, 0, (unsigned)k) != 0) {
			fprintf(stderr, "start_latency: creator %d: setup failed\n", c);
			return 1;
		}
		spawn(&cs[c].t, creator_main, &cs[c]);
	}
	double t0 = gate_open(&gate);
	for (int c = 0; c < nc; c++)
		reap(cs[c].t);
	double secs = now_sec() - t0;
	long peak = sampler_stop(&smp);
	size_t total = (size_t)nc * (size_t)n;
	qsort(all, total, sizeof *all, cmp_double);
	double med = total % 2 ? all[total / 2] : (all[total / 2 - 1] + all[total / 2]) / 2;
	double p99 = all[(size_t)((double)(total - 1) * 0.99)];
	for (size_t i = 0; i < total; i++)
		if (all[i] < 0) {
			fprintf(stderr, "start_latency: a thread started before it was created\n");
			return 1;
		}
	printf("RESULT name=start_latency creators=%d alive=%d per_creator=%ld seconds=%.4f "
	       "threads_per_sec=%.0f median_us=%.2f p99_us=%.2f max_us=%.2f peak_os_threads=%ld "
	       "rss_kib=%ld\n",
	       nc, k, n, secs, (double)total / secs, med, p99, all[total - 1], peak,
	       status_field("VmHWM"));
	return 0;
}
