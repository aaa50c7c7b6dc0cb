/* SPDX-License-Identifier: MIT */
/*
 * preload/attr.c — thread attributes.
 *
 * glibc's own pthread_attr_* functions store and return every attribute;
 * libgmp reads them back through the public getters and only interposes
 * what means something different here:
 *
 *  - scope: under libgmp every thread is PTHREAD_SCOPE_PROCESS (many Gs
 *    share few OS threads), which is the default and what
 *    pthread_attr_getscope reports. PTHREAD_SCOPE_SYSTEM, set explicitly,
 *    is stored and reported back (also by pthread_getattr_np), but the
 *    thread shares the OS threads like any other: it is glibc's default
 *    and only scope, which portable programs (CPython, sysbench) set on
 *    every thread without asking for a kernel thread. glibc keeps no
 *    record of an explicit SYSTEM, so libgmp marks it in a flag bit of
 *    glibc's attribute object that glibc (2.34 to 2.41) leaves unused.
 *  - the default attributes (pthread_setattr_default_np) are cached, as
 *    pthread_create needs them on every call.
 *  - pthread_getattr_np describes a G, whose tid glibc cannot use.
 */
#include "preload/runtime.h"
#include "core/os.h"
#include "core/sched.h"
#include "core/stack.h"

#include <errno.h>
#include <string.h>

/* glibc's struct pthread_attr (2.34 to 2.41 alike): `int flags` at offset 8. */
#define ATTR_FLAGS(a) ((int *)((char *)(a) + 8))
#define ATTR_FLAG_SCOPEPROCESS 0x0004
#define ATTR_FLAG_STACKADDR 0x0008
#define GMP_ATTR_SCOPE_SYSTEM 0x40000000

_Static_assert(sizeof(pthread_attr_t) == 56, "glibc's pthread_attr_t");

/* What pthread_setattr_default_np set (default_set: it was called): a
 * guard of 0 and a detached default are kept as glibc keeps them. */
static _Atomic size_t default_stacksize, default_guardsize;
static _Atomic bool default_set, default_detached;

size_t attr_default_stacksize(void)
{
	size_t s = ld_rlx(&default_stacksize);
	return s ? s : stack_default_size();
}

size_t attr_default_guardsize(void)
{
	return ld_acq(&default_set) ? ld_rlx(&default_guardsize) : os_pagesize;
}

bool attr_default_detached(void)
{
	return ld_acq(&default_set) && ld_rlx(&default_detached);
}

bool attr_scope_system(const pthread_attr_t *a)
{
	return (*ATTR_FLAGS(a) & GMP_ATTR_SCOPE_SYSTEM) != 0;
}

bool attr_has_stack(const pthread_attr_t *a)
{
	return (*ATTR_FLAGS(a) & ATTR_FLAG_STACKADDR) != 0;
}

GMP_EXPORT int pthread_attr_setscope(pthread_attr_t *a, int scope)
{
	GMP_ENTRY(pthread_attr_setscope, a, scope);
	int *f = ATTR_FLAGS(a);
	switch (scope) {
	case PTHREAD_SCOPE_SYSTEM:
		*f = (*f & ~ATTR_FLAG_SCOPEPROCESS) | GMP_ATTR_SCOPE_SYSTEM;
		return 0;
	case PTHREAD_SCOPE_PROCESS:
		*f = (*f & ~GMP_ATTR_SCOPE_SYSTEM) | ATTR_FLAG_SCOPEPROCESS;
		return 0;
	default:
		return EINVAL;
	}
}

GMP_EXPORT int pthread_attr_getscope(const pthread_attr_t *a, int *scope)
{
	GMP_ENTRY(pthread_attr_getscope, a, scope);
	*scope = attr_scope_system(a) ? PTHREAD_SCOPE_SYSTEM : PTHREAD_SCOPE_PROCESS;
	return 0;
}

GMP_EXPORT int pthread_setattr_default_np(const pthread_attr_t *a)
{
	GMP_ENTRY(pthread_setattr_default_np, a);
	int err = real_pthread_setattr_default_np(a);
	if (err)
		return err;
	pthread_attr_t cur;
	if (pthread_getattr_default_np(&cur) == 0) {
		size_t ss = 0, gs = 0;
		int ds = PTHREAD_CREATE_JOINABLE;
		pthread_attr_getstacksize(&cur, &ss);
		pthread_attr_getguardsize(&cur, &gs);
		pthread_attr_getdetachstate(&cur, &ds);
		st_rlx(&default_stacksize, (ss + os_pagesize - 1) & ~(os_pagesize - 1));
		st_rlx(&default_guardsize, (gs + os_pagesize - 1) & ~(os_pagesize - 1));
		st_rlx(&default_detached, ds == PTHREAD_CREATE_DETACHED);
		st_rel(&default_set, true);
		pthread_attr_destroy(&cur);
	}
	return 0;
}

GMP_EXPORT int pthread_getattr_np(pthread_t th, pthread_attr_t *a)
{
	GMP_ENTRY(pthread_getattr_np, th, a);
	struct g *gp;
	int err = g_lookup(th, &gp);
	if (err)
		return err < 0 ? real_pthread_getattr_np(th, a) : err;
	if (gp->flags & G_FLAG_MAIN) {
		/* the initial thread's TCB (the G's own, which glibc reads:
		 * th is the G) has its real tid: glibc can do it */
		err = real_pthread_getattr_np((pthread_t)gp->tcb, a);
		if (err)
			return err;
	} else {
		pthread_attr_init(a);
		const struct gstack *s = &gp->stack;
		char *lo = s->base + s->guard;
		pthread_attr_setstack(a, lo, s->size);
		pthread_attr_setguardsize(a, s->guard);
	}
	*ATTR_FLAGS(a) &= ~(GMP_ATTR_SCOPE_SYSTEM | ATTR_FLAG_SCOPEPROCESS);
	*ATTR_FLAGS(a) |= (gp->flags & G_FLAG_SCOPE_SYSTEM) ? GMP_ATTR_SCOPE_SYSTEM
						     : ATTR_FLAG_SCOPEPROCESS;
	rt_lock(&gp->lock);
	bool detached = gp->detached;
	rt_unlock(&gp->lock);
	pthread_attr_setdetachstate(a, detached ? PTHREAD_CREATE_DETACHED
						: PTHREAD_CREATE_JOINABLE);
	struct sched_param sp = {.sched_priority = gp->schedprio};
	pthread_attr_setschedpolicy(a, gp->schedpolicy);
	pthread_attr_setschedparam(a, &sp);
	if (gp->affinity) {
		err = pthread_attr_setaffinity_np(a, gp->affinity_size, gp->affinity);
	} else {
		cpu_set_t set;
		if (sched_default_affinity(sizeof set, &set) == 0)
			err = pthread_attr_setaffinity_np(a, sizeof set, &set);
		else
			err = 0;
	}
	if (err) {
		pthread_attr_destroy(a);
		return err;
	}
	return 0;
}
