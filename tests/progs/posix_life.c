/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/posix_life.c — what the thread functions answer for a
 * thread in each part of its life: running, ended and not yet joined,
 * ended while detached (from the start, or detached while running, or
 * after it ended), joined, and the caller itself. An ordinary pthread
 * program: it prints one line of answers per state, the same under any
 * conforming library built on glibc 2.36's rules (an ended thread's
 * scheduling and clock: ESRCH; its name: ENOENT; joining or detaching a
 * joined thread: ESRCH, a detached one: EINVAL), then "PASS life".
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

static atomic_int stop;

static void *quick(void *arg)
{
	return arg;
}

static void *slow(void *arg)
{
	while (!atomic_load(&stop)) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return arg;
}

static const char *err(int r)
{
	static char buf[16][24];
	static int k;
	k = (k + 1) % 16;
	switch (r) {
	case 0: return "0";
	case ESRCH: return "ESRCH";
	case EINVAL: return "EINVAL";
	case EDEADLK: return "EDEADLK";
	case EBUSY: return "EBUSY";
	case ENOENT: return "ENOENT";
	case ETIMEDOUT: return "ETIMEDOUT";
	}
	snprintf(buf[k], sizeof buf[k], "%d", r);
	return buf[k];
}

/* Wait until t has ended (its scheduling parameters are gone). */
static void wait_ended(pthread_t t)
{
	struct sched_param sp;
	int pol;
	double end = now_sec() + 10;
	while (pthread_getschedparam(t, &pol, &sp) == 0) {
		CHECK(now_sec() < end, "the thread did not end in 10 s");
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}

/* Everything that only reads or signals. */
static void look(const char *state, pthread_t t)
{
	struct sched_param sp;
	int pol;
	clockid_t clk;
	char name[32];
	cpu_set_t cs;
	printf("%-20s kill(0)=%s getschedparam=%s getcpuclockid=%s getname=%s getaffinity=%s\n",
	       state, err(pthread_kill(t, 0)), err(pthread_getschedparam(t, &pol, &sp)),
	       err(pthread_getcpuclockid(t, &clk)), err(pthread_getname_np(t, name, sizeof name)),
	       err(pthread_getaffinity_np(t, sizeof cs, &cs)));
}

/* The calls that change it (only on threads that have ended). */
static void change(const char *state, pthread_t t)
{
	struct sched_param sp = {0};
	printf("%-20s setschedparam=%s setschedprio=%s setname=%s cancel=%s\n", state,
	       err(pthread_setschedparam(t, SCHED_OTHER, &sp)), err(pthread_setschedprio(t, 0)),
	       err(pthread_setname_np(t, "x")), err(pthread_cancel(t)));
}

/* The lifecycle calls, in glibc's order of checks: tryjoin, timed and
 * clock joins, detach, join. */
static void reap(const char *state, pthread_t t)
{
	void *r;
	struct timespec rt, mt;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mt);
	rt.tv_sec += 1;
	mt.tv_sec += 1;
	printf("%-20s tryjoin=%s timedjoin=%s clockjoin=%s detach=%s join=%s\n", state,
	       err(pthread_tryjoin_np(t, &r)), err(pthread_timedjoin_np(t, &r, &rt)),
	       err(pthread_clockjoin_np(t, &r, CLOCK_MONOTONIC, &mt)), err(pthread_detach(t)),
	       err(pthread_join(t, &r)));
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_t t;
	pthread_attr_t det;
	pthread_attr_init(&det);
	pthread_attr_setdetachstate(&det, PTHREAD_CREATE_DETACHED);

	CHECK(pthread_create(&t, NULL, slow, NULL) == 0, "pthread_create");
	look("running", t);
	void *r;
	printf("%-20s tryjoin=%s\n", "running", err(pthread_tryjoin_np(t, &r)));
	atomic_store(&stop, 1);
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	atomic_store(&stop, 0);

	CHECK(pthread_create(&t, NULL, quick, (void *)7) == 0, "pthread_create");
	wait_ended(t);
	look("ended, joinable", t);
	change("ended, joinable", t);
	CHECK(pthread_join(t, &r) == 0 && r == (void *)7, "pthread_join of an ended thread");
	look("joined", t);
	change("joined", t);
	reap("joined", t);

	CHECK(pthread_create(&t, &det, quick, NULL) == 0, "pthread_create");
	wait_ended(t);
	look("ended, detached", t);
	reap("ended, detached", t);

	CHECK(pthread_create(&t, NULL, quick, NULL) == 0, "pthread_create");
	CHECK(pthread_detach(t) == 0, "pthread_detach");
	wait_ended(t);
	reap("detached, then ended", t);

	CHECK(pthread_create(&t, NULL, quick, NULL) == 0, "pthread_create");
	wait_ended(t);
	printf("%-20s detach=%s\n", "ended, then detach", err(pthread_detach(t)));
	reap("ended, then detached", t);

	pthread_t me = pthread_self();
	struct timespec soon;
	clock_gettime(CLOCK_MONOTONIC, &soon);
	soon.tv_sec += 1;
	printf("%-20s join=%s tryjoin=%s clockjoin=%s kill(0)=%s\n", "the caller itself",
	       err(pthread_join(me, &r)), err(pthread_tryjoin_np(me, &r)),
	       err(pthread_clockjoin_np(me, &r, CLOCK_MONOTONIC, &soon)), err(pthread_kill(me, 0)));
	printf("PASS life\n");
	return 0;
}
