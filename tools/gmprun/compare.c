/* SPDX-License-Identifier: MIT */
/*
 * tools/gmprun/compare.c — gmprun --compare: run a program under NPTL and under libgmp, several
 * times each and interleaved, and show what changes (see compare.h).
 *
 * Each run is a child in a process group of its own, its standard input
 * a file (--stdin) or /dev/null, its standard output read through a pipe
 * and digested (FNV-1a, 64 bits), its standard error kept in a temporary
 * file whose last lines are shown when the run fails. Every 10 ms the
 * group's processes are read in /proc (their threads and resident memory
 * added up, as the compat yard's monitor does); when the child ends, its
 * rusage (wait4) gives the CPU times, the peak RSS of the largest process
 * and the context switches of it and the children it waited for. The
 * libgmp runs also write the runtime's statistics (GMP_STATS): their peak
 * of live threads, and of OS threads, seen from inside. A run that
 * outlives --timeout is killed with its whole group.
 */
#include "tools/gmprun/compare.h"
#include "tools/procgroup.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_VARIANTS 17		/* NPTL and up to 16 processor counts */
#define MAX_REPS 1000

enum end { END_EXIT, END_SIGNAL, END_TIMEOUT, END_NOSTART };

struct run {
	int variant, rep;
	double wall, user, sys;
	long os_threads, live_threads, rss_kib, vcsw, ivcsw;
	enum end end;
	int code;			/* exit code, or signal */
	uint64_t digest;
	unsigned long long out_bytes;
	char err_tail[512];		/* the last lines of its stderr, when it failed */
};

struct variant {
	char name[32];
	bool gmp;
	int procs;			/* GMPMAXPROCS, 0: the environment's */
};

static struct variant variants[MAX_VARIANTS];
static int nvariants;

static void usage(FILE *f)
{
	fprintf(f, "usage: gmprun --compare [-n REPS] [--procs LIST] [--json FILE] [--svg FILE]\n"
		   "                        [--stdin FILE] [--timeout S] [--no-output-check]\n"
		   "                        [--] program [args...]\n"
		   "  -n REPS            runs per variant, interleaved (default 3, at most 1000)\n"
		   "  --procs LIST       libgmp once per GMPMAXPROCS in LIST (e.g. 1,2,4)\n"
		   "  --json FILE        every run's figures as JSON\n"
		   "  --svg FILE         a chart of the medians, one group per measure\n"
		   "  --stdin FILE       each run's standard input (default /dev/null)\n"
		   "  --timeout S        kill a run (and its process group) after S seconds\n"
		   "                     (default 600)\n"
		   "  --no-output-check  the program's output varies: do not compare it\n");
}

static double now_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_sec(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* A whole number in [lo, hi], or -1. */
static long parse_num(const char *s, long lo, long hi)
{
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	return v;
}

static bool parse_procs_list(const char *s)
{
	char buf[256];
	if (strlen(s) >= sizeof buf)
		return false;
	strcpy(buf, s);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		long p = parse_num(tok, 1, 1024);
		if (p < 0 || nvariants == MAX_VARIANTS)
			return false;
		struct variant *v = &variants[nvariants++];
		v->gmp = true;
		v->procs = (int)p;
		snprintf(v->name, sizeof v->name, "libgmp P=%ld", p);
	}
	return nvariants > 1;
}

/* ---- sampling the process group ---------------------------------------------- */

/* ---- one run ----------------------------------------------------------------------- */

struct opts {
	int reps;
	const char *json, *svg, *stdin_file;
	double timeout;
	bool check_output;
	char **argv;
	const char *lib;
};

