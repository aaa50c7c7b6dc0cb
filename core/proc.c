/* SPDX-License-Identifier: MIT */
/*
 * core/proc.c — G creation and retirement (see proc.h).
 */
#include "core/proc.h"
#include "core/sched.h"
#include "core/sigq.h"
#include "core/trace.h"
#include "core/stack.h"
#include "core/tls.h"
#include "core/os.h"

#include <errno.h>
#include <sys/syscall.h>
#include <time.h>

static struct g *gfget_any(void)
{
	struct p *pp = sched_my_p();
	if (pp)
		return gfget(pp);
	rt_lock(&sched.gflock);
	struct g *gp = sched.gfree;
	if (gp) {
		sched.gfree = gp->schedlink;
		sched.ngfree--;
	}
	rt_unlock(&sched.gflock);
	return gp;
}

static void gfput_any(struct g *gp)
{
	struct p *pp = sched_my_p();
	if (pp) {
		gfput(pp, gp);
		return;
	}
	if (gp->flags & G_FLAG_MAIN)
		return;
	rt_lock(&sched.gflock);
	gp->schedlink = sched.gfree;
	sched.gfree = gp;
	sched.ngfree++;
	rt_unlock(&sched.gflock);
}

/*
 * Stacks of ended threads, per P: default-shape stacks whose TCB is set
 * up, ready to be recycled warm. The owner P only (a G holding it, or g0
 * of its M). Beyond STACK_CACHE_MAX, half goes to the global cache.
 */
#define STACK_CACHE_MAX 64

static bool stack_cache_get(struct p *pp, struct gstack *s)
{
	if (!pp || !stack_list_pop(&pp->sfree, s))
		return false;
	pp->nsfree--;
	return true;
}

void proc_stack_release(struct p *pp, struct g *gp)
{
	struct gstack *s = &gp->stack;

	if (s->kind == STACK_ARENA && s->tls_ready) {
		stack_list_push(&pp->sfree, s);
		if (++pp->nsfree > STACK_CACHE_MAX) {
			struct gstack t;
			while (pp->nsfree > STACK_CACHE_MAX / 2 && stack_cache_get(pp, &t))
				stack_free(&t);
		}
	} else if (s->kind == STACK_MAPPED && s->tls_ready) {
		stack_defer(s);
	} else if (s->kind == STACK_MAPPED) {
		stack_free(s);
	}
	/* base, size and guard stay, to describe the ended thread */
	s->kind = STACK_NONE;
	s->tls_ready = false;
}

void proc_stack_flush(struct p *pp)
{
	struct gstack t;
	while (stack_cache_get(pp, &t))
		stack_free(&t);
}

/*
 * No default-shape stack could be mapped (RLIMIT_AS, or vm.max_map_count):
 * the stacks of ended threads that other Ps keep come back to the arenas,
 * and the G waits, 1 ms at a time and at most 100 ms, while running Ps
 * give theirs at their next schedule. Under NPTL a joined thread's stack
 * is reusable as soon as pthread_join returns; here it may sit in the
 * cache of the P the thread ended on, out of the creator's reach.
 */
#define STACK_BACK_TRIES 100

static int stack_alloc_short(struct gstack *s, size_t size, size_t guard)
{
	int err = EAGAIN;
	for (int i = 0; err == EAGAIN && i <= STACK_BACK_TRIES; i++) {
		/* after a sleep the G may run on another P: its cache first */
		struct p *mine = sched_my_p();
		if (i > 0 && stack_cache_get(mine, s))
			return 0;
		int pending = sched_stacks_back(mine);
		err = stack_alloc(s, size, guard);
		if (err != EAGAIN || pending == 0)
			break;
		if (getg()) {
			g_sleep_until(rt_nanotime() + 1000000);
		} else {
			struct timespec ms = {0, 1000000};
			arch_syscall2(SYS_nanosleep, &ms, NULL);
		}
	}
	return err;
}

/* Give gp a stack of the wanted shape with a ready TCB at its top:
 * warm from this P's cache when the shape is the default. */
