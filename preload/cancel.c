/* SPDX-License-Identifier: MIT */
/*
 * preload/cancel.c — deferred cancellation of Gs.
 *
 * pthread_cancel marks the G and, if it waits at a cancellation point
 * libgmp implements (a sleep, a join), wakes it there; pthread_testcancel
 * and those points then end the thread as pthread_exit(PTHREAD_CANCELED)
 * does, running cleanup handlers and C++ unwinding. Cancellation of a
 * thread glibc made goes to glibc.
 *
 * Asynchronous cancellation of a running G also interrupts it: the
 * canceller sends SIGCANCEL (glibc's reserved signal, which programs cannot
 * use) to the OS thread running it, and the handler, if it interrupted
 * that G in the program's code (not in libgmp, whose locks it may hold),
 * unwinds the G from there, as glibc's handler does. Otherwise the
 * cancellation acts at the G's next cancellation point, as do
 * cancellations of asynchronous Gs that are not running, and waits that
 * are not cancellation points (a mutex) see it when interrupted. A G
 * waiting in the kernel on a process-shared condition variable or
 * semaphore (glibc's code) is interrupted there (core/kwait.h).
 */
#include "preload/runtime.h"
#include "core/kwait.h"
#include "core/os.h"
#include "core/sched.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>

#define SIGCANCEL 32	/* __SIGRTMIN, glibc's */

/* libgmp's own code, where a G must not be unwound asynchronously */
static uintptr_t text_lo, text_hi;
static _Atomic int handler_state;	/* 0 none, 1 installing, 2 installed */

_Noreturn void gmp_cancel_act(struct g *gp)
{
	st_rlx(&gp->cancel_pending, 0u);
	thread_exit_unwind(gp, PTHREAD_CANCELED);
}

static bool is_async(struct g *gp)
{
	return gp->canceltype == PTHREAD_CANCEL_ASYNCHRONOUS &&
	       gp->cancelstate == PTHREAD_CANCEL_ENABLE;
}

static void sigcancel(int sig, siginfo_t *si, void *ucv)
{
	(void)sig;
	if (si->si_code != SI_TKILL || si->si_pid != (pid_t)arch_syscall0(SYS_getpid))
		return;
	/* on g0 %fs names the last G that ran here: only a G this thread is
	 * running now counts */
	struct g *gp = getg();
	if (!gp || !gp->m || gp->m->curg != gp || gp->m->tid != os_gettid())
		return;
	ucontext_t *uc = ucv;
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	if (pc >= text_lo && pc < text_hi)
		return;
	if (!is_async(gp) || !ld_acq(&gp->cancel_pending))
		return;
	st_rlx(&gp->cancel_pending, 0u);
	thread_exit_unwind(gp, PTHREAD_CANCELED);
}

static int find_text(struct dl_phdr_info *info, size_t size, void *base)
{
	(void)size;
	if ((void *)info->dlpi_addr != base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			text_lo = info->dlpi_addr + ph->p_vaddr;
			text_hi = text_lo + ph->p_memsz;
		}
	}
	return 1;
}

/* Install the SIGCANCEL handler, once; valid TLS. */
static void install_sigcancel(void)
{
	int st = 0;
	if (ld_acq(&handler_state) == 2 || !cas(&handler_state, &st, 1)) {
		while (ld_acq(&handler_state) != 2)
			arch_cpu_relax();
		return;
	}
	Dl_info di;
	if (dladdr((void *)sigcancel, &di))
		dl_iterate_phdr(find_text, di.dli_fbase);
	arch_sigaction(SIGCANCEL, sigcancel, 0x10000000 /* SA_RESTART */ | 0x40000000 /* SA_NODEFER */);
	st_rel(&handler_state, 2);
}

/* Interrupt an asynchronously cancellable G where it runs. */
static void cancel_async(struct g *t)
{
	install_sigcancel();
	struct m *mp = t->m;
	int tid = mp ? __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE) : 0;
	if (tid && g_status(t) == G_RUNNING)
		arch_syscall3(SYS_tgkill, arch_syscall0(SYS_getpid), tid, SIGCANCEL);
}

GMP_EXPORT int pthread_cancel(pthread_t th)
{
	GMP_ENTRY(pthread_cancel, th);
	struct g *t;
	int r = g_lookup(th, &t);
	if (r)
		return r < 0 ? real_pthread_cancel(th) : r;
	if (g_exited(t))
		return 0;	/* as glibc: an ended, unjoined thread */
	st_rel(&t->cancel_pending, 1u);
	struct g *me = getg();
	if (t == me) {
		if (me->canceltype == PTHREAD_CANCEL_ASYNCHRONOUS)
			door_testcancel(me);
		return 0;
	}
	/* a G waiting at a cancellation point has armed its wake-up */
	if (g_claim(t, 0))
		g_ready_any(t);
	else if (is_async(t))
		cancel_async(t);
	/* one waiting in the kernel on a process-shared object: stored
	 * cancel_pending, then read kwait (kwait_begin does the reverse) */
	fence_seq();
	if (ld_acq(&t->kwait) && t->cancelstate == PTHREAD_CANCEL_ENABLE) {
		kwait_interrupt(t);
		sysmon_kick();	/* it interrupts again if this came too early */
	}
	return 0;
}

GMP_EXPORT int pthread_setcancelstate(int state, int *old)
{
	GMP_ENTRY(pthread_setcancelstate, state, old);
	struct g *gp = getg();
	if (!gp)
		return real_pthread_setcancelstate(state, old);
	if (state != PTHREAD_CANCEL_ENABLE && state != PTHREAD_CANCEL_DISABLE)
		return EINVAL;
	if (old)
		*old = gp->cancelstate;
	gp->cancelstate = state;
	if (gp->canceltype == PTHREAD_CANCEL_ASYNCHRONOUS)
		door_testcancel(gp);
	return 0;
}

GMP_EXPORT int pthread_setcanceltype(int type, int *old)
{
	GMP_ENTRY(pthread_setcanceltype, type, old);
	struct g *gp = getg();
	if (!gp)
		return real_pthread_setcanceltype(type, old);
	if (type != PTHREAD_CANCEL_DEFERRED && type != PTHREAD_CANCEL_ASYNCHRONOUS)
		return EINVAL;
	if (old)
		*old = gp->canceltype;
	gp->canceltype = type;
	if (type == PTHREAD_CANCEL_ASYNCHRONOUS)
		door_testcancel(gp);
	return 0;
}

GMP_EXPORT void pthread_testcancel(void)
{
	gmp_init();
	struct g *gp = getg();
	if (gmp_passthrough || !gp) {
		real_pthread_testcancel();
		return;
	}
	door_testcancel(gp);
}
