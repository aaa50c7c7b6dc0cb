/* SPDX-License-Identifier: MIT */
/*
 * preload/thread.c — thread lifecycle: pthread_create, the join family,
 * pthread_detach, pthread_self/equal, yielding, and how a G ends.
 *
 * A pthread_t is the address of the G's TCB (glibc's convention, so that
 * glibc's own pthread_self() agrees). Error codes follow glibc 2.36.
 */
#include "preload/runtime.h"
#include "core/config.h"
#include "core/os.h"
#include "core/sched.h"
#include "core/stack.h"
#include "core/proc.h"
#include "core/sigq.h"
#include "core/tls.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#define MINIMAL_REST_STACK 2048

static void g_entry(void *arg)
{
	struct g *gp = arg;
	tls_enter(gp->tcb);
	thread_finish(gp, gp->start(gp->arg));
}

/* Read what pthread_create needs from attr (NULL: defaults). */
struct create_args {
	void *stackaddr;
	size_t stacksize, guardsize;
	bool detached, scope_system, explicit_sched;
	int policy, prio;
	cpu_set_t *cpuset;
	size_t cpusetsize;
	bool has_sigmask;	/* pthread_attr_setsigmask_np */
	sigset_t sigmask;
};

static int read_attr(const pthread_attr_t *attr, struct create_args *ca)
{
	memset(ca, 0, sizeof *ca);
	ca->stacksize = attr_default_stacksize();
	ca->guardsize = attr_default_guardsize();
	if (!attr) {
		ca->detached = attr_default_detached();
		return 0;
	}
	int ds, inh;
	pthread_attr_getdetachstate(attr, &ds);
	ca->detached = ds == PTHREAD_CREATE_DETACHED;
	pthread_attr_getguardsize(attr, &ca->guardsize);
	ca->guardsize = (ca->guardsize + os_pagesize - 1) & ~(os_pagesize - 1);
	if (attr_has_stack(attr)) {
		pthread_attr_getstack(attr, &ca->stackaddr, &ca->stacksize);
		if (ca->stacksize < proc_tls_block() + MINIMAL_REST_STACK)
			return EINVAL;
	} else {
		pthread_attr_getstacksize(attr, &ca->stacksize);
		ca->stacksize = (ca->stacksize + os_pagesize - 1) & ~(os_pagesize - 1);
	}
	ca->scope_system = attr_scope_system(attr);
	ca->has_sigmask = pthread_attr_getsigmask_np(attr, &ca->sigmask) == 0;
	pthread_attr_getinheritsched(attr, &inh);
	if (inh == PTHREAD_EXPLICIT_SCHED) {
		struct sched_param sp;
		ca->explicit_sched = true;
		pthread_attr_getschedpolicy(attr, &ca->policy);
		pthread_attr_getschedparam(attr, &sp);
		ca->prio = sp.sched_priority;
		int lo = sched_get_priority_min(ca->policy), hi = sched_get_priority_max(ca->policy);
		if (lo < 0 || ca->prio < lo || ca->prio > hi)
			return EINVAL;
		/* glibc's pthread_create fails when the kernel refuses the
		 * policy for the new thread */
		if (g_rt_policy(ca->policy) && !gmp_rt_permitted(ca->prio))
			return EPERM;
	}
	cpu_set_t probe;
	if (pthread_attr_getaffinity_np(attr, sizeof probe, &probe) == 0 && CPU_COUNT(&probe) &&
	    CPU_COUNT(&probe) != CPU_SETSIZE) {
		ca->cpuset = malloc(sizeof probe);
		if (!ca->cpuset)
			return EAGAIN;
		*ca->cpuset = probe;
		ca->cpusetsize = sizeof probe;
	}
	return 0;
}

/* No affinity attribute: a new thread starts with its creator's mask, as
 * a kernel thread inherits it. */
static int inherit_affinity(struct create_args *ca)
{
	struct g *me = getg();
	if (ca->cpuset || !me || !me->affinity)
		return 0;
	rt_lock(&me->lock);
	size_t size = me->affinity_size;
	ca->cpuset = malloc(size);
	if (ca->cpuset)
		memcpy(ca->cpuset, me->affinity, size);
	rt_unlock(&me->lock);
	if (!ca->cpuset)
		return EAGAIN;
	ca->cpusetsize = size;
	return 0;
}

