/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/net_echo_server.c — a thread-per-connection TCP echo server
 * on 127.0.0.1, for N connections (argv[1], default 2000) that are all
 * open at once. Run with tests/progs/net_echo_client.
 *
 * It listens on a port the kernel chooses and prints "port <n>". Each
 * accepted connection gets a thread of its own, which counts itself live
 * and then echoes until end of file. The thread that makes the count N
 * reads the number of OS threads from /proc/self/status and prints
 * "peak connections=N os_threads=K": at that moment the other N-1 are
 * all blocked reading their sockets, because the clients send nothing
 * until that thread has written a one-byte go-ahead ('g') on every
 * connection. (Without the go-ahead, a connection served and closed
 * before the last one was accepted would keep the count from ever
 * reaching N.) When all N have been served and closed it prints
 * "served N" and exits 0.
 *
 * Under NPTL, K is N+1. A runtime that runs threads on a few OS threads
 * and parks those blocked on sockets needs far fewer.
 */
#include "common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define STACK (64 * 1024)

static int nconns;
static int *conn_fd;		/* written by the acceptor before each thread starts */
static atomic_int live, served;

/* Write all n bytes (looping over short writes). */
static void write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		CHECK(k > 0, "write: %s", strerror(errno));
		p += k;
		n -= (size_t)k;
	}
}

/* The last connection in: report the peak, then let every client go. */
static void all_live(void)
{
	long threads = status_field("Threads");
	printf("peak connections=%d os_threads=%ld\n", nconns, threads);
	fflush(stdout);
	for (int i = 0; i < nconns; i++)
		write_all(conn_fd[i], "g", 1);
}

static void *serve(void *arg)
{
	int fd = (int)(long)arg;
	char buf[4096];

	if (atomic_fetch_add(&live, 1) + 1 == nconns)
		all_live();
	for (;;) {
		ssize_t k = read(fd, buf, sizeof buf);
		if (k < 0 && errno == EINTR)
			continue;
		CHECK(k >= 0, "read: %s", strerror(errno));
		if (k == 0)
			break;
		write_all(fd, buf, (size_t)k);
	}
	close(fd);
	atomic_fetch_sub(&live, 1);
	atomic_fetch_add(&served, 1);
	return NULL;
}

/* As many fds as allowed: N sockets, the listener, and some to spare. */
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
	struct sockaddr_in a;
	pthread_attr_t attr;
	int one = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	nconns = argc > 1 ? atoi(argv[1]) : 2000;
	CHECK(nconns > 0, "usage: net_echo_server [connections]");
	raise_nofile(nconns + 64);
	/* a client gone early must not kill the server */
	signal(SIGPIPE, SIG_IGN);

	int l = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(l >= 0, "socket: %s", strerror(errno));
	CHECK(setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0, "SO_REUSEADDR");
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0, "bind: %s", strerror(errno));
	socklen_t al = sizeof a;
	CHECK(getsockname(l, (struct sockaddr *)&a, &al) == 0, "getsockname");
	CHECK(listen(l, 4096) == 0, "listen: %s", strerror(errno));
	printf("port %d\n", ntohs(a.sin_port));
	fflush(stdout);

	conn_fd = calloc((size_t)nconns, sizeof *conn_fd);
	pthread_t *t = calloc((size_t)nconns, sizeof *t);
	CHECK(conn_fd && t, "calloc");
	CHECK(pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, STACK) == 0,
	      "thread attributes");
	for (int i = 0; i < nconns; i++) {
		int fd;
		do
			fd = accept(l, NULL, NULL);
		while (fd < 0 && (errno == EINTR || errno == ECONNABORTED));
		CHECK(fd >= 0, "accept (connection %d): %s", i, strerror(errno));
		conn_fd[i] = fd;
		int e = pthread_create(&t[i], &attr, serve, (void *)(long)fd);
		CHECK(e == 0, "pthread_create (connection %d): %s", i, strerror(e));
	}
	close(l);
	for (int i = 0; i < nconns; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	CHECK(atomic_load(&served) == nconns && atomic_load(&live) == 0, "served %d, live %d",
	      atomic_load(&served), atomic_load(&live));
	printf("served %d\n", nconns);
	free(t);
	free(conn_fd);
	return 0;
}
