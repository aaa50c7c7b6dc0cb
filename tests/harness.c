/*
 * tests/harness.c — see harness.h.
 */

#include "tests/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TEST_BUILDDIR
#error "TEST_BUILDDIR must name the build tree"
#endif

const char *build_path(const char *rel)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s/%s", TEST_BUILDDIR, rel);
	return buf;
}

const char *prog_path(const char *name)
{
	static char buf[4096];
	snprintf(buf, sizeof buf, "%s/tests/progs/%s", TEST_BUILDDIR, name);
	return buf;
}

struct buf {
	char *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = realloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct run run_prog(const char *const argv[], const char *const env[], int timeout_s,
		    bool preload)
{
	struct run r = {0};
	int po[2], pe[2];
	char lib[4096];

	snprintf(lib, sizeof lib, "%s/.libs/libgmp.so", TEST_BUILDDIR);
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		abort();
	pid_t pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		setpgid(0, 0);
		/* if the test is killed (its own timeout), so is the program */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		unsetenv("LD_PRELOAD");
		unsetenv("GMPMAXPROCS");
		unsetenv("GMPDEBUG");
		if (preload)
			setenv("LD_PRELOAD", lib, 1);
		for (int i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execv(argv[0], (char *const *)argv);
		fprintf(stderr, "harness: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	struct buf bo = {0}, be = {0};
	buf_add(&bo, "", 0);
	buf_add(&be, "", 0);
	double deadline = now() + timeout_s;
	int open_fds = 2;
	struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	while (open_fds > 0) {
		int left = (int)((deadline - now()) * 1000);
		if (left <= 0) {
			r.timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		int n = poll(fds, 2, left);
		if (n < 0 && errno == EINTR)
			continue;
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char tmp[65536];
			ssize_t k = read(fds[i].fd, tmp, sizeof tmp);
			if (k <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
			} else {
				buf_add(i ? &be : &bo, tmp, (size_t)k);
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR)
		;
	/* the program's own children, if any are left, end with it */
	kill(-pid, SIGKILL);
	r.out = bo.p;
	r.err = be.p;
	return r;
}

void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

int run_code(const struct run *r)
{
	if (r->timed_out)
		return -1000;
	if (WIFSIGNALED(r->status))
		return -WTERMSIG(r->status);
	return WEXITSTATUS(r->status);
}

void run_dump(const char *title, const struct run *r)
{
	fprintf(stderr, "---- %s: code %d%s\n---- stdout:\n%s\n---- stderr:\n%s\n----\n", title,
		run_code(r), r->timed_out ? " (timed out)" : "", r->out, r->err);
}

int count_prefix(const char *s, const char *prefix)
{
	int n = 0;
	size_t pl = strlen(prefix);
	for (const char *p = s; p && *p;) {
		if (strncmp(p, prefix, pl) == 0)
			n++;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return n;
}

void run_show_difference(const char *nptl, const char *gmp)
{
	for (int line = 1; *nptl || *gmp; line++) {
		size_t a = strcspn(nptl, "\n"), b = strcspn(gmp, "\n");
		if (a != b || memcmp(nptl, gmp, a) != 0) {
			fprintf(stderr, "first difference, line %d:\n  NPTL:   %.*s\n  libgmp: %.*s\n",
				line, (int)a, nptl, (int)b, gmp);
			return;
		}
		nptl += a + (nptl[a] == '\n');
		gmp += b + (gmp[b] == '\n');
	}
}
