/* SPDX-License-Identifier: MIT */
/*
 * preload/sigwait.c — per-thread signal masks, pending signals, and the
 * calls that wait for signals.
 *
 * Each G has its own mask (g->sigmask). The M's kernel mask follows it
 * while the G runs (execute, sched_apply_sigmask), so the kernel itself
 * keeps a signal blocked by the running G pending, and signalfd, ppoll
 * and the like see the mask they expect. SIGURG, libgmp's scheduling
 * signal, is blocked only in the G's mask, never in the kernel's.
 *
 * A signal for a G that blocks it waits in core/sigq.c, routed to that G
 * (pthread_kill, raise) or to the process (when every G blocks it), and
 * is delivered when the G unblocks it or taken by sigwait.
 *
 * sigwait, sigwaitinfo, sigtimedwait, sigsuspend and pause park the G. A
 * waiting G names the signals that end its wait (sigq_want); they are
 * routed to it first, and sysmon's thread keeps them unblocked, so that a
 * process signal every running thread blocks still reaches libgmp and is
 * handed to the waiter. For sigwait the signals also get libgmp's
 * trampoline in the kernel, so that one at its default action is not
 * acted on by whichever thread the kernel picked.
 *
 * A child of vfork runs on its parent's memory (and G) until it execs:
 * its mask changes go to the kernel only, leaving the parent's G alone.
 */
#include "preload/runtime.h"
#include "core/os.h"
#include "core/sched.h"
#include "core/sigq.h"

#include <errno.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>

/* glibc's reserved signals, which a mask never holds; and the ones the
 * kernel never blocks. */
#define RESERVED (sigq_bit(32) | sigq_bit(33))
#define UNBLOCKABLE (sigq_bit(SIGKILL) | sigq_bit(SIGSTOP))

/* glibc's headers declare the sets of sigwait, sigsuspend & co nonnull;
 * a program may still pass NULL, which the kernel answers with EFAULT:
 * a test the compiler may not drop */
static bool no_set(const sigset_t *set)
{
	const sigset_t *volatile checked = set;
	return checked == NULL;
}

static uint64_t set_bits(const sigset_t *set)
{
	uint64_t m;
	memcpy(&m, set, sizeof m);
	return m;
}

static void bits_set(uint64_t m, sigset_t *set)
{
	memset(set, 0, sizeof *set);
	memcpy(set, &m, sizeof m);
}

/* The G's mask becomes mask (what can never be blocked taken out), the
 * counts of blocked signals and the trampoline's hold on newly blocked
 * ones following; the kernel's mask is left alone. Returns what it was. */
static uint64_t swap_mask(struct g *gp, uint64_t mask)
{
	mask &= ~(RESERVED | UNBLOCKABLE);
	uint64_t old = ld_rlx(&gp->sigmask);
	st_rel(&gp->sigmask, mask);
	sigq_mask_change(old, mask);
	if (mask & ~old)
		gmp_sig_blocked(mask & ~old);
	return old;
}

/* Change the calling G's mask; returns what it was. */
static uint64_t set_mask(struct g *gp, uint64_t mask)
{
	uint64_t old = swap_mask(gp, mask);
	mask = ld_rlx(&gp->sigmask);
	sched_apply_sigmask(gp);
	if (old & ~mask) {
		/* signals waiting for this G, or for the process, may now be
		 * its to run; sysmon's thread may have to take more */
		sysmon_kick();
		sigq_reroute(sched_my_p());
		door_signals(gp);
	}
	return old;
}

uint64_t gmp_call_mask_begin(struct g *gp, const sigset_t *mask)
{
	uint64_t old = swap_mask(gp, set_bits(mask));
	if (old & ~ld_rlx(&gp->sigmask)) {
		/* the process's signals it now takes come to it (each routed
		 * one nudges this thread), and so do its own */
		sigq_reroute(sched_my_p());
		gmp_renudge(gp);
	}
	return old;
}

void gmp_call_mask_end(struct g *gp, uint64_t old)
{
	/* the kernel's mask was old's throughout (the call applied its own) */
	swap_mask(gp, old);
}

/* The text of the unwinder libgmp uses (libunwind: pthread_exit and
 * cancellation unwind through it, thread dumps walk with it); set at
 * start-up. */
static uintptr_t unwinder_lo, unwinder_hi;

void gmp_sigmask_init(void)
{
	if (os_text_range((const void *)_Unwind_ForcedUnwind, &unwinder_lo, &unwinder_hi) != 0)
		unwinder_lo = unwinder_hi = 0;
}

