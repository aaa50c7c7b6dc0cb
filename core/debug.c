/* SPDX-License-Identifier: MIT */
/*
 * core/debug.c — schedtrace and statistics (see debug.h).
 */
#include "core/debug.h"
#include "core/rt.h"
#include "core/sched.h"
#include "core/os.h"

static const char *const status_names[G_NSTATUS] = {
	"idle", "runnable", "running", "syscall", "waiting", "dead",
};

void debug_stats(struct rt_stats *st)
{
	st->threads_created = ld_rlx(&sched.ncreated);
	st->peak_live = ld_rlx(&sched.peaklive);
	st->os_threads = sched_os_threads() + sysmon_running();
	st->switches = sched_switches();
	st->steals = ld_rlx(&sched.nsteal);
	uint64_t sc = 0;
	for (int i = 0; i < sched.gomaxprocs; i++)
		sc += ld_rlx(&sched.allp[i]->syscalltick);
	st->syscalls = sc;
	st->retakes = ld_rlx(&sched.nretake);
	st->blocked = ld_rlx(&sched.nblocked);
	st->netpoll_wakeups = ld_rlx(&sched.nnetpollg);
	st->sysmon_polls = ld_rlx(&sched.nnetpoll_sysmon);
	st->sysmon_timers = ld_rlx(&sched.nsysmon_timers);
	st->preemptions = ld_rlx(&sched.npreempt);
	st->door_preemptions = ld_rlx(&sched.npreempt_door);
	st->handoffs = ld_rlx(&sched.nhandoff);
	st->spin_handoffs = ld_rlx(&sched.nspin_handoff);
	st->procs_parked = ld_rlx(&sched.nparked);
	for (int r = 0; r < WAIT_NREASON; r++) {
		st->waits[r] = 0;
		for (int i = 0; i < sched.gomaxprocs; i++)
			st->waits[r] += sched.allp[i]->nwait[r];
	}
	st->gomaxprocs = sched.gomaxprocs;
	uint64_t tpw = ld_rlx(&os_counts[OSC_TPW]);
	for (struct m *mp = ld_acq(&sched.allm); mp; mp = mp->alllink)
		tpw += __atomic_load_n(&mp->ntpw, __ATOMIC_RELAXED);
	st->tp_writes = tpw;
	st->tp_wrfsbase = gmp_arch_wrfsbase != 0;
	st->tp_write_ns = sched.tpw_ns;
	st->affinity = sched.affinity;
	st->futex_waits = ld_rlx(&os_counts[OSC_FUTEX_WAIT]);
	st->futex_wakes = ld_rlx(&os_counts[OSC_FUTEX_WAKE]);
	st->epoll_waits = ld_rlx(&os_counts[OSC_EPOLL_WAIT]);
	st->eventfd_writes = ld_rlx(&os_counts[OSC_EVENTFD]);
	st->signals = ld_rlx(&os_counts[OSC_SIGNAL]);
	st->sigmasks = ld_rlx(&os_counts[OSC_SIGMASK]);
}

void debug_schedtrace(bool detail)
{
	int64_t ms = (rt_nanotime() - sched.start_ns) / 1000000;
	char line[1024];
	int n;

	rt_lock(&sched.lock);
	int threads = 0, idle = sched.nmidle;
	for (struct m *mp = ld_acq(&sched.allm); mp; mp = mp->alllink)
		threads++;
	n = rt_snprintf(line, sizeof line,
			"SCHED %ldms: gomaxprocs=%d idleprocs=%d threads=%d spinningthreads=%d "
			"idlethreads=%d runqueue=%d gs=%ld retakes=%lu blocked=%lu "
			"netpollwakes=%lu preempts=%lu doorpreempts=%lu [",
			(long)ms, sched.gomaxprocs, ld_rlx(&sched.npidle), threads + sysmon_running(),
			ld_rlx(&sched.nmspinning), idle, ld_rlx(&sched.runqsize),
			(long)ld_rlx(&sched.nlive), (unsigned long)ld_rlx(&sched.nretake),
			(unsigned long)ld_rlx(&sched.nblocked), (unsigned long)ld_rlx(&sched.nnetpollg),
			(unsigned long)ld_rlx(&sched.npreempt),
			(unsigned long)ld_rlx(&sched.npreempt_door));
	for (int i = 0; i < sched.gomaxprocs && n < (int)sizeof line - 16; i++)
		n += rt_snprintf(line + n, sizeof line - (size_t)n, i ? " %u" : "%u",
				 runq_len(sched.allp[i]));
	if (n > (int)sizeof line - 3)
		n = (int)sizeof line - 3;
	line[n++] = ']';
	line[n++] = '\n';
	rt_write_all(2, line, (size_t)n);
	if (!detail) {
		rt_unlock(&sched.lock);
		return;
	}
	for (int i = 0; i < sched.gomaxprocs; i++) {
		struct p *pp = sched.allp[i];
		struct m *mp = pp->m;
		rt_printf(2, "  P%d: status=%u schedtick=%u syscalltick=%u m=%d runqsize=%u gfreecnt=%d timerslen=%u\n",
			  pp->id, ld_rlx(&pp->status), pp->schedtick, ld_rlx(&pp->syscalltick), mp ? mp->id : -1,
			  runq_len(pp), pp->ngfree, timers_len(pp));
	}
	for (struct m *mp = ld_acq(&sched.allm); mp; mp = mp->alllink) {
		struct p *pp = mp->p;
		struct g *cg = mp->curg;
		rt_printf(2, "  M%d: p=%d curg=%d spinning=%s lockedg=%d tid=%d\n", mp->id,
			  pp ? pp->id : -1, cg ? (int)cg->goid : -1,
			  mp->spinning ? "true" : "false",
			  mp->lockedg ? (int)mp->lockedg->goid : -1, mp->tid);
	}
	rt_unlock(&sched.lock);
	uint32_t ng = g_count();
	for (uint32_t i = 0; i < ng; i++) {
		struct g *gp = g_by_index(i);
		uint32_t st = g_status(gp);
		if (st == G_IDLE || st == G_DEAD)
			continue;
		struct m *mp = gp->m;
		rt_printf(2, "  G%lu: status=%u(%s%s%s) m=%d lockedm=%d name=%s\n",
			  (unsigned long)gp->goid, st, status_names[st],
			  st == G_WAITING ? " " : "",
			  st == G_WAITING ? g_waitreason_names[gp->waitreason] : "",
			  mp ? mp->id : -1, gp->lockedm ? gp->lockedm->id : -1, gp->name);
	}
}
