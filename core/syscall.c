/* SPDX-License-Identifier: MIT */
/*
 * core/syscall.c — system calls (Go's entersyscall/exitsyscall, kept
 * apart from the scheduler loop as Go keeps them): a G lets go of its P
 * around a call that may block and takes it back after; sysmon retakes a
 * P that stayed in a system call, and the P of an M blocked in a call
 * libgmp did not see (see sched.h).
 */
#include "core/sched_impl.h"
#include "core/door.h"
#include "core/netpoll.h"
#include "core/proc.h"
#include "core/sigq.h"
#include "core/os.h"
#include "core/stack.h"
#include "core/tls.h"
#include "core/waitq.h"
#include "core/trace.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <sys/syscall.h>

/* --- system calls -------------------------------------------------------------- */

/* The G running on mp lets go of its P for a system call. On mp's own
 * thread (a signal handler's included). */
static void enter_syscall(struct m *mp, struct g *gp, struct p *pp)
{
	/* only the owner writes it: no locked instruction */
	st_rlx(&pp->syscalltick, ld_rlx(&pp->syscalltick) + 1);
	mp->oldp = pp;
	mp->p = NULL;
	pp->m = NULL;
	g_casstatus(gp, G_RUNNING, G_SYSCALL);
	st_rel(&pp->status, (uint32_t)P_SYSCALL);
}

/* g_syscall_enter; sysmon is woken from a deep sleep to watch the P only
 * when watch (a P let go of at once needs nobody to watch it). */
static void syscall_enter(struct g *gp, bool watch)
{
	struct m *mp = gp->m;
	trace_ev(mp, TR_SYSCALL, gp, 0);
	enter_syscall(mp, gp, mp->p);
	if (watch)
		sysmon_syscall_entered();
}

/*
 * After entering: a signal that found gp inside libgmp on its way here
 * left its handler for a door (sig_deferred); a call that may block must
 * not start without it, or it could wait for ever with the signal
 * pending (a SIGTERM whose default action ends the process, behind a
 * process-shared semaphore's wait). True when the G came back out and
 * ran its handlers, as for a signal that came a moment before the call:
 * the caller enters again. Not inside a handler (the interrupted code's
 * next door serves them), nor in a vfork child. One that comes once the
 * G is in its system call finds it there and interrupts the call, as the
 * kernel does.
 */
static bool served_held_back(struct g *gp)
{
	atomic_signal_fence(memory_order_seq_cst);	/* after the state's store */
	if (likely(!__atomic_load_n(&gp->sig_deferred, __ATOMIC_RELAXED)) || gp->preemptoff)
		return false;
	/* a vfork child runs on its parent's G and memory: it leaves both
	 * as they are (the parent serves the signals) */
	if (sched_in_vfork_child())
		return false;
	g_syscall_exit();
	/* a process signal is posted for the process, and routed by the
	 * scheduler or sysmon: in a process of one thread, neither may look
	 * before this call ends */
	sigq_poll(gp->m->p);
	gp->sig_deferred = false;
	door_signals_kept(gp);
	return true;
}

void g_syscall_enter(void)
{
	struct g *gp = getg();
	if (g_status(gp) == G_SYSCALL)
		return;		/* nested: the outer call's exit ends it */
	do
		syscall_enter(gp, true);
	while (served_held_back(gp));
}

/* Let go of pp, left in P_SYSCALL by the G that entered a call: to an M
 * if there is work for it, or timers or the network to watch; otherwise
 * to the idle list, where whoever makes work next finds it (sched_wakep),
 * unless a G was queued meanwhile by an M that found no idle P
 * (exitsyscall0, under the same lock). The CAS fails only if sysmon took
 * the P first. */
static void free_p(struct p *pp, bool work)
{
	uint32_t st = P_SYSCALL;
	if (!cas(&pp->status, &st, (uint32_t)P_IDLE))
		return;
	if (work || ld_rlx(&pp->timers.minwhen) || netpoll_any_waiters()) {
		handoffp(pp);
		return;
	}
	rt_lock(&sched.lock);
	if (ld_rlx(&sched.runqsize) != 0 || !runq_empty(pp)) {
		rt_unlock(&sched.lock);
		handoffp(pp);
		return;
	}
	pidleput(pp);
	rt_unlock(&sched.lock);
}