/* Reset the per-thread fields of a fresh or recycled G. */
static void g_reset(struct g *gp, void *(*fn)(void *), void *arg, const struct create_args *ca)
{
	struct g *me = getg();

	gp->flags = ca->scope_system ? G_FLAG_SCOPE_SYSTEM : 0;
	gp->goid = xadd(&sched.goidgen, 1) + 1;
	gp->start = fn;
	gp->arg = arg;
	gp->result = NULL;
	gp->detached = ca->detached;
	gp->exited = false;
	gp->joined = false;
	gp->joiner = NULL;
	st_rlx(&gp->exit_futex, 0u);
	gp->waitreason = WAIT_NONE;
	gp->waitobj = NULL;
	gp->cleanup = NULL;
	gp->cancelstate = PTHREAD_CANCEL_ENABLE;
	gp->canceltype = PTHREAD_CANCEL_DEFERRED;
	if (ca->explicit_sched) {
		gp->schedpolicy = ca->policy;
		gp->schedprio = ca->prio;
	} else {
		gp->schedpolicy = me ? me->schedpolicy : SCHED_OTHER;
		gp->schedprio = me ? me->schedprio : 0;
	}
	/* as a new OS thread: the creator's nice value and I/O priority */
	gp->nice = me ? me->nice : 0;
	gp->ioprio = me ? me->ioprio : 0;
	gp->ioprio_set = me && me->ioprio_set;
	free(gp->affinity);
	gp->affinity = ca->cpuset;
	gp->affinity_size = ca->cpusetsize;
	if (me)
		memcpy(gp->name, me->name, sizeof gp->name);
	else
		gp->name[0] = '\0';
	gp->nrun = 0;
	gp->runtime_ns = 0;
	gp->lockedm = NULL;
	/* the creator's signal mask, or the attribute's */
	uint64_t mask = 0;
	if (ca->has_sigmask)
		memcpy(&mask, &ca->sigmask, sizeof mask);
	else if (me)
		mask = ld_rlx(&me->sigmask);
	else
		arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, 8);
	st_rlx(&gp->sigmask, mask & ~(sigq_bit(32) | sigq_bit(33) | sigq_bit(SIGKILL) | sigq_bit(SIGSTOP)));
	gp->kmask_extra = 0;
	st_rlx(&gp->sigwant, (uint64_t)0);
	st_rlx(&gp->sigpend, (uint64_t)0);
	gp->nhandled = 0;
	gp->nhandled_intr = 0;
	gp->ndelivered = 0;
	gp->sig_reinject = 0;
	gp->sig_nest = false;
	gp->hdepth = 0;
	gp->inlib = 0;
	gp->clear_tid = NULL;
	gp->clear_tid_set = false;
}

GMP_EXPORT int pthread_create(pthread_t *res, const pthread_attr_t *attr,
			      void *(*fn)(void *), void *arg)
{
	GMP_ENTRY(pthread_create, res, attr, fn, arg);
	struct create_args ca;
	int err = read_attr(attr, &ca);
	if (!err)
		err = inherit_affinity(&ca);
	if (err) {
		free(ca.cpuset);
		return err;
	}
	if (sched_start() != 0) {
		free(ca.cpuset);
		return EAGAIN;
	}

	struct g_spec spec = {
		.stackaddr = ca.stackaddr,
		.stacksize = ca.stacksize,
		.guardsize = ca.guardsize,
	};
	struct g *gp;
	uint32_t from;
	err = proc_new(&gp, &from, &spec, g_entry);
	if (err) {
		free(ca.cpuset);
		return err;
	}
	g_reset(gp, fn, arg, &ca);
	/* pinned and real-time threads get an OS thread of their own */
	if ((ca.cpuset || g_rt_policy(gp->schedpolicy)) &&
	    m_new_locked(gp, ca.cpuset, ca.cpusetsize) != 0) {
		proc_discard(gp, from);
		return EAGAIN;
	}
	*res = (pthread_t)gp;
	proc_start(gp, from);
	/* the threads it made run before it makes many more */
	if (sched_creator_gives_way())
		g_yield_local();
	return 0;
}

/* --- ending a G ---------------------------------------------------------------- */

