/* SPDX-License-Identifier: MIT */
/*
 * preload/signal.c — signal handlers run on Gs.
 *
 * Every handler the program installs (sigaction and __sigaction, signal,
 * bsd_signal and ssignal, sysv_signal and __sysv_signal; sigset and
 * sigignore in sigwait.c) is installed in the kernel as libgmp's
 * trampoline, with the program's mask and flags; the program's own
 * action is kept here and returned as the old action. The trampoline runs on whatever OS thread
 * the kernel picked:
 *
 *  - on a G that the signal is for (a fault it caused, a signal sent to
 *    it, a process signal while it is the main thread or the main thread
 *    has ended): the program's handler runs right there, as under NPTL;
 *  - on a G it is not for (a process signal goes to the main thread
 *    first, as Linux does), or on an OS thread that is between Gs or
 *    idle: the signal is posted to core/sigq.c, which routes it to its G;
 *    the G runs the handler itself, by raising the signal again on the OS
 *    thread it runs on, the next time it passes through libgmp — at once
 *    if it was waiting in a sleep (which then fails with EINTR).
 *
 * The program's handler never runs on a scheduler stack or on an idle
 * M's TLS. Threads glibc made run handlers as usual.
 *
 * SA_RESETHAND is libgmp's, never the kernel's: the kernel would reset
 * the action when it delivers to the trampoline, before the handler of a
 * routed signal runs (the nudge that runs it would then kill the
 * process). The action becomes SIG_DFL as the program's handler is
 * entered (call_handler); the kernel's stays the trampoline, which
 * carries out the default action of the next one. SA_NODEFER goes to the
 * kernel: it leaves the signal unblocked in the trampoline, and so in
 * the handler.
 */
#include "preload/runtime.h"
#include "core/lock.h"
#include "core/sched.h"
#include "core/kwait.h"
#include "core/sigq.h"
#include "core/fdtab.h"
#include "core/proc.h"
#include "core/config.h"
#include "core/dump.h"
#include "core/trace.h"
#include "preload/sync.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

/* The program's actions; written under lock, read by the trampoline. */
static struct sigaction user_act[NSIG];
static bool user_set[NSIG];		/* user_act[sig] is authoritative */
/* user_act[sig] is a handler with SA_RESETHAND not yet entered: the first
 * call_handler to clear it runs the handler, any other the default */
static _Atomic bool oneshot[NSIG];
/* Signals whose kernel action is the trampoline (written under act_lock) */
static _Atomic uint64_t tramp_set;
static struct rt_mutex act_lock;

/* The signals whose default action is to ignore them (SIGCONT's also
 * continues a stopped process, which has happened when it arrives). */
static bool ignored_by_default(int sig)
{
	return sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH || sig == SIGCONT;
}

/* A signal whose default action must happen now. */
static void default_action(int sig)
{
	/* the signal may end the process: the trace goes out first */
	if (!ignored_by_default(sig))
		trace_finish();
	/* the program's flags and mask stay, as the kernel keeps them when
	 * SA_RESETHAND resets a handler (a query then shows them) */
	struct sigaction dfl = {.sa_handler = SIG_DFL};
	if (user_set[sig]) {
		dfl = user_act[sig];
		dfl.sa_handler = SIG_DFL;
	}
	real_sigaction(sig, &dfl, NULL);
	atomic_fetch_and(&tramp_set, ~sigq_bit(sig));
	arch_syscall3(SYS_tgkill, arch_syscall0(SYS_getpid), arch_syscall0(SYS_gettid), sig);
}

/* A handler, not SIG_DFL or SIG_IGN (the kernel looks at the pointer
 * alone, SA_SIGINFO or not). */
