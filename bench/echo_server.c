/* SPDX-License-Identifier: MIT */
/*
 * bench/echo_server.c — a thread-per-connection TCP echo server, written
 * the plain blocking way: the main thread accepts on 127.0.0.1 (an
 * ephemeral port) and starts one detached thread per connection, with a
 * 64 KiB stack (pthread_attr_setstacksize), that reads what arrives and
 * writes it back with blocking read and write until the peer closes or
 * resets the connection.
 *
 * It prints one line on stdout once it listens,
 *
 *   port <n> pid <pid>
 *
 * and serves until SIGTERM (run.sh sends it), which one thread waits for
 * with sigwait and answers with exit(0), so that what runs at exit runs
 * (libgmp's GMP_STATS line), or, as a bound, until LIFETIME seconds have
 * passed (default 600: SIGALRM's default action ends it). It prints no RESULT line: bench/
 * echo_load drives it and measures it from outside, through
 * /proc/<pid>/status.
 *
 *   echo_server [LIFETIME]
 */
#include "bench.h"

#include <signal.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

/* Waits for SIGTERM, blocked in every thread, and ends the process
 * through exit. */
static void *terminator(void *arg)
{
	sigset_t *set = arg;
	int sig;
	while (sigwait(set, &sig) != 0)
		;
	exit(0);
}

/* Echoes one connection until it ends. */
static void *serve(void *arg)
{
	int fd = (int)(long)arg;
	char buf[4096];

	for (;;) {
		ssize_t r = read(fd, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* closed or reset by the peer */
		for (ssize_t off = 0; off < r;) {
			ssize_t w = write(fd, buf + off, (size_t)(r - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				goto out;
			off += w;
		}
	}
out:
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	long lifetime = arg_long(argc, argv, 1, 600);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof sa;
	pthread_attr_t attr;
	int one = 1, warned = 0;

	raise_nofile();
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
	    listen(lfd, 4096) != 0 || getsockname(lfd, (struct sockaddr *)&sa, &sl) != 0) {
		fprintf(stderr, "echo_server: cannot listen on 127.0.0.1: %s\n", strerror(errno));
		return 1;
	}
	static sigset_t term;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	must(pthread_sigmask(SIG_BLOCK, &term, NULL), "pthread_sigmask");
	pthread_t waiter;
	must(pthread_create(&waiter, NULL, terminator, &term), "pthread_create");
	must(pthread_attr_init(&attr), "pthread_attr_init");
	must(pthread_attr_setstacksize(&attr, 64 * 1024), "pthread_attr_setstacksize");
	must(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED),
	     "pthread_attr_setdetachstate");
	alarm((unsigned)lifetime);
	printf("port %d pid %ld\n", ntohs(sa.sin_port), (long)getpid());
	fflush(stdout);

	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			/* out of descriptors or memory: say so once, keep serving
			 * the connections there are */
			if (!warned++)
				fprintf(stderr, "echo_server: accept: %s\n", strerror(errno));
			usleep(1000);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		pthread_t t;
		int err = pthread_create(&t, &attr, serve, (void *)(long)fd);
		if (err) {
			if (!warned++)
				fprintf(stderr, "echo_server: pthread_create: %s\n", strerror(err));
			close(fd);
		}
	}
}
