/* SPDX-License-Identifier: MIT */
/*
 * shim/sleep.c — sleeps park the calling G on a timer of its P instead of
 * blocking the OS thread: sleep, usleep, nanosleep, clock_nanosleep (and
 * thrd_sleep, through clock_nanosleep). Threads that are not Gs, and
 * clocks the timers do not follow (CPU-time clocks, alarm clocks), go to
 * glibc. A sleep whose deadline has already passed yields the processor,
 * so the common "sleep 0 to let others run" still lets others run.
 *
 * Each is a cancellation point, and a signal for the sleeping thread
 * ends it with EINTR after running the handler, as under NPTL.
 */
#include "core/door.h"
#include "core/sched.h"

#include <errno.h>
#include <stdint.h>

static int64_t ts_ns(const struct timespec *ts)
{
	if (ts->tv_sec > INT64_MAX / 1000000000 - 1)
		return INT64_MAX / 2;	/* effectively forever */
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static bool clock_followed(clockid_t clk)
{
	return clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC || clk == CLOCK_BOOTTIME ||
	       clk == CLOCK_TAI;
}

static void ns_ts(int64_t ns, struct timespec *ts)
{
	ts->tv_sec = ns / 1000000000;
	ts->tv_nsec = ns % 1000000000;
}

/*
 * Returns 0 or an error number, like clock_nanosleep. A cancellation
 * point. A signal routed to this thread while it sleeps runs its handler
 * and ends the sleep with EINTR, the time left in *rem (relative sleeps);
 * one that was already waiting runs first and does not end the sleep.
 */
static int g_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			     struct timespec *rem)
{
	struct g *gp = getg();
	door_testcancel(gp);
	if (req->tv_nsec < 0 || req->tv_nsec >= 1000000000 || req->tv_sec < 0)
		return EINVAL;
	door_signals(gp);
	int64_t want = ts_ns(req);
	if (!(flags & TIMER_ABSTIME)) {
		int64_t deadline = rt_nanotime() + (want > INT64_MAX / 2 ? INT64_MAX / 2 : want);
		for (;;) {
			g_sleep_until(deadline);
			door_testcancel(gp);
			bool handled = door_signals(gp);
			int64_t left = deadline - rt_nanotime();
			if (left <= 0)
				return 0;
			if (handled) {
				if (rem)
					ns_ts(left, rem);
				return EINTR;
			}
			/* woken, and no handler ran (an ignored signal, or one
			 * at its default action): the kernel sleeps on */
		}
	}
	/* absolute: sleep by CLOCK_MONOTONIC, then check the clock itself,
	 * which may have been set meanwhile */
	for (;;) {
		struct timespec cur;
		real_clock_gettime(clk, &cur);
		int64_t left = want - ts_ns(&cur);
		if (left <= 0)
			return 0;
		g_sleep_until(rt_nanotime() + left);
		door_testcancel(gp);
		if (door_signals(gp)) {
			real_clock_gettime(clk, &cur);
			return want - ts_ns(&cur) > 0 ? EINTR : 0;
		}
	}
}

GMP_EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
			       struct timespec *rem)
{
	GMP_ENTRY(clock_nanosleep, clk, flags, req, rem);
	if (clk == CLOCK_THREAD_CPUTIME_ID)
		return EINVAL;
	if (!getg() || !clock_followed(clk))
		return real_clock_nanosleep(clk, flags, req, rem);
	if (!req)
		return EFAULT;
	return g_clock_nanosleep(clk, flags, req, rem);
}

GMP_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	GMP_ENTRY(nanosleep, req, rem);
	if (!getg())
		return real_nanosleep(req, rem);
	if (!req) {
		errno = EFAULT;
		return -1;
	}
	int err = g_clock_nanosleep(CLOCK_MONOTONIC, 0, req, rem);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

GMP_EXPORT int __nanosleep(const struct timespec *req, struct timespec *rem)
{
	return nanosleep(req, rem);
}

GMP_EXPORT unsigned sleep(unsigned s)
{
	GMP_ENTRY(sleep, s);
	if (!getg())
		return real_sleep(s);
	struct timespec ts = {.tv_sec = s, .tv_nsec = 0}, left;
	if (g_clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &left) == EINTR)
		return (unsigned)left.tv_sec;	/* glibc reports whole seconds left */
	return 0;
}

GMP_EXPORT int usleep(useconds_t us)
{
	GMP_ENTRY(usleep, us);
	if (!getg())
		return real_usleep(us);
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};
	int err = g_clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
