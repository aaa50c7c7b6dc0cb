/* SPDX-License-Identifier: MIT */
/*
 * bench/echo_load.c — the load for bench/echo_server: a single-threaded
 * epoll client, run as a plain program (never under libgmp), so that the
 * server is the only thing that differs between two runs.
 *
 * It opens C connections to 127.0.0.1:PORT (default 100), then keeps
 * exactly one 64-byte request outstanding on each: when a connection's
 * echo is back whole (and checked), the next request goes out at once. A
 * warm-up of WARMUP seconds (default 1) comes first, and lasts until
 * every connection has had one reply (at most 10 s more; connections
 * still silent then are counted as starved below); then it measures for
 * SECONDS (default 3). Every reply that arrives in the measured window
 * counts, with its latency from the moment its request was written.
 *
 * While it runs, from the first connect to the end of the window, it
 * samples `Threads:` in the server's /proc/PID/status every 10 ms (the
 * peak), and at the end reads the server's `VmHWM` (its peak resident
 * set), PID being the server's process.
 *
 * Reports requests per second, the median, 99th and 99.9th percentile
 * latency in microseconds, the server's peak threads and peak RSS (KiB), and
 * `starved`, the connections that got no reply in the window. It exits
 * with status 1, after its RESULT line, when some did: a server that
 * leaves connections unserved has not carried the load.
 * `server_cpu_us_per_req` is the CPU time (user and system, from
 * /proc/PID/stat, in clock ticks) the server used in the window over the
 * requests answered there. `replies` counts
 * every reply, warm-up included (what the server's own counts cover).
 *
 * With ECHO_LAT_DIST=FILE set it also writes the distribution there:
 * lines "PERCENT LATENCY_US", the latency at every 0.1 % (0 to 100).
 *
 * With `idle`, it opens the C connections and sends nothing: after
 * WARMUP it reports the CPU time the server used per second of the
 * SECONDS that follow (`server_cpu_ms_per_s`), what waiting costs it.
 *
 *   echo_load PORT PID [C [SECONDS [WARMUP [idle]]]]
 */
#include "bench.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#define REQ 64 /* bytes per request */

struct conn {
	int fd;
	int got;          /* bytes of the current reply so far */
	unsigned long seq; /* the current request's number */
	double t_sent;
	long in_window;   /* replies received in the measured window */
	long replies;     /* replies received in all */
	unsigned char buf[REQ];
};

static char status_path[64];
static long peak_threads;
static double next_sample;

/* What request `seq` of connection `i` carries: both numbers, then bytes
 * derived from them, so a misplaced or stale echo does not compare equal. */
static void request(unsigned char *p, long i, unsigned long seq)
{
	unsigned long h = compute(seq * 65537ul + (unsigned long)i, 4);
	memcpy(p, &i, sizeof i);
	memcpy(p + 8, &seq, sizeof seq);
	for (int k = 16; k < REQ; k++)
		p[k] = (unsigned char)(h >> (k % 8 * 8)) + (unsigned char)k;
}

