/* SPDX-License-Identifier: MIT */
/*
 * core/door.c — the start-up state every entry checks, and serving the
 * requests that wait at a G's doors (see door.h): a yield that sysmon
 * asked for, the handlers of signals routed to the G.
 */
#include "core/door.h"
#include "core/config.h"
#include "core/layout.h"
#include "core/sched.h"
#include "core/sigq.h"
#include "core/trace.h"

#include <sys/syscall.h>

struct door_hooks door_hooks;

/* --- start-up ------------------------------------------------------------------ */

_Atomic int gmp_state;
bool gmp_passthrough;

/* the start steps the layers above registered (GMP_START_STEP): the
 * linker gives the bounds of their section */
extern const gmp_start_step __start_gmp_start_steps[] __attribute__((weak));
extern const gmp_start_step __stop_gmp_start_steps[] __attribute__((weak));

void gmp_init_slow(void)
{
	static _Atomic int init_tid;
	int expect = 0;
	if (!cas(&gmp_state, &expect, 1)) {
		/* start-up calling back into libgmp (a malloc that locks
		 * a mutex: jemalloc), on this thread or on the thread that
		 * probes glibc's layout: the call goes to glibc, as below */
		int tid = (int)arch_syscall0(SYS_gettid);
		if (ld_acq(&init_tid) == tid || layout_probe_tid() == tid)
			return;
		while (ld_acq(&gmp_state) != 2)
			arch_cpu_relax();
		return;
	}
	st_rel(&init_tid, (int)arch_syscall0(SYS_gettid));
	/* While the runtime starts, every interposed call this thread makes
	 * (start-up allocates, and a malloc such as jemalloc locks pthread
	 * mutexes) goes to glibc: no G exists yet. Other threads wait above
	 * before they look at gmp_passthrough. */
	gmp_passthrough = true;
	real_init();
	bool pass = false;
	for (const gmp_start_step *s = __start_gmp_start_steps; !pass && s < __stop_gmp_start_steps;
	     s++)
		pass = (*s)();
	gmp_passthrough = pass;
	st_rel(&gmp_state, 2);
	if (!gmp_passthrough && rt_cfg.schedtrace_ms)
		sched_start();
}

/* --- the doors ----------------------------------------------------------------- */

int door_signals(struct g *gp)
{
	return door_hooks.signals ? door_hooks.signals(gp, NULL) : 0;
}

int door_signals_restart(struct g *gp, bool *restart)
{
	*restart = true;
	return door_hooks.signals ? door_hooks.signals(gp, restart) : 0;
}

bool door_eintr_spurious(struct g *gp, uint32_t handled)
{
	int e = errno;
	door_signals(gp);
	errno = e;
	return gp->nhandled == handled;
}

bool door_eintr_spurious_any(struct g *gp, uint32_t handled)
{
	int e = errno;
	door_signals(gp);
	errno = e;
	return gp->ndelivered == handled;
}

void door_slow(struct g *gp, bool may_yield)
{
	/* inside libgmp (a light entry called from glibc that libgmp
	 * called), or a signal handler runs: the outermost door serves it */
	if (gp->inlib || gp->preemptoff)
		return;
	/* a vfork child runs on its parent's G and memory: it must leave
	 * both as they are (the parent serves the requests) */
	if (sched_in_vfork_child())
		return;
	int e = errno;
	door_hold(gp);	/* a P, and sysmon's retake done with */
	uint32_t take = may_yield ? DOOR_PREEMPT | DOOR_SIGNAL : DOOR_SIGNAL;
	uint32_t req = atomic_fetch_and_explicit(&gp->door, ~take, memory_order_acq_rel) & take;
	if (req & DOOR_PREEMPT) {
		xadd(&sched.npreempt_door, 1);
		trace_ev(gp->m, TR_PREEMPT, gp, 1);
		g_preempt_yield();
	}
	/* a process signal that found the G inside libgmp was posted for the
	 * process (hold_back), to be routed by the scheduler or sysmon,
	 * which a process of one thread may not run for a long time: route
	 * it now */
	if (req & DOOR_SIGNAL)
		sigq_poll(gp->m->p);
	door_unhold(gp);
	errno = e;
	door_signals_kept(gp);
}

void door_retake_wait(struct g *gp)
{
	/* sysmon holds the request for a few microseconds (a membarrier
	 * and a few stores) */
	for (unsigned i = 0; ld_acq(&gp->door) & DOOR_RETAKE; i++) {
		if (i < 100)
			arch_cpu_relax();
		else
			arch_syscall0(SYS_sched_yield);
	}
}

bool door_stale(struct g *gp, uintptr_t sp)
{
	return g_stack_bounds(gp, sp, NULL);
}

void door_signals_kept(struct g *gp)
{
	if (sigq_pending_for(gp)) {
		int e = errno;
		door_signals(gp);
		errno = e;
	}
}

void door_signals_here(struct g *gp)
{
	if (sigq_pending_for(gp))
		door_signals(gp);
}