static bool is_handler(const struct sigaction *a)
{
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

/* a, sig's action, drops the signal (and discards its pending instances) */
static bool ignores(int sig, const struct sigaction *a)
{
	return a->sa_handler == SIG_IGN || (a->sa_handler == SIG_DFL && ignored_by_default(sig));
}

/* Under act_lock: a is now the program's action for sig. */
static void set_user_act(int sig, const struct sigaction *a)
{
	user_act[sig] = *a;
	user_set[sig] = true;
	atomic_store(&oneshot[sig], is_handler(a) && (a->sa_flags & SA_RESETHAND));
}

/* Call the program's handler for sig (on a G, or a thread glibc made). */
static void call_handler(int sig, siginfo_t *info, void *uc)
{
	struct sigaction a = user_act[sig];
	if (is_handler(&a) && (a.sa_flags & SA_RESETHAND)) {
		/* the action becomes SIG_DFL as the handler is entered, its
		 * flags kept (as the kernel does); a second delivery that
		 * raced this one finds it so */
		if (atomic_exchange(&oneshot[sig], false))
			user_act[sig].sa_handler = SIG_DFL;
		else
			a.sa_handler = SIG_DFL;
	}
	if (a.sa_handler == SIG_IGN) {
		return;
	} else if (a.sa_handler == SIG_DFL) {
		default_action(sig);
	} else if (a.sa_flags & SA_SIGINFO) {
		a.sa_sigaction(sig, info, uc);
	} else {
		a.sa_handler(sig);
	}
}

static long nudge_self(int sig);

void gmp_renudge(struct g *gp)
{
	uint64_t can = ld_acq(&gp->sigpend) & ~ld_rlx(&gp->sigmask);
	while (can) {
		nudge_self(__builtin_ctzll(can) + 1);
		can &= can - 1;
	}
}

/* glibc's reserved signals and the unblockable ones: never in a mask */
#define NEVER_MASKED (sigq_bit(32) | sigq_bit(33) | sigq_bit(SIGKILL) | sigq_bit(SIGSTOP))

/* The G's mask while the handler of sig runs, as the kernel makes it: the
 * handler's sa_mask added, and sig itself unless SA_NODEFER. Returns the
 * mask to restore when the handler returns (the kernel's sigreturn puts
 * back the interrupted mask; a handler left with longjmp keeps this one,
 * as under Linux, unless siglongjmp restores its own). */
static uint64_t handler_mask_enter(struct g *gp, int sig)
{
	const struct sigaction *a = &user_act[sig];
	uint64_t old = ld_rlx(&gp->sigmask), add;
	if (!is_handler(a))
		return old;
	memcpy(&add, &a->sa_mask, sizeof add);
	if (!(a->sa_flags & SA_NODEFER))
		add |= sigq_bit(sig);
	uint64_t hm = (old | add) & ~NEVER_MASKED;
	if (hm != old) {
		st_rel(&gp->sigmask, hm);
		sigq_mask_change(old, hm);
	}
	return old;
}

/* Returns true when signals routed to gp wait that the restored mask
 * lets through. */
static bool handler_mask_leave(struct g *gp, uint64_t saved)
{
	uint64_t cur = ld_rlx(&gp->sigmask);
	if (cur == saved)
		return false;
	st_rel(&gp->sigmask, saved);
	sigq_mask_change(cur, saved);
	if (!(cur & ~saved))
		return false;
	sigq_reroute_soon();	/* process signals pending for a G that takes them */
	return (ld_acq(&gp->sigpend) & cur & ~saved) != 0;
}

/* On a G: the handler runs on the G's stack and OS thread, and must end
 * there: no preemption until it returns. */
static void call_user(int sig, siginfo_t *info, void *uc)
{
	struct g *gp = getg();
	uint64_t saved = 0;
	bool nest = false;
	if (gp) {
		gp->preemptoff++;
		if (gp->hdepth < HFRAMES)
			gp->hframe_sp[gp->hdepth] = (uintptr_t)arch_stack_pointer();
		gp->hdepth++;
		gp->ndelivered++;
		/* only a handler of the program's ends a wait with EINTR: an
		 * ignored signal, or one whose default action is taken, does
		 * not, as under Linux (the trampoline takes those where a
		 * thread blocks them) */
		if (is_handler(&user_act[sig])) {
			gp->nhandled++;
			/* the first handler a sigsuspend runs returns to the
			 * wait's caller, with the caller's mask, in the
			 * kernel: its own mask stays until the wait ends
			 * (g->sig_nest). Every later one, here or inside it,
			 * restores the mask it found. */
			nest = gp->sig_nest;
			gp->sig_nest = false;
			/* a wait libgmp restarts itself ends for this one as
			 * the kernel's would (preload/sem.c) */
			if (!(user_act[sig].sa_flags & SA_RESTART))
				gp->nhandled_intr++;
		}
		/* the kernel mask is the handler's until it returns, maybe
		 * on another M if it parks: the next switch sets it again */
		sched_kmask_unknown(gp);
		saved = handler_mask_enter(gp, sig);
	}
	call_handler(sig, info, uc);
	if (gp) {
		bool unblocked = !nest && handler_mask_leave(gp, saved);
		/* the kernel mask the handler set (sigprocmask) ends with
		 * its frame: the M's is not known until set again */
		sched_kmask_unknown(gp);
		gp->hdepth--;
		gp->preemptoff--;
		/* a signal that came while the handler was inside libgmp was
		 * held back, and no door serves it inside a handler; one
		 * routed here while the handler's mask blocked it waits too:
		 * raise them again now, for the kernel to deliver once this
		 * handler's frame returns (or here, if nothing blocks it) */
		if ((gp->sig_deferred || unblocked) && !gp->preemptoff)
			gmp_renudge(gp);
	}
}

/* Does a jump to target leave the handler frame that began at sp? Only
 * a target on the G's own stack says: the frames below it there, and a
 * handler on another stack (an alternate one). A target on a stack of
 * the program's (a coroutine's) may come back: the handler is not taken
 * for left. */
static bool frame_left(struct g *gp, uintptr_t sp, uintptr_t target)
{
	if (!g_stack_bounds(gp, target, NULL))
		return false;
	return target > sp || !g_stack_bounds(gp, sp, NULL);
}

void gmp_handlers_left(struct g *gp, uintptr_t target)
{
	bool left = false;
	while (gp->hdepth > 0) {
		uint8_t i = gp->hdepth - 1;
		/* one too deep to be recorded goes with the one it is in */
		if (i < HFRAMES && !frame_left(gp, gp->hframe_sp[i], target))
			break;
		gp->hdepth--;
		gp->preemptoff--;
		left = true;
	}
	if (!left)
		return;
	gp->sig_nest = false;
	/* the kernel's mask was the left frame's: the G's own again, which
	 * the left handlers' stays (as the kernel keeps a handler's mask
	 * after a longjmp) unless the jump puts a saved one back */
	sched_kmask_unknown(gp);
	sched_apply_sigmask(gp);
}

/* Raise sig with info on this OS thread: its handler runs before the
 * system call returns. libgmp's own system call, not glibc's syscall():
 * 0 or -errno. */
static long reinject(int sig, const siginfo_t *info)
{
	return arch_syscall4(SYS_rt_tgsigqueueinfo, arch_syscall0(SYS_getpid),
			     arch_syscall0(SYS_gettid), sig, info);
}

/* Ask this OS thread's kernel to deliver sig with si_code SIGQ_NUDGE:
 * the trampoline then runs, in that frame, the handlers of the records
 * of sig routed to the G (run_routed). */
static long nudge_self(int sig)
{
	siginfo_t info = {0};
	info.si_signo = sig;
	info.si_code = SIGQ_NUDGE;
	return reinject(sig, &info);
}

/* A signal found gp inside libgmp (g_in_runtime), which may hold a lock a
 * handler's calls into libgmp would take, or have armed the G's wake-up
 * that such a call could claim: its handler runs at the G's next door
 * instead, and a park the G begins before that ends at once (park_m), as
 * the kernel ends a wait a handler interrupts. */
static void hold_back(struct g *gp)
{
	gp->sig_deferred = true;
	atomic_fetch_or_explicit(&gp->door, DOOR_SIGNAL, memory_order_relaxed);
}

/* In a frame the kernel made for sig on gp's OS thread (its mask
 * applied, as for any delivery of sig): run the handler of every record
 * of sig routed to gp, with its own siginfo. */
static void run_routed(struct g *gp, int sig, void *uc)
{
	siginfo_t ri;
	while (sigq_take_mask(gp, sigq_bit(sig) & ~ld_rlx(&gp->sigmask), false, &ri))
		call_user(sig, &ri, uc);
}

/* Run gp's routed signals on this OS thread: for each signal it does not
 * block, a nudge to itself, which the kernel delivers before the system
 * call returns, with that signal's mask; the frame takes the records
 * (run_routed). Only signals the kernel mask lets through now: one it
 * blocks (this is inside a handler of it) stays routed, and so does one
 * whose nudge found another of its kind pending (Linux keeps one standard
 * signal pending of each kind); the G's next door runs them. *restart
 * (if asked) becomes false when a handler that ran was installed without
 * SA_RESTART. Returns how many of the program's handlers ran: a default
 * or ignore action carried out on the trampoline interrupts nothing, as
 * in the kernel. */
static int raise_pending(struct g *gp, bool *restart)
{
	if (!sigq_pending_for(gp))
		return 0;	/* the common case: one load */
	uint32_t start = gp->nhandled;
	uint64_t left = 0;	/* signals whose nudge ran nothing */
	for (int round = 0; round < 64; round++) {
		uint64_t kmask;
		if (arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &kmask, 8) != 0)
			break;
		uint64_t can = ld_acq(&gp->sigpend) & ~ld_rlx(&gp->sigmask) & ~kmask & ~left;
		if (!can)
			break;
		/* in the kernel's order: the thread's own signals before the
		 * process's, each the lowest-numbered first (under sigsuspend
		 * the first one decides which others run) */
		bool own;
		int sig = sigq_next(gp, can, false, &own);
		if (!sig)
			sig = __builtin_ctzll(can) + 1;
		if (restart) {
			struct sigaction sa;
			if (real_sigaction(sig, NULL, &sa) == 0 && !(sa.sa_flags & SA_RESTART) &&
			    sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL)
				*restart = false;
		}
		uint32_t before = gp->ndelivered;
		nudge_self(sig);
		if (gp->ndelivered != before)
			continue;
		/* Nothing ran. An instance whose action ignores it by now (one
		 * the trampoline caught on another thread just before the
		 * action changed, routed after sigaction discarded the rest)
		 * is dropped, as the kernel drops it; any other is left for
		 * the next door. The other signals' turns come either way. */
		struct sigaction now = user_act[sig];
		if (!user_set[sig] && real_sigaction(sig, NULL, &now) != 0)
			now.sa_handler = SIG_DFL;
		if (ignores(sig, &now))
			sigq_discard(sig);
		else
			left |= sigq_bit(sig);
	}
	if (sigq_pending_for(gp))
		atomic_fetch_or_explicit(&gp->door, DOOR_SIGNAL, memory_order_relaxed);
	return (int)(gp->nhandled - start);
}