_Noreturn void thread_finish(struct g *gp, void *r)
{
	gp->result = r;
	/* the program's destructors: C++ thread_local first, as glibc */
	GMP_PROGRAM(tls_run_dtors(); keys_run_destructors(gp));
	door_hold(gp);		/* libgmp's from here to the end */
	tls_robust_release(gp->tcb);
	/* the OS thread it had for its own goes on as an ordinary M: the
	 * kernel's robust list there is the M's own again */
	if (gp->flags & G_FLAG_KTID)
		tls_robust_register(gp->m->own_tp);
	tls_exit(gp->tcb);
	if (proc_exiting(gp))
		exit(0);	/* the last thread: the process ends, as in glibc */
	proc_exit(gp);
}

/* --- join ------------------------------------------------------------------------ */

/* g0 half of a join: arm the timeout first, then let the exiting thread
 * see us. In the other order the exit could wake us before the timer is
 * queued, and we would delete it before it was added. */
static bool join_unlock(struct m *mp, struct g *me, void *arg)
{
	struct g *t = arg;
	if (me->timer.when)
		timer_add(&me->timer, mp->p);
	rt_unlock(&t->lock);
	return true;
}

static void join_timeout(void *arg, uint64_t seq, struct p *pp)
{
	struct g *me = arg;
	if (g_claim(me, seq))
		g_ready(me, pp, true);
}

/*
 * Wait for t to end. deadline: CLOCK_MONOTONIC ns, 0 = forever, -1 = do not
 * wait (tryjoin). realtime_abs: when the deadline came from a
 * CLOCK_REALTIME absolute time, re-checked after waking (the clock may
 * have been set back). Returns -1 for a thread glibc made.
 */
static int join_wait(pthread_t th, void **ret, int64_t deadline)
{
	struct g *t, *me = getg();
	int r = g_lookup(th, &t);
	if (r)
		return r;
	if (t == me)
		return deadline < 0 ? EBUSY : EDEADLK;	/* tryjoin: "still running" */
	if (me && deadline >= 0)
		door_testcancel(me);	/* a cancellation point (not tryjoin) */
	rt_lock(&t->lock);
	if (t->joined) {
		/* joined already: glibc's "still running" test comes first
		 * for tryjoin, then its check of a valid thread */
		rt_unlock(&t->lock);
		return deadline < 0 ? EBUSY : ESRCH;
	}
	if (deadline < 0 && !t->exited) {
		/* tryjoin: "still running" comes before any other answer */
		rt_unlock(&t->lock);
		return EBUSY;
	}
	if (t->detached || t->joiner) {
		rt_unlock(&t->lock);
		return EINVAL;
	}
	if (me && me->joiner == t && !t->exited) {
		rt_unlock(&t->lock);
		return EDEADLK;		/* t is joining us */
	}
	if (!t->exited) {
		if (deadline < 0) {
			rt_unlock(&t->lock);
			return EBUSY;
		}
		if (!me) {
			/* not a G: sleep in the kernel */
			t->joiner = G_JOINER_FOREIGN;
			rt_unlock(&t->lock);
			while (ld_acq(&t->exit_futex) == 0)
				os_futex_wait(&t->exit_futex, 0, -1);
			rt_lock(&t->lock);
		} else {
			/* parks until t ends, the deadline passes, or a signal
			 * or cancellation interrupts; a signal's handler runs
			 * and the join goes on waiting (joins do not EINTR) */
			for (;;) {
				t->joiner = me;
				me->waitobj = t;
				me->timer.when = deadline;
				me->timer.f = join_timeout;
				me->timer.arg = me;
				me->timer.seq = g_arm(me);
				t->joinseq = me->timer.seq;
				g_park(join_unlock, t, WAIT_JOIN);
				if (deadline)
					timer_del(&me->timer);
				me->timer.when = 0;
				rt_lock(&t->lock);
				if (t->exited)
					break;
				t->joiner = NULL;
				rt_unlock(&t->lock);
				door_signals(me);
				door_testcancel(me);
				if (deadline && rt_nanotime() >= deadline)
					return ETIMEDOUT;
				rt_lock(&t->lock);
				if (t->exited)
					break;
			}
		}
	}
	rt_unlock(&t->lock);
	if (ret)
		*ret = t->result;
	proc_reap(t, true);
	return 0;
}

