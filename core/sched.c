/* SPDX-License-Identifier: MIT */
/*
 * core/sched.c — the scheduler loop: schedule, find_runnable, execute,
 * parking and readying Gs, and handing Ps between Ms. Structure and names
 * follow Go's runtime/proc.go (seed 001); read "Worker parking/unparking"
 * in sched.h first. System calls and sysmon's retakes are in syscall.c,
 * the Ms' lives and the fork reset in m.c (what the three share:
 * sched_impl.h).
 *
 * Everything named *_m or called from schedule() runs on g0 and is
 * TLS-free (see sched.h).
 */
#include "core/sched_impl.h"
#include "core/config.h"
#include "core/netpoll.h"
#include "core/proc.h"
#include "core/sigq.h"
#include "core/os.h"
#include "core/stack.h"
#include "core/tls.h"
#include "core/waitq.h"
#include "core/trace.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <linux/futex.h>
#include <sys/syscall.h>

struct sched sched;

/* --- P ownership ------------------------------------------------------- */

void acquirep(struct m *mp, struct p *pp)
{
	rt_assert(!mp->p, "acquirep: M already has a P");
	rt_assert(!pp->m && ld_rlx(&pp->status) == P_IDLE, "acquirep: P not idle");
	mp->p = pp;
	pp->m = mp;
	st_rel(&pp->status, P_RUNNING);
}

struct p *releasep(struct m *mp)
{
	struct p *pp = mp->p;
	rt_assert(pp && pp->m == mp, "releasep: M does not hold its P");
	mp->p = NULL;
	pp->m = NULL;
	st_rel(&pp->status, P_IDLE);
	return pp;
}

/* Caller holds sched.lock. */
void pidleput(struct p *pp)
{
	rt_assert(runq_empty(pp), "pidleput: P has a non-empty run queue");
	pp->link = sched.pidle;
	sched.pidle = pp;
	xadd(&sched.npidle, 1);
}

/* Caller holds sched.lock. An idle P in service (id < nactive). */
struct p *pidleget(void)
{
	int32_t nact = ld_rlx(&sched.nactive);
	struct p **link = &sched.pidle, *pp;
	while ((pp = *link) && pp->id >= nact)
		link = &pp->link;
	if (pp) {
		*link = pp->link;
		xadd(&sched.npidle, -1);
		/* a P is busy again: sysmon may have to watch it */
		sysmon_p_busy();
	}
	return pp;
}

/* The M (mp) lost its right to keep pp (it is going to block or be
 * dedicated to another G): give pp to someone who can use it. */
void handoffp(struct p *pp)
{
	if (!runq_empty(pp) || ld_rlx(&sched.runqsize) != 0) {
		xadd_rlx(&sched.nhandoff, 1);
		m_start(pp, false);
		return;
	}
	if (ld_rlx(&sched.nmspinning) + ld_rlx(&sched.npidle) == 0 &&
	    cas_val(&sched.nmspinning, 0, 1)) {
		xadd_rlx(&sched.nhandoff, 1);
		m_start(pp, true);
		return;
	}
	rt_lock(&sched.lock);
	if (ld_rlx(&sched.runqsize) != 0) {
		rt_unlock(&sched.lock);
		m_start(pp, false);
		return;
	}
	/* the last running P, and nobody waits for timers: keep one M on it */
	if (ld_rlx(&sched.npidle) == sched.gomaxprocs - 1 && ld_rlx(&sched.lastpoll) != 0) {
		rt_unlock(&sched.lock);
		m_start(pp, false);
		return;
	}
	int64_t when = ld_rlx(&pp->timers.minwhen);
	pidleput(pp);
	rt_unlock(&sched.lock);
	if (when)
		sched_wake_netpoller(when);
}

void sched_wakep(void)
{
	if (ld_rlx(&sched.npidle) == 0 || ld_rlx(&sched.nmspinning) != 0 ||
	    !cas_val(&sched.nmspinning, 0, 1))
		return;
	rt_lock(&sched.lock);
	struct p *pp = pidleget();
	if (!pp) {
		xadd(&sched.nmspinning, -1);
		rt_unlock(&sched.lock);
		return;
	}
	rt_unlock(&sched.lock);
	m_start(pp, true);
}

void sched_wake_netpoller(int64_t when)
{
	if (ld_acq(&sched.lastpoll) == 0) {
		int64_t until = ld_acq(&sched.pollUntil);
		if (until == 0 || until > when)
			netpoll_break();
	} else {
		sched_wakep();
	}
	/* its P may stay busy past it: sysmon must look then */
	sysmon_timer_added(when);
}

uint64_t sched_switches(void)
{
	uint64_t sw = 0;
	for (int i = 0; i < sched.gomaxprocs; i++)
		sw += __atomic_load_n(&sched.allp[i]->nswitch, __ATOMIC_RELAXED);
	return sw;
}

int64_t sched_timesleepuntil(void)
{
	int64_t next = 0;
	for (int i = 0; i < sched.gomaxprocs; i++) {
		int64_t w = ld_acq(&sched.allp[i]->timers.minwhen);
		if (w && (next == 0 || w < next))
			next = w;
	}
	return next;
}

/* --- finding work -------------------------------------------------------- */

/* Stop counting mp as spinning; false when someone did already (a
 * readier that handed it a G: handoff_spinning). */