/* Where libgmp holds no lock of its own (its callers' contract): the
 * handlers run as the program's code, which may block in a system call
 * sysmon then takes the P from (g->inlib 0), and libgmp goes on with
 * its P again. */
static int run_handlers(struct g *gp, bool *restart)
{
	int n;
	GMP_PROGRAM(n = raise_pending(gp, restart));
	return n;
}

/* A fault this thread caused: its handler runs at the instruction. */
static bool fault_here(int sig, const siginfo_t *info)
{
	return info->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
				     sig == SIGILL || sig == SIGTRAP || sig == SIGSYS);
}

static bool thread_signal(int sig, const siginfo_t *info)
{
	/* tgkill, raise, pthread_kill: this thread */
	return info->si_code == SI_TKILL || fault_here(sig, info);
}

/* SIGSEGV and SIGBUS keep the trampoline even at their default action,
 * run on the M's alternate stack: a G that overflows its stack is named
 * on stderr before the process dies as it would have. */
static bool is_fault_sig(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS;
}

/* The dump signal (GMPDEBUG=dump, SIGQUIT by default) keeps the
 * trampoline too while the program has no handler for it: every thread
 * is listed, then the default action happens. */
static bool is_dump_sig(int sig)
{
	return sig == rt_cfg.dump_sig;
}

