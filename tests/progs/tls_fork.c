/* SPDX-License-Identifier: MIT */
/*
 * TLS.md rows 17 and 24 — fork() from a thread while other threads exist.
 * 8 threads keep switching away (and migrating) and checking their
 * __thread values the whole time; 4 other threads each fork 5 times, after
 * a switch (resuming maybe on another OS thread). The child keeps only the
 * forking thread: it checks that it is that thread (pthread_self, its
 * __thread value, errno), calls malloc, writes a line with printf to its
 * stdout (a pipe to the parent) and ends with exit(0) or, after fflush,
 * _exit(0). The parent reads the line, waitpid()s and requires exit status
 * 0 and the expected line. glibc's fork walks its list of threads in the
 * child (reclaim_stacks), which must hold only well-formed entries.
 */
#include "tls_common.h"

#include <errno.h>
#include <sys/wait.h>

#define NW 8
#define NF 4
#define NK 5

static __thread long tl_val;
static int stop;

static void *busy(void *arg)
{
	long id = (long)arg;
	tl_val = 1000 + id;
	for (unsigned i = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++) {
		tls_switch(i);
		CHECK(tl_val == 1000 + id, "busy thread %ld: __thread value %ld", id, tl_val);
	}
	return NULL;
}

static void child(long id, int k, pthread_t parent_self, int fd)
{
	bool ok_self = pthread_equal(pthread_self(), parent_self);
	bool ok_tl = tl_val == id * 10 + k;
	bool ok_errno = errno == 4000 + k;
	char *m = malloc(1000 + (size_t)k);
	if (!m)
		_exit(3);
	memset(m, 'x', 1000);
	snprintf(m, 1000, "child of thread %ld fork %d: self %s, __thread %s, errno %s", id, k,
		 ok_self ? "ok" : "WRONG", ok_tl ? "ok" : "WRONG", ok_errno ? "ok" : "WRONG");
	if (dup2(fd, 1) < 0)
		_exit(4);
	printf("%s\n", m);
	free(m);
	if (k % 2) {
		exit(0);
	} else {
		fflush(stdout);
		_exit(0);
	}
}

static void *forker(void *arg)
{
	long id = (long)arg;
	for (int k = 0; tls_more((unsigned)k, NK); k++) {
		tls_switch((unsigned)(k + id));
		int p[2];
		CHECK(pipe(p) == 0, "pipe");
		tl_val = id * 10 + k;
		pthread_t self = pthread_self();
		errno = 4000 + k;
		pid_t pid = fork();
		if (pid == 0) {
			close(p[0]);
			child(id, k, self, p[1]);
		}
		CHECK(pid > 0, "fork: %s", strerror(errno));
		close(p[1]);
		char buf[256];
		size_t len = 0;
		ssize_t n;
		while (len < sizeof buf - 1 && (n = read(p[0], buf + len, sizeof buf - 1 - len)) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			CHECK(n > 0, "read: %s", strerror(errno));
			len += (size_t)n;
		}
		buf[len] = '\0';
		close(p[0]);
		int st;
		pid_t w;
		while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
		CHECK(w == pid, "waitpid: %s", strerror(errno));
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "thread %ld fork %d: child %s %d", id, k,
		      WIFEXITED(st) ? "exited with" : "killed by signal",
		      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		char want[256];
		snprintf(want, sizeof want,
			 "child of thread %ld fork %d: self ok, __thread ok, errno ok\n", id, k);
		CHECK(strcmp(buf, want) == 0, "thread %ld fork %d: child wrote \"%s\"", id, k, buf);
		CHECK(tl_val == id * 10 + k, "thread %ld: __thread value %ld after fork", id, tl_val);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	pthread_t w[NW], f[NF];
	for (long i = 0; i < NW; i++)
		CHECK(pthread_create(&w[i], NULL, busy, (void *)i) == 0, "pthread_create");
	for (long i = 0; i < NF; i++)
		CHECK(pthread_create(&f[i], NULL, forker, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NF; i++)
		CHECK(pthread_join(f[i], NULL) == 0, "pthread_join");
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NW; i++)
		CHECK(pthread_join(w[i], NULL) == 0, "pthread_join");
	printf("fork: %d threads x >= %d forks with %d other threads running: children ran malloc "
	       "and printf as the forking thread and exited 0\n",
	       NF, NK, NW);
	if (tls_migration_verdict())
		return 1;
	printf("PASS fork\n");
	return 0;
}