/* g_syscall_enter, the P let go of at once when always, or when work
 * waits for it */
static void enter_letting_go(bool always)
{
	struct g *gp = getg();
	if (g_status(gp) == G_SYSCALL)
		return;
	do {
		struct p *pp = gp->m->p;
		bool work = !runq_empty(pp) || ld_rlx(&sched.runqsize) != 0;
		syscall_enter(gp, !always);
		if (work || always)
			free_p(pp, work);
	} while (served_held_back(gp));
}

void g_syscall_enter_block(void)
{
	/* nobody waits for the P: sysmon hands it on if that changes while
	 * the call lasts, as for any call */
	enter_letting_go(false);
}

GMP_HOT void g_syscall_enter_wait(void)
{
	struct g *gp = getg();
	/* Already in a system call: one such wait after another (the M was
	 * marked at the first), or a wait inside a call made as a system
	 * call (whose exit ends both). Nothing to touch but the G's line. */
	if (g_status(gp) == G_SYSCALL)
		return;
	/* a wait that lasts: sysmon has nothing to retake while such waits
	 * come and go */
	enter_letting_go(true);
	/* and the G runs on without a P once it returns: its M is marked
	 * now, not after the wake-up (the M asleep in the wait is no
	 * computing one to sysmon) */
	if (g_status(gp) == G_SYSCALL)
		st_rel(&gp->m->blocked, true);
}

/* g0 half of a return from a system call whose P was taken: queue the G
 * and stop the M (or, dedicated to the G, wait for it to be handed a P). */
static void exitsyscall0(void *arg)
{
	struct g *gp = arg;
	struct m *mp = gp->m;

	g_casstatus(gp, G_SYSCALL, G_RUNNABLE);
	dropg(mp, gp);
	rt_lock(&sched.lock);
	struct p *pp = pidleget();
	if (!pp)
		globrunq_put_locked(gp);
	rt_unlock(&sched.lock);
	if (pp) {
		acquirep(mp, pp);
		execute(mp, gp, false);
	}
	if (!mp->lockedg)
		stopm(mp);
	schedule(mp);
}

/* g_syscall_exit without waiting: false, the G still in its system call
 * (its M without a P), when no P is free. */
static bool exit_fast(struct g *gp)
{
	struct m *mp = gp->m;
	trace_ev(mp, TR_SYSRET, gp, 0);
	struct p *pp = mp->oldp;
	mp->oldp = NULL;
	if (ld_rlx(&mp->blocked))
		st_rel(&mp->blocked, false);
	uint32_t st = P_SYSCALL;
	if (cas(&pp->status, &st, (uint32_t)P_RUNNING)) {
		/* nobody needed it: ours again */
		mp->p = pp;
		pp->m = mp;
		g_casstatus(gp, G_SYSCALL, G_RUNNING);
		/* its slice ended during the call: yield at the next door */
		if (unlikely(ld_rlx(&pp->preempt_req))) {
			st_rlx(&pp->preempt_req, false);
			atomic_fetch_or_explicit(&gp->door, DOOR_PREEMPT, memory_order_relaxed);
		}
		return true;
	}
	rt_lock(&sched.lock);
	struct p *p2 = pidleget();
	rt_unlock(&sched.lock);
	if (p2) {
		acquirep(mp, p2);
		g_casstatus(gp, G_SYSCALL, G_RUNNING);
		return true;
	}
	mp->oldp = pp;
	return false;
}

void g_syscall_exit(void)
{
	struct g *gp = getg();
	/* a call back into libgmp from inside the system call took the P
	 * back already (door_sync) */
	if (g_status(gp) != G_SYSCALL)
		return;
	if (exit_fast(gp))
		return;
	gp->m->oldp = NULL;
	gmp_ctx_mcall(&gp->ctx, gp->m->g0_top, exitsyscall0, gp);
}

