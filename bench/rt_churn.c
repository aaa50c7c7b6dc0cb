// SPDX-License-Identifier: MIT
/*
 * bench/rt_churn.c — threads that change their real-time priority around
 * each lock. P processes at once (default 1; each an exec of this program,
 * so each has its own libgmp under LD_PRELOAD), each with T threads
 * (default 2) that loop N times (default 20,000):
 *
 *   pthread_setschedparam(self, SCHED_FIFO, 1 + thread index)
 *   lock and unlock a priority-inheritance mutex, incrementing a counter
 *   pthread_setschedparam(self, SCHED_OTHER, 0)
 *
 * The threads of a process start together at a gate; the processes start
 * together at a shared one (a word in shared memory). Each loop is timed.
 * The counter is checked. Needs the right to use SCHED_FIFO (root,
 * CAP_SYS_NICE or RLIMIT_RTPRIO >= T); without it, it says so and reports
 * `skipped=EPERM`.
 *
 * Reports loops per second (all threads of all processes, from the gate to
 * the last one's end), and the median and 99th percentile of one loop in
 * microseconds.
 *
 *   rt_churn [P [T [N]]]
 */
#include "bench.h"

#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

struct shared {
	atomic_int ready;	/* processes at the gate */
	atomic_int go;
	double t_end[64];	/* when each process's threads were all done */
	int failed;
};

static long nloops;
static pthread_mutex_t pi;
static long counter;
static struct gate gate = GATE_INITIALIZER;

struct worker {
	pthread_t t;
	int prio;
	double *lat;	/* nloops latencies (µs) */
	int err;
};

static void *churn(void *arg)
{
	struct worker *w = arg;
	struct sched_param rt = {.sched_priority = w->prio}, other = {.sched_priority = 0};
	pthread_t self = pthread_self();

	gate_wait(&gate);
	for (long i = 0; i < nloops; i++) {
		double t0 = now_sec();
		int e = pthread_setschedparam(self, SCHED_FIFO, &rt);
		if (e) {
			w->err = e;
			return NULL;
		}
		must(pthread_mutex_lock(&pi), "pthread_mutex_lock");
		counter++;
		must(pthread_mutex_unlock(&pi), "pthread_mutex_unlock");
		must(pthread_setschedparam(self, SCHED_OTHER, &other), "pthread_setschedparam");
		w->lat[i] = (now_sec() - t0) * 1e6;
	}
	return NULL;
}

/* One process's part: T threads, the latencies written to lat. */
static int child(struct shared *sh, int idx, int nt, double *lat)
{
	pthread_mutexattr_t ma;
	must(pthread_mutexattr_init(&ma), "pthread_mutexattr_init");
	must(pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT), "pthread_mutexattr_setprotocol");
	must(pthread_mutex_init(&pi, &ma), "pthread_mutex_init");
	struct worker w[64];
	gate_arm(&gate, nt);
	for (int i = 0; i < nt; i++) {
		w[i] = (struct worker){.prio = 1 + i, .lat = lat + (long)i * nloops};
		spawn(&w[i].t, churn, &w[i]);
	}
	atomic_fetch_add(&sh->ready, 1);
	while (!atomic_load(&sh->go))
		usleep(100);
	gate_open(&gate);
	int err = 0;
	for (int i = 0; i < nt; i++) {
		reap(w[i].t);
		if (w[i].err)
			err = w[i].err;
	}
	sh->t_end[idx] = now_sec();
	if (err)
		return err == EPERM ? 3 : 1;
	if (counter != nt * nloops) {
		fprintf(stderr, "rt_churn: counter %ld, want %ld\n", counter, nt * nloops);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* a child: rt_churn --child IDX T N SHMFD LATFD */
	if (argc == 7 && strcmp(argv[1], "--child") == 0) {
		int idx = atoi(argv[2]), nt = atoi(argv[3]);
		nloops = atol(argv[4]);
		struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED,
					 atoi(argv[5]), 0);
		size_t bytes = (size_t)64 * (size_t)nloops * sizeof(double);
		double *all = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(argv[6]), 0);
		if (sh == MAP_FAILED || all == MAP_FAILED)
			return 1;
		return child(sh, idx, nt, all + (long)idx * 16 * nloops);
	}
	long np = arg_long(argc, argv, 1, 1), nt = arg_long(argc, argv, 2, 2);
	nloops = arg_long(argc, argv, 3, 20000);
	if (np < 1 || np > 4 || nt < 1 || nt > 16) {
		fprintf(stderr, "rt_churn: P must be 1..4 and T 1..16\n");
		return 2;
	}
	/* shared memory through descriptors the children inherit */
	int shfd = memfd_create("rt_churn", 0), latfd = memfd_create("rt_churn_lat", 0);
	size_t bytes = (size_t)64 * (size_t)nloops * sizeof(double);
	if (shfd < 0 || latfd < 0 || ftruncate(shfd, sizeof(struct shared)) != 0 ||
	    ftruncate(latfd, (off_t)bytes) != 0) {
		perror("rt_churn: memfd");
		return 1;
	}
	struct shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED, shfd, 0);
	double *all = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, latfd, 0);
	if (sh == MAP_FAILED || all == MAP_FAILED) {
		perror("rt_churn: mmap");
		return 1;
	}
	pid_t pids[4];
	for (long p = 0; p < np; p++)
		pids[p] = exec_self_child(argv[0], 5, p, nt, nloops, (long)shfd, (long)latfd);
	double deadline = now_sec() + 30;
	while (atomic_load(&sh->ready) < np && now_sec() < deadline)
		usleep(1000);
	double t0 = now_sec();
	atomic_store(&sh->go, 1);
	int bad = 0, eperm = 0;
	for (long p = 0; p < np; p++) {
		int st;
		if (waitpid(pids[p], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			if (WIFEXITED(st) && WEXITSTATUS(st) == 3)
				eperm = 1;
			else
				bad = 1;
		}
	}
	if (eperm) {
		printf("RESULT name=rt_churn procs=%ld threads=%ld loops=%ld skipped=EPERM\n", np, nt,
		       nloops);
		fprintf(stderr, "rt_churn: SCHED_FIFO not permitted (root, CAP_SYS_NICE or "
				"RLIMIT_RTPRIO needed)\n");
		return 0;
	}
	if (bad) {
		fprintf(stderr, "rt_churn: a process failed\n");
		return 1;
	}
	double t_end = t0;
	for (long p = 0; p < np; p++)
		if (sh->t_end[p] > t_end)
			t_end = sh->t_end[p];
	long n = 0;
	double *lat = malloc(sizeof(double) * (size_t)(np * nt * nloops));
	if (!lat)
		return 1;
	for (long p = 0; p < np; p++)
		for (long i = 0; i < nt * nloops; i++)
			lat[n++] = all[p * 16 * nloops + i];
	double med = median(lat, (int)n);	/* sorts */
	double p99 = lat[(long)((double)(n - 1) * 0.99)];
	printf("RESULT name=rt_churn procs=%ld threads=%ld loops=%ld seconds=%.4f "
	       "loops_per_sec=%.0f median_us=%.2f p99_us=%.2f\n",
	       np, nt, nloops, t_end - t0, (double)n / (t_end - t0), med, p99);
	return 0;
}
