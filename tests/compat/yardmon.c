/* SPDX-License-Identifier: MIT */
/*
 * tests/compat/yardmon.c — run one command of the compatibility yard and
 * measure it.
 *
 *   yardmon [-t SECONDS] [-c NAME,NAME...] -o STATFILE -- command [args...]
 *
 * The command runs in a process group of its own. Every 10 ms yardmon
 * reads /proc/PID/stat of every process in that group and adds up their
 * threads and resident memory (tools/procgroup.h, as gmprun --compare
 * does); with -c only processes whose name (comm)
 * begins with a name of the list count (stress-ng-pthread counts as
 * stress-ng), so that the shell and the checksum tools around
 * the program under test do not. After the command ends it writes
 *
 *   wall=SECONDS threads=PEAK rss_kb=PEAK status=CODE
 *
 * to STATFILE, where PEAK threads and memory are the largest sums seen,
 * and CODE is the exit code, 128+N for a signal N, or 124 when the
 * command outlived -t (default 300 s): then the whole group is killed.
 * Processes of the group still alive when the command ends are killed
 * too. yardmon exits with CODE.
 */
#define _GNU_SOURCE
#include "tools/procgroup.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *names;	/* -c: comma-separated comm names, or NULL */

static bool counted(const char *comm)
{
	if (!names)
		return 1;
	for (const char *p = names; *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len > 15)
			len = 15;	/* comm is cut at 15 characters */
		if (strncmp(p, comm, len) == 0)
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: yardmon [-t SECONDS] [-c NAME,...] -o STATFILE -- command [args...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	double limit = 300;
	const char *out = NULL;
	int opt;
	while ((opt = getopt(argc, argv, "+t:c:o:")) != -1) {
		switch (opt) {
		case 't':
			limit = atof(optarg);
			break;
		case 'c':
			names = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	if (!out || optind >= argc || limit <= 0)
		usage();

	double t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("yardmon: fork");
		return 2;
	}
	if (pid == 0) {
		setpgid(0, 0);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "yardmon: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);

	long peak_threads = 0, peak_rss = 0;
	int status = 0, code;
	struct rusage ru;
	for (;;) {
		pid_t r = wait4(pid, &status, WNOHANG, &ru);
		if (r == pid)
			break;
		if (now() - t0 > limit) {
			kill(-pid, SIGKILL);
			wait4(pid, &status, 0, &ru);
			status = -1;
			break;
		}
		long th, rss;
		procgroup_sample(pid, counted, &th, &rss);
		if (th > peak_threads)
			peak_threads = th;
		if (rss > peak_rss)
			peak_rss = rss;
		struct timespec ts = {0, 10000000};
		nanosleep(&ts, NULL);
	}
	double wall = now() - t0;
	kill(-pid, SIGKILL);	/* whatever the command left behind */
	if (status == -1)
		code = 124;
	else if (WIFEXITED(status))
		code = WEXITSTATUS(status);
	else
		code = 128 + WTERMSIG(status);
	/* the largest single process, in case it peaked between samples */
	if (!names && ru.ru_maxrss > peak_rss)
		peak_rss = ru.ru_maxrss;

	FILE *f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 2;
	}
	fprintf(f, "wall=%.2f threads=%ld rss_kb=%ld status=%d\n", wall, peak_threads, peak_rss,
		code);
	fclose(f);
	return code;
}
