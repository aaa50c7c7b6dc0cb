/* SPDX-License-Identifier: MIT */
/*
 * tests/harness.c — see harness.h.
 */

#include "tests/harness.h"

#include <criterion/criterion.h>

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

static void buf_add(char **p, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*p = realloc(*p, *cap);
	}
	memcpy(*p + *len, s, n);
	*len += n;
	(*p)[*len] = '\0';
}

double harness_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void bg_start(struct bg *b, const char *const argv[], const char *const env[], bool preload)
{
	int po[2], pe[2];
	char lib[4096];

	memset(b, 0, sizeof *b);
	buf_add(&b->r.out, &b->len[0], &b->cap[0], "", 0);
	buf_add(&b->r.err, &b->len[1], &b->cap[1], "", 0);
	snprintf(lib, sizeof lib, "%s/.libs/libgmp.so", TEST_BUILDDIR);
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		abort();
	b->pid = fork();
	if (b->pid < 0)
		abort();
	if (b->pid == 0) {
		/* the program starts as from a shell: no signal blocked or
		 * ignored because the test runner's thread had it so */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int sig = 1; sig < NSIG; sig++)
			if (sig != SIGKILL && sig != SIGSTOP)
				signal(sig, SIG_DFL);
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
	b->fd[0] = po[0];
	b->fd[1] = pe[0];
}

bool bg_pump(struct bg *b, const char *needle, double deadline)
{
	for (;;) {
		if (needle && strstr(b->r.out, needle))
			return true;
		if (b->fd[0] < 0 && b->fd[1] < 0)
			return needle == NULL;
		int left = (int)((deadline - harness_now()) * 1000);
		if (left <= 0)
			return false;
		struct pollfd fds[2] = {{b->fd[0], POLLIN, 0}, {b->fd[1], POLLIN, 0}};
		int n = poll(fds, 2, left);
		if (n < 0 && errno == EINTR)
			continue;
		for (int i = 0; i < 2; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char tmp[65536];
			ssize_t k = read(fds[i].fd, tmp, sizeof tmp);
			if (k <= 0) {
				close(b->fd[i]);
				b->fd[i] = -1;
			} else {
				buf_add(i ? &b->r.err : &b->r.out, &b->len[i], &b->cap[i], tmp,
					(size_t)k);
			}
		}
	}
}

void bg_kill(struct bg *b)
{
	if (b->done)
		return;
	kill(-b->pid, SIGKILL);
	kill(b->pid, SIGKILL);
}

struct run bg_finish(struct bg *b, double deadline)
{
	if (!bg_pump(b, NULL, deadline)) {
		b->r.timed_out = true;
		bg_kill(b);
	}
	for (;;) {
		pid_t r = waitpid(b->pid, &b->r.status, b->r.timed_out ? 0 : WNOHANG);
		if (r == b->pid)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			abort();
		if (harness_now() >= deadline) {
			b->r.timed_out = true;
			bg_kill(b);
		} else {
			usleep(10000);
		}
	}
	/* the program's own children, if any are left, end with it */
	kill(-b->pid, SIGKILL);
	b->done = true;
	for (int i = 0; i < 2; i++)
		if (b->fd[i] >= 0)
			close(b->fd[i]);
	return b->r;
}

struct run run_sub(const char *prog, const char *sub, int procs, const char *extra,
		   int timeout_s)
{
	char path[4096], env1[32];
	snprintf(path, sizeof path, "%s", prog_path(prog));
	snprintf(env1, sizeof env1, "GMPMAXPROCS=%d", procs);
	const char *argv[] = {path, sub, NULL};
	const char *env[3] = {NULL, NULL, NULL};
	int k = 0;
	if (procs > 0)
		env[k++] = env1;
	if (extra)
		env[k++] = extra;
	return run_prog(argv, env, timeout_s, procs >= 0);
}

static bool ends_with_pass(const char *out, const char *sub)
{
	char pass[128];
	snprintf(pass, sizeof pass, "PASS %s\n", sub);
	size_t ol = strlen(out), pl = strlen(pass);
	return ol >= pl && strcmp(out + ol - pl, pass) == 0;
}

void sub_same_as_nptl(const char *prog, const char *sub, int timeout_s)
{
	struct run nptl = run_sub(prog, sub, -1, NULL, timeout_s);
	bool ok = run_code(&nptl) == 0 && ends_with_pass(nptl.out, sub);
	if (!ok)
		run_dump("under NPTL", &nptl);
	cr_assert(ok, "%s %s under NPTL: code %d", prog, sub, run_code(&nptl));
	const int procs[] = {0, 1};
	for (int k = 0; k < 2; k++) {
		struct run gmp = run_sub(prog, sub, procs[k], NULL, timeout_s);
		const char *how = procs[k] ? "under libgmp, GMPMAXPROCS=1" : "under libgmp";
		bool same = strcmp(nptl.out, gmp.out) == 0;
		if (!same || run_code(&gmp) != 0) {
			run_dump(how, &gmp);
			run_show_difference(nptl.out, gmp.out);
		}
		cr_assert_eq(run_code(&gmp), 0, "%s %s %s: exit code %d%s", prog, sub, how,
			     run_code(&gmp), gmp.timed_out ? " (timed out)" : "");
		cr_assert(same, "%s %s: output %s differs from NPTL's", prog, sub, how);
		run_free(&gmp);
	}
	run_free(&nptl);
}

struct run run_prog(const char *const argv[], const char *const env[], int timeout_s,
		    bool preload)
{
	struct bg b;
	bg_start(&b, argv, env, preload);
	return bg_finish(&b, harness_now() + timeout_s);
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