static void thread_dump(int sig)
{
	struct g *gp = getg();
	rt_printf(2, "gmp: signal %d: every thread\n", sig);
	dump_threads(2, gp && gp->m && gp->m->curg == gp ? gp : NULL);
	rt_printf(2, "\n");
}

static void report_overflow(const siginfo_t *info, void *uc)
{
	uintptr_t lo, hi, addr = (uintptr_t)info->si_addr;
	if (info->si_code <= 0)
		return;
	if (info->si_code == SI_KERNEL && addr == 0) {
		/* the kernel found no room for another signal's frame (a
		 * preemption request's, say) below the stack pointer: the
		 * frame, up to a few KiB of saved registers, went into the
		 * guard */
		uintptr_t sp = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
		addr = sp > 16384 ? sp - 16384 : 0;
	}
	if (!sched_stack_overflow(addr, &lo, &hi))
		return;
	struct g *gp = getg();
	rt_printf(2, "gmp: thread %lu (%s) overflowed its stack [%p, %p): fault at %p\n",
		  gp ? (unsigned long)gp->goid : 0ul, gp && gp->name[0] ? gp->name : "unnamed",
		  (void *)lo, (void *)hi, (void *)addr);
}

/* Runs wherever the kernel delivered: no stack protector, since on a
 * scheduler stack %fs names some other thread's TLS. Uses no errno. */
