/* SPDX-License-Identifier: MIT */
/*
 * core/kwait.c — a G waiting in the kernel on a process-shared object (see
 * kwait.h).
 */
#include "core/kwait.h"
#include "core/os.h"
#include "core/real.h"
#include "core/sched.h"
#include "core/sched_impl.h"

#include <pthread.h>

GMP_HOT bool kwait_begin(struct g *gp, int kind, void *obj)
{
	gp->kwait_obj = obj;
	st_rel(&gp->kwait, (uint8_t)kind);
	/* pthread_cancel stores cancel_pending, then reads kwait: one of
	 * the two sees the other */
	fence_seq();
	if (g_cancel_acts(gp)) {
		kwait_end(gp);
		return false;
	}
	return true;
}

GMP_HOT void kwait_end(struct g *gp)
{
	st_rel(&gp->kwait, (uint8_t)KWAIT_NONE);
	fence_seq();
	while (ld_acq(&gp->kwait_users))
		arch_cpu_relax();
}

void kwait_interrupt(struct g *gp)
{
	xadd(&gp->kwait_users, 1u);
	fence_seq();
	int kind = ld_acq(&gp->kwait);
	if (kind == KWAIT_COND) {
		real_pthread_cond_broadcast(gp->kwait_obj);
	} else if (kind == KWAIT_SEM) {
		struct m *mp = gp->m;
		int tid = mp ? __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE) : 0;
		if (tid)
			sched_sig_send(tid, SCHED_SIG_PREEMPT);
	}
	xadd(&gp->kwait_users, -1u);
}

bool kwait_recheck(void)
{
	bool any = false;
	for (struct m *mp = ld_acq(&sched.allm); mp; mp = mp->alllink) {
		struct g *gp = __atomic_load_n(&mp->curg, __ATOMIC_ACQUIRE);
		if (gp && ld_acq(&gp->kwait) && g_cancel_acts(gp)) {
			kwait_interrupt(gp);
			any = true;
		}
	}
	return any;
}

void kwait_signal_here(struct g *gp, void *uc)
{
	if (gp && ld_acq(&gp->kwait) == KWAIT_SEM)
		arch_uc_futex_wait_eintr(uc);
}

#define KSPIN_MIN_NS 2000
#define KSPIN_START_NS 16000
#define KSPIN_MAX_NS 32000
#define KSPIN_PROBE 255		/* waits between probes while it is off */

GMP_HOT int64_t kwait_spin_budget(struct g *gp)
{
	static int ncpu;	/* the CPUs the process may use, at first use */
	int n = __atomic_load_n(&ncpu, __ATOMIC_RELAXED);
	if (!n) {
		n = os_ncpu();
		__atomic_store_n(&ncpu, n, __ATOMIC_RELAXED);
	}
	if (n < 2 || g_rt_policy(gp->schedpolicy))
		return 0;
	struct p *pp = gp->m->p;
	if (g_status(gp) == G_RUNNING && pp && (!runq_empty(pp) || ld_rlx(&sched.runqsize)))
		return 0;
	if (gp->kspin_ns == 0)
		gp->kspin_ns = KSPIN_START_NS;
	if (gp->kspin_ns > 0)
		return gp->kspin_ns;
	if (++gp->kspin_skip < KSPIN_PROBE)
		return 0;
	gp->kspin_skip = 0;
	return KSPIN_START_NS;
}

GMP_HOT void kwait_spin_result(struct g *gp, bool got, int64_t spent)
{
	int64_t b = gp->kspin_ns > 0 ? gp->kspin_ns : KSPIN_MIN_NS;
	if (got) {
		/* room for twice what this hand-over took */
		if (2 * spent > b)
			b = 2 * spent > KSPIN_MAX_NS ? KSPIN_MAX_NS : 2 * spent;
	} else {
		b /= 4;
		if (b < KSPIN_MIN_NS)
			b = -1;
	}
	gp->kspin_ns = (int32_t)b;
}
