/* SPDX-License-Identifier: MIT */
/*
 * tools/gmprun/main.c — gmprun: run a program with every thread on libgmp.
 * A program of its own, never loaded into the program it runs.
 *
 *   gmprun [-p N] [--stats[=json]] [--] program [args...]
 *   gmprun --compare [-n REPS] [--procs LIST] [--json FILE] [--svg FILE]
 *                    [--stdin FILE] [--timeout S] [--no-output-check]
 *                    [--] program [args...]
 *
 * Sets LD_PRELOAD (libgmp first) for the program only, GMPMAXPROCS with
 * -p, and with --stats prints what the runtime did once the program ends.
 * The exit status is the program's (128+N when a signal N ended it).
 */
#include "tools/gmprun/compare.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef GMP_PKGLIBDIR
#define GMP_PKGLIBDIR "/usr/local/lib/gmpsched"
#endif
#ifndef GMP_BINDIR
#define GMP_BINDIR "/usr/local/bin"
#endif

static void usage(FILE *f)
{
	fprintf(f, "usage: gmprun [-p N] [--stats[=json]] [--] program [args...]\n"
		   "       gmprun --compare [options] [--] program [args...]"
		   " (gmprun --compare --help)\n"
		   "  -p N            run on N processors (sets GMPMAXPROCS=N)\n"
		   "  --stats         print thread and scheduling statistics at exit\n"
		   "  --stats=json    the same as one JSON object\n"
		   "environment: GMP_LIBRARY=path overrides the library location\n");
}

static int exists(const char *p)
{
	return access(p, R_OK) == 0;
}

/* libgmp.so: $GMP_LIBRARY, next to this binary in a build tree, the one
 * installed with it (found from this binary's place, so that an installed
 * tree moved elsewhere, such as a package unpacked with dpkg -x, still
 * finds its own), or the installed one. */
static const char *find_library(void)
{
	static char buf[PATH_MAX];
	const char *env = getenv("GMP_LIBRARY");
	if (env && *env)
		return env;
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 32);
	if (n > 0) {
		buf[n] = '\0';
		char *slash = strrchr(buf, '/');
		if (slash) {
			strcpy(slash + 1, ".libs/libgmp.so");
			if (exists(buf))
				return buf;
			/* .../usr/bin/gmprun: the root it was installed under */
			*slash = '\0';
			size_t len = strlen(buf), blen = strlen(GMP_BINDIR);
			if (len >= blen && strcmp(buf + len - blen, GMP_BINDIR) == 0 &&
			    len - blen + strlen(GMP_PKGLIBDIR) + 16 < sizeof buf) {
				strcpy(buf + len - blen, GMP_PKGLIBDIR "/libgmp.so");
				if (exists(buf))
					return buf;
			}
		}
	}
	snprintf(buf, sizeof buf, "%s/libgmp.so", GMP_PKGLIBDIR);
	return buf;
}

/* libgmp.so's path, or NULL (said on stderr) when it is not there. */
static const char *usable_library(void)
{
	const char *lib = find_library();
	if (exists(lib))
		return lib;
	fprintf(stderr, "gmprun: %s not found (set GMP_LIBRARY)\n", lib);
	return NULL;
}

int gmprun_preload(const char *lib, int procs)
{
	const char *old = getenv("LD_PRELOAD");
	char *pre;
	if (old && *old) {
		if (asprintf(&pre, "%s:%s", lib, old) < 0)
			return -1;
	} else if (!(pre = strdup(lib))) {
		return -1;
	}
	setenv("LD_PRELOAD", pre, 1);
	free(pre);
	if (procs) {
		char n[16];
		snprintf(n, sizeof n, "%d", procs);
		setenv("GMPMAXPROCS", n, 1);
	}
	return 0;
}

static int parse_procs(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > 1024)
		return -1;
	return (int)v;
}

/* The statistics line the program's own process wrote (children may add
 * theirs): its key=value pairs, in order. */
#define MAX_KEYS 64
struct stats {
	int n;
	char key[MAX_KEYS][32];
	unsigned long long val[MAX_KEYS];
};

static int read_stats(const char *path, pid_t pid, struct stats *st)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	int found = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		int p;
		if (sscanf(line, "pid=%d ", &p) != 1 || p != pid)
			continue;
		st->n = 0;
		for (char *tok = strtok(line, " \n"); tok && st->n < MAX_KEYS; tok = strtok(NULL, " \n")) {
			char *eq = strchr(tok, '=');
			if (!eq || eq - tok >= 32 || strncmp(tok, "pid=", 4) == 0)
				continue;
			memcpy(st->key[st->n], tok, (size_t)(eq - tok));
			st->key[st->n][eq - tok] = '\0';
			st->val[st->n] = strtoull(eq + 1, NULL, 10);
			st->n++;
		}
		found = 1;
	}
	fclose(f);
	return found;
}

static unsigned long long stat_of(const struct stats *st, const char *key)
{
	for (int i = 0; i < st->n; i++)
		if (strcmp(st->key[i], key) == 0)
			return st->val[i];
	return 0;
}

/* The text report: one labelled line per counter, then the waits by
 * reason (those that happened). */