/* A mask change the unwinder makes around its own lookups (it blocks
 * every signal on its OS thread, then puts the mask back): libgmp's, not
 * the program's, so it is the kernel's alone. Made the G's, it would have
 * libgmp take every signal at its default action through its trampoline
 * from then on (gmp_sig_blocked), a handler that interrupts system calls
 * where the kernel would have dropped the signal. */
static bool from_unwinder(const void *ra)
{
	return (uintptr_t)ra >= unwinder_lo && (uintptr_t)ra < unwinder_hi;
}

/* Such a change, made in the kernel. The M's record of its kernel mask
 * stays true (set_kmask skips a change it thinks made), and the G
 * carries the signals blocked beyond its own mask to any M it moves to
 * before the unwinder puts the mask back (its lock is a mutex of
 * libgmp's, where the G may wait). */
static int unwinder_mask(int how, const sigset_t *set, sigset_t *old, bool proc)
{
	struct g *gp = getg();
	if (!gp || !gp->m || sched_in_vfork_child())
		return proc ? real_sigprocmask(how, set, old) : real_pthread_sigmask(how, set, old);
	gp->preemptoff++;	/* this M's mask, read back on this M */
	int r = proc ? real_sigprocmask(how, set, old) : real_pthread_sigmask(how, set, old);
	uint64_t now = 0;
	arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &now, 8);
	gp->m->kmask = now;
	gp->kmask_extra = now & ~ld_rlx(&gp->sigmask) & ~sigq_bit(SCHED_SIG);
	gp->preemptoff--;
	return r;
}

static int sigmask_common(int how, const sigset_t *set, sigset_t *old)
{
	struct g *gp = getg();
	uint64_t cur = ld_rlx(&gp->sigmask), next = cur;
	if (set) {
		uint64_t s = set_bits(set);
		switch (how) {
		case SIG_BLOCK:
			next = cur | s;
			break;
		case SIG_UNBLOCK:
			next = cur & ~s;
			break;
		case SIG_SETMASK:
			next = s;
			break;
		default:
			return EINVAL;
		}
	}
	if (old)
		bits_set(cur, old);
	if (set)
		set_mask(gp, next);
	return 0;
}

GMP_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (from_unwinder(__builtin_return_address(0)))
		return unwinder_mask(how, set, old, false);	/* no door: libgmp's own */
	GMP_ENTRY(pthread_sigmask, how, set, old);
	if (!getg() || sched_in_vfork_child())
		return real_pthread_sigmask(how, set, old);
	return sigmask_common(how, set, old);
}

GMP_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (from_unwinder(__builtin_return_address(0)))
		return unwinder_mask(how, set, old, true);	/* no door: libgmp's own */
	GMP_ENTRY(sigprocmask, how, set, old);
	if (!getg() || sched_in_vfork_child())
		return real_sigprocmask(how, set, old);
	int r = sigmask_common(how, set, old);
	if (r) {
		errno = r;
		return -1;
	}
	return 0;
}

GMP_EXPORT int sigpending(sigset_t *set)
{
	GMP_ENTRY(sigpending, set);
	struct g *gp = getg();
	if (!gp)
		return real_sigpending(set);
	uint64_t k = 0;
	arch_syscall2(SYS_rt_sigpending, &k, 8);
	uint64_t mask = ld_rlx(&gp->sigmask);
	bits_set((k | sigq_pending_mask(gp)) & mask, set);
	return 0;
}

/* raise acts on the calling G, not on the OS thread it runs on. */
GMP_EXPORT int raise(int sig)
{
	GMP_ENTRY(raise, sig);
	struct g *gp = getg();
	if (!gp)
		return real_raise(sig);
	/* glibc's reserved signals, which pthread_kill's checks let by */
	int r = sig == 32 || sig == 33 ? EINVAL : gmp_kill_g(gp, sig, NULL);
	if (r) {
		errno = r;
		return -1;
	}
	return 0;
}

GMP_ALIAS(gsignal, raise)

/* kill and sigqueue are the kernel's, behind the doors: a thread that
 * signals the process in a loop (which the kernel spends most of) gives
 * its processor up there when asked, and runs the handlers of the
 * signals routed to it. A signal a thread sends its own process is
 * queued by libgmp itself (gmp_signal_process) where the kernel would
 * only hand it to libgmp's trampoline on some OS thread: it is then
 * pending, or on its way to a thread, when the call returns, as under
 * NPTL, not still in flight through another OS thread. */
