/* SPDX-License-Identifier: MIT */
/*
 * bench/startup.c — what loading libgmp adds to a program's start: runs
 * a command (default /bin/true) many times plainly and with LD_PRELOAD
 * of each library named, interleaved (one run of each in turn), and
 * prints the median and p99 of the wall time from spawn to exit, and the
 * median each library adds.
 *
 *   bench/startup [-n RUNS] LIB [LIB...] [-- command args...]
 *
 * Prints one RESULT line per variant (lib=plain first): the median and
 * p99 in µs, and the median the library adds to the plain one.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* environ with LD_PRELOAD=lib (none for lib NULL) */
static char **env_with(const char *lib)
{
	int n = 0;
	while (environ[n])
		n++;
	char **e = calloc(n + 2, sizeof *e);
	int k = 0;
	for (int i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			e[k++] = environ[i];
	if (lib && asprintf(&e[k++], "LD_PRELOAD=%s", lib) < 0)
		exit(2);
	return e;
}

static double run_once(char **argv, char **env)
{
	pid_t pid;
	int st;
	double t0 = now_us();
	if (posix_spawn(&pid, argv[0], NULL, NULL, argv, env) != 0) {
		perror(argv[0]);
		exit(2);
	}
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "startup: %s did not exit 0\n", argv[0]);
		exit(1);
	}
	return now_us() - t0;
}

int main(int argc, char **argv)
{
	int runs = 500, i = 1;
	if (i + 1 < argc && strcmp(argv[i], "-n") == 0) {
		runs = atoi(argv[i + 1]);
		i += 2;
	}
	const char *libs[8] = {NULL};	/* libs[0]: plain */
	int nv = 1;
	while (i < argc && strcmp(argv[i], "--") != 0 && nv < 8)
		libs[nv++] = argv[i++];
	char *def[] = {"/bin/true", NULL};
	char **cmd = i + 1 < argc ? argv + i + 1 : def;
	if (runs < 10 || nv < 2) {
		fprintf(stderr, "usage: startup [-n RUNS>=10] LIB [LIB...] [-- command args]\n");
		return 2;
	}
	double *t[8];
	char **env[8];
	for (int v = 0; v < nv; v++) {
		t[v] = calloc(runs, sizeof(double));
		env[v] = env_with(libs[v]);
		run_once(cmd, env[v]);	/* warm the page cache */
	}
	for (int r = 0; r < runs; r++)
		for (int k = 0; k < nv; k++) {
			int v = (r + k) % nv;	/* a different one first each round */
			t[v][r] = run_once(cmd, env[v]);
		}
	double base = 0;
	for (int v = 0; v < nv; v++) {
		qsort(t[v], runs, sizeof(double), cmp);
		double med = t[v][runs / 2], p99 = t[v][runs * 99 / 100];
		if (v == 0)
			base = med;
		printf("RESULT name=startup lib=%s median_us=%.0f p99_us=%.0f added_us=%.0f\n",
		       libs[v] ? libs[v] : "plain", med, p99, med - base);
	}
	return 0;
}
