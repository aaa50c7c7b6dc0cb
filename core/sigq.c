/*
 * core/sigq.c — the queue of signals on their way to Gs (see sigq.h).
 *
 * A fixed pool of records, claimed with a CAS so that a signal handler
 * can post without locks or allocation. Record states:
 *   FREE -> FILLING (poster) -> POSTED -> ROUTING (one router) -> ROUTED
 *   ROUTED -> TAKING (the target G) -> FREE
 * Everything here is TLS-free and async-signal-safe except sigq_poll,
 * which takes scheduler locks (never from a handler).
 */
#include "core/sigq.h"
#include "core/netpoll.h"
#include "core/sched.h"

#include <sys/syscall.h>
#include <ucontext.h>

enum { REC_FREE, REC_FILLING, REC_POSTED, REC_ROUTING, REC_ROUTED, REC_TAKING };

#define SIGQ_MAX 512

struct sigrec {
	_Atomic uint32_t state;
	struct g *target;	/* NULL while POSTED without a target */
	siginfo_t info;
};

static struct sigrec recs[SIGQ_MAX];
static _Atomic int nposted;

void sysmon_kick(void);

bool sigq_post(struct g *target, const siginfo_t *info)
{
	int sig = info->si_signo;
	if (sig < SIGRTMIN) {
		/* a standard signal is pending at most once per target */
		for (int i = 0; i < SIGQ_MAX; i++) {
			uint32_t st = ld_acq(&recs[i].state);
			if ((st == REC_POSTED || st == REC_ROUTED) && recs[i].info.si_signo == sig &&
			    recs[i].target == target)
				return true;
		}
	}
	for (int i = 0; i < SIGQ_MAX; i++) {
		if (ld_rlx(&recs[i].state) != REC_FREE ||
		    !cas_val(&recs[i].state, (uint32_t)REC_FREE, (uint32_t)REC_FILLING))
			continue;
		recs[i].target = target;
		recs[i].info = *info;
		st_rel(&recs[i].state, (uint32_t)REC_POSTED);
		xadd(&nposted, 1);
		st_rel(&sched.sigpoll, 1);
		netpoll_break();
		sysmon_kick();
		return true;
	}
	return false;
}

/* Who gets a signal nobody named: the main thread while it lives (Linux
 * offers process signals to the main thread first), else any thread. */
static struct g *choose_target(void)
{
	struct g *mg = sched.maing;
	uint32_t st = g_status(mg);
	if (st != G_DEAD && st != G_IDLE)
		return mg;
	uint32_t n = g_count();
	for (uint32_t i = 0; i < n; i++) {
		struct g *gp = g_by_index(i);
		st = g_status(gp);
		if (st != G_DEAD && st != G_IDLE)
			return gp;
	}
	return NULL;
}

/* Make target notice its signal: interrupt an interruptible wait, or
 * nudge the OS thread it runs on. */
static void kick(struct g *gp, int sig, struct p *pp)
{
	if (g_claim(gp, 0)) {
		g_ready(gp, pp, false);
		return;
	}
	struct m *mp = gp->m;
	int tid = mp ? __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE) : 0;
	uint32_t st = g_status(gp);
	if ((st == G_RUNNING || st == G_SYSCALL) && tid) {
		siginfo_t nudge = {0};
		nudge.si_signo = sig;
		nudge.si_code = SIGQ_NUDGE;
		long pid = arch_syscall0(SYS_getpid);
		arch_syscall4(SYS_rt_tgsigqueueinfo, pid, tid, sig, &nudge);
	}
	/* runnable, or waiting where signals do not interrupt: it looks
	 * when it next passes through libgmp */
}

void sigq_poll(struct p *pp)
{
	if (!ld_acq(&sched.sigpoll))
		return;
	st_rel(&sched.sigpoll, 0);
	for (int i = 0; i < SIGQ_MAX && ld_acq(&nposted) > 0; i++) {
		struct sigrec *r = &recs[i];
		if (!cas_val(&r->state, (uint32_t)REC_POSTED, (uint32_t)REC_ROUTING))
			continue;
		xadd(&nposted, -1);
		struct g *gp = r->target ? r->target : choose_target();
		if (!gp) {
			st_rel(&r->state, (uint32_t)REC_FREE);	/* nobody left */
			continue;
		}
		r->target = gp;
		int sig = r->info.si_signo;
		st_rel(&r->state, (uint32_t)REC_ROUTED);
		atomic_fetch_or_explicit(&gp->sigpend, (uint64_t)1 << (sig - 1),
					 memory_order_release);
		kick(gp, sig, pp);
	}
}

bool sigq_pending_for(struct g *gp)
{
	return ld_acq(&gp->sigpend) != 0;
}

bool sigq_take(struct g *gp, siginfo_t *out)
{
	if (!ld_acq(&gp->sigpend))
		return false;
	st_rel(&gp->sigpend, (uint64_t)0);
	for (int i = 0; i < SIGQ_MAX; i++) {
		struct sigrec *r = &recs[i];
		if (ld_acq(&r->state) != REC_ROUTED || r->target != gp ||
		    !cas_val(&r->state, (uint32_t)REC_ROUTED, (uint32_t)REC_TAKING))
			continue;
		*out = r->info;
		st_rel(&r->state, (uint32_t)REC_FREE);
		/* there may be more: look again next time */
		st_rel(&gp->sigpend, (uint64_t)1);
		return true;
	}
	return false;
}

struct g *sigq_current_g(void *ucontext, bool *is_m)
{
	int tid = (int)arch_syscall0(SYS_gettid);
	struct m *mp = m_by_tid(tid);
	*is_m = mp != NULL;
	if (!mp)
		return NULL;
	struct g *gp = mp->curg;
	if (!gp || g_status(gp) != G_RUNNING || gp->m != mp)
		return NULL;
	/* between the switch and the status change the G is still RUNNING
	 * but the CPU is on the scheduler stack */
	uintptr_t sp = (uintptr_t)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RSP];
	if (sp <= (uintptr_t)mp->g0_top && sp >= (uintptr_t)mp->g0_top - G0_STACK_SIZE)
		return NULL;
	/* the thread pointer must be the G's (not the M's own, nor a stale
	 * one in the window where it is being switched) */
	if (arch_tp() != gp->tcb)
		return NULL;
	return gp;
}

void sigq_after_fork(void)
{
	for (int i = 0; i < SIGQ_MAX; i++)
		st_rlx(&recs[i].state, (uint32_t)REC_FREE);
	st_rlx(&nposted, 0);
}
