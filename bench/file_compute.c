/* SPDX-License-Identifier: MIT */
/*
 * bench/file_compute.c — file reads beside computation: K reader threads
 * (default 4) each read a generated file of MIB MiB (default 64) PASSES
 * times over (default 32) with pread in 64 KiB blocks, while M compute
 * threads (default 2) each do WORK units of fixed computation (default
 * 300,000 units of about 1.5 µs). The file is made in $TMPDIR (or /tmp) and
 * unlinked at once; nothing is dropped from the page cache, so the reads
 * are mostly copies out of it. Each reader starts at its own offset (so
 * the readers are not in lockstep) and checks one word of every 4 KiB it
 * reads; the computation's result is checked too.
 *
 * First the M compute threads run alone (the same work, no readers):
 * that time is the reference. Then readers and computation start
 * together (a start gate), and the program reports the wall time until
 * all have finished, the time the computation took among the readers and
 * its throughput (units per second), that time over the one alone (1.0:
 * the reads took nothing from it), and the readers' MiB per second.
 *
 *   file_compute [MIB [K [M [WORK [PASSES]]]]]
 */
#include "bench.h"

#include <fcntl.h>

#define BLOCK (64 * 1024)
#define PAGE 4096
#define UNIT_ITERS 1000 /* FNV-1a rounds in one unit of work: 1-2 µs */

static int fd;
static long nblocks, passes, readers, work;
static unsigned long page_sum; /* the checked words of one whole pass */
static struct gate gate = GATE_INITIALIZER;
static atomic_ulong read_sum, compute_sum;

/* The word at the start of page p of the file. */
static unsigned long page_word(long p)
{
	return compute((unsigned long)p, 2);
}

struct task {
	pthread_t t;
	long id;
	double t_end;
};

static void *reader(void *arg)
{
	struct task *tk = arg;
	unsigned char *buf = malloc(BLOCK);
	unsigned long sum = 0;

	if (!buf) {
		fprintf(stderr, "file_compute: out of memory\n");
		exit(1);
	}
	gate_wait(&gate);
	long start = tk->id * nblocks / readers;
	for (long k = 0; k < passes * nblocks; k++) {
		long b = (start + k) % nblocks;
		ssize_t r = pread(fd, buf, BLOCK, (off_t)b * BLOCK);
		if (r != BLOCK) {
			fprintf(stderr, "file_compute: pread: %s\n", r < 0 ? strerror(errno) : "short");
			exit(1);
		}
		for (int off = 0; off < BLOCK; off += PAGE) {
			unsigned long w;
			memcpy(&w, buf + off, sizeof w);
			sum += w;
		}
	}
	tk->t_end = now_sec();
	atomic_fetch_add(&read_sum, sum);
	free(buf);
	return NULL;
}

static void *computer(void *arg)
{
	struct task *tk = arg;
	unsigned long sum = 0;

	gate_wait(&gate);
	for (long u = 0; u < work; u++)
		sum += compute((unsigned long)(tk->id * work + u), UNIT_ITERS);
	tk->t_end = now_sec();
	atomic_fetch_add(&compute_sum, sum);
	return NULL;
}

/* Runs nr readers and nc compute threads from one start gate; returns the
 * gate's time and leaves when each finished in their tasks. */
static double run(struct task *rd, long nr, struct task *cp, long nc)
{
	gate_arm(&gate, nr + nc);
	for (long i = 0; i < nr; i++) {
		rd[i].id = i;
		spawn(&rd[i].t, reader, &rd[i]);
	}
	for (long i = 0; i < nc; i++) {
		cp[i].id = i;
		spawn(&cp[i].t, computer, &cp[i]);
	}
	double t0 = gate_open(&gate);
	for (long i = 0; i < nr; i++)
		reap(rd[i].t);
	for (long i = 0; i < nc; i++)
		reap(cp[i].t);
	return t0;
}

static double last_end(struct task *tk, long n)
{
	double t = 0;
	for (long i = 0; i < n; i++)
		if (tk[i].t_end > t)
			t = tk[i].t_end;
	return t;
}

/* Writes the file: every 4 KiB page starts with page_word(page) and is
 * otherwise filled with a byte derived from it. */
static int make_file(long mib)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	unsigned char *chunk = malloc(BLOCK);

	snprintf(path, sizeof path, "%s/gmp-bench-file.XXXXXX", dir && *dir ? dir : "/tmp");
	int f = mkstemp(path);
	if (f < 0 || !chunk) {
		fprintf(stderr, "file_compute: cannot create %s: %s\n", path, strerror(errno));
		exit(1);
	}
	unlink(path);
	nblocks = mib * (1024 * 1024 / BLOCK);
	for (long b = 0; b < nblocks; b++) {
		for (int off = 0; off < BLOCK; off += PAGE) {
			long p = (b * BLOCK + off) / PAGE;
			unsigned long w = page_word(p);
			memset(chunk + off, (int)(w >> 56), PAGE);
			memcpy(chunk + off, &w, sizeof w);
			page_sum += w;
		}
		if (write(f, chunk, BLOCK) != BLOCK) {
			fprintf(stderr, "file_compute: writing %s: %s\n", path, strerror(errno));
			exit(1);
		}
	}
	free(chunk);
	return f;
}

int main(int argc, char **argv)
{
	long mib = arg_long(argc, argv, 1, 64);
	readers = arg_long(argc, argv, 2, 4);
	long computers = arg_long(argc, argv, 3, 2);
	work = arg_long(argc, argv, 4, 300000);
	passes = arg_long(argc, argv, 5, 32);
	struct task *rd = calloc((size_t)readers, sizeof *rd);
	struct task *cp = calloc((size_t)computers, sizeof *cp);
	struct sampler smp;

	if (!rd || !cp)
		return 1;
	fd = make_file(mib);

	sampler_start(&smp, 5000);
	/* the computation alone: the reference */
	double t0 = run(NULL, 0, cp, computers);
	double alone = last_end(cp, computers) - t0;
	unsigned long want_compute = atomic_exchange(&compute_sum, 0);

	/* the same computation among the readers */
	t0 = run(rd, readers, cp, computers);
	double t_compute = last_end(cp, computers) - t0;
	double t_read = last_end(rd, readers) - t0;
	double wall = (t_compute > t_read ? t_compute : t_read);
	long peak = sampler_stop(&smp);

	if (atomic_load(&compute_sum) != want_compute ||
	    atomic_load(&read_sum) != page_sum * (unsigned long)(readers * passes)) {
		fprintf(stderr, "file_compute: wrong %s\n",
			atomic_load(&compute_sum) != want_compute ? "computation" : "data read");
		return 1;
	}
	double units = (double)work * (double)computers;
	printf("RESULT name=file_compute mib=%ld readers=%ld computers=%ld work=%ld passes=%ld "
	       "seconds=%.4f compute_seconds=%.4f compute_alone_seconds=%.4f compute_x_alone=%.3f "
	       "compute_units_per_sec=%.0f read_seconds=%.4f read_mib_per_sec=%.0f "
	       "peak_os_threads=%ld rss_kib=%ld\n",
	       mib, readers, computers, work, passes, wall, t_compute, alone, t_compute / alone,
	       units / t_compute, t_read, (double)(mib * readers * passes) / t_read, peak,
	       status_field("VmHWM"));
	return 0;
}