static void tail_of(const char *path, char *out, size_t n)
{
	out[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char lines[3][160] = {{0}};
	char l[160];
	int k = 0;
	while (fgets(l, sizeof l, f)) {
		size_t len = strlen(l);
		if (len && l[len - 1] == '\n')
			l[len - 1] = '\0';
		else {
			int c;
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		}
		snprintf(lines[k % 3], sizeof lines[0], "%s", l);
		k++;
	}
	fclose(f);
	size_t w = 0;
	for (int i = k > 3 ? k - 3 : 0; i < k && w < n; i++)
		w += (size_t)snprintf(out + w, n - w, "%s%s", w ? " | " : "", lines[i % 3]);
}

/* The largest peak_threads and peak_os_threads in a GMP_STATS file (one
 * line per process of the run that ended through exit). */
static void read_rt_stats(const char *path, long *live, long *os)
{
	*live = -1;
	*os = -1;
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[4096];
	while (fgets(line, sizeof line, f)) {
		char *p = strstr(line, " peak_threads=");
		if (p && strtol(p + 14, NULL, 10) > *live)
			*live = strtol(p + 14, NULL, 10);
		p = strstr(line, " peak_os_threads=");
		if (p && strtol(p + 17, NULL, 10) > *os)
			*os = strtol(p + 17, NULL, 10);
	}
	fclose(f);
}

static void child(const struct opts *o, const struct variant *v, int out_w, const char *errpath,
		  const char *statspath)
{
	setpgid(0, 0);
	/* the dispositions gmprun changed for itself, as the program would
	 * have had them (an ignored one survives exec) */
	signal(SIGINT, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	int in = open(o->stdin_file ? o->stdin_file : "/dev/null", O_RDONLY);
	int err = open(errpath, O_WRONLY | O_TRUNC);
	if (in < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err, 2) < 0)
		_exit(127);
	close(in);
	close(err);
	close(out_w);
	unsetenv("GMP_STATS");
	if (v->gmp) {
		if (gmprun_preload(o->lib, v->procs) != 0)
			_exit(127);
		setenv("GMP_STATS", statspath, 1);
	}
	execvp(o->argv[0], o->argv);
	fprintf(stderr, "gmprun: cannot run %s: %s\n", o->argv[0], strerror(errno));
	_exit(127);
}

/* How a run ended, as its parent saw it. */
struct watch {
	int status;
	struct rusage ru;
	bool timed_out;
};

/* Read the run's output from fd (digested into r) and sample its process
 * group until it ended and its output did; kill the group when the run
 * ends (what is left of it) or outlives --timeout. */
static void watch_run(const struct opts *o, pid_t pid, int fd, double t0, struct run *r,
		      struct watch *w)
{
	bool eof = false, ended = false;
	double next_sample = 0;
	while (!ended || !eof) {
		if (!eof) {
			struct pollfd pf = {fd, POLLIN, 0};
			poll(&pf, 1, ended ? 100 : 10);
			unsigned char buf[65536];
			ssize_t n;
			while ((n = read(fd, buf, sizeof buf)) > 0) {
				for (ssize_t i = 0; i < n; i++)
					r->digest = (r->digest ^ buf[i]) * 0x100000001b3ull;
				r->out_bytes += (unsigned long long)n;
			}
			if (n == 0)
				eof = true;
		} else {
			usleep(10000);
		}
		double now = now_sec();
		if (!ended) {
			if (now >= next_sample) {
				long th, rss;
				procgroup_sample(pid, NULL, &th, &rss);
				if (th > r->os_threads)
					r->os_threads = th;
				if (rss > r->rss_kib)
					r->rss_kib = rss;
				/* every millisecond at first: short runs end early */
				next_sample = now + (now - t0 < 0.05 ? 0.001 : 0.01);
			}
			pid_t got = wait4(pid, &w->status, WNOHANG, &w->ru);
			if (got == pid) {
				ended = true;
				r->wall = now_sec() - t0;
				/* what is left of its group (a daemon it started, a
				 * child holding the pipe) goes with it */
				kill(-pid, SIGKILL);
			} else if (o->timeout > 0 && now - t0 > o->timeout && !w->timed_out) {
				w->timed_out = true;
				kill(-pid, SIGKILL);
			}
		} else if (!eof && now - t0 - r->wall > 5) {
			break;	/* something outside the group holds the pipe */
		}
	}
}

/* The run's end, CPU times, memory and threads from w (and the runtime's
 * own figures in statspath, for a libgmp run) into r. */
static void record_end(const struct variant *v, const struct watch *w, const char *statspath,
		       struct run *r)
{
	r->user = tv_sec(w->ru.ru_utime);
	r->sys = tv_sec(w->ru.ru_stime);
	if (w->ru.ru_maxrss > r->rss_kib)
		r->rss_kib = w->ru.ru_maxrss;
	r->vcsw = w->ru.ru_nvcsw;
	r->ivcsw = w->ru.ru_nivcsw;
	if (r->os_threads < 1)
		r->os_threads = 1;	/* it ended before the first sample */
	if (w->timed_out) {
		r->end = END_TIMEOUT;
		r->code = SIGKILL;
	} else if (WIFSIGNALED(w->status)) {
		r->end = END_SIGNAL;
		r->code = WTERMSIG(w->status);
	} else {
		r->end = END_EXIT;
		r->code = WEXITSTATUS(w->status);
	}
	if (v->gmp) {
		long live, os;
		read_rt_stats(statspath, &live, &os);
		r->live_threads = live;
		if (os > r->os_threads)
			r->os_threads = os;
	} else {
		r->live_threads = r->os_threads;
	}
}

static void run_once(const struct opts *o, int vi, int rep, struct run *r)
{
	const struct variant *v = &variants[vi];
	memset(r, 0, sizeof *r);
	r->variant = vi;
	r->rep = rep;
	r->live_threads = -1;
	r->digest = 0xcbf29ce484222325ull;
	char errpath[] = "/tmp/gmprun-err-XXXXXX", statspath[] = "/tmp/gmprun-stats-XXXXXX";
	int efd = mkstemp(errpath), sfd = mkstemp(statspath);
	if (efd >= 0)
		close(efd);
	if (sfd >= 0)
		close(sfd);
	int pfd[2];
	if (efd < 0 || sfd < 0 || pipe2(pfd, O_CLOEXEC) != 0) {
		r->end = END_NOSTART;
		snprintf(r->err_tail, sizeof r->err_tail, "cannot set up the run: %s", strerror(errno));
		goto out;
	}
	double t0 = now_sec();
	pid_t pid = fork();
	if (pid == 0)
		child(o, v, pfd[1], errpath, statspath);
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		r->end = END_NOSTART;
		snprintf(r->err_tail, sizeof r->err_tail, "fork: %s", strerror(errno));
		goto out;
	}
	setpgid(pid, pid);	/* as the child does: no race on who is first */
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	struct watch w = {0};
	watch_run(o, pid, pfd[0], t0, r, &w);
	close(pfd[0]);
	record_end(v, &w, statspath, r);
	if (r->end != END_EXIT || r->code != 0)
		tail_of(errpath, r->err_tail, sizeof r->err_tail);
out:
	if (efd >= 0)
		unlink(errpath);
	if (sfd >= 0)
		unlink(statspath);
}

