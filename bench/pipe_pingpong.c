/* SPDX-License-Identifier: MIT */
/*
 * bench/pipe_pingpong.c — a byte bounced between two threads over two
 * pipes, N round trips (default 100,000), in P independent pairs at once
 * (default 1). In each pair side A writes one byte into its "ping" pipe
 * and blocks reading the "pong" pipe; side B blocks reading "ping" and
 * writes the byte back into "pong". Every step is a blocking read that
 * must wait for the other thread's write, so this measures how fast a
 * thread blocked reading a pipe is woken by a write and runs again. The
 * byte carries the round trip's number (mod 256) and both sides check it.
 * Reports round trips per second (all pairs together) and microseconds
 * per round trip within one pair.
 *
 *   pipe_pingpong [N [P]]
 */
#include "bench.h"

struct pair {
	int ping[2], pong[2]; /* [0] read end, [1] write end */
	pthread_t a, b;
	long out_of_step;     /* bytes received with the wrong value */
	double t_end;         /* when A got its last byte back */
};

static long n;
static struct gate gate = GATE_INITIALIZER;

/* One byte through fd, or exits: a pipe between two live threads of the
 * program never ends or fails. */
static void put(int fd, unsigned char c)
{
	ssize_t r;
	while ((r = write(fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (r != 1) {
		fprintf(stderr, "pipe_pingpong: write: %s\n", r < 0 ? strerror(errno) : "short");
		exit(1);
	}
}

static unsigned char get(int fd)
{
	unsigned char c;
	ssize_t r;
	while ((r = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	if (r != 1) {
		fprintf(stderr, "pipe_pingpong: read: %s\n", r < 0 ? strerror(errno) : "end of file");
		exit(1);
	}
	return c;
}

static void *side_a(void *arg)
{
	struct pair *p = arg;

	gate_wait(&gate);
	for (long k = 0; k < n; k++) {
		put(p->ping[1], (unsigned char)k);
		if (get(p->pong[0]) != (unsigned char)(k + 1))
			p->out_of_step++;
	}
	p->t_end = now_sec();
	return NULL;
}

static void *side_b(void *arg)
{
	struct pair *p = arg;

	gate_wait(&gate);
	for (long k = 0; k < n; k++) {
		unsigned char c = get(p->ping[0]);
		if (c != (unsigned char)k)
			p->out_of_step++;
		put(p->pong[1], (unsigned char)(c + 1));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	n = arg_long(argc, argv, 1, 100000);
	long np = arg_long(argc, argv, 2, 1);
	struct pair *pairs = calloc((size_t)np, sizeof *pairs);
	struct sampler smp;
	long out_of_step = 0;
	double t_end = 0;

	if (!pairs)
		return 1;
	raise_nofile();
	for (long i = 0; i < np; i++)
		if (pipe(pairs[i].ping) != 0 || pipe(pairs[i].pong) != 0) {
			fprintf(stderr, "pipe_pingpong: pipe: %s\n", strerror(errno));
			return 1;
		}

	sampler_start(&smp, 5000);
	gate_arm(&gate, 2 * np);
	for (long i = 0; i < np; i++) {
		spawn(&pairs[i].a, side_a, &pairs[i]);
		spawn(&pairs[i].b, side_b, &pairs[i]);
	}
	double t0 = gate_open(&gate);
	for (long i = 0; i < np; i++) {
		reap(pairs[i].a);
		reap(pairs[i].b);
		out_of_step += pairs[i].out_of_step;
		if (pairs[i].t_end > t_end)
			t_end = pairs[i].t_end;
	}
	double secs = t_end - t0;
	long peak = sampler_stop(&smp);
	if (out_of_step) {
		fprintf(stderr, "pipe_pingpong: %ld bytes out of step\n", out_of_step);
		return 1;
	}
	printf("RESULT name=pipe_pingpong n=%ld pairs=%ld seconds=%.6f round_trips_per_sec=%.0f "
	       "us_per_round_trip=%.3f peak_os_threads=%ld rss_kib=%ld\n",
	       n, np, secs, (double)(n * np) / secs, secs / (double)n * 1e6, peak,
	       status_field("VmHWM"));
	return 0;
}
