/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/unit.h — bringing the core up inside a unit-test process
 * (Criterion runs every test in a process of its own). Nothing is
 * preloaded: the test links the core and calls it directly.
 */
#ifndef GMP_TESTS_UNIT_H
#define GMP_TESTS_UNIT_H

#include "core/g.h"
#include "core/os.h"
#include "core/proc.h"
#include "core/sched.h"
#include "core/stack.h"
#include "core/tls.h"

#include <criterion/criterion.h>

/* Make the calling thread M0 running a main G, with nprocs Ps. */
static inline struct g *core_up(int nprocs)
{
	os_init();
	arch_fsbase_init(true);
	char why[160];
	cr_assert(tls_init(why, sizeof why), "glibc layout not found: %s", why);
	stack_init();
	struct g *mg = g_alloc();
	cr_assert(mg);
	mg->flags = G_FLAG_MAIN;
	mg->stack.kind = STACK_MAIN;
	uintptr_t m0_tp = tls_new_m_tcb(os_gettid());
	tls_adopt_current(mg);
	sched_init(nprocs, mg, m0_tp);
	cr_assert_eq(sched_start(), 0);
	return mg;
}

/* Start a G running fn(arg) with a default stack. fn must end with
 * unit_g_exit(). */
struct unit_start {
	void (*fn)(void *);
	void *arg;
};

static inline void unit_entry(void *p)
{
	struct g *gp = p;
	struct unit_start *us = gp->arg;
	tls_enter(gp->tcb);
	us->fn(us->arg);
	free(us);
	tls_run_dtors();
	tls_exit(gp->tcb);
	proc_exiting(gp);
	proc_exit(gp);
}

static inline struct g *unit_go(void (*fn)(void *), void *arg)
{
	struct g_spec spec = {NULL, stack_default_size(), os_pagesize};
	struct g *gp;
	uint32_t from;
	cr_assert_eq(proc_new(&gp, &from, &spec, unit_entry), 0);
	struct unit_start *us = malloc(sizeof *us);
	us->fn = fn;
	us->arg = arg;
	gp->arg = us;
	gp->detached = true;
	gp->exited = false;
	gp->joiner = NULL;
	proc_start(gp, from);
	return gp;
}

/*
 * A wait group built from g_park/g_ready only: the waiter parks until
 * `left` reaches zero; the unlock callback re-checks the count after the
 * waiter is published, so a last done() racing with the park is not lost.
 */
struct wg {
	_Atomic int left;
	_Atomic(struct g *) waiter;
};

static inline bool wg_unlock(struct m *mp, struct g *gp, void *arg)
{
	struct wg *w = arg;
	st_rel(&w->waiter, gp);
	fence_seq();	/* the store before the load: wg_done swaps after its decrement */
	if (ld_acq(&w->left) == 0) {
		/* done already: take the waiter back unless a done() did */
		struct g *expect = gp;
		return !cas(&w->waiter, &expect, (struct g *)NULL);
	}
	return true;
}

static inline void wg_wait(struct wg *w)
{
	while (ld_acq(&w->left) > 0)
		g_park(wg_unlock, w, WAIT_TEST);
}

static inline void wg_done(struct wg *w)
{
	if (xadd(&w->left, -1) == 1) {
		struct g *gp = xchg(&w->waiter, (struct g *)NULL);
		if (gp)
			g_ready_any(gp);
	}
}

#endif
