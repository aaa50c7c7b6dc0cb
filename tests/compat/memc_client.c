/* SPDX-License-Identifier: MIT */
/*
 * memc_client.c — a memcached load client: pthreads, one blocking TCP
 * connection per thread, the text protocol.
 *
 *   memc_client HOST PORT THREADS KEYS_PER_THREAD
 *
 * Each thread connects to HOST:PORT (127.0.0.1 only) and goes through its
 * keys ("t<thread>_k<index>") 16 at a time:
 *   1. stores them with "set", eight requests written at once, each value
 *      'v' and then 9..1999 arbitrary bytes (NUL, \r, \n included) derived
 *      from the key, with flags derived from the index;
 *   2. reads every one back — most with "get k", every fifth request a
 *      multi-key "get k1 k2 <missing> k3" — and checks length, flags and
 *      every byte, and that the missing key is not returned;
 *   3. deletes them; every tenth is then checked to be gone (a get finds
 *      nothing, a second delete says NOT_FOUND).
 * Then it sets a counter, "incr"s it ten times and "decr"s it once, checking
 * each reply, checks "incr" on a missing key (NOT_FOUND) and on a
 * non-numeric value (CLIENT_ERROR), and deletes both keys.
 * Reads and writes loop over partial transfers; sockets have 20 s send and
 * receive timeouts.
 *
 * A thread holds at most 16 values in the server at once (about 3.5 MB for
 * 200 threads), so memcached's default 64 MB never evicts; if the server
 * did evict, the client says so.
 *
 * stdout (identical between runs except the "figure:" line):
 *   threads T, keys per thread K
 *   stored S, read back R, mismatches M, multi-get G, incr ok I, deleted D
 *   figure: N ops/s
 * Exit status 0 only when every stored value was read back intact and every
 * check passed; otherwise 1, with the reasons on stderr.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define IO_TIMEOUT_S 20
#define SET_BATCH 8
#define MAX_VAL 2000
#define MIN_VAL 10
#define RBUF_SIZE 65536
#define INCR_STEPS 10
#define ROUND 16          /* keys a thread has stored at once */
#define VERIFY_EVERY 10   /* every 10th delete is checked: gone for good */

static struct sockaddr_in server;
static int nkeys;

struct result {
	long stored, read_ok, mismatches, multiget, incr_ok, deleted;
	long ops;
	int failed;           /* a protocol or I/O error ended the thread */
	char err[256];        /* the first error or mismatch */
};

struct conn {
	int fd;
	char *buf;
	size_t start, end;
	struct result *res;
};

/* ---- deterministic values ---------------------------------------------- */

static uint64_t fnv1a(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static size_t val_len(const char *key)
{
	return MIN_VAL + fnv1a(key, strlen(key)) % (MAX_VAL - MIN_VAL + 1);
}

/* Fills out with the value of key: 'v', then arbitrary bytes (\r, \n and
 * NUL included); returns its length. */
static size_t make_value(const char *key, char *out)
{
	uint64_t x = fnv1a(key, strlen(key)) | 1;
	size_t n = val_len(key);
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		out[i] = (char)(x >> 24);
	}
	out[0] = 'v';   /* never a number: "incr" on it must fail */
	return n;
}

static unsigned key_flags(int idx)
{
	return (unsigned)idx * 2654435761u % 65536u;
}

static void key_name(char *out, size_t sz, int t, int i)
{
	snprintf(out, sz, "t%d_k%d", t, i);
}

/* ---- error reporting ---------------------------------------------------- */

