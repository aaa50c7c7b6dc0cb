/* SPDX-License-Identifier: MIT */
/*
 * preload/stats.c — run statistics for gmprun --stats. When GMP_STATS
 * names a file, one line of key=value pairs is appended to it at exit.
 */
#include "preload/runtime.h"
#include "core/config.h"
#include "core/debug.h"
#include "core/trace.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Threads: from /proc/self/status, or -1. */
static int proc_threads(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *p = strstr(buf, "\nThreads:");
	return p ? atoi(p + 9) : -1;
}

/* Under pass-through there is nothing to count: say so, so that gmprun
 * --stats tells it from a program that did not end through exit. */
static void stats_passthrough(void)
{
	int fd = open(rt_cfg.stats_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	dprintf(fd, "pid=%d passthrough=1\n", (int)getpid());
	close(fd);
}

__attribute__((destructor)) static void stats_at_exit(void)
{
	if (ld_acq(&gmp_state) != 2)
		return;
	if (gmp_passthrough) {
		if (rt_cfg.stats_path)
			stats_passthrough();
		return;
	}
	trace_finish();
	if (!rt_cfg.stats_path)
		return;
	struct rt_stats st;
	debug_stats(&st);
	int threads = proc_threads();
	if (threads > st.os_threads)
		st.os_threads = threads;
	int fd = open(rt_cfg.stats_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	char waits[512];
	int w = 0;
	for (int r = 0; r < WAIT_NREASON; r++)
		if (r != WAIT_NONE && r != WAIT_TEST)
			w += snprintf(waits + w, sizeof waits - (size_t)w, " wait_%s=%llu",
				      g_waitreason_keys[r], (unsigned long long)st.waits[r]);
	dprintf(fd, "pid=%d threads_created=%llu peak_threads=%lld peak_os_threads=%d "
		    "context_switches=%llu steals=%llu gomaxprocs=%d syscalls=%llu retakes=%llu "
		    "blocked=%llu netpoll_wakeups=%llu sysmon_polls=%llu sysmon_timers=%llu "
		    "preemptions=%llu door_preemptions=%llu handoffs=%llu "
		    "spin_handoffs=%llu procs_parked=%llu tp_writes=%llu tp_wrfsbase=%d "
		    "tp_write_ns=%lld affinity=%d futex_waits=%llu futex_wakes=%llu "
		    "epoll_waits=%llu eventfd_writes=%llu signals_sent=%llu sigmask_changes=%llu%s\n",
		(int)getpid(), (unsigned long long)st.threads_created,
		(long long)st.peak_live, st.os_threads, (unsigned long long)st.switches,
		(unsigned long long)st.steals, st.gomaxprocs, (unsigned long long)st.syscalls,
		(unsigned long long)st.retakes, (unsigned long long)st.blocked,
		(unsigned long long)st.netpoll_wakeups, (unsigned long long)st.sysmon_polls,
		(unsigned long long)st.sysmon_timers, (unsigned long long)st.preemptions,
		(unsigned long long)st.door_preemptions,
		(unsigned long long)st.handoffs, (unsigned long long)st.spin_handoffs,
		(unsigned long long)st.procs_parked,
		(unsigned long long)st.tp_writes,
		(int)st.tp_wrfsbase, (long long)st.tp_write_ns, (int)st.affinity,
		(unsigned long long)st.futex_waits,
		(unsigned long long)st.futex_wakes, (unsigned long long)st.epoll_waits,
		(unsigned long long)st.eventfd_writes, (unsigned long long)st.signals,
		(unsigned long long)st.sigmasks, waits);
	close(fd);
}