__attribute__((no_stack_protector)) static void trampoline(int sig, siginfo_t *info, void *uc)
{
	if (sig == SCHED_SIG) {
		/* sysmon's request, never the program's: a thread running
		 * its own code is preempted */
		if (info->si_code == SCHED_SIG_PREEMPT) {
			sched_sig_request(uc);
			return;
		}
		if (!is_handler(&user_act[SCHED_SIG]))
			return;	/* SIGURG's default action is to ignore it */
	}
	if (is_dump_sig(sig) && user_act[sig].sa_handler == SIG_DFL) {
		thread_dump(sig);
		default_action(sig);
		return;
	}
	bool is_m;
	struct g *gp = sigq_current_g(uc, &is_m);
	if (is_fault_sig(sig) && info->si_code > 0) {
		/* a fault: handled where it happened, whatever runs there */
		report_overflow(info, uc);
		if (gp)
			call_user(sig, info, uc);
		else
			call_handler(sig, info, uc);
		return;
	}

	if (!is_m) {
		if (sysmon_is_current()) {
			/* a descriptor's or a timer's for a G (for nobody once
			 * that G has ended, as under Linux), or one taken for
			 * a G that waits */
			siginfo_t fi;
			const siginfo_t *si = &fi;
			int owner = fd_sig_owner(info, &fi);
			if (!owner) {
				owner = gmp_timer_owner(info);
				si = info;
			}
			struct g *tg = owner ? proc_by_tid(owner) : NULL;
			if (!owner || tg)
				sigq_post(tg, si);
		}
		else
			call_handler(sig, info, uc);	/* a thread glibc made */
		return;
	}
	if (info->si_code == SIGQ_NUDGE) {
		/* whatever it interrupted, libgmp's code included, goes on
		 * after the handlers: it must find the G as it left it. The
		 * kernel made this a delivery of sig (its mask applied). On
		 * g0 or an idle M the records stay, for the G's door. */
		if (gp && g_in_runtime(gp, uc))
			hold_back(gp);
		else if (gp)
			run_routed(gp, sig, uc);
		kwait_signal_here(gp, uc);
		return;
	}
	if (gp) {
		if (gp->sig_reinject == sig) {
			gp->sig_reinject = 0;
			call_user(sig, info, uc);
			return;
		}
		/* the kernel mask is the G's, but for SCHED_SIG */
		bool blocked = ld_rlx(&gp->sigmask) & sigq_bit(sig);
		if (!fault_here(sig, info) && g_in_runtime(gp, uc) &&
		    sigq_post(thread_signal(sig, info) ? gp : NULL, info)) {
			/* routed as any posted signal, its handler runs at the
			 * G's next door */
			hold_back(gp);
			return;
		}
		if (thread_signal(sig, info)) {
			if (!blocked || !sigq_post(gp, info))
				call_user(sig, info, uc);
			return;
		}
		/* a process signal: the main thread if it takes it, else a
		 * G waiting for it, else this one (sigq.c's choose_target) */
		struct g *mg = sched.maing;
		bool main_takes = g_status(mg) != G_DEAD &&
				  (!(ld_rlx(&mg->sigmask) & sigq_bit(sig)) ||
				   (ld_acq(&mg->sigwant) & sigq_bit(sig)));
		bool here = !blocked && (gp == mg || (!main_takes && !sigq_wanting(sig)));
		if (here || (!sigq_post(NULL, info) && !blocked))
			call_user(sig, info, uc);
		return;
	}
	/* between Gs or idle: routed to a G that takes it */
	sigq_post(NULL, info);
}

