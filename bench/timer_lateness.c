/* SPDX-License-Identifier: MIT */
/*
 * bench/timer_lateness.c — how late a sleeping thread wakes up while
 * other threads keep every processor busy without ever waiting. N
 * threads (default 4) loop on one call; the main thread sleeps 1 ms at a
 * time (nanosleep) for S seconds (default 2) and records, for each
 * sleep, how much later than 1 ms it returned. Reports the median, 99th
 * percentile and largest lateness in milliseconds, and the loopers'
 * calls per second.
 *
 *   timer_lateness MODE [N [S]]
 *
 *   read   each looper read()s a 1 MiB file in the page cache, 4 KiB at a
 *          time, from its start again at its end: a fast system call
 *          that never blocks
 *   kill   each looper sends the process SIGUSR1 (kill(getpid())), whose
 *          handler counts; the main thread blocks SIGUSR1, so only the
 *          loopers take it
 *
 * Under libgmp a looper never parks: only preemption, at the doors of
 * the calls it makes, gives the processor back, and the sleeper's timer
 * must be fired within a short slice all the same.
 */
#include "bench.h"

#include <fcntl.h>
#include <signal.h>

#define SLEEP_NS 1000000

static atomic_int stop;
static atomic_long calls;
static atomic_long handled;
static int file_fd = -1;
static int use_kill;

static void on_usr1(int sig)
{
	(void)sig;
	atomic_fetch_add_explicit(&handled, 1, memory_order_relaxed);
}

static void *loop(void *arg)
{
	(void)arg;
	char buf[4096];
	char path[64];
	int fd = -1;
	if (use_kill) {
		/* main blocks SIGUSR1 and the loopers inherited that */
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		pthread_sigmask(SIG_UNBLOCK, &s, NULL);
	} else {
		snprintf(path, sizeof path, "/proc/self/fd/%d", file_fd);
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			perror("timer_lateness: open");
			exit(1);
		}
	}
	long n = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		if (use_kill) {
			kill(getpid(), SIGUSR1);
		} else if (read(fd, buf, sizeof buf) == 0) {
			lseek(fd, 0, SEEK_SET);
		}
		n++;
	}
	atomic_fetch_add(&calls, n);
	if (fd >= 0)
		close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "read";
	if (strcmp(mode, "read") != 0 && strcmp(mode, "kill") != 0) {
		fprintf(stderr, "usage: timer_lateness read|kill [N [S]]\n");
		return 2;
	}
	use_kill = strcmp(mode, "kill") == 0;
	long nt = arg_long(argc, argv, 2, 4);
	double secs = arg_seconds(argc, argv, 3, 2);

	if (use_kill) {
		struct sigaction sa = {0};
		sa.sa_handler = on_usr1;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &s, NULL);
	} else {
		char path[] = "/tmp/timer_lateness.XXXXXX";
		file_fd = mkstemp(path);
		if (file_fd < 0) {
			perror("timer_lateness: mkstemp");
			return 1;
		}
		unlink(path);
		static char chunk[65536];
		memset(chunk, 'x', sizeof chunk);
		for (int i = 0; i < 16; i++)
			if (write(file_fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk) {
				perror("timer_lateness: write");
				return 1;
			}
	}

	pthread_t *th = calloc((size_t)nt, sizeof *th);
	for (long i = 0; i < nt; i++)
		spawn(&th[i], loop, NULL);
	size_t cap = (size_t)(secs * 1e3) + 16, n = 0;
	double *late = malloc(cap * sizeof *late);
	double t0 = now_sec(), end = t0 + secs;
	while (n < cap) {
		double a = now_sec();
		if (a >= end)
			break;
		struct timespec req = {0, SLEEP_NS};
		nanosleep(&req, NULL);
		late[n++] = (now_sec() - a) * 1e3 - SLEEP_NS / 1e6;
	}
	double window = now_sec() - t0;
	long os_threads = status_field("Threads");
	atomic_store(&stop, 1);
	for (long i = 0; i < nt; i++)
		reap(th[i]);
	qsort(late, n, sizeof *late, cmp_double);
	double med = n ? late[n / 2] : 0, p99 = n ? late[(n * 99 + 99) / 100 - 1] : 0;
	double max = n ? late[n - 1] : 0;
	printf("RESULT name=timer_lateness mode=%s threads=%ld seconds=%g sleeps=%zu "
	       "median_late_ms=%.3f p99_late_ms=%.3f max_late_ms=%.3f calls_per_sec=%.0f "
	       "handled=%ld peak_os_threads=%ld rss_kib=%ld\n",
	       mode, nt, secs, n, med, p99, max, (double)atomic_load(&calls) / window,
	       atomic_load(&handled), os_threads, status_field("VmHWM"));
	return 0;
}