static void note(struct result *r, const char *fmt, ...)
{
	if (r->err[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
}

/* ---- I/O ---------------------------------------------------------------- */

static int write_all(struct conn *c, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			note(c->res, "send: %s", errno == EAGAIN ?
			     "timed out" : strerror(errno));
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads more bytes into the buffer, compacting it first. */
static int fill(struct conn *c)
{
	if (c->start > 0) {
		memmove(c->buf, c->buf + c->start, c->end - c->start);
		c->end -= c->start;
		c->start = 0;
	}
	if (c->end == RBUF_SIZE) {
		note(c->res, "reply line longer than %d bytes", RBUF_SIZE);
		return -1;
	}
	for (;;) {
		ssize_t r = recv(c->fd, c->buf + c->end, RBUF_SIZE - c->end, 0);
		if (r > 0) {
			c->end += (size_t)r;
			return 0;
		}
		if (r == 0) {
			note(c->res, "recv: server closed the connection");
			return -1;
		}
		if (errno == EINTR)
			continue;
		note(c->res, "recv: %s", errno == EAGAIN ?
		     "timed out" : strerror(errno));
		return -1;
	}
}

/* Copies the next line, without its \r\n, into line (NUL-terminated). */
static int read_line(struct conn *c, char *line, size_t sz)
{
	for (;;) {
		char *b = c->buf + c->start;
		size_t avail = c->end - c->start;
		for (size_t i = 0; i + 1 < avail; i++) {
			if (b[i] == '\r' && b[i + 1] == '\n') {
				if (i >= sz) {
					note(c->res, "reply line too long");
					return -1;
				}
				memcpy(line, b, i);
				line[i] = '\0';
				c->start += i + 2;
				return 0;
			}
		}
		if (fill(c) < 0)
			return -1;
	}
}

/* Copies exactly n bytes into out. */
static int read_exact(struct conn *c, char *out, size_t n)
{
	while (n > 0) {
		if (c->end == c->start && fill(c) < 0)
			return -1;
		size_t k = c->end - c->start;
		if (k > n)
			k = n;
		memcpy(out, c->buf + c->start, k);
		c->start += k;
		out += k;
		n -= k;
	}
	return 0;
}

/* ---- get ---------------------------------------------------------------- */

/* Sends "get k1 k2 ...", reads the reply and checks it: the keys with
 * want[i] != 0 must come back in order with their values and flags, the
 * others not at all. Returns the number of values found intact, or -1 on an
 * I/O or protocol error (mismatches are counted in res). */
static int get_check(struct conn *c, char keys[][48], const int *want,
		     const unsigned *flags, int n, char *scratch, char *expect)
{
	char req[512], line[512];
	size_t len = (size_t)snprintf(req, sizeof req, "get");
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(req + len, sizeof req - len, " %s",
					keys[i]);
	len += (size_t)snprintf(req + len, sizeof req - len, "\r\n");
	c->res->ops++;
	if (write_all(c, req, len) < 0)
		return -1;

	int next = 0, good = 0, found[8] = { 0 };
	for (;;) {
		if (read_line(c, line, sizeof line) < 0)
			return -1;
		if (strcmp(line, "END") == 0)
			break;
		char rkey[256];
		unsigned rflags;
		size_t rlen;
		if (sscanf(line, "VALUE %250s %u %zu", rkey, &rflags,
			   &rlen) != 3 || rlen > MAX_VAL) {
			note(c->res, "bad get reply line: \"%.100s\"", line);
			return -1;
		}
		if (read_exact(c, scratch, rlen + 2) < 0)
			return -1;
		if (scratch[rlen] != '\r' || scratch[rlen + 1] != '\n') {
			note(c->res, "value of %s not followed by \\r\\n", rkey);
			return -1;
		}
		while (next < n && (!want[next] || strcmp(keys[next], rkey)))
			next++;
		if (next == n) {
			c->res->mismatches++;
			note(c->res, "get returned unexpected key %s", rkey);
			continue;
		}
		size_t elen = make_value(keys[next], expect);
		if (rlen != elen || rflags != flags[next] ||
		    memcmp(scratch, expect, elen) != 0) {
			c->res->mismatches++;
			note(c->res, "%s: got %zu bytes flags %u, want %zu "
			     "bytes flags %u%s", rkey, rlen, rflags, elen,
			     flags[next], rlen == elen && rflags == flags[next]
			     ? " (bytes differ)" : "");
		} else {
			good++;
		}
		found[next] = 1;
		next++;
	}
	for (int i = 0; i < n; i++)
		if (want[i] && !found[i])
			note(c->res, "get %s: not found", keys[i]);
	return good;
}

/* ---- one thread ---------------------------------------------------------- */

struct targ {
	int id;
	struct result res;
};

static int connect_server(struct result *r)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		note(r, "socket: %s", strerror(errno));
		return -1;
	}
	struct timeval tv = { .tv_sec = IO_TIMEOUT_S };
	int one = 1;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
		note(r, "setsockopt: %s", strerror(errno));
		close(fd);
		return -1;
	}
	while (connect(fd, (struct sockaddr *)&server, sizeof server) < 0) {
		if (errno == EINTR)
			continue;
		note(r, "connect: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Stores keys [lo, hi) of thread t, SET_BATCH requests per write. */
static int round_set(struct conn *c, int t, int lo, int hi, char *out)
{
	char key[48], hdr[128];
	char line[256];
	for (int i = lo; i < hi; i += SET_BATCH) {
		int n = hi - i < SET_BATCH ? hi - i : SET_BATCH;
		size_t len = 0;
		for (int j = 0; j < n; j++) {
			key_name(key, sizeof key, t, i + j);
			size_t vl = val_len(key);
			int h = snprintf(hdr, sizeof hdr, "set %s %u 0 %zu\r\n",
					 key, key_flags(i + j), vl);
			memcpy(out + len, hdr, (size_t)h);
			len += (size_t)h;
			len += make_value(key, out + len);
			memcpy(out + len, "\r\n", 2);
			len += 2;
		}
		c->res->ops += n;
		if (write_all(c, out, len) < 0)
			return -1;
		for (int j = 0; j < n; j++) {
			if (read_line(c, line, sizeof line) < 0)
				return -1;
			if (strcmp(line, "STORED") != 0) {
				note(c->res, "set t%d_k%d: \"%.100s\"", t, i + j,
				     line);
				return -1;
			}
			c->res->stored++;
		}
	}
	return 0;
}

/* Reads keys [lo, hi) back: one "get" per key, and every fifth request a
 * "get k_i k_i+1 <missing> k_i+2". *group numbers the requests. */
static int round_get(struct conn *c, int t, int lo, int hi, int *group,
		     char *scratch, char *expect)
{
	char keys[4][48];
	int want[4];
	unsigned flags[4];
	for (int i = lo; i < hi; (*group)++) {
		int got;
		if (*group % 5 == 4 && hi - i >= 3) {
			for (int j = 0, k = 0; j < 4; j++) {
				if (j == 2) {
					snprintf(keys[j], sizeof keys[j],
						 "t%d_missing%d", t, i);
					want[j] = 0;
					flags[j] = 0;
				} else {
					key_name(keys[j], sizeof keys[j], t,
						 i + k);
					want[j] = 1;
					flags[j] = key_flags(i + k);
					k++;
				}
			}
			got = get_check(c, keys, want, flags, 4, scratch,
					expect);
			if (got < 0)
				return -1;
			c->res->multiget++;
			i += 3;
		} else {
			key_name(keys[0], sizeof keys[0], t, i);
			want[0] = 1;
			flags[0] = key_flags(i);
			got = get_check(c, keys, want, flags, 1, scratch,
					expect);
			if (got < 0)
				return -1;
			i += 1;
		}
		c->res->read_ok += got;
	}
	return 0;
}

/* Sends req; the reply must be want (or start with it). Returns 0 if so,
 * 1 if not (noted), -1 on an I/O error. */
static int expect_reply(struct conn *c, const char *req, size_t len,
			const char *want, int prefix)
{
	char line[256];
	c->res->ops++;
	if (write_all(c, req, len) < 0 || read_line(c, line, sizeof line) < 0)
		return -1;
	if (prefix ? strncmp(line, want, strlen(want)) != 0
		   : strcmp(line, want) != 0) {
		note(c->res, "\"%.*s\": got \"%.100s\", want \"%s\"",
		     (int)strcspn(req, "\r"), req, line, want);
		return 1;
	}
	return 0;
}

static int expect_line(struct conn *c, const char *req, const char *want,
		       int prefix)
{
	return expect_reply(c, req, strlen(req), want, prefix);
}

/* Deletes key; with verify, then checks that a get finds nothing and a
 * second delete says NOT_FOUND. Counts it in deleted when all is as it
 * should be. */
static int delete_key(struct conn *c, const char *key, int verify,
		      char *scratch, char *expect)
{
	char req[128], keys[1][48];
	int want[1] = { 0 };
	unsigned flags[1] = { 0 };
	int r;
	snprintf(req, sizeof req, "delete %s\r\n", key);
	if ((r = expect_line(c, req, "DELETED", 0)) != 0)
		return r < 0 ? -1 : 0;
	if (verify) {
		long before = c->res->mismatches;
		snprintf(keys[0], sizeof keys[0], "%s", key);
		if (get_check(c, keys, want, flags, 1, scratch, expect) < 0)
			return -1;
		if (c->res->mismatches != before)
			return 0;
		if ((r = expect_line(c, req, "NOT_FOUND", 0)) != 0)
			return r < 0 ? -1 : 0;
	}
	c->res->deleted++;
	return 0;
}

/* The keys of thread t, ROUND at a time: set, read back, delete. */
static int phase_data(struct conn *c, int t, char *out, char *scratch,
		      char *expect)
{
	char key[48];
	int group = 0;
	for (int lo = 0; lo < nkeys; lo += ROUND) {
		int hi = nkeys - lo < ROUND ? nkeys : lo + ROUND;
		if (round_set(c, t, lo, hi, out) < 0 ||
		    round_get(c, t, lo, hi, &group, scratch, expect) < 0)
			return -1;
		for (int i = lo; i < hi; i++) {
			key_name(key, sizeof key, t, i);
			if (delete_key(c, key, i % VERIFY_EVERY == 0, scratch,
				       expect) < 0)
				return -1;
		}
	}
	return 0;
}

/* incr/decr on a counter, on a missing key and on a non-numeric value;
 * then both keys are deleted. */
static int phase_incr(struct conn *c, int t, char *out, char *scratch,
		      char *expect)
{
	char req[128], want[32], key[48];
	int bad = 0, r;
	snprintf(req, sizeof req, "set t%d_ctr 0 0 1\r\n5\r\n", t);
	if ((r = expect_line(c, req, "STORED", 0)) != 0)
		return r;
	long v = 5;
	for (int k = 1; k <= INCR_STEPS; k++) {
		v += k * (t + 1);
		snprintf(req, sizeof req, "incr t%d_ctr %d\r\n", t, k * (t + 1));
		snprintf(want, sizeof want, "%ld", v);
		if ((r = expect_line(c, req, want, 0)) < 0)
			return -1;
		bad |= r;
	}
	snprintf(req, sizeof req, "decr t%d_ctr 3\r\n", t);
	snprintf(want, sizeof want, "%ld", v - 3);
	if ((r = expect_line(c, req, want, 0)) < 0)
		return -1;
	bad |= r;
	snprintf(req, sizeof req, "incr t%d_nocounter 1\r\n", t);
	if ((r = expect_line(c, req, "NOT_FOUND", 0)) < 0)
		return -1;
	bad |= r;
	/* A value from make_value is never a number. */
	snprintf(key, sizeof key, "t%d_text", t);
	size_t vl = make_value(key, scratch);
	int h = snprintf(out, 128, "set %s 0 0 %zu\r\n", key, vl);
	memcpy(out + h, scratch, vl);
	memcpy(out + h + vl, "\r\n", 2);
	if ((r = expect_reply(c, out, (size_t)h + vl + 2, "STORED", 0)) < 0)
		return -1;
	bad |= r;
	snprintf(req, sizeof req, "incr %s 1\r\n", key);
	if ((r = expect_line(c, req, "CLIENT_ERROR", 1)) < 0)
		return -1;
	bad |= r;
	if (!bad)
		c->res->incr_ok++;
	snprintf(want, sizeof want, "t%d_ctr", t);
	if (delete_key(c, want, 1, scratch, expect) < 0 ||
	    delete_key(c, key, 1, scratch, expect) < 0)
		return -1;
	return 0;
}

static void *worker(void *arg)
{
	struct targ *a = arg;
	struct result *r = &a->res;
	struct conn c = { .fd = -1, .res = r };
	char *out = malloc(SET_BATCH * (MAX_VAL + 128));
	char *scratch = malloc(MAX_VAL + 2);
	char *expect = malloc(MAX_VAL);
	c.buf = malloc(RBUF_SIZE);
	if (!out || !scratch || !expect || !c.buf) {
		note(r, "out of memory");
		r->failed = 1;
		goto done;
	}
	c.fd = connect_server(r);
	if (c.fd < 0 || phase_data(&c, a->id, out, scratch, expect) < 0 ||
	    phase_incr(&c, a->id, out, scratch, expect) < 0)
		r->failed = 1;
done:
	if (c.fd >= 0) {
		/* Leave politely; the reply to "quit" is the close. */
		write_all(&c, "quit\r\n", 6);
		close(c.fd);
	}
	free(out);
	free(scratch);
	free(expect);
	free(c.buf);
	return NULL;
}

/* ---- main ---------------------------------------------------------------- */

/* Asks the server for its eviction count, for the error message. */
static long server_evictions(void)
{
	struct result r = { 0 };
	struct conn c = { .res = &r };
	char line[512];
	long ev = -1;
	c.buf = malloc(RBUF_SIZE);
	c.fd = c.buf ? connect_server(&r) : -1;
	if (c.fd < 0)
		goto out;
	if (write_all(&c, "stats\r\n", 7) < 0)
		goto out;
	while (read_line(&c, line, sizeof line) == 0 && strcmp(line, "END"))
		sscanf(line, "STAT evictions %ld", &ev);
out:
	if (c.fd >= 0)
		close(c.fd);
	free(c.buf);
	return ev;
}

static long parse(const char *s, const char *what, long lo, long hi)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < lo || v > hi) {
		fprintf(stderr, "memc_client: bad %s \"%s\" (%ld..%ld)\n",
			what, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s HOST PORT THREADS KEYS_PER_THREAD\n",
			argv[0]);
		return 2;
	}
	if (strcmp(argv[1], "127.0.0.1") != 0) {
		fprintf(stderr, "memc_client: only 127.0.0.1 is allowed\n");
		return 2;
	}
	int port = (int)parse(argv[2], "port", 1, 65535);
	int nthreads = (int)parse(argv[3], "thread count", 1, 100000);
	nkeys = (int)parse(argv[4], "keys per thread", 1, 10000000);

	server.sin_family = AF_INET;
	server.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, argv[1], &server.sin_addr);

	struct targ *args = calloc((size_t)nthreads, sizeof *args);
	pthread_t *tids = calloc((size_t)nthreads, sizeof *tids);
	if (!args || !tids) {
		fprintf(stderr, "memc_client: out of memory\n");
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int started = 0;
	for (int i = 0; i < nthreads; i++) {
		args[i].id = i;
		int e = pthread_create(&tids[i], NULL, worker, &args[i]);
		if (e) {
			fprintf(stderr, "memc_client: pthread_create %d: %s\n",
				i, strerror(e));
			break;
		}
		started++;
	}
	for (int i = 0; i < started; i++) {
		int e = pthread_join(tids[i], NULL);
		if (e) {
			fprintf(stderr, "memc_client: pthread_join %d: %s\n",
				i, strerror(e));
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	struct result tot = { 0 };
	int failed_threads = 0, reported = 0;
	for (int i = 0; i < started; i++) {
		struct result *r = &args[i].res;
		tot.stored += r->stored;
		tot.read_ok += r->read_ok;
		tot.mismatches += r->mismatches;
		tot.multiget += r->multiget;
		tot.incr_ok += r->incr_ok;
		tot.deleted += r->deleted;
		tot.ops += r->ops;
		if (r->failed)
			failed_threads++;
		if (r->err[0] && reported++ < 10)
			fprintf(stderr, "memc_client: thread %d: %s\n", i,
				r->err);
	}
	if (reported > 10)
		fprintf(stderr, "memc_client: ... %d threads in all reported "
			"errors\n", reported);

	long want_stored = (long)nthreads * nkeys;
	long want_deleted = (long)nthreads * (nkeys + 2);
	printf("threads %d, keys per thread %d\n", nthreads, nkeys);
	printf("stored %ld, read back %ld, mismatches %ld, multi-get %ld, "
	       "incr ok %ld, deleted %ld\n", tot.stored, tot.read_ok,
	       tot.mismatches, tot.multiget, tot.incr_ok, tot.deleted);
	double secs = (double)(t1.tv_sec - t0.tv_sec) +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("figure: %.0f ops/s\n", secs > 0 ? (double)tot.ops / secs : 0.0);
	fflush(stdout);

	int ok = started == nthreads && failed_threads == 0 &&
		 tot.stored == want_stored && tot.read_ok == want_stored &&
		 tot.mismatches == 0 && tot.incr_ok == nthreads &&
		 tot.deleted == want_deleted;
	if (!ok) {
		fprintf(stderr, "memc_client: FAILED: %d of %d threads failed; "
			"stored %ld, read back %ld of %ld, mismatches %ld, "
			"incr ok %ld of %d, deleted %ld of %ld\n",
			failed_threads + (nthreads - started), nthreads,
			tot.stored, tot.read_ok, want_stored, tot.mismatches,
			tot.incr_ok, nthreads, tot.deleted, want_deleted);
		if (tot.read_ok < tot.stored) {
			long ev = server_evictions();
			if (ev > 0)
				fprintf(stderr, "memc_client: the server "
					"evicted %ld items: give it more "
					"memory (-m)\n", ev);
		}
		return 1;
	}
	return 0;
}