static bool unspin(struct m *mp)
{
	bool t = true;
	if (!__atomic_compare_exchange_n(&mp->spinning, &t, false, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return false;
	int32_t n = xadd(&sched.nmspinning, -1);
	rt_assert(n > 0, "unspin: negative nmspinning");
	return true;
}

static void reset_spinning(struct m *mp)
{
	unspin(mp);
	/* We were the spinning M and found work: maybe there is more. */
	sched_wakep();
}

/*
 * Try to steal a G from another P, running other Ps' due timers on the
 * last pass. *pollUntil gets the earliest timer seen. Sets *newwork when
 * timers made Gs runnable on our own P.
 */
static struct g *steal_work(struct m *mp, int64_t now, bool *inherit, bool *newwork,
			    int64_t *pollUntil)
{
	struct p *pp = mp->p;
	int n = sched.gomaxprocs;

	*newwork = false;
	for (int pass = 0; pass < 4; pass++) {
		bool last = pass == 3;
		uint32_t start = m_rand(mp) % (uint32_t)n;
		for (int i = 0; i < n; i++) {
			struct p *p2 = sched.allp[(start + (uint32_t)i) % (uint32_t)n];
			if (p2 == pp)
				continue;
			if (last) {
				int64_t w = timers_run(p2, pp, now);
				if (w && (*pollUntil == 0 || w < *pollUntil))
					*pollUntil = w;
				if (!runq_empty(pp)) {
					struct g *gp = runq_get(pp, inherit);
					if (gp)
						return gp;
					*newwork = true;
				}
			}
			if (ld_rlx(&p2->status) == P_IDLE)
				continue;
			struct g *gp = runq_steal(pp, p2, last);
			if (gp) {
				*inherit = false;
				return gp;
			}
		}
	}
	return NULL;
}

/*
 * Make a list of RUNNABLE Gs (linked through schedlink, as netpoll returns
 * them) runnable, as Go's injectglist: without a P all go to the global
 * queue and an M is started for each idle P they can use; with one, as
 * many as there are idle Ps go to the global queue for those Ps' Ms and
 * the rest to pp's own queue.
 */
void sched_inject(struct g *list, int n, struct p *pp)
{
	if (!list)
		return;
	int32_t npidle = ld_rlx(&sched.npidle);
	int nglobal = pp ? (npidle < n ? npidle : n) : n;
	if (nglobal > 0) {
		struct g *head = list, *tail = list;
		for (int i = 1; i < nglobal; i++)
			tail = tail->schedlink;
		list = tail->schedlink;
		tail->schedlink = NULL;
		rt_lock(&sched.lock);
		globrunq_putbatch_locked(head, tail, nglobal);
		rt_unlock(&sched.lock);
		for (int i = 0; i < nglobal && ld_rlx(&sched.npidle) > 0; i++)
			m_start(NULL, false);
	}
	while (list) {
		struct g *next = list->schedlink;
		runq_put(pp, list, false);
		list = next;
	}
}

/* A list from netpoll (n Gs) while holding pp: run the first, make the
 * rest runnable. */
static struct g *inject_but_first(struct g *list, int n, struct p *pp)
{
	struct g *gp = list;
	sched_inject(gp->schedlink, n - 1, pp);
	gp->schedlink = NULL;
	return gp;
}

/* After dropping spinning: is there work on any P? Returns such a P. */
static struct p *check_runqs_nop(void)
{
	for (int i = 0; i < sched.gomaxprocs; i++)
		if (!runq_empty(sched.allp[i]))
			return sched.allp[i];
	return NULL;
}

/* How long a queued G waits at most behind the Gs that come first while
 * its P keeps switching (runnext before the local ring, the local queue
 * before the global one): the short time slice of core/preempt.c. */
#define QUEUE_FAIR_NS 2000000

/* Up to n Gs from the global queue onto pp (0: as many as fit); returns
 * the first. */
static struct g *take_global(struct p *pp, int n, int64_t now, bool *inherit)
{
	rt_lock(&sched.lock);
	struct g *gp = globrunq_get_locked(pp, n);
	rt_unlock(&sched.lock);
	if (gp) {
		pp->glob_when = now;
		*inherit = false;
	}
	return gp;
}

/*
 * Fairness. The order is runnext, the local ring, the global queue,
 * and every 61st G started comes from the global queue first, as in
 * Go. Beyond Go: Gs that wake each other through runnext (timers'
 * wake-ups go there too) share one slice, and once they have run a
 * short slice's time in a row the queued Gs go first; and the global
 * queue goes before the ring when it has waited that long and longer
 * than the ring (Gs that keep the ring full with short bursts would
 * otherwise hold it back for 61 of them). Returns the G that goes
 * first by these rules, or NULL for the usual order.
 */
static struct g *find_fair(struct p *pp, int64_t now, bool *inherit)
{
	struct g *nx = ld_rlx(&pp->runnext);
	bool ring = runq_ring_len(pp) != 0;
	bool glob = ld_rlx(&sched.runqsize) != 0;
	if (!ring)
		pp->ring_when = now;
	if (!glob)
		pp->glob_when = now;
	bool chain_long = nx && pp->last_inherit && now - pp->chain_start >= QUEUE_FAIR_NS;
	bool take_glob = glob && pp->schedtick % 61 == 0, take_ring = false;
	int batch = 1;
	if (!take_glob && (!nx || chain_long)) {
		bool glob_late = glob && now - pp->glob_when >= QUEUE_FAIR_NS &&
				 (!ring || pp->glob_when <= pp->ring_when);
		take_glob = glob_late || (chain_long && !ring && glob);
		take_ring = !take_glob && chain_long && ring;
		/* the global queue has waited a short slice: a long one comes
		 * in a batch (a P's half of half of it), behind the ring, or
		 * Gs that keep the ring full (timer wake-ups) would let it
		 * drain one G per slice while preempted Gs pile up in it; a
		 * short one a G at a time, which keeps a few spinning Gs
		 * spread over the Ps */
		if (glob_late) {
			int room = RUNQ_SIZE / 2 - (int)runq_ring_len(pp);
			batch = ld_rlx(&sched.runqsize) / (2 * sched.gomaxprocs);
			if (batch > room)
				batch = room;
			if (batch < 1)
				batch = 1;
		}
	}
	struct g *gp = NULL;
	if (take_glob)
		gp = take_global(pp, batch, now, inherit);
	if (!gp && take_ring) {
		gp = runq_get_ring(pp);
		if (gp) {
			pp->ring_when = now;
			*inherit = false;
		}
	}
	return gp;
}

/* The local queue, then the global one (the local queue is empty, so a
 * batch fits). */
static struct g *find_queued(struct p *pp, int64_t now, bool *inherit)
{
	struct g *gp = runq_get(pp, inherit);
	if (gp) {
		if (!*inherit)
			pp->ring_when = now;
		return gp;
	}
	if (ld_rlx(&sched.runqsize) != 0)
		return take_global(pp, 0, now, inherit);
	return NULL;
}

/* The network, without blocking, unless an M blocks in it already (it
 * will see the same events). */
static struct g *find_netpoll(struct m *mp, struct p *pp, int64_t now, bool *inherit)
{
	if (!netpoll_any_waiters() || ld_rlx(&sched.lastpoll) == 0)
		return NULL;
	int n;
	struct g *list = netpoll(0, &n);
	if (!list)
		return NULL;
	trace_ev(mp, TR_NETPOLL, list, n);
	st_rel(&sched.lastpoll, now);
	*inherit = false;
	return inject_but_first(list, n, pp);
}

/* Spinning Ms steal work (at most half the busy Ps spin). *again: timers
 * made work on our own P, look again from the top. */
static struct g *find_steal(struct m *mp, int64_t now, bool *inherit, int64_t *pollUntil,
			    bool *again)
{
	*again = false;
	if (!mp->spinning &&
	    2 * ld_rlx(&sched.nmspinning) >= sched.gomaxprocs - ld_rlx(&sched.npidle))
		return NULL;
	if (!mp->spinning) {
		xadd(&sched.nmspinning, 1);
		__atomic_store_n(&mp->spinning, true, __ATOMIC_RELEASE);
	}
	struct g *gp = steal_work(mp, now, inherit, again, pollUntil);
	if (gp)
		trace_ev(mp, TR_STEAL, gp, 1);
	return gp;
}

/* Is there work an M holding pp should look for again: its own queue,
 * the global one (real-time Gs included), a due timer of its own, Gs in
 * another P's ring? (Not another P's runnext alone: its M runs that G
 * next, or, where a thread-pointer write is saved, hands it here.) */
static bool spin_sees_work(struct p *pp, int64_t now)
{
	if (!runq_empty(pp) || ld_rlx(&sched.runqsize) != 0 || ld_rlx(&sched.nrtq) != 0)
		return true;
	int64_t w = ld_rlx(&pp->timers.minwhen);
	if (w && w <= now)
		return true;
	for (int i = 0; i < sched.gomaxprocs; i++) {
		struct p *p2 = sched.allp[i];
		if (p2 != pp && runq_ring_len(p2) != 0)
			return true;
	}
	return false;
}

/*
 * The M looks for work holding its P and accepts Gs handed to it
 * (spinwait, from the top of find_runnable until it returns or drops
 * its P). take_handoff ends that: spinwait cleared, then handoff read,
 * as put_runnable stores handoff, then reads spinwait (Dekker), so a G
 * put there is always found. A handed G runs first (its thread pointer
 * is this M's); gp, found meanwhile, goes to the P's queue.
 */
static struct g *take_handoff(struct m *mp, struct g *gp, bool *inherit)
{
	atomic_store_explicit(&mp->spinwait, false, memory_order_seq_cst);
	struct g *h = ld_rlx(&mp->handoff) ? xchg(&mp->handoff, (struct g *)NULL) : NULL;
	if (!h)
		return gp;
	if (gp)
		runq_put(mp->p, gp, false);
	xadd_rlx(&sched.nspin_handoff, 1);
	*inherit = false;
	return h;
}

#define SPIN_POLL_NS 20000

/*
 * A spinning M that found nothing keeps its P until *until (set at the
 * first call of a find_runnable, sched.spin_ns after it), watching the
 * queues and its handoff. Returns a G handed to it; NULL with *again set
 * when work showed up elsewhere (look again from the top), NULL without
 * when the time is up.
 */
static struct g *spin_wait(struct m *mp, struct p *pp, int64_t *until, bool *inherit,
			   bool *again)
{
	int64_t now = rt_nanotime(), polled = now;
	*again = false;
	if (*until == 0)
		*until = now + sched.spin_ns;
	for (uint32_t i = 1; now < *until; i++) {
		if (ld_rlx(&mp->handoff))
			return take_handoff(mp, NULL, inherit);
		if ((i & 15) == 0) {
			now = rt_nanotime();
			if (spin_sees_work(pp, now)) {
				*again = true;
				return NULL;
			}
			/* the network every SPIN_POLL_NS (a system call each),
			 * unless an M blocks in the poller (it sees the same
			 * events) */
			if (now - polled >= SPIN_POLL_NS) {
				polled = now;
				struct g *gp = find_netpoll(mp, pp, now, inherit);
				if (gp)
					return take_handoff(mp, gp, inherit);
			}
		}
		arch_cpu_relax();
	}
	return NULL;
}

/* Nothing found: a last look at the global queue under its lock, else
 * release the P. Returns a G (the P kept) or NULL (the P released). */
static struct g *drop_p(struct m *mp, struct p *pp, bool *inherit)
{
	rt_lock(&sched.lock);
	if (ld_rlx(&sched.runqsize) != 0) {
		struct g *gp = globrunq_get_locked(pp, 0);
		rt_unlock(&sched.lock);
		*inherit = false;
		return gp;
	}
	releasep(mp);
	pidleput(pp);
	rt_unlock(&sched.lock);
	return NULL;
}

/*
 * Delicate dance (Go's findRunnable): after dropping its P, a spinning M
 * stops spinning, then looks at every run queue again. A submitter
 * publishes work, then checks nmspinning; we decrement nmspinning, then
 * check queues. The fence orders our decrement before the loads. Returns
 * true when the M took a P back to look again (spinning again).
 */
static bool unspin_and_recheck(struct m *mp)
{
	unspin(mp);	/* unless a readier that handed it a G did */
	fence_seq();
	if (!check_runqs_nop())
		return false;
	rt_lock(&sched.lock);
	struct p *p2 = pidleget();
	rt_unlock(&sched.lock);
	if (!p2)
		return false;
	acquirep(mp, p2);
	mp->spinning = true;
	xadd(&sched.nmspinning, 1);
	return true;
}

/*
 * Without a P: block in the poller until pollUntil (0: no timer) or a
 * descriptor's edge, if there is anything to wait for and no other M
 * does. Returns true when the M holds a P again, with *gpp the first G
 * the poller made runnable, or NULL to look again from the top; false
 * when the M should stop (any Gs the poller made runnable are queued).
 */
static bool block_in_netpoll(struct m *mp, int64_t pollUntil, bool wasSpinning, bool *inherit,
			     struct g **gpp)
{
	*gpp = NULL;
	int64_t next = sched_timesleepuntil();
	if (next && (pollUntil == 0 || next < pollUntil))
		pollUntil = next;
	bool waiters = netpoll_any_waiters();
	if ((pollUntil == 0 && !waiters) || xchg(&sched.lastpoll, (int64_t)0) == 0) {
		if (pollUntil != 0) {
			/* the M in the poller must wake for our timer */
			int64_t until = ld_acq(&sched.pollUntil);
			if (until == 0 || until > pollUntil)
				netpoll_break();
		}
		return false;
	}
	st_rel(&sched.pollUntil, pollUntil ? pollUntil : INT64_MAX);
	m_wear_own_tls(mp);
	int64_t now = rt_nanotime();
	int n = 0;
	struct g *list = NULL;
	if (pollUntil == 0)
		list = netpoll(-1, &n);
	else if (pollUntil > now)
		list = netpoll(pollUntil - now, &n);
	else if (waiters)
		list = netpoll(0, &n);
	now = rt_nanotime();
	st_rel(&sched.pollUntil, (int64_t)0);
	st_rel(&sched.lastpoll, now);
	rt_lock(&sched.lock);
	struct p *p2 = pidleget();
	rt_unlock(&sched.lock);
	if (!p2) {
		sched_inject(list, n, NULL);
		return false;
	}
	acquirep(mp, p2);
	if (wasSpinning) {
		mp->spinning = true;
		xadd(&sched.nmspinning, 1);
	}
	if (list) {
		trace_ev(mp, TR_NETPOLL, list, n);
		*inherit = false;
		*gpp = inject_but_first(list, n, p2);
	}
	return true;
}

/*
 * Real-time Gs go first, as the kernel runs a real-time thread before
 * every ordinary one on its CPU. But the kernel lets ordinary threads
 * that real-time ones keep from a CPU run 50 ms in each second (its fair
 * server since Linux 6.12; before, the real-time threads' 950 ms budget
 * in each 1 s period): a real-time thread that yields in a loop slows
 * the others, and never stops them. So here: an ordinary G that has
 * waited ORD_WAIT_NS on pp, or in the global queue, while no ordinary G
 * started on pp goes first once (pp->ord_first), whoever waits.
 */
#define ORD_WAIT_NS 950000000

static bool ordinary_turn(struct p *pp, int64_t now)
{
	if (unlikely(pp->ord_turn == 0))
		pp->ord_turn = now;
	if (runq_empty(pp) && ld_rlx(&sched.runqsize) <= ld_rlx(&sched.nrtq)) {
		pp->ord_turn = now;	/* none waits */
		return false;
	}
	return now - pp->ord_turn >= ORD_WAIT_NS;
}

/*
 * Find a runnable G, blocking the M if there is none. Work sources in
 * priority order, as in Go's findRunnable: the fairness rules, the local
 * and global queues, the network, stealing (with other Ps' timers); then
 * the P is dropped and the M blocks in the poller or stops. Returns with
 * mp holding a P.
 */
static struct g *find_runnable(struct m *mp, bool *inherit)
{
	int64_t spin_until = 0;
	bool spun = false;
	for (;;) {
		struct p *pp = mp->p;
		st_rel(&mp->spinwait, true);
		sigq_poll(pp);
		int64_t now = rt_nanotime();
		int64_t pollUntil = timers_run(pp, pp, now);
		struct g *gp = NULL;
		/* a real-time G before all others, but for an ordinary
		 * one's turn now and then */
		bool rtq = unlikely(ld_rlx(&sched.nrtq) != 0);
		pp->ord_first = rtq && ordinary_turn(pp, now);
		if (rtq && !pp->ord_first)
			gp = take_global(pp, 1, now, inherit);
		if (!gp)
			gp = find_fair(pp, now, inherit);
		if (!gp)
			gp = find_queued(pp, now, inherit);
		if (!gp)
			gp = find_netpoll(mp, pp, now, inherit);
		if (gp)
			return take_handoff(mp, gp, inherit);
		bool again;
		gp = find_steal(mp, now, inherit, &pollUntil, &again);
		spun |= mp->spinning;
		if (gp)
			return take_handoff(mp, gp, inherit);
		if (again)
			continue;
		if (mp->spinning && sched.spin_ns > 0) {
			gp = spin_wait(mp, pp, &spin_until, inherit, &again);
			if (gp)
				return gp;
			if (again)
				continue;
		}
		gp = take_handoff(mp, NULL, inherit);
		if (gp)
			return gp;
		gp = drop_p(mp, pp, inherit);
		if (gp)
			return gp;
		/* a readier that handed this M a G may have stopped counting
		 * it as spinning meanwhile: it spun all the same */
		bool wasSpinning = mp->spinning || spun;
		spun = false;
		if (wasSpinning && unspin_and_recheck(mp))
			continue;
		if (block_in_netpoll(mp, pollUntil, wasSpinning, inherit, &gp)) {
			if (gp)
				return gp;
			continue;
		}
		stopm(mp);
	}
}

/* --- running a G ---------------------------------------------------------- */

/* Make the M's kernel signal mask a G's (SCHED_SIG never blocked there).
 * mp->kmask is what the kernel has: whoever changes the kernel's mask
 * otherwise sets it too (~0: not known). */
static void set_kmask(struct m *mp, struct g *gp)
{
	uint64_t km = (ld_rlx(&gp->sigmask) | gp->kmask_extra) & ~sigq_bit(SCHED_SIG);
	if (km != mp->kmask) {
		arch_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &km, NULL, 8);
		os_count(OSC_SIGMASK);
		mp->kmask = km;
	}
}

void sched_apply_sigmask(struct g *gp)
{
	gp->preemptoff++;
	set_kmask(gp->m, gp);
	gp->preemptoff--;
}

void sched_kmask_unknown(struct g *gp)
{
	gp->preemptoff++;
	if (gp->m)
		gp->m->kmask = ~(uint64_t)0;
	gp->preemptoff--;
}

_Noreturn void execute(struct m *mp, struct g *gp, bool inherit)
{
	struct p *pp = mp->p;

	mp->curg = gp;
	gp->m = mp;
	g_casstatus(gp, G_RUNNABLE, G_RUNNING);
	if (gp->ia_counted) {
		gp->ia_counted = false;
		xadd_rlx(&sched.nready_ia, -1);
	}
	gp->run_start = rt_nanotime();
	if (likely(!g_rt_runnable(gp)))
		pp->ord_turn = gp->run_start;
	else
		xadd_rlx(&sched.nrt_run, 1);
	if (!inherit) {
		__atomic_store_n(&pp->schedtick, pp->schedtick + 1, __ATOMIC_RELAXED);
		st_rlx(&pp->slice_start, gp->run_start);
	}
	else if (!pp->last_inherit)
		pp->chain_start = gp->run_start;	/* a chain of runnext Gs begins */
	pp->last_inherit = inherit;
	pp->nswitch++;
	gp->nrun++;
	/* a new slice: requests for the old one are void */
	if (unlikely(ld_rlx(&gp->door) & DOOR_PREEMPT))
		atomic_fetch_and_explicit(&gp->door, ~DOOR_PREEMPT, memory_order_relaxed);
	if (unlikely(ld_rlx(&pp->preempt_req)))
		st_rlx(&pp->preempt_req, false);
	set_kmask(mp, gp);
	uintptr_t fs = gp->tcb;
	if (fs == mp->fs) {
		fs = 0;		/* already loaded: skip the expensive write */
	} else {
		__atomic_store_n(&mp->fs, fs, __ATOMIC_RELAXED);	/* read by readiers */
		mp->ntpw++;
	}
	gmp_ctx_gogo(&gp->ctx, fs);
}

/*
 * mp holds a P taken out of service (core/adapt.c): its queued Gs go to
 * the global queue and its timers to P 0 (always in service), it goes
 * idle, and the M goes on with an idle P in service, or stops until it
 * is handed one.
 */
static void leave_service(struct m *mp)
{
	struct p *pp = mp->p;
	struct g *head = NULL, *tail = NULL, *gp;
	int n = 0;
	bool inh;
	while ((gp = runq_get(pp, &inh))) {
		gp->schedlink = NULL;
		if (tail)
			tail->schedlink = gp;
		else
			head = gp;
		tail = gp;
		n++;
	}
	timers_move(pp, sched.allp[0]);
	if (mp->spinning)
		reset_spinning(mp);
	rt_lock(&sched.lock);
	if (n)
		globrunq_putbatch_locked(head, tail, n);
	releasep(mp);
	pidleput(pp);
	/* an idle P in service: go on with it (the Gs just queued, or the
	 * one that yielded into the global queue to get here, may have
	 * nobody else to run them) */
	struct p *next = pidleget();
	rt_unlock(&sched.lock);
	xadd_rlx(&sched.nparked, 1);
	if (next)
		acquirep(mp, next);
	else
		stopm(mp);
}

_Noreturn void schedule(struct m *mp)
{
top:
	if (unlikely(mp->p && ld_rlx(&mp->p->sflush))) {
		proc_stack_flush(mp->p);
		st_rel(&mp->p->sflush, false);
	}
	if (unlikely(mp->p && mp->p->id >= ld_rlx(&sched.nactive)) && !mp->lockedg)
		leave_service(mp);
	if (mp->lockedg) {
		if (stoplockedm(mp))
			execute(mp, mp->lockedg, false);
		stopm(mp);	/* an ordinary M again */
	}
	bool inherit = false;
	struct g *gp = find_runnable(mp, &inherit);
	if (mp->spinning)
		reset_spinning(mp);
	if (gp->lockedm && gp->lockedm != mp) {
		startlockedm(mp, gp);
		goto top;
	}
	execute(mp, gp, inherit);
}

/* The G leaves RUNNING on mp (on g0): account its time, detach it. */
void dropg(struct m *mp, struct g *gp)
{
	int64_t now = rt_nanotime();
	gp->runtime_ns += now - gp->run_start;
	gp->waitsince = now;
	if (unlikely(trace_on))
		trace_record(mp, TR_RUN, gp, gp->run_start, now);
	mp->curg = NULL;
	gp->lastm = mp;
	gp->m = NULL;
}

/*
 * The g0 half of g_park. The G becomes WAITING only after its unlock
 * callback has run: a waker that found the G before it parked (a condvar
 * waiter queues itself before unlocking its mutex; a signal or a
 * cancellation may claim any armed wait) spins in g_ready until then, and
 * must not run the G while this M still uses its state. Nothing here
 * touches the G after that transition.
 */
/* Is a wait for this reason a cancellation point's? Other waits (a
 * mutex's, a barrier's) do not end for a cancellation. */
static bool cancel_point(uint8_t reason)
{
	switch (reason) {
	case WAIT_SLEEP: case WAIT_JOIN: case WAIT_COND: case WAIT_SEM:
	case WAIT_NETPOLL: case WAIT_POLL: case WAIT_SIGNAL:
		return true;
	default:
		return false;
	}
}

static void park_m(void *arg)
{
	struct g *gp = arg;
	struct m *mp = gp->m;

	dropg(mp, gp);
	bool (*fn)(struct m *, struct g *, void *) = mp->waitunlockf;
	if (fn) {
		void *lk = mp->waitlock;
		mp->waitunlockf = NULL;
		mp->waitlock = NULL;
		if (!fn(mp, gp, lk)) {
			if (unlikely(ld_acq(&gp->wakeup) & 1))
				rt_throw("g_park: a park cancelled with its wake-up armed");
			g_casstatus(gp, G_RUNNING, G_RUNNABLE);
			execute(mp, gp, true);
		}
	}
	mp->p->nwait[gp->waitreason]++;
	trace_ev(mp, TR_PARK, gp, gp->waitreason);
	/* a signal that found the G inside libgmp left its handler for the
	 * door; a wait the G began since must end for it, as a signal ends
	 * the wait of a G it is routed to (kick in core/sigq.c) */
	bool deferred = gp->sig_deferred;
	gp->sig_deferred = false;
	g_casstatus(gp, G_RUNNING, G_WAITING);
	if (unlikely(deferred) && sigq_pending_for(gp) && g_claim(gp, 0))
		g_ready(gp, mp->p, false);
	/* and a cancellation that came after the G last looked (at the
	 * wait's start) but before its wake-up was armed: pthread_cancel
	 * stored cancel_pending, then found nothing to claim. The status's
	 * CAS above orders the arming before this load, as the claim's CAS
	 * orders the store before the claim. */
	else if (unlikely(g_cancel_acts(gp)) && cancel_point(gp->waitreason) && g_claim(gp, 0))
		g_ready(gp, mp->p, false);
	schedule(mp);
}

void g_park(bool (*unlockf)(struct m *, struct g *, void *), void *arg, uint8_t reason)
{
	struct g *gp = getg();
	struct m *mp = gp->m;

	/* Every entry that may park takes its P back first (door_sync); a
	 * G parks in a system call of its own only when a call made as one
	 * calls back into libgmp before its entry did (GMP_BLOCKING). */
	if (unlikely(g_status(gp) == G_SYSCALL)) {
		g_syscall_exit();
		mp = gp->m;
	}
	mp->waitunlockf = unlockf;
	mp->waitlock = arg;
	gp->waitreason = reason;
	gp->preempt_streak = 0;	/* it waits: its next run answers an event */
	st_rlx(&gp->yield_ns, (int64_t)0);
	gmp_ctx_mcall(&gp->ctx, mp->g0_top, park_m, gp);
	/* running again, maybe on another M: mp is stale */
	gp->waitreason = WAIT_NONE;
	gp->waitobj = NULL;
}

struct p *sched_my_p(void)
{
	struct g *me = getg();
	return me && me->m ? me->m->p : NULL;
}

/* Put a RUNNABLE G at the back of the global queue. */
static void globrunq_put(struct g *gp)
{
	rt_lock(&sched.lock);
	if (g_rt_runnable(gp))
		rtq_put_locked(gp);	/* behind its equals, as the kernel's yield */
	else
		globrunq_put_locked(gp);
	rt_unlock(&sched.lock);
}

/* gp, made runnable, waits for events rather than computes: counted
 * until it runs (execute). */
static inline void count_ia(struct g *gp)
{
	if (!gp->ia_counted) {
		gp->ia_counted = true;
		xadd_rlx(&sched.nready_ia, 1);
	}
}

/* Put gp in lm's handoff when lm looks for work (spinwait). */
static bool handoff_to(struct m *lm, struct g *gp)
{
	if (!ld_rlx(&lm->spinwait) || ld_rlx(&lm->handoff))
		return false;
	if (!cas_val(&lm->handoff, (struct g *)NULL, gp))
		return false;
	fence_seq();
	if (ld_rlx(&lm->spinwait))
		return true;	/* it looks at handoff before it stops */
	/* it stopped looking: take gp back, unless it took it already */
	return !cas_val(&lm->handoff, gp, (struct g *)NULL);
}

/*
 * A G readied on pp goes to an M that looks for work holding a P, where
 * it runs at once: the M that last ran it, when that M's thread pointer
 * is still gp's (no thread-pointer write at all); else, when gp would
 * need a write on pp's M as well (it ran there last, and another G runs
 * there now), a spinning M, where it then stays: the next time it is
 * readied that M may well be looking for work with gp's thread pointer.
 * Returns true when an M has it.
 */
static bool handoff_spinning(struct g *gp, struct p *pp)
{
	if (!sched.affinity || gp->lockedm)
		return false;
	struct m *me = pp->m, *lm = gp->lastm;
	if (lm && lm != me) {
		if (__atomic_load_n(&lm->fs, __ATOMIC_RELAXED) != gp->tcb)
			return false;
		if (!handoff_to(lm, gp))
			return false;
		unspin(lm);
		return true;
	}
	if (!lm || ld_rlx(&sched.nmspinning) == 0)
		return false;
	int n = sched.gomaxprocs;
	uint32_t start = m_rand(me) % (uint32_t)n;
	for (int i = 0; i < n; i++) {
		struct p *p2 = sched.allp[(start + (uint32_t)i) % (uint32_t)n];
		struct m *m2 = p2 == pp ? NULL : p2->m;
		if (m2 && __atomic_load_n(&m2->spinning, __ATOMIC_RELAXED) && handoff_to(m2, gp)) {
			/* it runs gp now: no longer a spinning M, so that the
			 * M that runs us may spin when we park */
			unspin(m2);
			return true;
		}
	}
	return false;
}

/* a runs at a real-time priority at least b's */
static bool g_outranks(const struct g *a, const struct g *b)
{
	return g_rt_policy(a->schedpolicy) && a->schedprio >= b->schedprio;
}

/*
 * A real-time G made runnable runs at once, where NPTL's thread would:
 * its OS thread already carries its policy and priority (core/m.c), and
 * an idle P goes straight to it, so the kernel weighs its wake-up
 * against the readier's priority on the CPU they share (a creator or a
 * poster of lower priority is preempted inside the call). Without an
 * idle P it waits in the global queue's real-time part, and a P is
 * freed for it: the readier's, when the readier runs at a lower
 * priority (it gives way at its next door), else one running a G that
 * is not real-time.
 */
static void ready_rt(struct g *gp, struct p *pp)
{
	struct m *lm = gp->lockedm;
	rt_lock(&sched.lock);
	struct p *idle = pidleget();
	if (!idle)
		rtq_put_locked(gp);
	rt_unlock(&sched.lock);
	if (idle) {
		__atomic_store_n(&lm->nextp, idle, __ATOMIC_RELEASE);
		note_wakeup(&lm->park);
		return;
	}
	struct g *cur = pp && pp->m ? pp->m->curg : NULL;
	if (cur && cur != gp && !g_outranks(cur, gp)) {
		atomic_fetch_or_explicit(&cur->door, DOOR_PREEMPT, memory_order_relaxed);
		return;
	}
	sched_preempt_ordinary();
}

/* Queue a RUNNABLE G on pp (NULL: the global queue; a real-time G:
 * ready_rt), or hand it to an M that looks for work (handoff_spinning),
 * and wake an M. */
static void put_runnable(struct g *gp, struct p *pp, bool next)
{
	count_ia(gp);
	bool rt = g_rt_runnable(gp);
	if (unlikely(rt)) {
		ready_rt(gp, pp);
		return;
	}
	if (pp) {
		if (!handoff_spinning(gp, pp)) {
			runq_put(pp, gp, next);
			sched_wakep();
		}
		return;
	}
	rt_lock(&sched.lock);
	globrunq_put_locked(gp);
	rt_unlock(&sched.lock);
	/*
	 * As Go's injectglist without a P: start an M for an idle P even if
	 * one is spinning. The spinning protocol covers local queues only: a
	 * spinning M that looked at the global queue before this put, then
	 * gave up its P, does not look again, and sched_wakep would count on
	 * it. Whoever idled a P did so under sched.lock after a last look at
	 * the global queue, so either it saw this G or npidle shows its P.
	 */
	if (ld_rlx(&sched.npidle) > 0)
		m_start(NULL, false);
}

void g_ready(struct g *gp, struct p *pp, bool next)
{
	g_casstatus(gp, G_WAITING, G_RUNNABLE);
	trace_ev(pp ? pp->m : NULL, TR_READY, gp, 0);
	put_runnable(gp, pp, next);
}

void g_ready_any(struct g *gp)
{
	struct p *pp = sched_my_p();
	/* A thread that is not a G (a timer callback's, say) may be the
	 * first to make work for a second M: the service thread that starts
	 * Ms must be running. */
	if (!pp)
		sched_start();
	g_ready(gp, pp, pp != NULL);
}

void sched_newproc(struct g *gp)
{
	put_runnable(gp, sched_my_p(), false);
}

bool sched_creator_gives_way(void)
{
	struct p *pp = sched_my_p();
	return pp && runq_ring_len(pp) >= NEWPROC_YIELD;
}

static void gosched_m(void *arg)
{
	struct g *gp = arg;
	struct m *mp = gp->m;

	g_casstatus(gp, G_RUNNING, G_RUNNABLE);
	dropg(mp, gp);
	if (gp->preempt_streak < G_CPU_BOUND)
		count_ia(gp);
	globrunq_put(gp);
	schedule(mp);
}

static void yield_global(struct g *gp)
{
	if (g_status(gp) == G_SYSCALL)
		g_syscall_exit();
	gmp_ctx_mcall(&gp->ctx, gp->m->g0_top, gosched_m, gp);
}

void g_yield(void)
{
	struct g *gp = getg();
	/* the turn counts on into the G's slice (g->yield_ns) */
	st_rlx(&gp->yield_ns, ld_rlx(&gp->yield_ns) + rt_nanotime() - gp->run_start);
	yield_global(gp);
}

/*
 * sched_yield. A real-time G on its own OS thread yields as the kernel's
 * sched_yield does for such a thread: only to real-time threads of its
 * priority and above, here the queued Gs (then through the scheduler)
 * and elsewhere the kernel's on its CPU (the system call, made by an OS
 * thread that carries the G's policy). Ordinary Gs get their turn as
 * the kernel gives ordinary threads theirs (ordinary_turn). Going
 * through the scheduler each time handed the P from M to M for nothing:
 * stress-ng's mutex stressor, a SCHED_FIFO thread that yields in a loop,
 * ran 20 times slower than under NPTL.
 */
void g_sched_yield(void)
{
	struct g *gp = getg();
	if (unlikely(g_rt_runnable(gp))) {
		gp->preemptoff++;
		struct m *mp = gp->m;
		bool alone = mp == gp->lockedm && mp->p && g_status(gp) == G_RUNNING;
		if (alone) {
			rt_lock(&sched.lock);
			alone = !sched.rtq || !g_outranks(sched.rtq, gp);
			rt_unlock(&sched.lock);
		}
		alone = alone && !ordinary_turn(mp->p, rt_nanotime());
		gp->preemptoff--;
		if (alone) {
			arch_syscall0(SYS_sched_yield);
			return;
		}
	}
	g_yield();
}

void g_preempt_yield(void)
{
	struct g *gp = getg();
	g_slice_used(gp);
	if (g_status(gp) == G_SYSCALL)
		g_syscall_exit();
	struct p *pp = gp->m->p;
	int64_t due = ld_rlx(&pp->timers.minwhen);
	if (due && due <= rt_nanotime())
		g_yield_local();
	else
		yield_global(gp);
}

/* As Go's goyield: the G goes to the back of its own P's queue (a G with a
 * dedicated M to the global queue, where its M finds it). */
static void goyield_m(void *arg)
{
	struct g *gp = arg;
	struct m *mp = gp->m;

	g_casstatus(gp, G_RUNNING, G_RUNNABLE);
	dropg(mp, gp);
	if (gp->preempt_streak < G_CPU_BOUND)
		count_ia(gp);
	if (gp->lockedm)
		globrunq_put(gp);
	else
		runq_put(mp->p, gp, false);
	schedule(mp);
}

void g_yield_local(void)
{
	struct g *gp = getg();
	if (g_status(gp) == G_SYSCALL)
		g_syscall_exit();
	gmp_ctx_mcall(&gp->ctx, gp->m->g0_top, goyield_m, gp);
}

/* --- sleeping --------------------------------------------------------------- */

static void sleep_fire(void *arg, uint64_t seq, struct p *pp)
{
	struct g *gp = arg;
	if (g_claim(gp, seq))
		g_ready(gp, pp, true);
}

static bool sleep_unlock(struct m *mp, struct g *gp, void *arg)
{
	timer_add(&gp->timer, mp->p);
	return true;
}

void g_timer_prepare(struct g *gp, int64_t when, uint64_t seq)
{
	gp->timer.when = when;
	gp->timer.f = sleep_fire;
	gp->timer.arg = gp;
	gp->timer.seq = seq;
}

bool sched_can_spin(int iter)
{
	/* as Go's sync_runtime_canSpin, without its "local run queue is
	 * empty" condition (see sched.h) */
	static int ncpu;
	if (!ncpu)
		ncpu = os_ncpu();
	if (iter >= 4 || sched.gomaxprocs <= 1 || ncpu <= 1)
		return false;
	return sched.gomaxprocs > ld_rlx(&sched.npidle) + ld_rlx(&sched.nmspinning) + 1;
}

bool sched_others_queued(void)
{
	struct g *gp = getg();
	return ld_rlx(&sched.runqsize) > 0 || (gp->m->p && !runq_empty(gp->m->p));
}

void g_sleep_until(int64_t when)
{
	struct g *gp = getg();
	if (g_status(gp) == G_SYSCALL)
		g_syscall_exit();
	if (when <= rt_nanotime()) {
		g_yield();	/* "sleep 0 to let others run" */
		return;
	}
	g_timer_prepare(gp, when, g_arm(gp));
	g_park(sleep_unlock, NULL, WAIT_SLEEP);
	/* woken early (cancellation): the timer must not stay queued, the
	 * next sleep reuses it */
	timer_del(&gp->timer);
}

/* --- exit ---------------------------------------------------------------------- */

static void goexit0(void *arg)
{
	struct g *gp = arg;
	struct m *mp = gp->m;
	struct p *pp = mp->p;

	g_casstatus(gp, G_RUNNING, G_DEAD);
	dropg(mp, gp);
	trace_ev(mp, TR_EXIT, gp, 0);
	sigq_g_exited(gp);
	/* set_tid_address: 0 in the word and one waiter woken (a G, else
	 * one the kernel holds), as Linux does at a thread's end; here,
	 * off the G's stack, which the waiter may free */
	int *ct = gp->clear_tid;
	if (gp->clear_tid_set && ct) {
		__atomic_store_n(ct, 0, __ATOMIC_RELEASE);
		if (wq_futex_wake_on(ct, 1, WQ_BITSET_ANY, pp) == 0)
			arch_syscall3(SYS_futex, ct, FUTEX_WAKE, 1);
	}
	proc_stack_release(pp, gp);
	struct m *lm = gp->lockedm;
	if (lm) {
		/* the dedicated M becomes an ordinary one, without the
		 * real-time policy it carried for gp */
		int ltid = __atomic_load_n(&lm->tid, __ATOMIC_ACQUIRE);
		if (ltid && g_rt_policy(gp->schedpolicy))
			m_sched_other(ltid);
		gp->lockedm = NULL;
		__atomic_store_n(&lm->lockedg, (struct g *)NULL, __ATOMIC_RELEASE);
		if (lm != mp)	/* pinned while running here: release it */
			note_wakeup(&lm->park);
	}
	rt_lock(&gp->lock);
	gp->exited = true;
	st_rel(&gp->exit_futex, 1u);
	struct g *joiner = gp->joiner;
	uint64_t joinseq = gp->joinseq;
	bool detached = gp->detached;
	rt_unlock(&gp->lock);
	/* From here on gp belongs to its joiner (or to the free list). */
	if (detached)
		gfput(pp, gp);
	else if (joiner == G_JOINER_FOREIGN)
		os_futex_wake(&gp->exit_futex, INT_MAX);
	else if (joiner && g_claim(joiner, joinseq))
		g_ready(joiner, pp, true);
	schedule(mp);
}

_Noreturn void g_exit_switch(void)
{
	struct g *gp = getg();
	if (g_status(gp) == G_SYSCALL)
		g_syscall_exit();
	gmp_ctx_mcall(&gp->ctx, gp->m->g0_top, goexit0, gp);
	__builtin_unreachable();
}

/* --- dead G caches ------------------------------------------------------------ */

static bool on_idle_list(struct p *pp)
{
	for (struct p *q = sched.pidle; q; q = q->link)
		if (q == pp)
			return true;
	return false;
}

int sched_stacks_back(struct p *mine)
{
	int pending = 0;
	rt_lock(&sched.lock);
	for (struct p *pp = sched.pidle; pp; pp = pp->link) {
		/* nobody owns a P on the idle list but the lock's holder */
		proc_stack_flush(pp);
		st_rlx(&pp->sflush, false);
	}
	for (int i = 0; i < sched.gomaxprocs; i++) {
		struct p *pp = sched.allp[i];
		if (pp == mine || on_idle_list(pp))
			continue;
		if (ld_rlx(&pp->sflush) || __atomic_load_n(&pp->nsfree, __ATOMIC_RELAXED) > 0) {
			st_rel(&pp->sflush, true);
			pending++;
		}
	}
	rt_unlock(&sched.lock);
	return pending;
}

void gfput(struct p *pp, struct g *gp)
{
	if (gp->flags & G_FLAG_MAIN)
		return;		/* the main thread's G is not reused */
	gp->schedlink = pp->gfree;
	pp->gfree = gp;
	if (++pp->ngfree < GFREE_LOCAL_MAX)
		return;
	/* move half to the global list */
	struct g *head = NULL, *tail = NULL;
	int n = 0;
	while (pp->ngfree > GFREE_LOCAL_MAX / 2) {
		struct g *g1 = pp->gfree;
		pp->gfree = g1->schedlink;
		pp->ngfree--;
		g1->schedlink = head;
		head = g1;
		if (!tail)
			tail = g1;
		n++;
	}
	rt_lock(&sched.gflock);
	tail->schedlink = sched.gfree;
	sched.gfree = head;
	sched.ngfree += n;
	rt_unlock(&sched.gflock);
}

struct g *gfget(struct p *pp)
{
	if (!pp->gfree && ld_rlx((_Atomic int *)&sched.ngfree) != 0) {
		rt_lock(&sched.gflock);
		while (pp->ngfree < GFREE_LOCAL_MAX / 2 && sched.gfree) {
			struct g *g1 = sched.gfree;
			sched.gfree = g1->schedlink;
			sched.ngfree--;
			g1->schedlink = pp->gfree;
			pp->gfree = g1;
			pp->ngfree++;
		}
		rt_unlock(&sched.gflock);
	}
	struct g *gp = pp->gfree;
	if (gp) {
		pp->gfree = gp->schedlink;
		pp->ngfree--;
	}
	return gp;
}

static void *alloc_g0_stack(void)
{
	size_t guard = os_pagesize;
	char *s = rt_mmap(G0_STACK_SIZE + guard, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK);
	if (!s)
		rt_throw("sched_init: cannot map a scheduler stack");
	arch_syscall3(SYS_mprotect, s, guard, PROT_NONE);
	return (void *)(((uintptr_t)s + G0_STACK_SIZE + guard - 64) & ~(uintptr_t)15);
}

/* Where a thread-pointer write costs this much or more, a G readied
 * while the M that holds its thread pointer looks for work goes there
 * (GMPDEBUG=affinity=auto): a hand-over between CPUs costs about a
 * microsecond on the machines measured. */
#define AFFINITY_TPW_NS 1000

/* The cost of one thread-pointer write: the median of 5 rounds of 8
 * (rewriting the one loaded now). 0 where it is an instruction. */
static int64_t measure_tp_write(void)
{
	if (gmp_arch_wrfsbase)
		return 0;
	uintptr_t tp = arch_tp();
	int64_t r[5];
	for (int k = 0; k < 5; k++) {
		int64_t t0 = rt_nanotime();
		for (int i = 0; i < 8; i++)
			arch_set_fs(tp);
		r[k] = (rt_nanotime() - t0) / 8;
	}
	for (int i = 1; i < 5; i++)
		for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
			int64_t t = r[j];
			r[j] = r[j - 1];
			r[j - 1] = t;
		}
	return r[2];
}