/* ---- the report ------------------------------------------------------------------ */

static struct run *runs;
static int nruns;

enum measure { M_WALL, M_USER, M_SYS, M_OS, M_LIVE, M_RSS, M_VCSW, M_IVCSW, M_N };
static const struct {
	const char *label, *key, *fmt;
	double scale;
} measures[M_N] = {
	{"wall time, s", "wall_s", "%.3f", 1},
	{"user CPU, s", "user_s", "%.3f", 1},
	{"system CPU, s", "sys_s", "%.3f", 1},
	{"peak OS threads", "peak_os_threads", "%.0f", 1},
	{"peak live threads", "peak_live_threads", "%.0f", 1},
	{"peak RSS, MiB", "peak_rss_mib", "%.1f", 1.0 / 1024},
	{"voluntary switches", "voluntary_switches", "%.0f", 1},
	{"involuntary switches", "involuntary_switches", "%.0f", 1},
};

static double value(const struct run *r, int m)
{
	switch (m) {
	case M_WALL: return r->wall;
	case M_USER: return r->user;
	case M_SYS: return r->sys;
	case M_OS: return (double)r->os_threads;
	case M_LIVE: return (double)r->live_threads;
	case M_RSS: return (double)r->rss_kib * measures[M_RSS].scale;
	case M_VCSW: return (double)r->vcsw;
	default: return (double)r->ivcsw;
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median, min and max of measure m over variant v's runs that started
 * (a negative value: unknown); false when there are none. */
static bool stats_of(int v, int m, double *med, double *lo, double *hi)
{
	double a[MAX_REPS];
	int n = 0;
	for (int i = 0; i < nruns; i++)
		if (runs[i].variant == v && runs[i].end != END_NOSTART && value(&runs[i], m) >= 0)
			a[n++] = value(&runs[i], m);
	if (!n)
		return false;
	qsort(a, (size_t)n, sizeof a[0], cmp_dbl);
	*med = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
	*lo = a[0];
	*hi = a[n - 1];
	return true;
}

static void end_text(const struct run *r, char *buf, size_t n)
{
	switch (r->end) {
	case END_EXIT: snprintf(buf, n, "exit %d", r->code); break;
	case END_SIGNAL: snprintf(buf, n, "%s", strsignal(r->code)); break;
	case END_TIMEOUT: snprintf(buf, n, "timed out"); break;
	default: snprintf(buf, n, "did not start"); break;
	}
}

/* How variant v's runs ended, e.g. "exit 0 x3" or "exit 0 x2, Segmentation fault x1". */
static void ends_of(int v, char *buf, size_t n)
{
	char seen[8][48];
	int count[8], k = 0;
	for (int i = 0; i < nruns; i++) {
		if (runs[i].variant != v)
			continue;
		char t[48];
		end_text(&runs[i], t, sizeof t);
		int j;
		for (j = 0; j < k && strcmp(seen[j], t); j++)
			;
		if (j == k) {
			if (k == 8)
				continue;
			strcpy(seen[k], t);
			count[k++] = 0;
		}
		count[j]++;
	}
	size_t w = 0;
	buf[0] = '\0';
	for (int j = 0; j < k && w < n; j++)
		w += (size_t)snprintf(buf + w, n - w, "%s%s x%d", j ? ", " : "", seen[j], count[j]);
}

static const char *json_str(const char *s, char *buf, size_t n)
{
	size_t w = 0;
	for (; *s && w + 7 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			w += (size_t)snprintf(buf + w, n - w, "\\%c", c);
		else if (c < 0x20)
			w += (size_t)snprintf(buf + w, n - w, "\\u%04x", c);
		else
			buf[w++] = (char)c;
	}
	buf[w] = '\0';
	return buf;
}

static int write_json(const struct opts *o, const char *path, int same_output)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!f) {
		fprintf(stderr, "gmprun: %s: %s\n", path, strerror(errno));
		return -1;
	}
	char b[1024];
	fprintf(f, "{\n  \"program\": [");
	for (char **a = o->argv; *a; a++)
		fprintf(f, "%s\"%s\"", a == o->argv ? "" : ", ", json_str(*a, b, sizeof b));
	fprintf(f, "],\n  \"reps\": %d,\n  \"library\": \"%s\",\n  \"variants\": [", o->reps,
		json_str(o->lib, b, sizeof b));
	for (int v = 0; v < nvariants; v++)
		fprintf(f, "%s\n    {\"name\": \"%s\", \"library\": \"%s\", \"gmpmaxprocs\": %d}",
			v ? "," : "", variants[v].name, variants[v].gmp ? "libgmp" : "nptl",
			variants[v].procs);
	fprintf(f, "\n  ],\n  \"output_identical\": %s,\n  \"runs\": [",
		same_output < 0 ? "null" : same_output ? "true" : "false");
	for (int i = 0; i < nruns; i++) {
		const struct run *r = &runs[i];
		static const char *const ends[] = {"exit", "signal", "timeout", "nostart"};
		fprintf(f, "%s\n    {\"variant\": \"%s\", \"rep\": %d, \"end\": \"%s\", \"code\": %d, "
			   "\"wall_s\": %.6f, \"user_s\": %.6f, \"sys_s\": %.6f, "
			   "\"peak_os_threads\": %ld, \"peak_live_threads\": %ld, \"peak_rss_kib\": %ld, "
			   "\"voluntary_switches\": %ld, \"involuntary_switches\": %ld, "
			   "\"output_bytes\": %llu, \"output_digest\": \"%016llx\"",
			i ? "," : "", variants[r->variant].name, r->rep, ends[r->end], r->code, r->wall,
			r->user, r->sys, r->os_threads, r->live_threads, r->rss_kib, r->vcsw, r->ivcsw,
			r->out_bytes, (unsigned long long)r->digest);
		if (r->err_tail[0])
			fprintf(f, ", \"stderr_tail\": \"%s\"", json_str(r->err_tail, b, sizeof b));
		fprintf(f, "}");
	}
	fprintf(f, "\n  ]\n}\n");
	if (f != stdout && fclose(f) != 0) {
		fprintf(stderr, "gmprun: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* One small bar chart per measure: a bar per variant (its median), a
 * line from its minimum to its maximum. */
static int write_svg(const struct opts *o, const char *path)
{
	static const char *const colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
					     "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "gmprun: %s: %s\n", path, strerror(errno));
		return -1;
	}
	const int cols = 4, pw = 260, ph = 200, top = 60, legend = 24;
	int rows = (M_N + cols - 1) / cols;
	int width = cols * pw + 20, height = top + rows * ph + legend + 20;
	char b[512];
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "font-family=\"sans-serif\" font-size=\"12\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", width, height);
	size_t w = 0;
	for (char **a = o->argv; *a && w < 200; a++)
		w += (size_t)snprintf(b + w, sizeof b - w, "%s%s", a == o->argv ? "" : " ", *a);
	char esc[1024];
	size_t e = 0;
	for (const char *s = b; *s && e + 6 < sizeof esc; s++)
		e += (size_t)snprintf(esc + e, sizeof esc - e, "%s",
				      *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;" :
				      (char[2]){*s, 0});
	fprintf(f, "<text x=\"10\" y=\"24\" font-size=\"15\">gmprun --compare: %s</text>\n", esc);
	fprintf(f, "<text x=\"10\" y=\"44\">median of %d runs each (bars), minimum to maximum "
		   "(lines)</text>\n", o->reps);
	for (int m = 0; m < M_N; m++) {
		int x0 = 10 + (m % cols) * pw, y0 = top + (m / cols) * ph;
		int bx = x0 + 40, by = y0 + 24, bw = pw - 60, bh = ph - 60;
		double max = 0, med, lo, hi;
		for (int v = 0; v < nvariants; v++)
			if (stats_of(v, m, &med, &lo, &hi) && hi > max)
				max = hi;
		max = max > 0 ? max * 1.15 : 1;	/* room for the figures */
		fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>\n", x0 + 4,
			y0 + 14, measures[m].label);
		fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", bx,
			by + bh, bx + bw, by + bh);
		int slot = bw / (nvariants ? nvariants : 1);
		for (int v = 0; v < nvariants; v++) {
			if (!stats_of(v, m, &med, &lo, &hi))
				continue;
			int x = bx + v * slot + slot / 6, barw = slot * 2 / 3;
			int h = (int)(med / max * bh), ylo = by + bh - (int)(lo / max * bh),
			    yhi = by + bh - (int)(hi / max * bh);
			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", x,
				by + bh - h, barw, h, colors[v % 8]);
			fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
				x + barw / 2, ylo, x + barw / 2, yhi);
			char num[32];
			snprintf(num, sizeof num, measures[m].fmt, med);
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">%s"
				   "</text>\n", x + barw / 2, by + bh - h - 4 < by + 10 ? by + 10 :
				   by + bh - h - 4, num);
		}
	}
	int ly = top + rows * ph + 10;
	for (int v = 0; v < nvariants; v++) {
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"%d\">%s</text>\n", 10 + v * 150, ly, colors[v % 8],
			26 + v * 150, ly + 11, variants[v].name);
	}
	fprintf(f, "</svg>\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "gmprun: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void print_report(const struct opts *o, int same_output)
{
	printf("gmprun --compare:");
	for (char **a = o->argv; *a; a++)
		printf(" %s", *a);
	printf("\n%d run%s of each, interleaved; median (min-max)\n\n", o->reps,
	       o->reps == 1 ? "" : "s");
	const int cw = 24;
	printf("%-22s", "");
	for (int v = 0; v < nvariants; v++)
		printf("%-*s", cw, variants[v].name);
	printf("\n");
	for (int m = 0; m < M_N; m++) {
		printf("%-22s", measures[m].label);
		for (int v = 0; v < nvariants; v++) {
			double med, lo, hi;
			char cell[96], a[24], b2[24], c[24];
			if (!stats_of(v, m, &med, &lo, &hi)) {
				snprintf(cell, sizeof cell, "-");
			} else {
				snprintf(a, sizeof a, measures[m].fmt, med);
				snprintf(b2, sizeof b2, measures[m].fmt, lo);
				snprintf(c, sizeof c, measures[m].fmt, hi);
				if (lo == hi)
					snprintf(cell, sizeof cell, "%s", a);
				else
					snprintf(cell, sizeof cell, "%s (%s-%s)", a, b2, c);
			}
			printf("%-*s", cw, cell);
		}
		printf("\n");
	}
	printf("%-22s", "exit status");
	for (int v = 0; v < nvariants; v++) {
		char e[128];
		ends_of(v, e, sizeof e);
		printf("%-*s", cw, e);
	}
	printf("\n");
	if (same_output < 0)
		printf("output                not compared (--no-output-check)\n");
	else if (same_output)
		printf("output                identical in all %d runs (%llu bytes, digest %016llx)\n",
		       nruns, runs[0].out_bytes, (unsigned long long)runs[0].digest);
	else {
		printf("output                DIFFERS between runs:\n");
		for (int i = 0; i < nruns; i++)
			printf("  %-20s run %-3d %10llu bytes, digest %016llx\n",
			       variants[runs[i].variant].name, runs[i].rep, runs[i].out_bytes,
			       (unsigned long long)runs[i].digest);
	}
	for (int i = 0; i < nruns; i++)
		if (runs[i].err_tail[0]) {
			char e[48];
			end_text(&runs[i], e, sizeof e);
			printf("%s run %d (%s), last lines of its stderr: %s\n",
			       variants[runs[i].variant].name, runs[i].rep, e, runs[i].err_tail);
		}
}

/* --compare's options into *o (the program's argv included) and the
 * variants to run. Returns -1 to go on, else gmprun's exit status. */
static int parse_options(int argc, char **argv, struct opts *o)
{
	bool procs_given = false;
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		bool has = i + 1 < argc;
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--compare") == 0) {
			continue;
		} else if (strcmp(a, "-n") == 0) {
			long n = has ? parse_num(argv[i + 1], 1, MAX_REPS) : -1;
			if (n < 0) {
				fprintf(stderr, "gmprun: -n wants a run count from 1 to %d\n", MAX_REPS);
				return 2;
			}
			o->reps = (int)n;
			i++;
		} else if (strcmp(a, "--procs") == 0) {
			if (!has || procs_given || !parse_procs_list(argv[i + 1])) {
				fprintf(stderr, "gmprun: --procs wants a list of processor counts from 1 "
						"to 1024, such as 1,2,4 (at most 16)\n");
				return 2;
			}
			procs_given = true;
			i++;
		} else if (strcmp(a, "--json") == 0 || strcmp(a, "--svg") == 0 ||
			   strcmp(a, "--stdin") == 0) {
			if (!has || !*argv[i + 1]) {
				fprintf(stderr, "gmprun: %s wants a file name\n", a);
				return 2;
			}
			if (a[2] == 'j')
				o->json = argv[i + 1];
			else if (a[3] == 'v')
				o->svg = argv[i + 1];
			else
				o->stdin_file = argv[i + 1];
			i++;
		} else if (strcmp(a, "--timeout") == 0) {
			char *end = NULL;
			double t = has ? strtod(argv[i + 1], &end) : -1;
			if (!has || end == argv[i + 1] || *end || !(t > 0) || t > 1e6) {
				fprintf(stderr, "gmprun: --timeout wants seconds, more than 0\n");
				return 2;
			}
			o->timeout = t;
			i++;
		} else if (strcmp(a, "--no-output-check") == 0) {
			o->check_output = false;
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-') {
			fprintf(stderr, "gmprun: unknown option %s for --compare\n", a);
			usage(stderr);
			return 2;
		} else {
			break;
		}
	}
	if (i >= argc) {
		fprintf(stderr, "gmprun: --compare wants a program to run\n");
		usage(stderr);
		return 2;
	}
	o->argv = argv + i;
	if (!procs_given) {
		variants[1] = (struct variant){.name = "libgmp", .gmp = true};
		nvariants = 2;
	}
	return -1;
}

