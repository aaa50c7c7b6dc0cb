// SPDX-License-Identifier: MIT
/*
 * core/adapt.c — how many Ps run Gs when the CPUs are shared.
 *
 * Each running P has an M the kernel schedules like any thread. When
 * other processes want the CPUs too, the kernel makes the Ms wait for
 * them in its run queue, and an M that waits holds up its running G and
 * every G queued on its P, for a whole scheduler tick at a time (4 ms at
 * HZ=250): a server's p99 becomes the tick. A thread per request, as
 * under NPTL, sleeps between requests and is let on at once when it
 * wakes. So while the Ms of the running Ps spend a large share of their
 * time waiting for a CPU and the Gs wait for events rather than compute
 * (few preemptions), one P leaves service (sched.nactive: its M moves
 * its Gs to the global queue and stops); while they do not wait and work
 * is queued, one comes back, no sooner than a back-off that doubles each
 * time a return had to be undone (a probe of the CPUs now free).
 *
 * Not while real-time Gs run: such a G holds its P as long as it wants
 * it, and its M, real-time in the kernel, does not wait for a CPU. Under
 * NPTL the ordinary threads then have the other CPUs; here they need
 * the other Ps, so every P comes back at once and none leaves.
 *
 * sysmon calls adapt_procs every round; it looks every ADAPT_EVERY_NS
 * at /proc/self/task/TID/schedstat of each running P's M. Nothing else
 * reads these fields. GMPDEBUG=adapt=0 keeps every P in service.
 */
#include "core/sched.h"
#include "core/config.h"
#include "core/os.h"

#define ADAPT_EVERY_NS 10000000		/* a look every 10 ms */
#define ADAPT_HIGH 0.25			/* waits for a CPU a quarter of the time */
#define ADAPT_LOW 0.05
#define BACKOFF_MIN_NS 100000000	/* 100 ms before a P comes back */
#define BACKOFF_MAX_NS 5000000000	/* 5 s */

static struct {
	int64_t last;			/* the last look */
	uint64_t switches, preempts, rt_runs;
	int high;			/* looks in a row above ADAPT_HIGH */
	int64_t changed;		/* when nactive last changed */
	bool raised;			/* ... upwards */
	int64_t backoff;
	bool off;			/* no schedstat, or GMPDEBUG=adapt=0 */
} ad;

/* Is work waiting for a P: the global queue, or a ring of a P in service? */
static bool work_waits(int32_t nact)
{
	if (ld_rlx(&sched.runqsize) != 0)
		return true;
	for (int i = 0; i < nact; i++)
		if (runq_ring_len(sched.allp[i]) != 0)
			return true;
	return false;
}

/* The mean share of the last interval (since prev) the Ms of the
 * running Ps waited for a CPU, over those seen at the last look too (an
 * M's adapt_when and adapt_wait), or -1 when there were none. */
static double wait_share(int32_t nact, int64_t prev, int64_t now)
{
	double sum = 0;
	int n = 0;
	for (int i = 0; i < nact; i++) {
		struct p *pp = sched.allp[i];
		struct m *mp = ld_rlx(&pp->status) == P_RUNNING ? pp->m : NULL;
		int tid = mp ? __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE) : 0;
		if (!tid)
			continue;
		int64_t w = os_thread_waittime(tid);
		if (w < 0) {
			ad.off = true;	/* no schedstat here */
			return -1;
		}
		if (mp->adapt_when == prev && w >= mp->adapt_wait) {
			sum += (double)(w - mp->adapt_wait) / (double)(now - prev);
			n++;
		}
		mp->adapt_when = now;
		mp->adapt_wait = w;
	}
	return n ? sum / n : -1;
}

/* Does a real-time G run on a P now (one that started before the last
 * look and has not left its P since: a sched_yield loop)? */
static bool rt_running(void)
{
	for (int i = 0; i < sched.gomaxprocs; i++) {
		struct m *mp = __atomic_load_n(&sched.allp[i]->m, __ATOMIC_ACQUIRE);
		struct g *gp = mp ? __atomic_load_n(&mp->curg, __ATOMIC_ACQUIRE) : NULL;
		if (gp && g_rt_runnable(gp))
			return true;
	}
	return false;
}

void adapt_procs(int64_t now)
{
	if (ad.off || sched.gomaxprocs < 2)
		return;
	if (!rt_cfg.adapt) {
		ad.off = true;
		return;
	}
	if (ad.last == 0) {
		ad.last = now;
		ad.backoff = BACKOFF_MIN_NS;
		return;
	}
	int64_t prev = ad.last;
	if (now - prev < ADAPT_EVERY_NS)
		return;
	ad.last = now;
	int32_t nact = ld_rlx(&sched.nactive);
	double share = wait_share(nact, prev, now);
	uint64_t sw = sched_switches();
	uint64_t pre = ld_rlx(&sched.npreempt) + ld_rlx(&sched.npreempt_door);
	/* Gs that compute (preempted at more than 1 switch in 20) keep
	 * their Ps: fewer would only give the other processes more */
	bool computing = (pre - ad.preempts) * 20 > sw - ad.switches;
	ad.switches = sw;
	ad.preempts = pre;
	uint64_t rt = ld_rlx(&sched.nrt_run);
	bool rt_ran = rt != ad.rt_runs || rt_running();
	ad.rt_runs = rt;
	if (rt_ran) {
		ad.high = 0;
		if (nact < sched.gomaxprocs) {
			st_rlx(&sched.nactive, sched.gomaxprocs);
			ad.changed = now;
			ad.raised = false;
			sched_wakep();
		}
		return;
	}
	if (share < 0)
		return;
	ad.high = share > ADAPT_HIGH ? ad.high + 1 : 0;
	if (ad.high >= 2 && nact > 1 && !computing) {
		/* a return undone soon: wait longer before the next */
		if (ad.raised && now - ad.changed < 2 * ad.backoff)
			ad.backoff = ad.backoff * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : ad.backoff * 2;
		st_rlx(&sched.nactive, nact - 1);
		ad.changed = now;
		ad.raised = false;
		ad.high = 0;
		return;
	}
	if (nact < sched.gomaxprocs && (share < ADAPT_LOW || computing) &&
	    now - ad.changed >= ad.backoff && work_waits(nact)) {
		if (ad.raised)
			ad.backoff = BACKOFF_MIN_NS;	/* the last return held */
		st_rlx(&sched.nactive, nact + 1);
		ad.changed = now;
		ad.raised = true;
		sched_wakep();
	}
}