static bool own_process(pid_t pid)
{
	return pid > 0 && getg() && pid == (pid_t)arch_syscall0(SYS_getpid);
}

GMP_EXPORT int kill(pid_t pid, int sig)
{
	GMP_ENTRY(kill, pid, sig);
	if (own_process(pid) && gmp_signal_process(sig, NULL) == 0)
		return 0;
	return real_kill(pid, sig);
}

GMP_EXPORT int sigqueue(pid_t pid, int sig, const union sigval val)
{
	GMP_ENTRY(sigqueue, pid, sig, val);
	if (own_process(pid) && gmp_signal_process(sig, &val) == 0)
		return 0;
	return real_sigqueue(pid, sig, val);
}

/* --- waiting --------------------------------------------------------------------- */

struct sigpark {
	uint64_t want;
	int64_t deadline;
	uint64_t seq;
};

/* On g0: a signal it waits for may have been posted before the G said
 * it waits (nobody routed it here): do not park then, once the G has
 * claimed its own wake-up. A router that claimed it first will make the
 * G runnable, so the G parks after all and waits for that. */
static bool sigpark_unlock(struct m *mp, struct g *gp, void *arg)
{
	struct sigpark *a = arg;
	if ((sigq_takeable_mask(gp) & (a->want | ~ld_rlx(&gp->sigmask))) && g_claim(gp, a->seq))
		return false;
	if (a->deadline)
		timer_add(&gp->timer, mp->p);
	return true;
}

/* Park until a signal in want (or one the G does not block) is routed
 * to it, or the deadline (0: none) passes. */
static void sig_park(struct g *gp, uint64_t want, int64_t deadline)
{
	uint64_t seq = g_arm(gp);
	struct sigpark a = {want, deadline, seq};
	if (deadline)
		g_timer_prepare(gp, deadline, seq);
	sigq_want(gp, want);
	fence_seq();
	/* sysmon's thread is the catcher of signals every running thread
	 * blocks: a program that never made a thread has none yet */
	sched_start();
	sysmon_kick();
	g_park(sigpark_unlock, &a, WAIT_SIGNAL);
	if (deadline)
		timer_del(&gp->timer);
	sigq_unwant(gp);
}

/* Take a signal in want that is already pending: routed to this G, for
 * the process, or in the kernel (for this OS thread or the process). */
static bool kernel_take(uint64_t k, siginfo_t *info);

static bool take_pending(struct g *gp, uint64_t want, siginfo_t *info)
{
	/* the kernel's order, wherever the signals wait: the thread's own
	 * first, then the lowest-numbered of the process's, the kernel's
	 * pending ones (the process's, held while every OS thread blocked
	 * them) numbered below libgmp's next among them */
	bool own;
	int next = sigq_next(gp, want, true, &own);
	if (!next)
		return kernel_take(want, info);
	uint64_t below = want & (sigq_bit(next) - 1);
	if (!own && below && kernel_take(below, info))
		return true;
	return sigq_take_mask(gp, want, true, info) || kernel_take(want, info);
}

/* Take a signal in k pending in the kernel (for this OS thread or the
 * process), without waiting. */
static bool kernel_take(uint64_t k, siginfo_t *info)
{
	struct timespec zero = {0, 0};
	for (;;) {
		long r = arch_syscall4(SYS_rt_sigtimedwait, &k, info, &zero, 8);
		if (r <= 0)
			return false;
		if (info->si_code == SIGQ_NUDGE ||
		    (r == SCHED_SIG && info->si_code == SCHED_SIG_PREEMPT))
			continue;	/* libgmp's own, never the program's */
		return true;
	}
}

/* sigtimedwait with an absolute CLOCK_MONOTONIC deadline (0: none);
 * restart: sigwait's behaviour (a handler run meanwhile does not end
 * the wait). Returns the signal or -errno. */
static int wait_for(struct g *gp, uint64_t want, int64_t deadline, bool restart, siginfo_t *info)
{
	want &= ~(RESERVED | UNBLOCKABLE);
	door_testcancel(gp);
	gmp_sig_catch(want);
	for (;;) {
		if (take_pending(gp, want, info))
			return info->si_signo;
		if (door_signals(gp) && !restart)
			return -EINTR;
		if (deadline && rt_nanotime() >= deadline)
			return -EAGAIN;
		sig_park(gp, want, deadline);
		door_testcancel(gp);
	}
}