static bool catchable(int sig);

/* SIGCHLD ignored: the kernel reaps the children itself and sends no
 * SIGCHLD for them, which only that action in the kernel does; the
 * trampoline never stands in for it. */
static bool reaps_children(int sig, const struct sigaction *a)
{
	return sig == SIGCHLD && a->sa_handler == SIG_IGN;
}

GMP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	GMP_ENTRY(sigaction, sig, act, oact);
	if (sig <= 0 || sig >= NSIG)
		return real_sigaction(sig, act, oact);	/* glibc's EINVAL */
	if (act && sched_in_vfork_child())
		return real_sigaction(sig, act, oact);	/* the parent's table stays */
	struct sigaction kold;
	int r;
	rt_lock(&act_lock);
	if (act && (is_handler(act) || sig == SCHED_SIG ||
		    ((is_fault_sig(sig) || is_dump_sig(sig)) && act->sa_handler == SIG_DFL))) {
		/* SCHED_SIG keeps the trampoline: sysmon's requests come on it */
		struct sigaction k = *act;
		if (!is_handler(act))
			k.sa_flags = SA_RESTART;
		k.sa_sigaction = trampoline;
		k.sa_flags = (k.sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
		if (is_fault_sig(sig))
			k.sa_flags |= SA_ONSTACK;
		/* sysmon's requests must not make system calls fail with
		 * EINTR where the program would never have seen it */
		if (sig == SCHED_SIG)
			k.sa_flags |= SA_RESTART;
		r = real_sigaction(sig, &k, &kold);
		if (r == 0)
			atomic_fetch_or(&tramp_set, sigq_bit(sig));
	} else if (act && !is_handler(act) && sigq_blocked_any(sig) && catchable(sig) &&
		   !reaps_children(sig, act)) {
		/* a default or ignore action for a signal some thread blocks:
		 * the trampoline keeps it (gmp_sig_blocked); SA_NOCLDWAIT
		 * stays the kernel's */
		struct sigaction k = *act;
		k.sa_sigaction = trampoline;
		k.sa_flags = SA_RESTART | SA_SIGINFO | (act->sa_flags & SA_NOCLDWAIT);
		r = real_sigaction(sig, &k, &kold);
		if (r == 0)
			atomic_fetch_or(&tramp_set, sigq_bit(sig));
	} else {
		r = real_sigaction(sig, act, &kold);
		if (r == 0 && act)
			atomic_fetch_and(&tramp_set, ~sigq_bit(sig));
	}
	bool handler = r == 0 && act && is_handler(act);
	/* an action that ignores the signal discards its pending instances,
	 * libgmp's too (POSIX; the kernel does it for its own) */
	if (r == 0 && act && ignores(sig, act))
		sigq_discard(sig);
	if (r == 0) {
		bool ours = (kold.sa_flags & SA_SIGINFO) && kold.sa_sigaction == trampoline;
		if (oact)
			*oact = ours && user_set[sig] ? user_act[sig] : kold;
		if (act)
			set_user_act(sig, act);
	}
	rt_unlock(&act_lock);
	/* a signal taken by an idle OS thread is routed by sysmon: a
	 * program that never made a thread has none yet, and its only
	 * thread may wait where only a signal ends the wait (pause-like
	 * poll or select with nothing to watch) */
	if (handler)
		sched_start();
	return r;
}