GMP_EXPORT int pthread_join(pthread_t th, void **ret)
{
	GMP_ENTRY(pthread_join, th, ret);
	int r = join_wait(th, ret, 0);
	return r < 0 ? real_pthread_join(th, ret) : r;
}

GMP_EXPORT int pthread_tryjoin_np(pthread_t th, void **ret)
{
	GMP_ENTRY(pthread_tryjoin_np, th, ret);
	int r = join_wait(th, ret, -1);
	return r < 0 ? real_pthread_tryjoin_np(th, ret) : r;
}

static bool valid_timespec(const struct timespec *ts)
{
	return ts->tv_nsec >= 0 && ts->tv_nsec < 1000000000;
}

/* Absolute time on clk -> CLOCK_MONOTONIC ns (at least 1). */
static int64_t abs_to_mono(clockid_t clk, const struct timespec *ts)
{
	int64_t t = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
	if (clk == CLOCK_REALTIME)
		t = rt_nanotime() + (t - rt_walltime());
	return t > 0 ? t : 1;
}

static int clockjoin(pthread_t th, void **ret, clockid_t clk, const struct timespec *abstime)
{
	if (!abstime)
		return join_wait(th, ret, 0);
	if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
		return EINVAL;
	int r = join_wait(th, ret, -1);
	if (r != EBUSY)
		return r;
	if (!valid_timespec(abstime))
		return EINVAL;
	if (abstime->tv_sec < 0)
		return ETIMEDOUT;
	for (;;) {
		r = join_wait(th, ret, abs_to_mono(clk, abstime));
		if (r != ETIMEDOUT || clk != CLOCK_REALTIME)
			return r;
		struct timespec now;
		real_clock_gettime(CLOCK_REALTIME, &now);
		if (now.tv_sec > abstime->tv_sec ||
		    (now.tv_sec == abstime->tv_sec && now.tv_nsec >= abstime->tv_nsec))
			return ETIMEDOUT;
	}
}

GMP_EXPORT int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *abstime)
{
	GMP_ENTRY(pthread_timedjoin_np, th, ret, abstime);
	int r = clockjoin(th, ret, CLOCK_REALTIME, abstime);
	return r < 0 ? real_pthread_timedjoin_np(th, ret, abstime) : r;
}

GMP_EXPORT int pthread_clockjoin_np(pthread_t th, void **ret, clockid_t clk,
				    const struct timespec *abstime)
{
	GMP_ENTRY(pthread_clockjoin_np, th, ret, clk, abstime);
	int r = clockjoin(th, ret, clk, abstime);
	return r < 0 ? real_pthread_clockjoin_np(th, ret, clk, abstime) : r;
}

GMP_EXPORT int pthread_detach(pthread_t th)
{
	GMP_ENTRY(pthread_detach, th);
	struct g *t;
	int r = g_lookup(th, &t);
	if (r)
		return r < 0 ? real_pthread_detach(th) : r;
	rt_lock(&t->lock);
	if (t->joined) {
		rt_unlock(&t->lock);
		return ESRCH;
	}
	if (t->detached) {
		rt_unlock(&t->lock);
		return EINVAL;
	}
	if (t->joiner) {
		/* somebody joins it already: they reap it (glibc returns 0) */
		rt_unlock(&t->lock);
		return 0;
	}
	if (t->exited) {
		rt_unlock(&t->lock);
		proc_reap(t, false);
		return 0;
	}
	t->detached = true;
	rt_unlock(&t->lock);
	return 0;
}

/* --- identity and yielding ---------------------------------------------------------- */

GMP_EXPORT pthread_t pthread_self(void)
{
	struct g *gp = getg();
	/* a thread glibc made: its TCB, as glibc's pthread_self */
	return gp ? (pthread_t)gp : (pthread_t)arch_tp_load(0x10);
}

GMP_EXPORT int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}

GMP_EXPORT int sched_yield(void)
{
	GMP_ENTRY(sched_yield);
	struct g *gp = getg();
	if (!gp)
		return real_sched_yield();
	g_sched_yield();
	door_signals(gp);
	return 0;
}

/* <pthread.h> redirects pthread_yield to sched_yield, so the definition
 * needs its symbol name spelled out. */
GMP_EXPORT int gmp_pthread_yield(void) __asm__("pthread_yield");
GMP_EXPORT int gmp_pthread_yield(void)
{
	return sched_yield();
}
