/* SPDX-License-Identifier: MIT */
/*
 * core/runq.c — run queues: each P's lock-free local ring plus runnext, and
 * the global FIFO under sched.lock. After Go's runqput/runqget/runqgrab/
 * runqsteal/globrunqget.
 *
 * The local ring is single-producer (the owner P) multi-consumer: the
 * owner appends at tail and pops at head with a CAS; thieves copy a batch
 * and claim it with a CAS on head. head and tail only grow (mod 2^32).
 */
#include "core/sched.h"

static struct g *slot_load(struct p *pp, uint32_t i)
{
	return ld_rlx(&pp->runq[i % RUNQ_SIZE]);
}

static void slot_store(struct p *pp, uint32_t i, struct g *gp)
{
	st_rlx(&pp->runq[i % RUNQ_SIZE], gp);
}

/* Local queue full: move half of it plus gp to the global queue. Returns
 * false if a thief changed head meanwhile (the caller retries). */
static bool runq_put_slow(struct p *pp, struct g *gp, uint32_t h, uint32_t t)
{
	struct g *batch[RUNQ_SIZE / 2 + 1];
	uint32_t n = (t - h) / 2;

	rt_assert(n == RUNQ_SIZE / 2, "runq_put_slow: queue is not full");
	for (uint32_t i = 0; i < n; i++)
		batch[i] = slot_load(pp, h + i);
	if (!cas_val(&pp->runqhead, h, h + n))
		return false;
	batch[n] = gp;
	for (uint32_t i = 0; i < n; i++)
		batch[i]->schedlink = batch[i + 1];
	rt_lock(&sched.lock);
	globrunq_putbatch_locked(batch[0], batch[n], (int)n + 1);
	rt_unlock(&sched.lock);
	return true;
}

void runq_put(struct p *pp, struct g *gp, bool next)
{
	if (next) {
		gp = xchg(&pp->runnext, gp);
		if (!gp)
			return;
		/* the old runnext goes to the tail of the ring */
	}
	for (;;) {
		uint32_t h = ld_acq(&pp->runqhead);
		uint32_t t = ld_rlx(&pp->runqtail);
		if (t - h < RUNQ_SIZE) {
			slot_store(pp, t, gp);
			st_rel(&pp->runqtail, t + 1);	/* publish to consumers */
			return;
		}
		if (runq_put_slow(pp, gp, h, t))
			return;
	}
}

struct g *runq_get_ring(struct p *pp)
{
	for (;;) {
		uint32_t h = ld_acq(&pp->runqhead);	/* sync with other consumers */
		uint32_t t = ld_rlx(&pp->runqtail);
		if (t == h)
			return NULL;
		struct g *gp = slot_load(pp, h);
		if (cas_val(&pp->runqhead, h, h + 1))
			return gp;
	}
}

struct g *runq_get(struct p *pp, bool *inherit)
{
	struct g *next = ld_rlx(&pp->runnext);
	if (next && cas_val(&pp->runnext, next, (struct g *)NULL)) {
		*inherit = true;
		return next;
	}
	*inherit = false;
	return runq_get_ring(pp);
}

/*
 * Copy about half of p2's queue into pp's ring starting at pp's tail,
 * without publishing it. Returns the number of Gs taken. With stealnext,
 * an otherwise empty victim gives up its runnext — after a short pause if
 * it is running, since it is probably about to schedule that G itself.
 */
static uint32_t runq_grab(struct p *p2, struct p *pp, uint32_t batchhead, bool stealnext)
{
	for (;;) {
		uint32_t h = ld_acq(&p2->runqhead);
		uint32_t t = ld_acq(&p2->runqtail);
		uint32_t n = t - h;
		n = n - n / 2;
		if (n == 0) {
			if (!stealnext)
				return 0;
			struct g *next = ld_rlx(&p2->runnext);
			if (!next)
				return 0;
			if (ld_rlx(&p2->status) == P_RUNNING) {
				/* ~3 us: let the owner take it first (Go sleeps 3 us) */
				int64_t until = rt_nanotime() + 3000;
				while (rt_nanotime() < until)
					arch_cpu_relax();
			}
			if (!cas_val(&p2->runnext, next, (struct g *)NULL))
				continue;
			slot_store(pp, batchhead, next);
			return 1;
		}
		if (n > RUNQ_SIZE / 2)
			continue;	/* h and t read inconsistently: retry */
		for (uint32_t i = 0; i < n; i++)
			slot_store(pp, batchhead + i, slot_load(p2, h + i));
		if (cas_val(&p2->runqhead, h, h + n))
			return n;
	}
}