/* Under act_lock: make the kernel action of sig the trampoline, with
 * flags, the program's own action (old) kept as the one it sees and the
 * trampoline carries out. */
static void take_over_locked(int sig, const struct sigaction *old, int flags)
{
	set_user_act(sig, old);
	struct sigaction k = *old;
	k.sa_sigaction = trampoline;
	k.sa_flags = (flags & ~SA_RESETHAND) | SA_SIGINFO;
	if (real_sigaction(sig, &k, NULL) == 0)
		atomic_fetch_or(&tramp_set, sigq_bit(sig));
}

void gmp_signal_init(void)
{
	door_hooks.signals = run_handlers;
	door_hooks.cancel = gmp_cancel_act;
	sync_dump_init();
	struct sigaction old;
	/* faults and the dump signal, at their default action */
	const int kept[] = {SIGSEGV, SIGBUS, rt_cfg.dump_sig};
	for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
		int sig = kept[i];
		rt_lock(&act_lock);
		if (sig && real_sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			take_over_locked(sig, &old, SA_ONSTACK | SA_NODEFER);
		rt_unlock(&act_lock);
	}
	/* SCHED_SIG, whatever its action: sysmon's requests come on it */
	rt_lock(&act_lock);
	if (real_sigaction(SCHED_SIG, NULL, &old) == 0)
		take_over_locked(SCHED_SIG, &old,
				 (is_handler(&old) ? old.sa_flags : 0) | SA_RESTART);
	rt_unlock(&act_lock);
}

static bool catchable(int sig)
{
	return sig != SIGKILL && sig != SIGSTOP && sig != 32 && sig != 33;
}

/*
 * Signals a thread blocks at their default or ignore action: an OS
 * thread between Gs still has the kernel mask of the last G it ran, which
 * may not block them, and the kernel would carry out the default action
 * there (ending the process), or drop an ignored one, where NPTL keeps
 * the signal pending for a thread that takes it (a blocked signal is
 * never ignored). The trampoline takes them instead, and routes them to a
 * G that takes them, or keeps them pending for the process.
 */
void gmp_sig_blocked(uint64_t set)
{
	set &= ~ld_acq(&tramp_set);
	for (int sig = 1; set && sig < 64 && sig < NSIG; sig++) {
		if (!(set & sigq_bit(sig)) || !catchable(sig))
			continue;
		struct sigaction old;
		rt_lock(&act_lock);
		if (real_sigaction(sig, NULL, &old) == 0 && !is_handler(&old) &&
		    !reaps_children(sig, &old))
			take_over_locked(sig, &old, SA_RESTART | (old.sa_flags & SA_NOCLDWAIT));
		rt_unlock(&act_lock);
	}
}

void gmp_sig_catch(uint64_t set)
{
	for (int sig = 1; sig < 64 && sig < NSIG; sig++) {
		if (!(set & sigq_bit(sig)) || !catchable(sig))
			continue;
		struct sigaction old;
		rt_lock(&act_lock);
		if (real_sigaction(sig, NULL, &old) == 0 && !reaps_children(sig, &old) &&
		    !((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == trampoline))
			take_over_locked(sig, &old, old.sa_flags | SA_RESTART);
		rt_unlock(&act_lock);
	}
}

/* glibc's checks: SIG_ERR is no handler, and its reserved signals (32,
 * 33) are no signals to the program. self: the signal is blocked while
 * its handler runs (BSD's), else it is not named in the mask. */
static sighandler_t install(int sig, sighandler_t h, int flags, bool self)
{
	if (h == SIG_ERR || sig < 1 || sig >= NSIG || sig == 32 || sig == 33) {
		errno = EINVAL;
		return SIG_ERR;
	}
	struct sigaction a = {0}, old;
	a.sa_handler = h;
	a.sa_flags = flags;
	sigemptyset(&a.sa_mask);
	if (self)
		sigaddset(&a.sa_mask, sig);
	if (sigaction(sig, &a, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

/* glibc's signal() has BSD semantics: restart, handler stays. */
GMP_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	return install(sig, h, SA_RESTART, true);
}

GMP_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return install(sig, h, SA_RESTART, true);
}

/* glibc's ssignal is its bsd_signal under another name */
GMP_EXPORT sighandler_t ssignal(int sig, sighandler_t h)
{
	return install(sig, h, SA_RESTART, true);
}

/* glibc exports sigaction under this name too; a program that calls it
 * must not install its handler past the trampoline */
GMP_EXPORT int __sigaction(int sig, const struct sigaction *act, struct sigaction *oact)
{
	return sigaction(sig, act, oact);
}

GMP_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return install(sig, h, SA_RESETHAND | SA_NODEFER, false);
}

GMP_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t h)
{
	return sysv_signal(sig, h);
}