static void die(const char *what)
{
	fprintf(stderr, "echo_load: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* The server's thread count, every 10 ms at most. */
/* CPU time the server has used (user + system, µs; /proc/PID/stat), or
 * -1. */
static char stat_path[64];
static double server_cpu_us(void)
{
	FILE *f = fopen(stat_path, "r");
	if (!f)
		return -1;
	char buf[1024];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');	/* the name may hold spaces */
	unsigned long ut, st;
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) * 1e6 / (double)sysconf(_SC_CLK_TCK);
}

static void sample(double now)
{
	if (now < next_sample)
		return;
	next_sample = now + 0.010;
	long n = status_file_field(status_path, "Threads");
	if (n > peak_threads)
		peak_threads = n;
}

static void send_request(struct conn *c, long i)
{
	unsigned char req[REQ];
	request(req, i, c->seq);
	c->got = 0;
	c->t_sent = now_sec();
	ssize_t w = write(c->fd, req, REQ);
	/* one request outstanding: the socket's buffer always has room */
	if (w != REQ) {
		if (w >= 0)
			errno = EAGAIN;
		die("write");
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: echo_load PORT PID [CONNS [SECONDS [WARMUP [idle]]]]\n");
		return 2;
	}
	long port = arg_long(argc, argv, 1, 0);
	long pid = arg_long(argc, argv, 2, 0);
	long nc = arg_long(argc, argv, 3, 100);
	double secs = arg_seconds(argc, argv, 4, 3);
	double warmup = arg_seconds(argc, argv, 5, 1);
	int idle = argc > 6 && strcmp(argv[6], "idle") == 0;
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct epoll_event ev[512];
	int one = 1;

	long lim = raise_nofile();
	if (port > 65535 || (lim >= 0 && nc > lim - 16)) {
		fprintf(stderr, "echo_load: port %ld, %ld connections (open files limit %ld)\n", port,
			nc, lim);
		return 2;
	}
	snprintf(status_path, sizeof status_path, "/proc/%ld/status", pid);
	snprintf(stat_path, sizeof stat_path, "/proc/%ld/stat", pid);
	peak_threads = status_file_field(status_path, "Threads");
	if (peak_threads < 0) {
		fprintf(stderr, "echo_load: no process %ld\n", pid);
		return 2;
	}
	struct conn *c = calloc((size_t)nc, sizeof *c);
	size_t lat_cap = 1 << 16, nlat = 0;
	double *lat = malloc(lat_cap * sizeof *lat);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	if (!c || !lat || ep < 0)
		die("setup");

	/* Connect them all (the server's accept queue holds them until it
	 * gets to them), then the first request on each. */
	double t_connect = now_sec();
	for (long i = 0; i < nc; i++) {
		c[i].fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c[i].fd < 0)
			die("socket");
		if (connect(c[i].fd, (struct sockaddr *)&sa, sizeof sa) != 0)
			die("connect");
		setsockopt(c[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		/* reset, not FIN, at the end: no TIME_WAIT left behind */
		struct linger lg = {.l_onoff = 1, .l_linger = 0};
		setsockopt(c[i].fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
		fcntl(c[i].fd, F_SETFL, O_NONBLOCK);
		struct epoll_event e = {.events = EPOLLIN, .data.u64 = (uint64_t)i};
		if (epoll_ctl(ep, EPOLL_CTL_ADD, c[i].fd, &e) != 0)
			die("epoll_ctl");
		sample(now_sec());
	}
	if (idle) {
		/* the connections stay open and silent: what does the server
		 * spend waiting for them? */
		usleep((useconds_t)(warmup * 1e6));
		double t0 = now_sec(), cpu_a = server_cpu_us();
		usleep((useconds_t)(secs * 1e6));
		double t1 = now_sec(), cpu_b = server_cpu_us();
		next_sample = 0;
		sample(t1);
		printf("RESULT name=echo_idle conns=%ld seconds=%.3f server_cpu_ms_per_s=%.3f "
		       "peak_threads=%ld rss_kb=%ld\n",
		       nc, t1 - t0, cpu_a >= 0 && cpu_b >= 0 ? (cpu_b - cpu_a) / 1e3 / (t1 - t0) : -1.0,
		       peak_threads, status_file_field(status_path, "VmHWM"));
		return 0;
	}
	for (long i = 0; i < nc; i++)
		send_request(&c[i], i);

	/* warm-up (phase 0), the measured window (1), then done (2) */
	int phase = 0;
	long answered = 0; /* connections with at least one reply */
	double t_warm = now_sec(), t_w0 = 0, t_w1 = 0, cpu0 = -1, cpu1 = -1;
	long requests = 0, replies = 0;	/* in the window; in all */
	while (phase < 2) {
		int n = epoll_wait(ep, ev, 512, 10);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("epoll_wait");
		}
		for (int k = 0; k < n; k++) {
			long i = (long)ev[k].data.u64;
			struct conn *cc = &c[i];
			ssize_t r = read(cc->fd, cc->buf + cc->got, (size_t)(REQ - cc->got));
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				if (r == 0)
					errno = ECONNRESET;
				die("read (the server closed a connection)");
			}
			cc->got += (int)r;
			if (cc->got < REQ)
				continue;
			double now = now_sec();
			unsigned char want[REQ];
			request(want, i, cc->seq);
			if (memcmp(want, cc->buf, REQ) != 0) {
				fprintf(stderr, "echo_load: connection %ld: reply %lu is not its request\n",
					i, cc->seq);
				return 1;
			}
			replies++;
			if (cc->replies++ == 0)
				answered++;
			if (phase == 1 && now < t_w1) {
				cc->in_window++;
				requests++;
				if (nlat == lat_cap) {
					lat_cap *= 2;
					lat = realloc(lat, lat_cap * sizeof *lat);
					if (!lat)
						die("realloc");
				}
				lat[nlat++] = (now - cc->t_sent) * 1e6;
			}
			cc->seq++;
			send_request(cc, i);
		}
		double now = now_sec();
		sample(now);
		if (phase == 0 && now - t_warm >= warmup &&
		    (answered == nc || now - t_warm >= warmup + 10)) {
			if (answered < nc)
				fprintf(stderr, "echo_load: %ld of %ld connections answered after %.1f s\n",
					answered, nc, now - t_warm);
			phase = 1;
			t_w0 = now;
			t_w1 = now + secs;
			cpu0 = server_cpu_us();
		} else if (phase == 1 && now >= t_w1) {
			phase = 2;
			cpu1 = server_cpu_us();
		}
	}
	next_sample = 0;
	sample(now_sec());
	long rss = status_file_field(status_path, "VmHWM");
	long starved = 0;
	for (long i = 0; i < nc; i++) {
		starved += c[i].in_window == 0;
		close(c[i].fd);
	}
	double p50 = 0, p99 = 0, p999 = 0;
	if (nlat) {
		qsort(lat, nlat, sizeof *lat, cmp_dbl);
		p50 = nlat % 2 ? lat[nlat / 2] : (lat[nlat / 2 - 1] + lat[nlat / 2]) / 2;
		p99 = lat[(nlat * 99 + 99) / 100 - 1]; /* the ceil(0.99 n)-th */
		p999 = lat[(nlat * 999 + 999) / 1000 - 1];
	}
	printf("RESULT name=echo conns=%ld seconds=%.3f requests=%ld rps=%.0f p50_us=%.1f p99_us=%.1f "
	       "p999_us=%.1f peak_threads=%ld rss_kb=%ld starved=%ld warmup_s=%.3f connect_s=%.3f "
	       "replies=%ld server_cpu_us_per_req=%.2f\n",
	       nc, secs, requests, (double)requests / (t_w1 - t_w0), p50, p99, p999, peak_threads, rss,
	       starved, t_w0 - t_warm, t_warm - t_connect, replies,
	       cpu0 >= 0 && cpu1 >= 0 && requests ? (cpu1 - cpu0) / (double)requests : -1.0);
	/* the distribution, for a plot: the latency at every 0.1 % */
	const char *dist = getenv("ECHO_LAT_DIST");
	if (dist && *dist && nlat) {
		FILE *f = fopen(dist, "w");
		if (!f)
			die(dist);
		for (long q = 0; q <= 1000; q++) {
			long i = q == 0 ? 0 : (nlat * q + 999) / 1000 - 1;
			fprintf(f, "%.1f %.1f\n", q / 10.0, lat[i]);
		}
		fclose(f);
	}
	if (starved) {
		fprintf(stderr, "echo_load: %ld of %ld connections got no reply in the window\n", starved,
			nc);
		return 1;
	}
	return 0;
}
