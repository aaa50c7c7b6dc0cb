/* SPDX-License-Identifier: MIT */
/*
 * core/preempt.c — asynchronous preemption (see sched.h).
 *
 * sysmon decides (sched_preempt_long), the signalled M's handler checks
 * that the interrupted code may be stopped there (sched_sig_request), and
 * the G itself yields from the routine the handler made it call
 * (preempt_self), on its own stack with valid TLS, like any call into
 * libgmp.
 */
#include "core/config.h"
#include "core/door.h"
#include "core/kwait.h"
#include "core/os.h"
#include "core/sched.h"
#include "core/sigq.h"
#include "core/trace.h"

#include <sys/syscall.h>
#include <ucontext.h>

/* Stack a preemption may need below the saved state: preempt_self and
 * the switch to g0 (a few hundred bytes), with a wide margin. */
#define PREEMPT_RESERVE 4096
/* Runnable Gs per processor from which computing Gs keep whole slices
 * while only computing Gs wait (sched_preempt_long). */
#define CROWD 4
/* How often sysmon asks again when the handler declined. */
#define PREEMPT_RETRY_NS 1000000

#define NRANGES 16
static uintptr_t unsafe_lo[NRANGES], unsafe_hi[NRANGES];
static int nunsafe;
static uintptr_t main_lo, main_hi;	/* the initial thread's stack */
static bool known;		/* the ranges and main_lo..main_hi */
static bool ready;		/* and preemption is on */

void preempt_init(void)
{
	/* the ranges and the main stack serve g_in_runtime too */
	if (os_text_range((const void *)preempt_init, &unsafe_lo[0], &unsafe_hi[0]) != 0)
		return;
	int n = 1 + os_libc_text_ranges(unsafe_lo + 1, unsafe_hi + 1, NRANGES - 1);
	if (n < 2 || os_main_stack(&main_lo, &main_hi) != 0)
		return;
	nunsafe = n;
	known = true;
	if (!rt_cfg.preempt_ns)
		return;
	arch_preempt_init();
	ready = true;
}

static bool unsafe_pc(uintptr_t pc)
{
	for (int i = 0; i < nunsafe; i++)
		if (pc >= unsafe_lo[i] && pc < unsafe_hi[i])
			return true;
	return false;
}

bool g_stack_bounds(struct g *gp, uintptr_t sp, uintptr_t *lop)
{
	uintptr_t lo, hi;
	if (gp->stack.kind == STACK_MAIN) {
		if (!known)
			return false;
		lo = main_lo;
		hi = main_hi;
	} else {
		lo = (uintptr_t)gp->stack.base + gp->stack.guard;
		hi = lo + gp->stack.size;
	}
	if (lop)
		*lop = lo;
	return sp >= lo && sp <= hi;
}

bool g_in_runtime(struct g *gp, void *uc)
{
	if (!gp->inlib || g_status(gp) != G_RUNNING || !known)
		return false;
	/* below the outermost entry's frame, on the G's own stack */
	uintptr_t sp = arch_uc_sp(uc);
	if (sp > gp->inlib_sp || !g_stack_bounds(gp, sp, NULL))
		return false;
	if (sched_in_vfork_child())
		return false;
	return unsafe_pc(arch_uc_pc(uc));
}

/* Called by the preempted G, through gmp_preempt_entry. */
static void preempt_self(void)
{
	struct g *gp = getg();
	int e = errno;	/* the interrupted code's, whatever the yield does */
	xadd(&sched.npreempt, 1);
	trace_ev(gp->m, TR_PREEMPT, gp, 0);
	/* it may have run without a P (sysmon retook it while its M was
	 * blocked): the hold takes one back, or queues the G and stops the
	 * M, and then it has run long enough */
	bool had_p = g_status(gp) != G_SYSCALL;
	door_hold(gp);
	if (had_p)
		g_preempt_yield();
	door_unhold(gp);
	errno = e;
	/* signals that came for it while it waited to run again (a G that
	 * spins in its own code passes nowhere else): this is a door, in
	 * the interrupted code, whose errno the handlers' is */
	door_signals_here(gp);
	/* an asynchronous cancellation sent while it waited to run: the
	 * canceller's SIGCANCEL found it not running, and it stopped in its
	 * own code, where such a cancellation may act at any instruction */
	if (gp->canceltype == PTHREAD_CANCEL_ASYNCHRONOUS)
		door_testcancel(gp);
}

/* Preempt the G running on mp, the signalled M, if it is at a safe
 * point. One that runs code of libc, ld.so, the vDSO or libgmp on its own
 * stack is asked to yield at its next door instead (core/door.h); one
 * anywhere else (g0, a switch, a signal handler, a stack of the
 * program's) is asked again later. */
