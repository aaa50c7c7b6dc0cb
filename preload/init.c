/* SPDX-License-Identifier: MIT */
/*
 * preload/init.c — bringing the runtime up inside an unmodified process.
 *
 * The constructor runs on the initial thread before main. It reads the
 * configuration, checks glibc's layout (falling back to pass-through on a
 * glibc it does not know), and turns the initial thread into M0 running
 * the main G on its own TCB. No OS thread is created until the program
 * creates its first thread (or asks for schedtrace), so single-threaded
 * programs keep glibc's single-threaded fast paths.
 */
#include "preload/runtime.h"
#include "core/fdtab.h"
#include "core/config.h"
#include "core/os.h"
#include "core/sched.h"
#include "core/stack.h"
#include "core/tls.h"
#include "core/layout.h"
#include "core/trace.h"
#include "core/sigq.h"

#include <errno.h>
#include <gnu/libc-version.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static bool go_passthrough(const char *why)
{
	rt_printf(2, "gmp: warning: %s; libgmp passes every call through to glibc\n", why);
	return true;
}

/* Returns true when libgmp must pass every call to glibc. */
static bool runtime_init(void)
{
	os_init();
	config_init();
	arch_fsbase_init(!rt_cfg.fsbase_syscall);
	if (os_gettid() != getpid())
		return go_passthrough("libgmp was first entered on a thread other than the initial one");
	char why[160];
	if (!tls_init(why, sizeof why)) {
		char msg[240];
		rt_snprintf(msg, sizeof msg, "glibc %s: thread layout not found (%s)",
			    gnu_get_libc_version(), why);
		return go_passthrough(msg);
	}
	if (rt_cfg.show_layout)
		layout_print(2);
	stack_init();
	tls_probe_malloc();

	struct g *mg = g_alloc();
	if (!mg)
		rt_throw("runtime_init: out of memory");
	mg->flags = G_FLAG_MAIN;
	mg->goid = xadd(&sched.goidgen, 1) + 1;
	mg->stack.kind = STACK_MAIN;
	prctl(PR_GET_NAME, mg->name, 0, 0, 0);
	/* the main thread's scheduling as the kernel has it */
	struct sched_param sp = {0};
	long pol = arch_syscall1(SYS_sched_getscheduler, 0);
	mg->schedpolicy = pol >= 0 ? (int)pol : SCHED_OTHER;
	mg->schedprio = arch_syscall2(SYS_sched_getparam, 0, &sp) == 0 ? sp.sched_priority : 0;
	long prio = arch_syscall2(SYS_getpriority, PRIO_PROCESS, 0);
	mg->nice = prio > 0 ? 20 - (int)prio : 0;
	uintptr_t m0_tp = tls_new_m_tcb(os_gettid());
	tls_adopt_current(mg);
	sched_init(rt_cfg.maxprocs, mg, m0_tp);
	gmp_signal_init();
	gmp_sigmask_init();
	/* what the main thread blocks from the start (see gmp_sig_blocked) */
	gmp_sig_blocked(ld_rlx(&mg->sigmask));
	/* the trace is written out when a signal kills the process, so the
	 * usual fatal ones go through libgmp's trampoline (their action
	 * stays the program's) */
	if (rt_cfg.trace_path && trace_init(rt_cfg.trace_path))
		gmp_sig_catch(sigq_bit(SIGHUP) | sigq_bit(SIGINT) | sigq_bit(SIGILL) |
			      sigq_bit(SIGABRT) | sigq_bit(SIGFPE) | sigq_bit(SIGTERM) |
			      sigq_bit(SIGUSR1) | sigq_bit(SIGUSR2) | sigq_bit(SIGPIPE) |
			      sigq_bit(SIGALRM));
	return false;
}

GMP_START_STEP(runtime_init);

__attribute__((constructor)) static void gmp_constructor(void)
{
	gmp_init();
}

static struct g *g_from_pthread(pthread_t t, bool *foreign)
{
	*foreign = false;
	if (!t)
		return NULL;
	uint64_t first = *(const uint64_t *)t;
	if (first == G_MAGIC) {
		struct g *gp = (struct g *)t;
		return g_by_index(gp->index) == gp ? gp : NULL;
	}
	/* word 0 of a glibc TCB is its own address: a thread glibc made */
	*foreign = first == (uint64_t)t;
	return NULL;
}

int g_lookup(pthread_t th, struct g **gpp)
{
	bool foreign;
	*gpp = g_from_pthread(th, &foreign);
	if (*gpp)
		return 0;
	return foreign ? -1 : ESRCH;
}

bool g_exited(struct g *gp)
{
	rt_lock(&gp->lock);
	bool gone = gp->exited;
	rt_unlock(&gp->lock);
	return gone;
}