static const struct {
	const char *key, *label;
} labels[] = {
	{"threads_created", "threads created"},
	{"peak_threads", "peak live threads"},
	{"peak_os_threads", "peak OS threads"},
	{"context_switches", "context switches"},
	{"steals", "steals"},
	{"gomaxprocs", "processors"},
	{"syscalls", "blocking syscalls"},
	{"handoffs", "hand-offs"},
	{"spin_handoffs", "handed to spinners"},
	{"procs_parked", "processors parked"},
	{"retakes", "Ps retaken"},
	{"blocked", "Ms found blocked"},
	{"preemptions", "preemptions"},
	{"door_preemptions", "preempted at doors"},
	{"netpoll_wakeups", "netpoll wake-ups"},
	{"sysmon_polls", "sysmon net polls"},
	{"sysmon_timers", "sysmon timer kicks"},
};

/* libgmp's own kernel work, in total and per context switch. */
static const struct {
	const char *key, *label;
} costs[] = {
	{"tp_writes", "thread-ptr writes"},
	{"futex_waits", "futex sleeps"},
	{"futex_wakes", "futex wake-ups"},
	{"epoll_waits", "epoll_wait calls"},
	{"eventfd_writes", "eventfd writes"},
	{"signals_sent", "signals sent"},
	{"sigmask_changes", "sigmask changes"},
};

static void print_text(const struct stats *st)
{
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
		char l[32];
		snprintf(l, sizeof l, "%s:", labels[i].label);
		fprintf(stderr, "gmprun: %-20s%llu\n", l, stat_of(st, labels[i].key));
	}
	unsigned long long sw = stat_of(st, "context_switches");
	for (size_t i = 0; i < sizeof costs / sizeof costs[0]; i++) {
		char l[32];
		unsigned long long v = stat_of(st, costs[i].key);
		snprintf(l, sizeof l, "%s:", costs[i].label);
		fprintf(stderr, "gmprun: %-20s%llu (%.3f per switch)", l, v,
			sw ? (double)v / (double)sw : 0.0);
		if (i == 0 && stat_of(st, "tp_wrfsbase"))
			fprintf(stderr, ", with WRFSBASE");
		else if (i == 0)
			fprintf(stderr, ", with arch_prctl (%llu ns each)",
				stat_of(st, "tp_write_ns"));
		fprintf(stderr, "\n");
	}
	fprintf(stderr, "gmprun: %-20s", "waits:");
	int any = 0;
	for (int i = 0; i < st->n; i++) {
		if (strncmp(st->key[i], "wait_", 5) != 0 || !st->val[i])
			continue;
		fprintf(stderr, "%s%s %llu", any ? ", " : "", st->key[i] + 5, st->val[i]);
		any = 1;
	}
	fprintf(stderr, "%s\n", any ? "" : "none");
}

/* One JSON object: the counters in the line's order, the waits as an
 * object of their own. */
static void print_json(const struct stats *st)
{
	int first = 1;
	fprintf(stderr, "{");
	for (int i = 0; i < st->n; i++) {
		if (strncmp(st->key[i], "wait_", 5) == 0)
			continue;
		fprintf(stderr, "%s\"%s\": %llu", first ? "" : ", ", st->key[i], st->val[i]);
		first = 0;
	}
	fprintf(stderr, "%s\"waits\": {", first ? "" : ", ");
	first = 1;
	for (int i = 0; i < st->n; i++) {
		if (strncmp(st->key[i], "wait_", 5) != 0)
			continue;
		fprintf(stderr, "%s\"%s\": %llu", first ? "" : ", ", st->key[i] + 5, st->val[i]);
		first = 0;
	}
	fprintf(stderr, "}}\n");
}

int main(int argc, char **argv)
{
	int i = 1, procs = 0, stats = 0;

	if (argc > 1 && strcmp(argv[1], "--compare") == 0) {
		const char *lib = usable_library();
		return lib ? gmprun_compare(argc, argv, lib) : 127;
	}

	for (; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "-p") == 0) {
			if (i + 1 >= argc || (procs = parse_procs(argv[i + 1])) < 0) {
				fprintf(stderr, "gmprun: -p wants a processor count from 1 to 1024\n");
				return 2;
			}
			i++;
		} else if (strcmp(argv[i], "--stats") == 0) {
			stats = 1;
		} else if (strcmp(argv[i], "--stats=json") == 0) {
			stats = 2;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return 0;
		} else if (argv[i][0] == '-') {
			fprintf(stderr, "gmprun: unknown option %s\n", argv[i]);
			usage(stderr);
			return 2;
		} else {
			break;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}

	const char *lib = usable_library();
	if (!lib || gmprun_preload(lib, procs) != 0)
		return 127;
	if (!stats) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "gmprun: cannot run %s: %s\n", argv[i], strerror(errno));
		return 127;
	}

	char path[] = "/tmp/gmprun-stats-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0) {
		perror("gmprun: mkstemp");
		return 127;
	}
	close(fd);
	setenv("GMP_STATS", path, 1);
	pid_t pid = fork();
	if (pid < 0) {
		perror("gmprun: fork");
		unlink(path);
		return 127;
	}
	if (pid == 0) {
		execvp(argv[i], argv + i);
		fprintf(stderr, "gmprun: cannot run %s: %s\n", argv[i], strerror(errno));
		_exit(127);
	}
	/* the program gets the terminal's signals; we wait for it */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	struct stats st;
	int ok = read_stats(path, pid, &st);
	unlink(path);
	if (!ok)
		fprintf(stderr, "gmprun: no statistics (the program did not end through exit)\n");
	else if (stat_of(&st, "passthrough"))
		fprintf(stderr, "gmprun: no statistics: libgmp passed every call through to "
				"glibc (its warning above says why)\n");
	else if (stats == 2)
		print_json(&st);
	else
		print_text(&st);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
