/* SPDX-License-Identifier: MIT */
/*
 * shim/clock.c — per-thread CPU-time clocks for Gs.
 *
 * The kernel measures CPU time per OS thread, which under libgmp is the
 * sum over the Gs an M ran. For a G, CLOCK_THREAD_CPUTIME_ID and the clock
 * pthread_getcpuclockid returns (the kernel's per-thread encoding with the
 * G's fake tid) read the time the G has spent running instead. Every other
 * clock goes straight to glibc.
 */
#include "core/door.h"
#include "core/sched.h"
#include "core/proc.h"

#include <errno.h>

/* The G a CPU clock id names, or NULL if it is not a G clock. */
static struct g *clock_g(clockid_t clk)
{
	if (clk == CLOCK_THREAD_CPUTIME_ID)
		return getg();
	if (clk >= 0 || (clk & 7) != 6)
		return NULL;
	return proc_by_tid((int)~(unsigned)(clk >> 3));
}

static int64_t g_cputime(struct g *gp)
{
	int64_t t = gp->runtime_ns;
	if (g_status(gp) == G_RUNNING)
		t += rt_nanotime() - gp->run_start;
	return t;
}

GMP_EXPORT int clock_gettime(clockid_t clk, struct timespec *ts)
{
	if (likely(clk >= 0 && clk != CLOCK_THREAD_CPUTIME_ID && real_clock_gettime))
		return real_clock_gettime(clk, ts);
	GMP_ENTRY(clock_gettime, clk, ts);
	struct g *gp = clock_g(clk);
	if (!gp)
		return real_clock_gettime(clk, ts);
	int64_t t = g_cputime(gp);
	ts->tv_sec = t / 1000000000;
	ts->tv_nsec = t % 1000000000;
	return 0;
}

GMP_EXPORT int clock_getres(clockid_t clk, struct timespec *ts)
{
	GMP_ENTRY(clock_getres, clk, ts);
	if (!clock_g(clk))
		return real_clock_getres(clk, ts);
	if (ts) {
		ts->tv_sec = 0;
		ts->tv_nsec = 1;
	}
	return 0;
}