void sched_init(int nprocs, struct g *maing, uintptr_t m0_tp)
{
	syscall_init();
	preempt_init();
	sched_pid = (int)arch_syscall0(SYS_getpid);
	sched.gomaxprocs = nprocs;
	st_rlx(&sched.nactive, nprocs);
	sched.tpw_ns = measure_tp_write();
	sched.affinity = rt_cfg.affinity == 1 ||
			 (rt_cfg.affinity == -1 && sched.tpw_ns >= AFFINITY_TPW_NS);
	/* spinning pays where it keeps Gs on the M that holds their thread
	 * pointer; elsewhere (measured on echo and pipe round trips) the
	 * CPU it takes from other threads costs more than it saves */
	sched.spin_ns = rt_cfg.spin_ns >= 0 ? rt_cfg.spin_ns
					     : sched.affinity ? GMP_SPIN_US * 1000 : 0;
	sched.start_ns = rt_nanotime();
	st_rlx(&sched.lastpoll, sched.start_ns);
	sched.allp = rt_mmap((size_t)nprocs * sizeof(struct p *), PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS);
	if (!sched.allp)
		rt_throw("sched_init: out of memory");
	for (int i = 0; i < nprocs; i++) {
		struct p *pp = rt_mmap(sizeof(struct p), PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS);
		if (!pp)
			rt_throw("sched_init: out of memory");
		pp->id = i;
		timers_init(&pp->timers);
		sched.allp[i] = pp;
	}
	netpoll_reserve();
	for (int i = nprocs - 1; i >= 1; i--)
		pidleput(sched.allp[i]);

	m0.id = xadd(&sched.mcount, 1);
	m0.tid = os_gettid();
	m0.rand = 0x853C49E6748FEA9Bull;
	m0.g0_top = alloc_g0_stack();
	m0.own_tp = m0_tp;
	m_altstack();
	arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &m_sigmask, 8);
	m_timerslack = arch_syscall1(SYS_prctl, PR_GET_TIMERSLACK);
	/* the main thread's mask becomes its G's; the kernel's never blocks
	 * SCHED_SIG (sysmon's requests) */
	uint64_t mask;
	memcpy(&mask, &m_sigmask, sizeof mask);
	st_rlx(&maing->sigmask, mask);
	sigq_mask_change(0, mask);
	mask &= ~sigq_bit(SCHED_SIG);
	memcpy(&m_sigmask, &mask, sizeof mask);
	arch_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &m_sigmask, NULL, 8);
	m0.kmask = mask;
	st_rel(&sched.allm, &m0);
	sched.maing = maing;
	sched.leader = maing;
	maing->tid = sched_pid;
	acquirep(&m0, sched.allp[0]);

	g_casstatus(maing, G_IDLE, G_RUNNABLE);
	g_casstatus(maing, G_RUNNABLE, G_RUNNING);
	maing->m = &m0;
	maing->run_start = rt_nanotime();
	m0.curg = maing;
	m0.fs = maing->tcb;
	st_rlx(&sched.nlive, 1);
	st_rlx(&sched.peaklive, 1);
}