static void preempt_here(struct m *mp, void *uc)
{
	if (!ready || mp->in_fork)
		return;
	struct g *gp = mp->curg;
	if (!gp || gp->m != mp || gp->preemptoff || arch_tp() != gp->tcb)
		return;
	uint32_t st = g_status(gp);
	if (!(st == G_RUNNING && mp->p) && !(st == G_SYSCALL && ld_acq(&mp->blocked)))
		return;
	/* only on the G's own stack: not g0, not a stack the program
	 * switched to itself (its size is unknown) */
	uintptr_t lo;
	if (!g_stack_bounds(gp, arch_uc_sp(uc), &lo))
		return;
	/* not in libc & co; and not a system call the thread made itself,
	 * which the kernel restarts at the instruction (sysmon's blocked-M
	 * retake is for that) */
	uintptr_t pc = arch_uc_pc(uc);
	if (unsafe_pc(pc) || arch_at_syscall(pc))
		atomic_fetch_or_explicit(&gp->door, DOOR_PREEMPT, memory_order_relaxed);
	else
		arch_preempt_inject(uc, preempt_self, lo, PREEMPT_RESERVE);
}

void sched_sig_request(void *uc)
{
	struct m *mp = m_by_tid((int)arch_syscall0(SYS_gettid));
	if (!mp)
		return;
	preempt_here(mp, uc);
	/* kwait_interrupt's request to a G waiting in the kernel */
	kwait_signal_here(__atomic_load_n(&mp->curg, __ATOMIC_ACQUIRE), uc);
}

/* Does mp's thread compute, rather than wait in the kernel? Its CPU clock
 * must have run at least an eighth of the time since sysmon's last look
 * (a thread blocked in a system call runs next to nothing; one that
 * computes on a host short of CPUs may get a small share), which must be
 * recent; otherwise this look is the first (sysmon looks again
 * within a millisecond while threads wait). A request only ever goes to a
 * thread found computing: it interrupts computation, not a system call
 * (a blocked M loses its P without a signal: sched_retake_blocked). */
static bool m_computing(struct m *mp, int tid, int64_t now)
{
	int64_t cpu = os_thread_cputime(tid);
	if (cpu < 0)
		return false;
	int64_t last = mp->ask_cpu, when = mp->ask_cpu_when;
	mp->ask_cpu = cpu;
	mp->ask_cpu_when = now;
	if (when == 0 || now - when > 20 * PREEMPT_RETRY_NS || now <= when)
		return false;
	return (cpu - last) * 8 > now - when;
}

static bool ask(struct m *mp, int64_t now, int64_t *sent)
{
	int tid = __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE);
	if (!tid)
		return false;
	*sent = now;
	return sched_sig_send(tid, SCHED_SIG_PREEMPT);
}

bool sched_preempt_ordinary(void)
{
	if (!ready)
		return false;
	for (int i = 0; i < sched.gomaxprocs; i++) {
		struct p *pp = sched.allp[i];
		struct m *mp = __atomic_load_n(&pp->m, __ATOMIC_ACQUIRE);
		struct g *gp = mp ? __atomic_load_n(&mp->curg, __ATOMIC_ACQUIRE) : NULL;
		if (!gp || g_rt_policy(gp->schedpolicy))
			continue;
		/* at its next door if the signal finds it where it cannot
		 * stop */
		atomic_fetch_or_explicit(&gp->door, DOOR_PREEMPT, memory_order_relaxed);
		int64_t sent;
		return ask(mp, rt_nanotime(), &sent);
	}
	return false;
}

void sched_move_to_lockedm(struct g *gp)
{
	int64_t until = rt_nanotime() + 20000000;
	bool asked = false;
	for (;;) {
		struct m *mp = __atomic_load_n(&gp->m, __ATOMIC_ACQUIRE);
		if (g_status(gp) != G_RUNNING || !mp || mp == gp->lockedm)
			return;
		if (!asked) {
			atomic_fetch_or_explicit(&gp->door, DOOR_PREEMPT, memory_order_relaxed);
			int64_t sent;
			if (ready)
				ask(mp, rt_nanotime(), &sent);
			asked = true;
		}
		if (rt_nanotime() > until)
			return;
		arch_cpu_relax();
	}
}

/* How long a G runs before a due timer of its P preempts it: the sleeper
 * it wakes runs soon after, without a whole slice's wait, and a G that
 * has just started is not switched away at once. */
#define TIMER_PREEMPT_NS 500000

/* Many Gs take turns per processor (CROWD each): their working sets
 * cannot all stay in the caches, and every turn refills them. */
static bool crowded_now(void)
{
	int64_t nrunnable = ld_rlx(&sched.runqsize);
	for (int i = 0; i < sched.gomaxprocs; i++)
		nrunnable += runq_len(sched.allp[i]);
	return nrunnable >= (int64_t)CROWD * sched.gomaxprocs;
}

static int preempt_blocked_runners(int64_t now);

