/* SPDX-License-Identifier: MIT */
/*
 * bench/syscall_latency.c — how soon another thread runs when one blocks
 * in a system call that cannot be polled. Thread A, in each of R rounds
 * (default 2,000, after 20 unmeasured ones), makes thread B runnable
 * (posts the semaphore B waits on), records t0 and at once blocks in
 * flock(LOCK_EX) on a file B holds locked (flock locks belong to an open
 * file: A and B use two opens of the same file). B, when it runs,
 * records t1 and unlocks, which lets A's flock return. Reports the
 * median, 99th percentile and largest t1 - t0 in microseconds.
 *
 * On a scheduler with one processor B can only run once A's processor is
 * handed on while A waits in the kernel, so the figure is that hand-off's
 * latency; bench/run.sh runs it under libgmp with GMPMAXPROCS=1. Under
 * NPTL B is woken by the post and runs on another CPU or when A sleeps.
 * B waits, if need be, until A has recorded t0 (with several processors B
 * may start before A blocks), so t1 - t0 is never negative.
 *
 * CALL "fifo" blocks A instead in open(O_WRONLY) of a FIFO, which waits
 * for a reader and has no non-blocking form to try first (O_NONBLOCK
 * fails with ENXIO where it would wait); B, once it runs, opens the FIFO
 * for reading, which lets both opens return.
 *
 *   syscall_latency [R [CALL]]      CALL: flock (default) or fifo
 */
#include "bench.h"

#include <fcntl.h>
#include <semaphore.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <stdbool.h>

#define WARMUP 20

static long rounds;
static bool use_fifo;
static char fifo_path[4096 + 8];
static int fd_a, fd_b;      /* two opens of the lock file */
static sem_t b_holds;       /* B holds its lock and is about to wait on go */
static sem_t go;            /* A lets B run */
static sem_t a_released;    /* A got the lock and let it go again */
static double t0;
static atomic_long t0_round = -1; /* the round whose t0 is published */
static double *lat;

static void sem_wait_all(sem_t *s)
{
	while (sem_wait(s) != 0)
		if (errno != EINTR) {
			fprintf(stderr, "syscall_latency: sem_wait: %s\n", strerror(errno));
			exit(1);
		}
}

static void lock(int fd, int op, const char *who)
{
	while (flock(fd, op) != 0)
		if (errno != EINTR) {
			fprintf(stderr, "syscall_latency: flock (%s): %s\n", who, strerror(errno));
			exit(1);
		}
}

static void *thread_a(void *arg)
{
	(void)arg;
	for (long r = 0; r < WARMUP + rounds; r++) {
		sem_wait_all(&b_holds);
		sem_post(&go);
		t0 = now_sec();
		atomic_store_explicit(&t0_round, r, memory_order_release);
		if (use_fifo) {
			int fd = open(fifo_path, O_WRONLY | O_CLOEXEC); /* until B opens */
			if (fd < 0) {
				fprintf(stderr, "syscall_latency: open FIFO (A): %s\n", strerror(errno));
				exit(1);
			}
			close(fd);
		} else {
			lock(fd_a, LOCK_EX, "A, blocking"); /* until B unlocks */
			lock(fd_a, LOCK_UN, "A, unlock");
		}
		sem_post(&a_released);
	}
	return NULL;
}

static void *thread_b(void *arg)
{
	(void)arg;
	for (long r = 0; r < WARMUP + rounds; r++) {
		if (r > 0)
			sem_wait_all(&a_released);
		/* free since A let it go: must succeed at once */
		if (!use_fifo && flock(fd_b, LOCK_EX | LOCK_NB) != 0) {
			fprintf(stderr, "syscall_latency: flock (B): %s\n", strerror(errno));
			exit(1);
		}
		sem_post(&b_holds);
		sem_wait_all(&go);
		while (atomic_load_explicit(&t0_round, memory_order_acquire) != r)
			;
		double t1 = now_sec();
		if (r >= WARMUP)
			lat[r - WARMUP] = (t1 - t0) * 1e6;
		if (use_fifo) {
			int fd = open(fifo_path, O_RDONLY | O_CLOEXEC);
			if (fd < 0) {
				fprintf(stderr, "syscall_latency: open FIFO (B): %s\n", strerror(errno));
				exit(1);
			}
			close(fd);
		} else {
			lock(fd_b, LOCK_UN, "B, unlock");
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = arg_long(argc, argv, 1, 2000);
	const char *call = argc > 2 ? argv[2] : "flock";
	if (strcmp(call, "flock") != 0 && strcmp(call, "fifo") != 0) {
		fprintf(stderr, "usage: syscall_latency [R [flock|fifo]]\n");
		return 2;
	}
	use_fifo = strcmp(call, "fifo") == 0;
	const char *dir = getenv("TMPDIR");
	char path[4096];
	pthread_t a, b;
	struct sampler smp;

	lat = calloc((size_t)rounds, sizeof *lat);
	snprintf(path, sizeof path, "%s/gmp-bench-lock.XXXXXX", dir && *dir ? dir : "/tmp");
	fd_a = mkstemp(path);
	fd_b = fd_a < 0 ? -1 : open(path, O_RDWR | O_CLOEXEC);
	if (!lat || fd_a < 0 || fd_b < 0) {
		fprintf(stderr, "syscall_latency: lock file %s: %s\n", path, strerror(errno));
		return 1;
	}
	unlink(path);
	if (use_fifo) {
		snprintf(fifo_path, sizeof fifo_path, "%s.fifo", path);
		if (mkfifo(fifo_path, 0600) != 0) {
			fprintf(stderr, "syscall_latency: mkfifo %s: %s\n", fifo_path, strerror(errno));
			return 1;
		}
	}
	if (sem_init(&b_holds, 0, 0) || sem_init(&go, 0, 0) || sem_init(&a_released, 0, 0)) {
		fprintf(stderr, "syscall_latency: sem_init: %s\n", strerror(errno));
		return 1;
	}

	sampler_start(&smp, 5000);
	double start = now_sec();
	spawn(&a, thread_a, NULL);
	spawn(&b, thread_b, NULL);
	reap(a);
	reap(b);
	double secs = now_sec() - start;
	if (use_fifo)
		unlink(fifo_path);
	long peak = sampler_stop(&smp);

	double max = 0;
	for (long i = 0; i < rounds; i++)
		if (lat[i] > max)
			max = lat[i];
	double med = median(lat, (int)rounds); /* sorts lat */
	double p99 = lat[(rounds * 99 + 99) / 100 - 1];
	printf("RESULT name=syscall_latency rounds=%ld call=%s seconds=%.4f median_us=%.2f "
	       "p99_us=%.2f max_us=%.2f peak_os_threads=%ld rss_kib=%ld\n",
	       rounds, call, secs, med, p99, max, peak, status_field("VmHWM"));
	return 0;
}
