/* SPDX-License-Identifier: MIT */

/*
 * core/g.c — G structures: slab allocation (type-stable, never freed),
 * status transitions, and wake-up arbitration.
 */
#include "core/g.h"
#include "core/os.h"

#include <sys/mman.h>

const char *const g_waitreason_keys[WAIT_NREASON] = {
	[WAIT_NONE] = "none",	  [WAIT_SLEEP] = "sleep",   [WAIT_JOIN] = "join",
	[WAIT_TEST] = "test",	  [WAIT_MUTEX] = "mutex",   [WAIT_COND] = "condvar",
	[WAIT_RWLOCK] = "rwlock", [WAIT_BARRIER] = "barrier", [WAIT_SEM] = "semaphore",
	[WAIT_ONCE] = "once",	  [WAIT_FUTEX] = "futex",   [WAIT_NETPOLL] = "io",
	[WAIT_POLL] = "poll",	  [WAIT_SIGNAL] = "signal",
};

const char *const g_waitreason_names[WAIT_NREASON] = {
	[WAIT_NONE] = "",
	[WAIT_SLEEP] = "sleep",
	[WAIT_JOIN] = "thread join",
	[WAIT_TEST] = "test",
	[WAIT_MUTEX] = "mutex",
	[WAIT_COND] = "condvar",
	[WAIT_RWLOCK] = "rwlock",
	[WAIT_BARRIER] = "barrier",
	[WAIT_SEM] = "semaphore",
	[WAIT_ONCE] = "once",
	[WAIT_FUTEX] = "futex",
	[WAIT_NETPOLL] = "IO wait",
	[WAIT_POLL] = "poll",
	[WAIT_SIGNAL] = "signal wait",
};

/*
 * Slabs: chunk k holds Gs with indexes k*G_PER_SLAB .. +G_PER_SLAB-1.
 * slabs[] entries are published with release stores and never change.
 */
#define G_PER_SLAB 1024
#define MAX_SLABS 4096		/* 4M G structures: G_TID_SLOTS */
_Static_assert(G_PER_SLAB * MAX_SLABS <= G_TID_SLOTS, "a G index must fit in a thread id");

static _Atomic(struct g *) slabs[MAX_SLABS];
static struct rt_mutex slab_lock;	/* leaf */
static _Atomic uint32_t nalloc;		/* G structures handed out */

struct g *g_alloc(void)
{
	rt_lock(&slab_lock);
	uint32_t i = ld_rlx(&nalloc);
	uint32_t k = i / G_PER_SLAB;
	if (k >= MAX_SLABS) {
		rt_unlock(&slab_lock);
		return NULL;
	}
	struct g *slab = ld_rlx(&slabs[k]);
	if (!slab) {
		slab = rt_mmap(G_PER_SLAB * sizeof(struct g), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
		if (!slab) {
			rt_unlock(&slab_lock);
			return NULL;
		}
		st_rel(&slabs[k], slab);
	}
	struct g *gp = &slab[i % G_PER_SLAB];
	gp->magic = G_MAGIC;
	gp->index = i;
	st_rel(&nalloc, i + 1);
	rt_unlock(&slab_lock);
	return gp;
}

struct g *g_by_index(uint32_t i)
{
	if (i >= ld_acq(&nalloc))
		return NULL;
	return &ld_acq(&slabs[i / G_PER_SLAB])[i % G_PER_SLAB];
}

uint32_t g_count(void)
{
	return ld_acq(&nalloc);
}

static bool transition_ok(uint32_t from, uint32_t to)
{
	switch (from) {
	case G_IDLE:
		return to == G_RUNNABLE;
	case G_DEAD:
		return to == G_RUNNABLE;
	case G_RUNNABLE:
		return to == G_RUNNING;
	case G_RUNNING:
		return to == G_RUNNABLE || to == G_WAITING || to == G_SYSCALL || to == G_DEAD;
	case G_SYSCALL:
		return to == G_RUNNING || to == G_RUNNABLE;
	case G_WAITING:
		return to == G_RUNNABLE;
	}
	return false;
}

void g_casstatus(struct g *gp, uint32_t from, uint32_t to)
{
	if (unlikely(!transition_ok(from, to)))
		rt_throw("g_casstatus: illegal transition");
	for (int i = 0;; i++) {
		uint32_t cur = from;
		if (cas(&gp->status, &cur, to))
			return;
		/* Only legal reason to fail: another owner is mid-transition
		 * into `from`; anything else is a bug. */
		if (i > (1 << 24)) {
			rt_printf(2, "gmp: g_casstatus: G %u status %u, wanted %u -> %u\n",
				  gp->index, cur, from, to);
			rt_throw("g_casstatus: status stuck");
		}
		arch_cpu_relax();
	}
}

void g_new_tid(struct g *gp)
{
	uint32_t gen = 0;
	if (gp->tid >= (int)GMP_TID_BASE)
		gen = ((uint32_t)gp->tid - GMP_TID_BASE) / G_TID_SLOTS + 1;
	gp->tid = (int)(GMP_TID_BASE + gen % G_TID_GENS * G_TID_SLOTS + gp->index);
}

uint64_t g_arm(struct g *gp)
{
	uint64_t seq = (ld_rlx(&gp->wakeup) >> 1) + 1;
	st_rel(&gp->wakeup, (seq << 1) | 1);
	return seq;
}

bool g_claim(struct g *gp, uint64_t seq)
{
	uint64_t cur = ld_acq(&gp->wakeup);
	for (;;) {
		if (!(cur & 1))
			return false;		/* already claimed */
		if (seq && (cur >> 1) != seq)
			return false;		/* a stale waker (old timer) */
		if (cas(&gp->wakeup, &cur, cur & ~(uint64_t)1))
			return true;
	}
}

void g_after_fork(void)
{
	slab_lock = (struct rt_mutex){0};
}