static int stack_and_tls(struct g *gp, const struct g_spec *spec)
{
	struct gstack *s = &gp->stack;
	bool dflt = spec->stacksize == stack_default_size() && spec->guardsize == os_pagesize;
	int err;

	stack_reclaim();
	if (spec->stackaddr) {
		s->kind = STACK_USER;
		s->base = spec->stackaddr;
		s->size = spec->stacksize;
		s->guard = 0;
		s->tls_ready = false;
	} else if (!dflt || !stack_cache_get(sched_my_p(), s)) {
		err = stack_alloc(s, spec->stacksize, spec->guardsize);
		if (err == EAGAIN && dflt)
			err = stack_alloc_short(s, spec->stacksize, spec->guardsize);
		if (err)
			return err;
	}
	gp->tcb = tls_tp_for_top(stack_top(s));
	err = tls_setup(gp, gp->tcb, s->base, s->size, s->guard, s->tls_ready);
	if (err) {
		/* only a fresh TCB fails (out of memory): the slot waits for
		 * the next thread, as a bare one */
		if (s->kind == STACK_MAPPED || s->kind == STACK_ARENA)
			stack_free(s);
		s->kind = STACK_NONE;
		return err;
	}
	if (s->kind != STACK_USER)
		s->tls_ready = true;
	return 0;
}

size_t proc_tls_block(void)
{
	return tls.block;
}

int proc_new(struct g **gpp, uint32_t *from, const struct g_spec *spec, void (*entry)(void *))
{
	struct g *gp = gfget_any();
	*from = G_DEAD;
	if (!gp) {
		gp = g_alloc();
		*from = G_IDLE;
		if (!gp)
			return EAGAIN;
	}
	g_new_tid(gp);
	int err = stack_and_tls(gp, spec);
	if (err) {
		proc_discard(gp, *from);
		return err;
	}
	char *sp = (char *)(gp->tcb - (tls.block - tls.tcb_size));
	gmp_ctx_init(&gp->ctx, sp, entry, gp);
	*gpp = gp;
	return 0;
}

void proc_start(struct g *gp, uint32_t from)
{
	uint64_t mask = ld_rlx(&gp->sigmask);
	if (mask)
		sigq_mask_change(0, mask);
	int64_t live = xadd(&sched.nlive, 1) + 1;
	xadd_rlx(&sched.ncreated, 1);
	int64_t peak = ld_rlx(&sched.peaklive);
	while (live > peak && !cas(&sched.peaklive, &peak, live))
		;
	g_casstatus(gp, from, G_RUNNABLE);
	struct g *me = getg();
	trace_ev(me ? me->m : NULL, TR_CREATE, gp, 0);
	sched_newproc(gp);
}

void proc_discard(struct g *gp, uint32_t from)
{
	if (from == G_IDLE)
		st_rlx(&gp->status, G_DEAD);
	gp->detached = true;	/* reaped: never joinable */
	gp->exited = true;
	gp->joiner = NULL;
	gfput_any(gp);
}

void proc_reap(struct g *gp, bool joined)
{
	/* a second join or detach gets ESRCH after a join, EINVAL after a
	 * detach, as glibc's (which marks a joined thread's id -1) */
	gp->joined = joined;
	gp->detached = true;
	gp->joiner = NULL;
	gfput_any(gp);
}

struct g *proc_by_tid(int tid)
{
	struct g *gp = NULL;
	if (tid > 0 && tid == sched_getpid()) {
		gp = sched.leader;
	} else if (tid >= (int)GMP_TID_BASE) {
		uint32_t i = ((uint32_t)tid - GMP_TID_BASE) % G_TID_SLOTS;
		if (i < g_count())
			gp = g_by_index(i);
	}
	if (!gp || gp->tid != tid)
		return NULL;
	uint32_t st = g_status(gp);
	/* (a G with an OS thread of its own has that thread's id in its
	 * TCB, and its own still in gp->tid) */
	if (st == G_IDLE || st == G_DEAD || !gp->tcb ||
	    (tls_tid(gp->tcb) != tid && !(gp->flags & G_FLAG_KTID)))
		return NULL;
	return gp;
}

struct g *proc_target(int tid)
{
	return tid == 0 ? getg() : proc_by_tid(tid);
}

int proc_os_thread(struct g *gp)
{
	if (gp->lockedm)
		return __atomic_load_n(&gp->lockedm->tid, __ATOMIC_ACQUIRE);
	if (gp == sched.maing && ld_rlx(&sched.ncreated) == 0)
		return (int)arch_syscall0(SYS_gettid);
	return 0;
}

int proc_task_of(struct g *gp)
{
	struct m *mp = __atomic_load_n(&gp->m, __ATOMIC_ACQUIRE);
	if (!mp)
		mp = __atomic_load_n(&gp->lastm, __ATOMIC_ACQUIRE);
	return mp ? __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE) : 0;
}

bool proc_exiting(struct g *gp)
{
	uint64_t mask = ld_rlx(&gp->sigmask);
	if (mask)
		sigq_mask_change(mask, 0);
	return xadd(&sched.nlive, -1) == 1;
}

_Noreturn void proc_exit(struct g *gp)
{
	if (gp->stack.kind == STACK_USER)
		tls_release(gp->tcb);	/* the program owns that memory */
	g_exit_switch();
}
