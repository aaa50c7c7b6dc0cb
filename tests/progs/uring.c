/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/uring.c — io_uring beside threads that never wait: the
 * main thread waits in io_uring_wait_cqe (io_uring_enter, which Linux
 * never restarts after a signal) while 3 threads spin. Any -EINTR is a
 * failure, as in the liburing examples. An ordinary pthread program
 * (liburing).
 *
 *   uring wait      a recv on a socket pair, a read on a pipe and an
 *                   accept on a TCP listener (127.0.0.1), satisfied 200 ms
 *                   later by other threads; main waits for the three
 *   uring timeout   a recv satisfied 200 ms later, waited for with a 2 s
 *                   timeout, then a wait of 200 ms for nothing (-ETIME)
 *
 * Prints what completed and "PASS <what>" and exits 0, or says what went
 * wrong and exits 1.
 */
#include "common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>

#define NSPIN 3

static atomic_int spinning = 1;
static atomic_long spins[NSPIN];

static void *spin(void *arg)
{
	atomic_long *n = arg;
	while (atomic_load_explicit(&spinning, memory_order_relaxed))
		atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
	return NULL;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

struct late {
	int fd;
	struct sockaddr_in addr;	/* connect to it when fd < 0 */
	int conn;
};

static void *late(void *arg)
{
	struct late *l = arg;
	sleep_ms(200);
	if (l->fd >= 0) {
		CHECK(write(l->fd, "hello", 5) == 5, "write: %s", strerror(errno));
	} else {
		l->conn = socket(AF_INET, SOCK_STREAM, 0);
		CHECK(connect(l->conn, (struct sockaddr *)&l->addr, sizeof l->addr) == 0,
		      "connect: %s", strerror(errno));
	}
	return NULL;
}

enum { OP_RECV = 1, OP_READ, OP_ACCEPT };

/* Wait for one completion; -EINTR fails the program. */
static struct io_uring_cqe *wait_one(struct io_uring *ring, int ms)
{
	struct io_uring_cqe *cqe = NULL;
	int r;
	if (ms > 0) {
		struct __kernel_timespec ts = {ms / 1000, (long long)(ms % 1000) * 1000000};
		r = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	} else {
		r = io_uring_wait_cqe(ring, &cqe);
	}
	CHECK(r != -EINTR, "io_uring_wait_cqe: -EINTR");
	if (r == -ETIME)
		return NULL;
	CHECK(r == 0, "io_uring_wait_cqe: %s", strerror(-r));
	return cqe;
}

static int do_wait(void)
{
	struct io_uring ring;
	CHECK(io_uring_queue_init(8, &ring, 0) == 0, "io_uring_queue_init");
	int sv[2], p[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && pipe(p) == 0, "fds");
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 4) == 0 &&
	      getsockname(l, (struct sockaddr *)&a, &al) == 0, "listener");

	char b1[16], b2[16];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	io_uring_prep_recv(sqe, sv[0], b1, sizeof b1, 0);
	sqe->user_data = OP_RECV;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, p[0], b2, sizeof b2, 0);
	sqe->user_data = OP_READ;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_accept(sqe, l, NULL, NULL, 0);
	sqe->user_data = OP_ACCEPT;
	CHECK(io_uring_submit(&ring) == 3, "submit");

	struct late w1 = {sv[1], {0}, -1}, w2 = {p[1], {0}, -1}, c = {-1, a, -1};
	pthread_t t[3];
	pthread_create(&t[0], NULL, late, &w1);
	pthread_create(&t[1], NULL, late, &w2);
	pthread_create(&t[2], NULL, late, &c);
	long res[4] = {0};
	for (int i = 0; i < 3; i++) {
		struct io_uring_cqe *cqe = wait_one(&ring, 0);
		CHECK(cqe->user_data >= OP_RECV && cqe->user_data <= OP_ACCEPT, "user_data");
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("recv: %ld bytes\nread: %ld bytes\naccept: %s\n", res[OP_RECV], res[OP_READ],
	       res[OP_ACCEPT] >= 0 ? "a connection" : strerror((int)-res[OP_ACCEPT]));
	CHECK(res[OP_RECV] == 5 && res[OP_READ] == 5 && res[OP_ACCEPT] >= 0, "results");
	io_uring_queue_exit(&ring);
	return 0;
}

static int do_timeout(void)
{
	struct io_uring ring;
	CHECK(io_uring_queue_init(8, &ring, 0) == 0, "io_uring_queue_init");
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	char b[16];
	struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
	io_uring_prep_recv(sqe, sv[0], b, sizeof b, 0);
	sqe->user_data = OP_RECV;
	CHECK(io_uring_submit(&ring) == 1, "submit");
	struct late w = {sv[1], {0}, -1};
	pthread_t t;
	pthread_create(&t, NULL, late, &w);
	struct io_uring_cqe *cqe = wait_one(&ring, 2000);
	CHECK(cqe, "no completion in 2 s");
	printf("recv within the timeout: %d bytes\n", cqe->res);
	CHECK(cqe->res == 5, "recv");
	io_uring_cqe_seen(&ring, cqe);
	pthread_join(t, NULL);
	cqe = wait_one(&ring, 200);
	printf("then a 200 ms wait for nothing: %s\n", cqe ? "a completion" : "timed out");
	CHECK(!cqe, "completion from nowhere");
	io_uring_queue_exit(&ring);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "wait") != 0 && strcmp(what, "timeout") != 0) {
		fprintf(stderr, "usage: uring wait|timeout\n");
		return 2;
	}
	pthread_t s[NSPIN];
	for (int i = 0; i < NSPIN; i++)
		pthread_create(&s[i], NULL, spin, &spins[i]);
	int r = strcmp(what, "wait") == 0 ? do_wait() : do_timeout();
	atomic_store(&spinning, 0);
	for (int i = 0; i < NSPIN; i++)
		pthread_join(s[i], NULL);
	if (r == 0)
		printf("PASS %s\n", what);
	return r;
}
