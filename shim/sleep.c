/*
 * shim/sleep.c — sleeps park the calling G on a timer of its P instead of
 * blocking the OS thread: sleep, usleep, nanosleep, clock_nanosleep (and
 * thrd_sleep, through clock_nanosleep). Threads that are not Gs, and
 * clocks the timers do not follow (CPU-time clocks, alarm clocks), go to
 * glibc. A sleep whose deadline has already passed yields the processor,
 * so the common "sleep 0 to let others run" still lets others run.
 *
 * Each is a cancellation point. Signals do not interrupt these sleeps
 * yet: there is no EINTR, so the remaining-time argument is never
 * written.
 */
#include "preload/runtime.h"
#include "core/sched.h"

#include <errno.h>
#include <stdint.h>

void gmp_sleep_until(int64_t when)
{
	if (when <= rt_nanotime())
		g_yield();
	else
		g_sleep_until(when);
}

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

/* Returns 0 or an error number, like clock_nanosleep. A cancellation
 * point: a pending cancellation ends the thread here. */
static int g_clock_nanosleep(clockid_t clk, int flags, const struct timespec *req)
{
	struct g *gp = getg();
	gmp_testcancel(gp);
	if (req->tv_nsec < 0 || req->tv_nsec >= 1000000000 || req->tv_sec < 0)
		return EINVAL;
	int64_t want = ts_ns(req);
	if (!(flags & TIMER_ABSTIME)) {
		int64_t now = rt_nanotime();
		gmp_sleep_until(want > INT64_MAX / 2 ? INT64_MAX / 2 : now + want);
		gmp_testcancel(gp);
		return 0;
	}
	/* absolute: sleep by CLOCK_MONOTONIC, then check the clock itself,
	 * which may have been set meanwhile */
	for (;;) {
		struct timespec cur;
		real_clock_gettime(clk, &cur);
		int64_t left = want - ts_ns(&cur);
		if (left <= 0) {
			return 0;
		}
		gmp_sleep_until(rt_nanotime() + left);
		gmp_testcancel(gp);
		if (clk == CLOCK_MONOTONIC)
			return 0;
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
	return g_clock_nanosleep(clk, flags, req);
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
	int err = g_clock_nanosleep(CLOCK_MONOTONIC, 0, req);
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
	struct timespec ts = {.tv_sec = s, .tv_nsec = 0};
	g_clock_nanosleep(CLOCK_MONOTONIC, 0, &ts);
	return 0;
}

GMP_EXPORT int usleep(useconds_t us)
{
	GMP_ENTRY(usleep, us);
	if (!getg())
		return real_usleep(us);
	struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000};
	g_clock_nanosleep(CLOCK_MONOTONIC, 0, &ts);
	return 0;
}