struct g *runq_steal(struct p *pp, struct p *p2, bool stealnext)
{
	uint32_t t = ld_rlx(&pp->runqtail);
	uint32_t n = runq_grab(p2, pp, t, stealnext);
	if (n == 0)
		return NULL;
	pp->nsteal += n;
	xadd_rlx(&sched.nsteal, n);
	n--;
	struct g *gp = slot_load(pp, t + n);
	if (n == 0)
		return gp;
	uint32_t h = ld_acq(&pp->runqhead);
	rt_assert(t - h + n < RUNQ_SIZE, "runq_steal: runq overflow");
	st_rel(&pp->runqtail, t + n);
	return gp;
}

bool runq_empty(struct p *pp)
{
	/* head, tail, runnext must be read consistently: retry until tail
	 * did not move while we looked (Go's runqempty). */
	for (;;) {
		uint32_t h = ld_acq(&pp->runqhead);
		uint32_t t = ld_acq(&pp->runqtail);
		struct g *next = ld_acq(&pp->runnext);
		if (ld_acq(&pp->runqtail) == t)
			return h == t && next == NULL;
	}
}

uint32_t runq_ring_len(struct p *pp)
{
	return ld_rlx(&pp->runqtail) - ld_acq(&pp->runqhead);
}

uint32_t runq_len(struct p *pp)
{
	uint32_t h = ld_acq(&pp->runqhead);
	uint32_t t = ld_acq(&pp->runqtail);
	return (t - h) + (ld_rlx(&pp->runnext) != NULL);
}

void globrunq_putbatch_locked(struct g *head, struct g *tail, int n)
{
	tail->schedlink = NULL;
	if (sched.runqtail)
		sched.runqtail->schedlink = head;
	else
		sched.runqhead = head;
	sched.runqtail = tail;
	xadd_rlx(&sched.runqsize, n);
}

void globrunq_put_locked(struct g *gp)
{
	globrunq_putbatch_locked(gp, gp, 1);
}

void rtq_put_locked(struct g *gp)
{
	/* behind its equals, ahead of every lower priority */
	struct g **link = &sched.rtq;
	while (*link && (*link)->schedprio >= gp->schedprio)
		link = &(*link)->schedlink;
	gp->schedlink = *link;
	*link = gp;
	xadd_rlx(&sched.nrtq, 1);
	xadd_rlx(&sched.runqsize, 1);
}

/* Take a fair share of the global queue (at most max when max > 0): one G
 * to return, the rest onto pp's local queue. A real-time G comes first and
 * alone, unless ordinary ones have their turn on pp (pp->ord_first). */
struct g *globrunq_get_locked(struct p *pp, int max)
{
	int size = ld_rlx(&sched.runqsize);
	if (size == 0)
		return NULL;
	struct g *rt = sched.rtq;
	if (unlikely(rt) && !(pp->ord_first && sched.runqhead)) {
		/* alone: its M runs it, not pp */
		sched.rtq = rt->schedlink;
		rt->schedlink = NULL;
		xadd_rlx(&sched.nrtq, -1);
		xadd_rlx(&sched.runqsize, -1);
		return rt;
	}
	size -= ld_rlx(&sched.nrtq);	/* the ordinary part (pp->ord_first) */
	int n = size / sched.gomaxprocs + 1;
	if (n > size)
		n = size;
	if (max > 0 && n > max)
		n = max;
	if (n > RUNQ_SIZE / 2)
		n = RUNQ_SIZE / 2;
	xadd_rlx(&sched.runqsize, -n);

	struct g *gp = sched.runqhead;
	sched.runqhead = gp->schedlink;
	for (int i = 1; i < n; i++) {
		struct g *g1 = sched.runqhead;
		sched.runqhead = g1->schedlink;
		runq_put(pp, g1, false);
	}
	if (!sched.runqhead)
		sched.runqtail = NULL;
	return gp;
}