/* Take pp, left in P_SYSCALL, from the M in the call and hand it on,
 * unless the G came back for it first. */
static bool retake_p(struct p *pp)
{
	uint32_t st = P_SYSCALL;
	if (!cas(&pp->status, &st, (uint32_t)P_IDLE))
		return false;
	xadd(&sched.nretake, 1);
	trace_ev(NULL, TR_RETAKE, NULL, pp->id);
	handoffp(pp);
	return true;
}

int sched_retake(int64_t now)
{
	int n = 0;
	for (int i = 0; i < sched.gomaxprocs; i++) {
		struct p *pp = sched.allp[i];
		if (ld_acq(&pp->status) != P_SYSCALL)
			continue;
		uint32_t t = ld_rlx(&pp->syscalltick);
		if (pp->sysmon_tick != t) {
			pp->sysmon_tick = t;
			pp->sysmon_when = now;
			continue;
		}
		int64_t in = now - pp->sysmon_when;
		if (in < SYSCALL_RETAKE_NS)
			continue;
		/* as Go's retake: not while nothing waits and others can
		 * take new work, unless the call has lasted 10 ms */
		if (runq_empty(pp) && ld_rlx(&sched.runqsize) == 0 &&
		    ld_rlx(&sched.nmspinning) + ld_rlx(&sched.npidle) > 0 && in < 10000000)
			continue;
		if (retake_p(pp))
			n++;
	}
	return n;
}

/* --- Ms blocked where libgmp cannot see ------------------------------------ */

static uintptr_t text_lo, text_hi;	/* libgmp's code; set by syscall_init */
static bool can_retake_blocked;		/* membarrier works; set by syscall_init */
static bool retake_blocked_m(struct p *pp, struct m *mp, int tid, uint64_t sw);

bool sched_sig_send(int tid, int code)
{
	siginfo_t info = {0};
	info.si_signo = SCHED_SIG;
	info.si_code = code;
	long pid = arch_syscall0(SYS_getpid);
	os_count(OSC_SIGNAL);
	return arch_syscall4(SYS_rt_tgsigqueueinfo, pid, tid, SCHED_SIG, &info) == 0;
}

int sched_retake_blocked(int64_t now)
{
	int n = 0;
	for (int i = 0; i < sched.gomaxprocs; i++) {
		struct p *pp = sched.allp[i];
		if (ld_acq(&pp->status) != P_RUNNING) {
			pp->sysmon_sw_when = 0;
			continue;
		}
		uint64_t sw = __atomic_load_n(&pp->nswitch, __ATOMIC_RELAXED) +
			      ld_rlx(&pp->syscalltick);
		if (pp->sysmon_sw_when == 0 || pp->sysmon_sw != sw) {
			pp->sysmon_sw = sw;
			pp->sysmon_sw_when = now;
			pp->sysmon_cpu_when = 0;
			pp->sysmon_kicked = false;
			continue;
		}
		if (pp->sysmon_kicked || now - pp->sysmon_sw_when < SCHED_BLOCKED_NS / 2)
			continue;
		/* only when something may wait to run, as Go's retake: this
		 * P's queue or timers, the global queue, or every other P busy
		 * (their queues may hold work it could steal); or after 10 ms */
		int64_t due = ld_rlx(&pp->timers.minwhen);
		if (runq_empty(pp) && ld_rlx(&sched.runqsize) == 0 && !(due && due <= now) &&
		    ld_rlx(&sched.nmspinning) + ld_rlx(&sched.npidle) > 0 &&
		    now - pp->sysmon_sw_when < 10000000)
			continue;
		struct m *mp = pp->m;
		int tid = mp ? __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE) : 0;
		if (!tid)
			continue;
		int64_t cpu = os_thread_cputime(tid);
		if (cpu < 0)
			continue;
		if (pp->sysmon_cpu_when == 0) {
			pp->sysmon_cpu = cpu;
			pp->sysmon_cpu_when = now;
			continue;
		}
		int64_t wall = now - pp->sysmon_cpu_when;
		if (wall < SCHED_BLOCKED_NS / 2)
			continue;
		if ((cpu - pp->sysmon_cpu) * 4 > wall) {
			/* it runs: a long computation, not a block */
			pp->sysmon_cpu = cpu;
			pp->sysmon_cpu_when = now;
			continue;
		}
		if (retake_blocked_m(pp, mp, tid, sw)) {
			pp->sysmon_kicked = true;
			n++;
		} else {
			/* not at a system call of the program's now: look
			 * again in a millisecond */
			pp->sysmon_cpu_when = 0;
			pp->sysmon_sw_when = now + 10 * SCHED_BLOCKED_NS;
		}
	}
	return n;
}

