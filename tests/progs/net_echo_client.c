/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/net_echo_client.c — N concurrent connections (argv[2],
 * default 2000) to net_echo_server on 127.0.0.1, port argv[1], one
 * thread each. Every thread connects; all wait at a barrier, so that all
 * N connections are open at once; each then waits for the server's
 * one-byte go-ahead ('g', sent once the server has all N), sends 16 KiB
 * of a pattern of its own in chunks of varied sizes, reading the echo of
 * each chunk back and checking every byte, and closes. Prints "verified
 * N connections" and exits 0 when all N got their bytes back.
 *
 * Thread stacks are 64 KiB, so that N threads are cheap under NPTL too.
 */
#include "common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define BYTES (16 * 1024)
#define MAX_CHUNK 4096
#define STACK (64 * 1024)

static struct sockaddr_in server;
static pthread_barrier_t all_open;
static atomic_int verified;

/* Byte i of connection c's stream. */
static unsigned char pattern(uint32_t c, uint64_t i)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)c << 40) ^ (i >> 9);
	x ^= x >> 29;
	return (unsigned char)(x ^ (x >> 17));
}

/* Read exactly n bytes; end of file before that fails. */
static void read_full(int fd, unsigned char *p, size_t n, int id)
{
	while (n > 0) {
		ssize_t k = recv(fd, p, n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		CHECK(k > 0, "connection %d: recv returned %zd (%s)", id, k,
		      k < 0 ? strerror(errno) : "EOF");
		p += k;
		n -= (size_t)k;
	}
}

static void send_all(int fd, const unsigned char *p, size_t n, int id)
{
	while (n > 0) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		CHECK(k > 0, "connection %d: send: %s", id, strerror(errno));
		p += k;
		n -= (size_t)k;
	}
}

static void *conn(void *arg)
{
	int id = (int)(long)arg;
	unsigned char out[MAX_CHUNK], in[MAX_CHUNK];

	int fd = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(fd >= 0, "connection %d: socket: %s", id, strerror(errno));
	int r;
	do
		r = connect(fd, (struct sockaddr *)&server, sizeof server);
	while (r < 0 && errno == EINTR);
	CHECK(r == 0, "connection %d: connect: %s", id, strerror(errno));
	r = pthread_barrier_wait(&all_open);
	CHECK(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD, "pthread_barrier_wait: %d", r);

	read_full(fd, in, 1, id);
	CHECK(in[0] == 'g', "connection %d: go-ahead byte %02x", id, in[0]);

	/* chunks of 1 to MAX_CHUNK bytes, differing between connections */
	for (size_t off = 0, step = 0; off < BYTES; step++) {
		size_t n = 1 + (step * 1237 + (size_t)id * 71) % MAX_CHUNK;
		if (n > BYTES - off)
			n = BYTES - off;
		for (size_t i = 0; i < n; i++)
			out[i] = pattern((uint32_t)id, off + i);
		send_all(fd, out, n, id);
		read_full(fd, in, n, id);
		for (size_t i = 0; i < n; i++)
			CHECK(in[i] == out[i], "connection %d: echoed byte %zu is %02x, sent %02x", id,
			      off + i, in[i], out[i]);
		off += n;
	}
	close(fd);
	atomic_fetch_add(&verified, 1);
	return NULL;
}

static void raise_nofile(int need)
{
	struct rlimit rl;
	CHECK(getrlimit(RLIMIT_NOFILE, &rl) == 0, "getrlimit: %s", strerror(errno));
	rl.rlim_cur = rl.rlim_max;
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit: %s", strerror(errno));
	CHECK(rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= (rlim_t)need,
	      "RLIMIT_NOFILE hard limit %lu is below the %d fds needed",
	      (unsigned long)rl.rlim_cur, need);
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;

	setvbuf(stdout, NULL, _IOLBF, 0);
	CHECK(argc > 1, "usage: net_echo_client port [connections]");
	int port = atoi(argv[1]);
	int n = argc > 2 ? atoi(argv[2]) : 2000;
	CHECK(port > 0 && port < 65536 && n > 0, "usage: net_echo_client port [connections]");
	raise_nofile(n + 64);
	signal(SIGPIPE, SIG_IGN);

	memset(&server, 0, sizeof server);
	server.sin_family = AF_INET;
	server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	server.sin_port = htons((uint16_t)port);
	CHECK(pthread_barrier_init(&all_open, NULL, (unsigned)n) == 0, "pthread_barrier_init");

	pthread_t *t = calloc((size_t)n, sizeof *t);
	CHECK(t, "calloc");
	CHECK(pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, STACK) == 0,
	      "thread attributes");
	for (int i = 0; i < n; i++) {
		int e = pthread_create(&t[i], &attr, conn, (void *)(long)i);
		CHECK(e == 0, "pthread_create (connection %d): %s", i, strerror(e));
	}
	for (int i = 0; i < n; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	CHECK(atomic_load(&verified) == n, "verified %d of %d", atomic_load(&verified), n);
	printf("verified %d connections\n", n);
	free(t);
	return 0;
}
