/*
 * preload/cancel.c — deferred cancellation of Gs.
 *
 * pthread_cancel marks the G and, if it waits at a cancellation point
 * libgmp implements (a sleep, a join), wakes it there; pthread_testcancel
 * and those points then end the thread as pthread_exit(PTHREAD_CANCELED)
 * does, running cleanup handlers and C++ unwinding. Cancellation of a
 * thread glibc made goes to glibc.
 *
 * Asynchronous cancellation acts at the same points (there is no
 * signal that interrupts a G between them).
 */
#include "preload/runtime.h"
#include "core/sched.h"

#include <errno.h>

void gmp_testcancel(struct g *gp)
{
	if (ld_acq(&gp->cancel_pending) && gp->cancelstate == PTHREAD_CANCEL_ENABLE) {
		st_rlx(&gp->cancel_pending, 0u);
		thread_exit_unwind(gp, PTHREAD_CANCELED);
	}
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
			gmp_testcancel(me);
		return 0;
	}
	/* a G waiting at a cancellation point has armed its wake-up */
	if (g_claim(t, 0))
		g_ready_any(t);
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
		gmp_testcancel(gp);
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
		gmp_testcancel(gp);
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
	gmp_testcancel(gp);
}