/* SIGCONT is sent: the stop signals pending, libgmp's and the kernel's
 * (this OS thread's and the process's), are dropped, as the kernel's
 * prepare_signal drops them; there is nothing to continue, the sender
 * runs. */
static void discard_stops(void)
{
	static const int stops[] = {SIGTSTP, SIGTTIN, SIGTTOU};
	uint64_t all = 0, k = 0;
	for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
		sigq_discard(stops[i]);
		all |= sigq_bit(stops[i]);
	}
	arch_syscall2(SYS_rt_sigpending, &k, 8);
	struct timespec zero = {0, 0};
	siginfo_t si;
	while ((k & all) && arch_syscall4(SYS_rt_sigtimedwait, &all, &si, &zero, 8) > 0)
		;
}

/* Does sig's action, in the kernel, ignore it? */
static bool ignored(int sig)
{
	struct sigaction k;
	if (real_sigaction(sig, NULL, &k) != 0 || (k.sa_flags & SA_SIGINFO))
		return false;
	return k.sa_handler == SIG_IGN || (k.sa_handler == SIG_DFL && ignored_by_default(sig));
}

int gmp_signal_process(int sig, const union sigval *val)
{
	if (sig <= 0 || sig >= 64 || sig >= NSIG || !catchable(sig) || sig == SCHED_SIG ||
	    sched_in_vfork_child())
		return -1;
	/* a stop signal stops the process (and drops a pending SIGCONT):
	 * the kernel's to send */
	if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
		return -1;
	if (sig == SIGCONT)
		discard_stops();
	if (!(ld_acq(&tramp_set) & sigq_bit(sig)))
		/* the kernel acts on it itself; or it ignores it, no G
		 * blocking it (else the trampoline would have it): dropped
		 * here, where the kernel would keep it pending if the OS
		 * thread the process's id names blocked it, which under libgmp
		 * may run any G, or none */
		return ignored(sig) ? 0 : -1;
	const struct sigaction *a = &user_act[sig];
	if (!is_handler(a) && (is_fault_sig(sig) || is_dump_sig(sig)))
		return -1;	/* the trampoline's own default actions */
	siginfo_t si = {0};
	si.si_signo = sig;
	si.si_code = val ? SI_QUEUE : SI_USER;
	si.si_pid = (pid_t)arch_syscall0(SYS_getpid);
	si.si_uid = (uid_t)arch_syscall0(SYS_getuid);
	if (val)
		si.si_value = *val;
	struct p *pp = sched_my_p();
	if (!sigq_send(NULL, &si, pp))
		return -1;
	sigq_poll(pp);
	return 0;
}

/* pthread_kill/pthread_sigqueue to a G (thread_np.c). */
int gmp_signal_g(struct g *gp, const siginfo_t *info)
{
	struct g *me = getg();
	if (gp == me && !(ld_rlx(&me->sigmask) & sigq_bit(info->si_signo))) {
		me->sig_reinject = info->si_signo;
		long r = reinject(info->si_signo, info);
		return r < 0 ? (int)-r : 0;
	}
	struct p *pp = sched_my_p();
	if (!sigq_send(gp, info, pp))
		return EAGAIN;
	sigq_poll(pp);
	return 0;
}
