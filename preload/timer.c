/* SPDX-License-Identifier: MIT */
/*
 * preload/timer.c — POSIX timers that signal a thread (SIGEV_THREAD_ID).
 *
 * The kernel signals the thread whose id a timer names, and a G's id
 * (core/proc.h) names no OS thread. A timer made for a G signals the
 * service thread instead (sysmon's: a thread of the process that never
 * runs a G), and the trampoline there (preload/signal.c) hands what it
 * brings to the G, by the timer's id in the signal's information, as a
 * signal sent to that thread: its handler runs on it, or its sigwait
 * takes it. The kernel's side of the timer (arming, overruns, deletion)
 * is unchanged. The timer of a thread that has ended signals nobody, as
 * under Linux.
 */
#include "preload/runtime.h"
#include "core/lock.h"
#include "core/proc.h"
#include "core/sched.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

/* Kernel timer id -> the G's id, open addressing. A slot's key is the
 * timer id + 1, 0 when never used, -1 when deleted. */
#define NSLOTS 1024

static struct slot {
	_Atomic int key;
	_Atomic int tid;
} slots[NSLOTS];
static struct rt_mutex slots_lock;

static unsigned hash(int id)
{
	return (unsigned)id * 2654435761u % NSLOTS;
}

/* The slot of timer id, or NULL. Lock-free (the trampoline). */
static struct slot *find(int id)
{
	unsigned h = hash(id);
	for (unsigned i = 0; i < NSLOTS; i++) {
		struct slot *s = &slots[(h + i) % NSLOTS];
		int k = ld_acq(&s->key);
		if (k == id + 1)
			return s;
		if (k == 0)
			return NULL;
	}
	return NULL;
}

static void forget(int id)
{
	rt_lock(&slots_lock);
	struct slot *s = find(id);
	if (s) {
		st_rel(&s->tid, 0);
		st_rel(&s->key, -1);
	}
	rt_unlock(&slots_lock);
}

static bool remember(int id, int tid)
{
	rt_lock(&slots_lock);
	struct slot *s = find(id);
	unsigned h = hash(id);
	for (unsigned i = 0; !s && i < NSLOTS; i++) {
		struct slot *c = &slots[(h + i) % NSLOTS];
		if (ld_rlx(&c->key) <= 0)
			s = c;
	}
	if (s) {
		st_rel(&s->tid, tid);
		st_rel(&s->key, id + 1);
	}
	rt_unlock(&slots_lock);
	return s != NULL;
}

/* glibc's timer_t of a timer the kernel signals is the kernel's id */
static int kernel_id(timer_t t)
{
	return (int)(intptr_t)t;
}

GMP_EXPORT int timer_create(clockid_t clk, struct sigevent *sev, timer_t *timerid)
{
	GMP_ENTRY(timer_create, clk, sev, timerid);
	struct g *gp = NULL;
	if (sev && sev->sigev_notify == SIGEV_THREAD_ID)
		gp = proc_by_tid(sev->_sigev_un._tid);
	if (!gp) {
		int r = real_timer_create(clk, sev, timerid);
		if (r == 0 && sev && sev->sigev_notify != SIGEV_THREAD)
			forget(kernel_id(*timerid));	/* an id used before */
		return r;
	}
	int catcher = sysmon_thread_id();
	if (!catcher) {
		errno = EAGAIN;
		return -1;
	}
	struct sigevent ev = *sev;
	ev._sigev_un._tid = catcher;
	timer_t t;
	int r = real_timer_create(clk, &ev, &t);
	if (r != 0)
		return r;
	if (!remember(kernel_id(t), sev->_sigev_un._tid)) {
		real_timer_delete(t);
		errno = EAGAIN;
		return -1;
	}
	*timerid = t;
	return 0;
}

GMP_EXPORT int timer_delete(timer_t t)
{
	GMP_ENTRY(timer_delete, t);
	int r = real_timer_delete(t);
	if (r == 0)
		forget(kernel_id(t));
	return r;
}

int gmp_timer_owner(const siginfo_t *info)
{
	if (info->si_code != SI_TIMER)
		return 0;
	struct slot *s = find(info->si_timerid);
	return s ? ld_acq(&s->tid) : 0;
}