/* sigwaitinfo and sigtimedwait: the signal, or -1 with errno. */
static int wait_info(struct g *gp, const sigset_t *set, int64_t deadline, siginfo_t *info)
{
	siginfo_t si;
	int r = wait_for(gp, set_bits(set), deadline, false, &si);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	/* as glibc's: SI_TKILL (tgkill, raise, pthread_kill) reads SI_USER */
	if (si.si_code == SI_TKILL)
		si.si_code = SI_USER;
	if (info)
		*info = si;
	return r;
}

GMP_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	GMP_ENTRY(sigwait, set, sig);
	struct g *gp = getg();
	if (!gp)
		return real_sigwait(set, sig);
	if (no_set(set)) {
		/* the kernel's, on the set it could not read; glibc's sigwait
		 * leaves it in errno too */
		errno = EFAULT;
		return EFAULT;
	}
	siginfo_t info;
	int r = wait_for(gp, set_bits(set), 0, true, &info);
	if (r < 0)
		return -r;
	*sig = r;
	return 0;
}

GMP_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	GMP_ENTRY(sigwaitinfo, set, info);
	struct g *gp = getg();
	if (!gp)
		return real_sigwaitinfo(set, info);
	if (no_set(set)) {
		errno = EFAULT;
		return -1;
	}
	return wait_info(gp, set, 0, info);
}

GMP_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *t)
{
	GMP_ENTRY(sigtimedwait, set, info, t);
	struct g *gp = getg();
	if (!gp)
		return real_sigtimedwait(set, info, t);
	if (no_set(set)) {
		errno = EFAULT;	/* the kernel reads the set first */
		return -1;
	}
	int64_t deadline = 0;
	if (t) {
		if (t->tv_sec < 0 || t->tv_nsec < 0 || t->tv_nsec >= 1000000000) {
			errno = EINVAL;
			return -1;
		}
		int64_t ns = t->tv_sec > INT64_MAX / 4000000000 ? INT64_MAX / 4
							       : t->tv_sec * 1000000000 + t->tv_nsec;
		deadline = rt_nanotime() + (ns ? ns : 1);
	}
	return wait_info(gp, set, deadline, info);
}

/* --- signalfd ----------------------------------------------------------------------- */

/*
 * A signalfd reads the signals pending for the calling thread and for
 * the process. Those libgmp holds (sent to a G that blocks them, or to
 * the process while every G does) are not in the kernel, which sees only
 * the OS thread's and the process's own: a G's read of a signalfd takes
 * them here, with the kernel's, in the kernel's order (take_pending), and
 * writes each record as the kernel's signalfd_copyinfo does; its poll
 * and select find them readable (shim/poll.c).
 */

uint64_t gmp_sig_held(struct g *gp)
{
	return sigq_takeable_mask(gp);
}

/* The kernel's siginfo_layout: which fields a signal's record holds,
 * by its number and code (the limits are the kernel's NSIG* counts). */
enum { L_KILL, L_TIMER, L_POLL, L_FAULT, L_CHLD, L_RT, L_SYS };

static int layout(int sig, int code)
{
	static const signed char limit[32] = {
		[SIGILL] = 11, [SIGFPE] = 15, [SIGSEGV] = 10, [SIGBUS] = 5, [SIGTRAP] = 6,
		[SIGCHLD] = 6, [SIGPOLL] = 6, [SIGSYS] = 2,
	};
	if (code > SI_USER && code < SI_KERNEL) {
		if (sig > 0 && sig < 32 && code <= limit[sig])
			return sig == SIGCHLD ? L_CHLD : sig == SIGPOLL ? L_POLL : sig == SIGSYS ? L_SYS
												    : L_FAULT;
		return code <= limit[SIGPOLL] ? L_POLL : L_KILL;
	}
	return code == SI_TIMER ? L_TIMER : code == SI_SIGIO ? L_POLL : code < 0 ? L_RT : L_KILL;
}

