/* SPDX-License-Identifier: MIT */
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
 * With P processes (default 1), P such processes run at once, each an
 * exec of this program (so each has its own libgmp under LD_PRELOAD),
 * with C creators each; they start together (a word in shared memory)
 * and their latencies are taken together.
 *
 * Reports the median, 99th percentile and largest start latency in
 * microseconds over all P x C x N threads, and threads started per second
 * (all processes together, from the start to the last one's end).
 *
 *   start_latency [C [K [N [ITERS [P]]]]]
 */
#include "bench.h"

#include <semaphore.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

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

/* What the processes of a run share (P > 1). */
struct shared {
	atomic_int ready;	/* processes whose creators wait at the gate */
	atomic_int go;
	double t_end[16];	/* when each one's threads had all ended */
	long peak[16], rss[16];
};

/* One process's creators: nc x n latencies into all; returns the time
 * the creators' gate opened (or, with sh, when all processes went) and
 * sets *t_end. */
static double run_creators(int nc, int k, long n, double *all, struct shared *sh, double *t_end)
{
	struct creator *cs = calloc((size_t)nc, sizeof *cs);
	if (!cs) {
		fprintf(stderr, "start_latency: out of memory\n");
		exit(1);
	}
	must(pthread_attr_init(&detached), "pthread_attr_init");
	must(pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED),
	     "pthread_attr_setdetachstate");
	gate_arm(&gate, nc);
	for (int c = 0; c < nc; c++) {
		cs[c].n = n;
		cs[c].k = k;
		cs[c].lat = all + (size_t)c * (size_t)n;
		cs[c].starts = calloc((size_t)n, sizeof *cs[c].starts);
		if (!cs[c].starts || sem_init(&cs[c].places, 0, (unsigned)k) != 0) {
			fprintf(stderr, "start_latency: creator %d: setup failed\n", c);
			exit(1);
		}
		spawn(&cs[c].t, creator_main, &cs[c]);
	}
	if (sh) {
		atomic_fetch_add(&sh->ready, 1);
		while (!atomic_load(&sh->go))
			usleep(100);
	}
	double t0 = gate_open(&gate);
	for (int c = 0; c < nc; c++)
		reap(cs[c].t);
	*t_end = now_sec();
	return t0;
}

/* A child of a run with P processes: start_latency --child IDX C K N
 * ITERS SHFD LATFD */
static int child_process(char **argv)
{
	int idx = atoi(argv[2]), nc = atoi(argv[3]), k = atoi(argv[4]);
	long n = atol(argv[5]);
	iters = atoi(argv[6]);
	struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED,
				 atoi(argv[7]), 0);
	size_t per = (size_t)nc * (size_t)n;
	double *all = mmap(NULL, 16 * per * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED,
			   atoi(argv[8]), 0);
	if (sh == MAP_FAILED || all == MAP_FAILED)
		return 1;
	struct sampler smp;
	sampler_start(&smp, 2000);
	double t_end;
	run_creators(nc, k, n, all + (size_t)idx * per, sh, &t_end);
	sh->peak[idx] = sampler_stop(&smp);
	sh->rss[idx] = status_field("VmHWM");
	sh->t_end[idx] = t_end;
	return 0;
}

/* P processes at once: fills all (P x C x N latencies); returns the
 * seconds from their start to the last one's end. */
static double run_processes(char *self, int np, int nc, int k, long n, double *all, long *peak,
			    long *rss)
{
	size_t per = (size_t)nc * (size_t)n;
	int shfd = memfd_create("start_latency", 0), latfd = memfd_create("start_latency_lat", 0);
	if (shfd < 0 || latfd < 0 || ftruncate(shfd, sizeof(struct shared)) != 0 ||
	    ftruncate(latfd, (off_t)(16 * per * sizeof(double))) != 0) {
		perror("start_latency: memfd");
		exit(1);
	}
	struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED, shfd, 0);
	double *lat = mmap(NULL, 16 * per * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED,
			   latfd, 0);
	if (sh == MAP_FAILED || lat == MAP_FAILED) {
		perror("start_latency: mmap");
		exit(1);
	}
	pid_t pids[16];
	for (int p = 0; p < np; p++)
		pids[p] = exec_self_child(self, 7, (long)p, (long)nc, (long)k, n, (long)iters,
					  (long)shfd, (long)latfd);
	double deadline = now_sec() + 60;
	while (atomic_load(&sh->ready) < np && now_sec() < deadline)
		usleep(1000);
	double t0 = now_sec();
	atomic_store(&sh->go, 1);
	double t_end = t0;
	for (int p = 0; p < np; p++) {
		int st;
		if (waitpid(pids[p], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "start_latency: process %d failed\n", p);
			exit(1);
		}
		if (sh->t_end[p] > t_end)
			t_end = sh->t_end[p];
		if (sh->peak[p] > *peak)
			*peak = sh->peak[p];
		if (sh->rss[p] > *rss)
			*rss = sh->rss[p];
	}
	memcpy(all, lat, (size_t)np * per * sizeof(double));
	return t_end - t0;
}

int main(int argc, char **argv)
{
	if (argc == 9 && strcmp(argv[1], "--child") == 0)
		return child_process(argv);
	int nc = (int)arg_long(argc, argv, 1, 4);
	int k = (int)arg_long(argc, argv, 2, 1024);
	long n = arg_long(argc, argv, 3, 20000);
	iters = (int)arg_long(argc, argv, 4, 800);
	int np = (int)arg_long(argc, argv, 5, 1);
	if (nc < 1 || k < 1 || n < 1 || np < 1 || np > 16) {
		fprintf(stderr, "usage: start_latency [C [K [N [ITERS [P]]]]] (all >= 1, P <= 16)\n");
		return 2;
	}
	size_t total = (size_t)np * (size_t)nc * (size_t)n;
	double *all = calloc(total, sizeof *all);
	if (!all) {
		fprintf(stderr, "start_latency: out of memory\n");
		return 1;
	}
	double secs;
	long peak = 0, rss = 0;
	if (np == 1) {
		struct sampler smp;
		sampler_start(&smp, 2000);
		double t_end, t0 = run_creators(nc, k, n, all, NULL, &t_end);
		secs = t_end - t0;
		peak = sampler_stop(&smp);
		rss = status_field("VmHWM");
	} else {
		secs = run_processes(argv[0], np, nc, k, n, all, &peak, &rss);
	}
	qsort(all, total, sizeof *all, cmp_double);
	double med = total % 2 ? all[total / 2] : (all[total / 2 - 1] + all[total / 2]) / 2;
	double p99 = all[(size_t)((double)(total - 1) * 0.99)];
	for (size_t i = 0; i < total; i++)
		if (all[i] < 0) {
			fprintf(stderr, "start_latency: a thread started before it was created\n");
			return 1;
		}
	printf("RESULT name=start_latency creators=%d alive=%d per_creator=%ld processes=%d "
	       "seconds=%.4f threads_per_sec=%.0f median_us=%.2f p99_us=%.2f max_us=%.2f "
	       "peak_os_threads=%ld rss_kib=%ld\n",
	       nc, k, n, np, secs, (double)total / secs, med, p99, all[total - 1], peak, rss);
	return 0;
}