int sched_preempt_long(int64_t now, bool *waiting, int64_t *next_due)
{
	*waiting = false;
	*next_due = 0;
	if (!ready)
		return 0;
	int n = 0;
	bool global_waits = ld_rlx(&sched.runqsize) != 0;
	int crowded = -1;	/* crowded_now(), once a P needs it */
	for (int i = 0; i < sched.gomaxprocs; i++) {
		struct p *pp = sched.allp[i];
		/* a G that makes one short system call after another keeps
		 * its P (P_SYSCALL in between) and its slice runs on */
		uint32_t pst = ld_acq(&pp->status);
		if (pst != P_RUNNING && pst != P_SYSCALL) {
			pp->preempt_when = 0;
			continue;
		}
		/* Threads wait for this processor (or for any), or one of its
		 * timers is due (a sleeper to wake): the slice is a fifth as
		 * long, as a kernel's shrinks with its run queue, so that a
		 * thread woken by I/O or a timer does not wait a whole slice
		 * behind a spinning one. But where the running G computes
		 * (it used up G_CPU_BOUND slices without blocking) and only
		 * computing Gs wait (none woken, new, or preempted before it
		 * computed long: nready_ia), short slices only make them take
		 * turns at refilling their caches: the slice stays whole. A
		 * G that hands work to a spinning one (its streak is short:
		 * it blocks between rounds) still gets the spinner off the
		 * processor within a short slice. */
		int64_t due = ld_rlx(&pp->timers.minwhen);
		bool due_now = due && due <= now;
		bool waits = global_waits || !runq_empty(pp) || due_now;
		if (waits && !due_now && ld_rlx(&sched.nready_ia) <= 0) {
			struct m *cm = pp->m;
			struct g *cg = cm ? __atomic_load_n(&cm->curg, __ATOMIC_RELAXED) : NULL;
			if (cg && cg->preempt_streak >= G_CPU_BOUND) {
				if (crowded < 0)
					crowded = crowded_now();
				waits = !crowded;
			}
		}
		int64_t slice = waits ? rt_cfg.preempt_ns / 5 : rt_cfg.preempt_ns;
		/* a timer of this P is due: its M fires it only when it
		 * schedules, so the G gives the P up soon (as a kernel lets a
		 * woken sleeper preempt the running task) */
		if (due_now)
			slice = TIMER_PREEMPT_NS;
		else if (due && (*next_due == 0 || due < *next_due))
			*next_due = due;
		*waiting |= waits;
		uint32_t tick = __atomic_load_n(&pp->schedtick, __ATOMIC_RELAXED);
		if (pp->preempt_when == 0 || pp->preempt_tick != tick) {
			pp->preempt_tick = tick;
			/* a new turn since the last look; a G that yielded
			 * brings the run time of its earlier turns (as the
			 * kernel's accounting does across sched_yield) */
			struct m *cm = pp->m;
			struct g *cg = cm ? __atomic_load_n(&cm->curg, __ATOMIC_RELAXED) : NULL;
			int64_t carried = cg ? ld_rlx(&cg->yield_ns) : 0;
			pp->preempt_when = now - carried;
			/* it began at the P's own record, which only a due
			 * timer needs exactly */
			if (!due_now && carried == 0)
				continue;
			int64_t began = ld_rlx(&pp->slice_start);
			if (began > 0 && began < now)
				pp->preempt_when = began - carried;
		}
		if (now - pp->preempt_when < slice || now - pp->preempt_sent < PREEMPT_RETRY_NS)
			continue;
		if (pst == P_SYSCALL) {
			/* no signal, which would interrupt the call: the G
			 * yields at the door after it (g_syscall_exit) */
			st_rlx(&pp->preempt_req, true);
			pp->preempt_sent = now;
			n++;
			continue;
		}
		struct m *mp = pp->m;
		int tid = mp ? __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE) : 0;
		if (tid && m_computing(mp, tid, now) && ask(mp, now, &pp->preempt_sent))
			n++;
	}
	return n + preempt_blocked_runners(now);
}

/* Ms whose G runs user code although its P was retaken (the M was blocked
 * in a call libgmp did not see, then went on computing): asked to stop as
 * a running G is. Returns how many were asked. */
static int preempt_blocked_runners(int64_t now)
{
	int n = 0;
	for (struct m *mp = ld_acq(&sched.allm); mp; mp = mp->alllink) {
		if (!ld_acq(&mp->blocked)) {
			mp->sysmon_cpu_when = 0;
			continue;
		}
		int tid = __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE);
		int64_t cpu = tid ? os_thread_cputime(tid) : -1;
		if (cpu < 0)
			continue;
		if (mp->sysmon_cpu_when == 0) {
			mp->sysmon_cpu = cpu;
			mp->sysmon_cpu_when = now;
			continue;
		}
		int64_t wall = now - mp->sysmon_cpu_when;
		if (wall < PREEMPT_RETRY_NS)
			continue;
		bool runs = (cpu - mp->sysmon_cpu) * 2 > wall;
		mp->sysmon_cpu = cpu;
		mp->sysmon_cpu_when = now;
		if (runs && now - mp->preempt_sent >= PREEMPT_RETRY_NS && ask(mp, now, &mp->preempt_sent))
			n++;
	}
	return n;
}