/* si as the kernel's signalfd_copyinfo writes it. */
static void to_ssi(const siginfo_t *si, struct signalfd_siginfo *o)
{
	memset(o, 0, sizeof *o);
	o->ssi_signo = (uint32_t)si->si_signo;
	o->ssi_errno = si->si_errno;
	o->ssi_code = si->si_code;
	int l = layout(si->si_signo, si->si_code);
	if (l == L_KILL || l == L_CHLD || l == L_RT) {
		o->ssi_pid = (uint32_t)si->si_pid;
		o->ssi_uid = si->si_uid;
	}
	switch (l) {
	case L_TIMER:
		o->ssi_tid = (uint32_t)si->si_timerid;
		o->ssi_overrun = (uint32_t)si->si_overrun;
		o->ssi_ptr = (uint64_t)(uintptr_t)si->si_ptr;
		o->ssi_int = si->si_int;
		break;
	case L_POLL:
		o->ssi_band = (uint32_t)si->si_band;
		o->ssi_fd = si->si_fd;
		break;
	case L_FAULT:
		o->ssi_addr = (uint64_t)(uintptr_t)si->si_addr;
		if (si->si_signo == SIGBUS && (si->si_code == BUS_MCEERR_AR || si->si_code == BUS_MCEERR_AO))
			o->ssi_addr_lsb = (uint16_t)si->si_addr_lsb;
		break;
	case L_CHLD:
		o->ssi_status = si->si_status;
		o->ssi_utime = (uint64_t)si->si_utime;
		o->ssi_stime = (uint64_t)si->si_stime;
		break;
	case L_RT:
		o->ssi_ptr = (uint64_t)(uintptr_t)si->si_ptr;
		o->ssi_int = si->si_int;
		break;
	case L_SYS:
		o->ssi_call_addr = (uint64_t)(uintptr_t)si->si_call_addr;
		o->ssi_syscall = si->si_syscall;
		o->ssi_arch = si->si_arch;
		break;
	default:
		break;
	}
}

ssize_t gmp_sigfd_read(struct g *gp, uint64_t mask, bool nonblock, void *buf, size_t n)
{
	struct signalfd_siginfo *out = buf;
	size_t count = n / sizeof *out, got = 0;
	mask &= ~(RESERVED | UNBLOCKABLE);
	door_testcancel(gp);
	for (;;) {
		/* as the kernel's: the first record may be waited for, the
		 * others are taken if they are there */
		siginfo_t si;
		while (got < count && take_pending(gp, mask, &si))
			to_ssi(&si, &out[got++]);
		if (got)
			return (ssize_t)(got * sizeof *out);
		if (nonblock)
			return -EAGAIN;
		bool restart = true;
		if (door_signals_restart(gp, &restart) && !restart)
			return -EINTR;
		sig_park(gp, mask, 0);
		door_testcancel(gp);
	}
}

/* Wait with the mask `mask` until a handler has run on this G. The
 * first handler that runs keeps its mask until the wait ends
 * (g->sig_nest): of the instances pending of its signal one runs, and
 * the mask the wait puts back holds the others, as the kernel's frames
 * do. */
static int suspend(struct g *gp, uint64_t mask)
{
	door_testcancel(gp);
	/* a signal its action ignores does not end the wait */
	uint32_t handled = gp->nhandled;
	bool outer = gp->sig_nest;
	gp->sig_nest = true;
	/* signals the new mask lets through run at once, on this G: those
	 * the kernel holds when the mask is applied, and libgmp's */
	uint64_t old = set_mask(gp, mask);
	mask = ld_rlx(&gp->sigmask);
	while (gp->nhandled == handled) {
		sig_park(gp, ~mask & ~(RESERVED | UNBLOCKABLE), 0);
		door_signals(gp);
		if (gp->nhandled == handled && g_cancel_acts(gp)) {
			gp->sig_nest = outer;	/* the thread ends here */
			door_testcancel(gp);
		}
	}
	gp->sig_nest = outer;
	set_mask(gp, old);
	errno = EINTR;
	return -1;
}

GMP_EXPORT int sigsuspend(const sigset_t *set)
{
	GMP_ENTRY(sigsuspend, set);
	struct g *gp = getg();
	if (!gp)
		return real_sigsuspend(set);
	if (no_set(set)) {
		errno = EFAULT;
		return -1;
	}
	return suspend(gp, set_bits(set));
}

GMP_EXPORT int pause(void)
{
	GMP_ENTRY(pause);
	struct g *gp = getg();
	if (!gp)
		return real_pause();
	return suspend(gp, ld_rlx(&gp->sigmask));
}

/* --- the System V and BSD mask functions ------------------------------------------- */

/*
 * glibc's sighold, sigrelse, sigset, sigignore, sigpause, sigblock,
 * sigsetmask and siggetmask change or read the mask (or the action) with
 * its internal calls, past libgmp's sigprocmask and sigaction: the
 * kernel's mask would change behind the G's, and be lost at its next
 * switch. Here they go through the G's mask (and sigaction), with glibc's
 * results and errors.
 */