/*
 * Take the P of mp, whose G pp's sysmon found blocked (core/door.h,
 * door_sync, has the G's side). The kernel's record of the thread says
 * where it is: only a G in a system call made by code that is not
 * libgmp's is taken, and no signal reaches it. Returns true if taken.
 */
static bool retake_blocked_m(struct p *pp, struct m *mp, int tid, uint64_t sw)
{
	struct g *gp = __atomic_load_n(&mp->curg, __ATOMIC_ACQUIRE);
	struct os_blocked where;
	if (!gp || !can_retake_blocked)
		return false;
	int b = os_thread_blocked(tid, &where);
	if (b == -2) {
		/* the record may not be read (the process changed its
		 * credentials): a thread asleep in the kernel whose G is
		 * outside libgmp (inlib, below) is in a call of the
		 * program's; a vfork parent is not asleep (D) */
		if (os_thread_sleeping(tid) != 1)
			return false;
		where.nr = -1;
	} else if (b != 0 || (where.pc >= text_lo && where.pc < text_hi)) {
		return false;
	}
	/* a thread waiting for its vfork child lends the child its G and
	 * its memory: the child's calls into libgmp must find both as the
	 * parent left them */
	if (where.nr == SYS_vfork || where.nr == SYS_clone || where.nr == SYS_clone3)
		return false;
	atomic_fetch_or_explicit(&gp->door, DOOR_RETAKE, memory_order_seq_cst);
	os_membarrier();
	/* Everything as it was, and the G outside libgmp: any entry into
	 * libgmp from now on waits for DOOR_RETAKE to clear */
	bool ok = __atomic_load_n(&gp->inlib, __ATOMIC_RELAXED) == 0 &&
		  __atomic_load_n(&mp->curg, __ATOMIC_RELAXED) == gp && gp->m == mp &&
		  __atomic_load_n(&mp->p, __ATOMIC_RELAXED) == pp && pp->m == mp &&
		  !__atomic_load_n(&mp->in_fork, __ATOMIC_RELAXED) &&
		  ld_acq(&pp->status) == P_RUNNING &&
		  __atomic_load_n(&pp->nswitch, __ATOMIC_RELAXED) + ld_rlx(&pp->syscalltick) == sw;
	uint32_t st = G_RUNNING;
	if (ok)
		ok = cas(&gp->status, &st, (uint32_t)G_SYSCALL);
	if (ok) {
		/* enter_syscall, made for the G */
		st_rlx(&pp->syscalltick, ld_rlx(&pp->syscalltick) + 1);
		mp->oldp = pp;
		mp->p = NULL;
		pp->m = NULL;
		st_rel(&mp->blocked, true);
		xadd(&sched.nblocked, 1);
		st_rel(&pp->status, (uint32_t)P_SYSCALL);
	}
	atomic_fetch_and_explicit(&gp->door, ~DOOR_RETAKE, memory_order_release);
	if (!ok)
		return false;
	/* work waits (sched_retake_blocked looked) */
	retake_p(pp);
	return true;
}


void syscall_init(void)
{
	if (os_text_range((const void *)syscall_init, &text_lo, &text_hi) == 0)
		can_retake_blocked = os_membarrier_init() == 0;
}