/* gmprun's exit status once every run is done, the report printed and
 * the files asked for written (see compare.h). */
static int report(const struct opts *o)
{
	int same_output = -1;
	if (o->check_output) {
		same_output = 1;
		for (int k = 1; k < nruns; k++)
			if (runs[k].digest != runs[0].digest || runs[k].out_bytes != runs[0].out_bytes)
				same_output = 0;
	}
	bool same_end = true;
	for (int k = 1; k < nruns; k++)
		if (runs[k].end != runs[0].end || runs[k].code != runs[0].code)
			same_end = false;
	if (runs[0].end == END_NOSTART || runs[0].end == END_TIMEOUT)
		same_end = false;
	print_report(o, same_output);
	int rc = same_end && same_output != 0 ? 0 : 1;
	/* the program was not found or not executable, in every run */
	bool nostart = true;
	for (int k = 0; k < nruns; k++)
		if (runs[k].end != END_NOSTART &&
		    !(runs[k].end == END_EXIT && runs[k].code == 127 &&
		      strncmp(runs[k].err_tail, "gmprun: cannot run", 18) == 0))
			nostart = false;
	if (nostart)
		rc = 127;
	if (o->json && write_json(o, o->json, same_output) != 0)
		rc = 127;
	if (o->svg && write_svg(o, o->svg) != 0)
		rc = 127;
	return rc;
}

int gmprun_compare(int argc, char **argv, const char *lib)
{
	struct opts o = {.reps = 3, .timeout = 600, .check_output = true, .lib = lib};
	variants[0] = (struct variant){.name = "NPTL"};
	nvariants = 1;
	int rc = parse_options(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.stdin_file && access(o.stdin_file, R_OK) != 0) {
		fprintf(stderr, "gmprun: --stdin %s: %s\n", o.stdin_file, strerror(errno));
		return 2;
	}
	runs = calloc((size_t)(nvariants * o.reps), sizeof *runs);
	if (!runs) {
		fprintf(stderr, "gmprun: out of memory\n");
		return 127;
	}
	/* the program gets the terminal's signals; we wait for it */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	for (int rep = 1; rep <= o.reps; rep++)
		for (int k = 0; k < nvariants; k++) {
			/* odd repetitions NPTL first, even ones last */
			int v = rep % 2 ? k : nvariants - 1 - k;
			fprintf(stderr, "gmprun: %s, run %d of %d\n", variants[v].name, rep, o.reps);
			run_once(&o, v, rep, &runs[nruns]);
			nruns++;
		}
	rc = report(&o);
	free(runs);
	return rc;
}