/* glibc's sigaddset and sigdelset refuse its reserved signals too */
static bool valid_sig(int sig)
{
	return sig > 0 && sig < NSIG && sig != 32 && sig != 33;
}

/* One signal added to (how SIG_BLOCK) or taken from the mask. */
static int change_one(int how, int sig)
{
	if (!valid_sig(sig)) {
		errno = EINVAL;
		return -1;
	}
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	return sigprocmask(how, &s, NULL);
}

GMP_EXPORT int sighold(int sig)
{
	GMP_PASS(sighold, sig);
	return change_one(SIG_BLOCK, sig);
}

GMP_EXPORT int sigrelse(int sig)
{
	GMP_PASS(sigrelse, sig);
	return change_one(SIG_UNBLOCK, sig);
}

GMP_EXPORT int sigignore(int sig)
{
	GMP_PASS(sigignore, sig);
	struct sigaction a = {0};
	a.sa_handler = SIG_IGN;
	sigemptyset(&a.sa_mask);
	return sigaction(sig, &a, NULL);
}

GMP_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	GMP_PASS(sigset, sig, disp);
	if (!valid_sig(sig)) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigset_t s, old;
	sigemptyset(&s);
	sigaddset(&s, sig);
	struct sigaction prev;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &s, &old) < 0 || sigaction(sig, NULL, &prev) < 0)
			return SIG_ERR;
		return sigismember(&old, sig) ? SIG_HOLD : prev.sa_handler;
	}
	struct sigaction a = {0};
	a.sa_handler = disp;
	sigemptyset(&a.sa_mask);
	if (sigaction(sig, &a, &prev) < 0 || sigprocmask(SIG_UNBLOCK, &s, &old) < 0)
		return SIG_ERR;
	return sigismember(&old, sig) ? SIG_HOLD : prev.sa_handler;
}

/* BSD masks: an int whose bit n - 1 is signal n, as the first word of a
 * sigset_t (glibc's way: bit 31, its reserved signal 32, is left out by
 * sigprocmask, and errno is not touched). */
static void bsd_set(int mask, sigset_t *s)
{
	bits_set((uint64_t)(uint32_t)mask, s);
}

static int bsd_mask(int how, int mask)
{
	sigset_t s, old;
	bsd_set(mask, &s);
	if (sigprocmask(how, how == SIG_BLOCK && !mask ? NULL : &s, &old) < 0)
		return -1;
	return (int)(uint32_t)set_bits(&old);
}

GMP_EXPORT int sigblock(int mask)
{
	GMP_PASS(sigblock, mask);
	return bsd_mask(SIG_BLOCK, mask);
}

GMP_EXPORT int sigsetmask(int mask)
{
	GMP_PASS(sigsetmask, mask);
	return bsd_mask(SIG_SETMASK, mask);
}

GMP_EXPORT int siggetmask(void)
{
	GMP_PASS(siggetmask);
	return bsd_mask(SIG_BLOCK, 0);
}

/* sigpause: BSD's takes the mask to wait with; X/Open's (__xpg_sigpause,
 * what <signal.h> names sigpause with _XOPEN_SOURCE) the one signal to
 * let through. */
static int sig_pause(int sig_or_mask, bool xpg)
{
	sigset_t s;
	if (sigprocmask(SIG_BLOCK, NULL, &s) < 0)
		return -1;
	if (xpg) {
		if (!valid_sig(sig_or_mask)) {
			errno = EINVAL;
			return -1;
		}
		sigdelset(&s, sig_or_mask);
	} else {
		bsd_set(sig_or_mask, &s);
	}
	return sigsuspend(&s);
}

GMP_EXPORT int __sigpause(int sig_or_mask, int is_sig)
{
	GMP_PASS(__sigpause, sig_or_mask, is_sig);
	return sig_pause(sig_or_mask, is_sig);
}

/* <signal.h> gives X/Open's the name sigpause (as __xpg_sigpause):
 * BSD's, the symbol sigpause, is defined under its own name */
int bsd_sigpause(int mask) __asm__("sigpause");
GMP_EXPORT int bsd_sigpause(int mask)
{
	GMP_PASS(sigpause, mask);
	return sig_pause(mask, false);
}

GMP_EXPORT int __xpg_sigpause(int sig)
{
	GMP_PASS(__xpg_sigpause, sig);
	return sig_pause(sig, true);
}
