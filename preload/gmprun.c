/*
 * gmprun — run a program with every thread on libgmp.
 *
 *   gmprun [-p N] [--stats[=json]] [--] program [args...]
 *
 * Sets LD_PRELOAD (libgmp first) for the program only, GMPMAXPROCS with
 * -p, and with --stats prints what the runtime did once the program ends.
 * The exit status is the program's (128+N when a signal N ended it).
 */
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

static void usage(FILE *f)
{
	fprintf(f, "usage: gmprun [-p N] [--stats[=json]] [--] program [args...]\n"
		   "  -p N            run on N processors (sets GMPMAXPROCS=N)\n"
		   "  --stats         print thread and scheduling statistics at exit\n"
		   "  --stats=json    the same as one JSON object\n"
		   "environment: GMP_LIBRARY=path overrides the library location\n");
}

static int exists(const char *p)
{
	return access(p, R_OK) == 0;
}

/* libgmp.so: $GMP_LIBRARY, next to this binary in a build tree, or the
 * installed one. */
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
		}
	}
	snprintf(buf, sizeof buf, "%s/libgmp.so", GMP_PKGLIBDIR);
	return buf;
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

struct stats {
	unsigned long long created, switches, steals, syscalls, retakes;
	unsigned long long blocked, npwakes, sysmon_polls, sysmon_timers, preempts;
	long long peak;
	int os_threads, procs;
};

/* The line the program's own process wrote (children may add theirs). */
static int read_stats(const char *path, pid_t pid, struct stats *st)
{
	FILE *f = fopen(path, "r");
	char line[512];
	int found = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		int p;
		if (sscanf(line, "pid=%d threads_created=%llu peak_threads=%lld peak_os_threads=%d "
				 "context_switches=%llu steals=%llu gomaxprocs=%d syscalls=%llu retakes=%llu "
				 "blocked=%llu netpoll_wakeups=%llu sysmon_polls=%llu sysmon_timers=%llu "
				 "preemptions=%llu",
			   &p, &st->created, &st->peak, &st->os_threads, &st->switches, &st->steals,
			   &st->procs, &st->syscalls, &st->retakes, &st->blocked, &st->npwakes,
			   &st->sysmon_polls, &st->sysmon_timers, &st->preempts) == 14 &&
		    p == pid)
			found = 1;
	}
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	int i = 1, procs = 0, stats = 0;

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

	const char *lib = find_library();
	if (!exists(lib)) {
		fprintf(stderr, "gmprun: %s not found (set GMP_LIBRARY)\n", lib);
		return 127;
	}
	const char *old = getenv("LD_PRELOAD");
	char *pre;
	if (old && *old) {
		if (asprintf(&pre, "%s:%s", lib, old) < 0)
			return 127;
	} else {
		pre = strdup(lib);
	}
	setenv("LD_PRELOAD", pre, 1);
	if (procs) {
		char n[16];
		snprintf(n, sizeof n, "%d", procs);
		setenv("GMPMAXPROCS", n, 1);
	}
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
	else if (stats == 2)
		fprintf(stderr,
			"{\"threads_created\": %llu, \"peak_threads\": %lld, \"peak_os_threads\": %d, "
			"\"context_switches\": %llu, \"steals\": %llu, \"gomaxprocs\": %d, "
			"\"syscalls\": %llu, \"retakes\": %llu, \"blocked\": %llu, "
			"\"netpoll_wakeups\": %llu, \"sysmon_polls\": %llu, \"sysmon_timers\": %llu, "
			"\"preemptions\": %llu}\n",
			st.created, st.peak, st.os_threads, st.switches, st.steals, st.procs,
			st.syscalls, st.retakes, st.blocked, st.npwakes, st.sysmon_polls,
			st.sysmon_timers, st.preempts);
	else
		fprintf(stderr,
			"gmprun: threads created:    %llu\n"
			"gmprun: peak live threads:  %lld\n"
			"gmprun: peak OS threads:    %d\n"
			"gmprun: context switches:   %llu\n"
			"gmprun: steals:             %llu\n"
			"gmprun: processors:         %d\n"
			"gmprun: blocking syscalls:  %llu\n"
			"gmprun: Ps retaken:         %llu\n"
			"gmprun: Ms found blocked:   %llu\n"
			"gmprun: netpoll wake-ups:   %llu\n"
			"gmprun: sysmon net polls:   %llu\n"
			"gmprun: sysmon timer kicks: %llu\n"
			"gmprun: preemptions:        %llu\n",
			st.created, st.peak, st.os_threads, st.switches, st.steals, st.procs,
			st.syscalls, st.retakes, st.blocked, st.npwakes, st.sysmon_polls,
			st.sysmon_timers, st.preempts);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
