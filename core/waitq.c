/* SPDX-License-Identifier: MIT */
/*
 * core/waitq.c — the address-keyed wait table; see waitq.h for the
 * protocol.
 *
 * Each bucket keeps a list of queue heads, one per address that has
 * waiters (nearly always one: the table is large). A queue head is the
 * address's first node; its qnext links the bucket's heads and its tail
 * names the last node. When the head leaves, the next node inherits both.
 */
#include "core/waitq.h"
#include "core/g.h"
#include "core/os.h"
#include "core/sched.h"
#include "core/door.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#define WQ_BUCKETS 4096		/* power of two */

static struct wq_bucket table[WQ_BUCKETS];

struct wq_bucket *wq_bucket(const void *addr)
{
	uint64_t h = ((uintptr_t)addr >> 2) * 0x9e3779b97f4a7c15ull;
	return &table[h >> (64 - 12)];
}

void wq_lock2(const void *a1, const void *a2, struct wq_bucket **b1, struct wq_bucket **b2)
{
	*b1 = wq_bucket(a1);
	*b2 = wq_bucket(a2);
	if (*b1 == *b2) {
		rt_lock(&(*b1)->lock);
	} else if (*b1 < *b2) {
		rt_lock(&(*b1)->lock);
		rt_lock(&(*b2)->lock);
	} else {
		rt_lock(&(*b2)->lock);
		rt_lock(&(*b1)->lock);
	}
}

void wq_unlock2(struct wq_bucket *b1, struct wq_bucket *b2)
{
	rt_unlock(&b1->lock);
	if (b2 != b1)
		rt_unlock(&b2->lock);
}

/* The head node of addr's queue, and the link that points to it. */
static struct waiter *find_head(struct wq_bucket *b, uintptr_t addr, struct waiter ***linkp)
{
	struct waiter **link = &b->heads;
	for (struct waiter *h = *link; h; link = &h->qnext, h = *link) {
		if (h->addr == addr) {
			if (linkp)
				*linkp = link;
			return h;
		}
	}
	return NULL;
}

/* Link node w (not queued, w->prio set) into addr's queue, in its place:
 * the queue runs from the highest priority down, and w goes behind its
 * equals, or in front of them when lifo. Ordinary waiters (prio 0) go to
 * the back, or to the front of the ordinary ones, without a walk when no
 * real-time waiter is queued. */
static void link_node(struct wq_bucket *b, struct waiter *w, uintptr_t addr, bool lifo)
{
	struct waiter **link;
	struct waiter *h = find_head(b, addr, &link);
	w->addr = addr;
	w->b = b;
	w->queued = true;
	b->nwait++;
	if (!h) {
		w->next = w->prev = NULL;
		w->tail = w;
		w->qnext = b->heads;
		b->heads = w;
		return;
	}
	/* after: the node w goes behind (NULL: w becomes the head) */
	struct waiter *after;
	if (lifo) {
		after = NULL;
		for (struct waiter *n = h; n && n->prio > w->prio; n = n->next)
			after = n;
	} else {
		after = h->tail;
		while (after && after->prio < w->prio)
			after = after->prev;
	}
	if (!after) {
		/* w becomes the head */
		w->prev = NULL;
		w->next = h;
		h->prev = w;
		w->tail = h->tail;
		w->qnext = h->qnext;
		*link = w;
		return;
	}
	w->prev = after;
	w->next = after->next;
	if (after->next)
		after->next->prev = w;
	else
		h->tail = w;
	after->next = w;
}

/* Unlink node w from its queue (b locked, w queued). */
static void unlink_node(struct wq_bucket *b, struct waiter *w)
{
	struct waiter **link;
	struct waiter *h = find_head(b, w->addr, &link);
	if (unlikely(!h))
		rt_throw("waitq: queued node without a queue");
	if (w == h) {
		struct waiter *n = w->next;
		if (n) {
			n->prev = NULL;
			n->tail = h->tail;
			n->qnext = h->qnext;
			*link = n;
		} else {
			*link = h->qnext;
		}
	} else {
		w->prev->next = w->next;
		if (w->next)
			w->next->prev = w->prev;
		else
			h->tail = w->prev;
	}
	w->next = w->prev = NULL;
	w->queued = false;
	b->nwait--;
}

void wq_push(struct wq_bucket *b, struct waiter *w, const void *addr, uint32_t bitset,
	     int64_t deadline, bool lifo)
{
	struct g *gp = getg();
	w->bitset = bitset;
	w->deadline = deadline;
	w->g = gp;
	w->prio = gp && g_rt_policy(gp->schedpolicy) ? gp->schedprio : 0;
	w->seq = gp ? g_arm(gp) : 0;
	w->ticket = 0;
	st_rlx(&w->done, 0u);
	link_node(b, w, (uintptr_t)addr, lifo);
}

struct waiter *wq_peek(struct wq_bucket *b, const void *addr)
{
	return find_head(b, (uintptr_t)addr, NULL);
}

struct waiter *wq_pop(struct wq_bucket *b, const void *addr, uint32_t bitset)
{
	struct waiter *h = find_head(b, (uintptr_t)addr, NULL);
	for (struct waiter *w = h; w; w = w->next) {
		if (w->bitset & bitset) {
			unlink_node(b, w);
			return w;
		}
	}
	return NULL;
}

struct waiter *wq_pop_all(struct wq_bucket *b, const void *addr, uint32_t *count)
{
	struct waiter **link;
	struct waiter *h = find_head(b, (uintptr_t)addr, &link);
	if (count)
		*count = 0;
	if (!h)
		return NULL;
	*link = h->qnext;
	int64_t n = 0;
	for (struct waiter *w = h; w; w = w->next) {
		w->queued = false;
		n++;
	}
	b->nwait -= n;
	if (count)
		*count = (uint32_t)n;
	return h;
}

int wq_requeue(struct wq_bucket *bf, const void *from, struct wq_bucket *bt, const void *to, int n)
{
	int moved = 0;
	while (moved < n) {
		struct waiter *w = find_head(bf, (uintptr_t)from, NULL);
		if (!w)
			break;
		unlink_node(bf, w);
		link_node(bt, w, (uintptr_t)to, false);
		moved++;
	}
	return moved;
}

/* pp NULL: the caller's P, if it has one */
static void wake_on(struct waiter *w, struct p *pp)
{
	struct g *gp = w->g;
	uint64_t seq = w->seq;
	st_rel(&w->done, 1u);
	/* w may be gone from here on */
	if (gp) {
		if (!g_claim(gp, seq))
			return;
		if (pp)
			g_ready(gp, pp, true);
		else
			g_ready_any(gp);
	} else {
		os_futex_wake(&w->done, 1);
	}
}

void wq_wake(struct waiter *w)
{
	wake_on(w, NULL);
}

void wq_wake_list(struct waiter *w)
{
	while (w) {
		struct waiter *next = w->next;
		wq_wake(w);
		w = next;
	}
}

/* The bucket of a queued node may change under a requeue: lock the one
 * it is in now. */
static struct wq_bucket *lock_node_bucket(struct waiter *w)
{
	for (;;) {
		struct wq_bucket *b = __atomic_load_n(&w->b, __ATOMIC_ACQUIRE);
		rt_lock(&b->lock);
		if (__atomic_load_n(&w->b, __ATOMIC_RELAXED) == b)
			return b;
		rt_unlock(&b->lock);
	}
}

static bool park_unlock(struct m *mp, struct g *gp, void *arg)
{
	struct waiter *w = arg;
	if (w->deadline)
		timer_add(&gp->timer, mp->p);
	rt_unlock(&w->b->lock);
	return true;
}

/* A waker popped w and will (or did) set done: wait for it to finish
 * with the node before the caller's frame goes. */
static void await_done(struct waiter *w)
{
	for (int i = 0; !ld_acq(&w->done); i++) {
		if (!w->g)
			os_futex_wait(&w->done, 0, -1);
		else
			arch_cpu_relax();
	}
}

/* The wait ended without a wake-up seen (why: r): leave the queue, unless
 * a waker took the node meanwhile, which makes it a wake-up after all. */
static int leave(struct waiter *w, int r)
{
	struct wq_bucket *b = lock_node_bucket(w);
	if (!w->queued) {
		rt_unlock(&b->lock);
		await_done(w);
		return 0;
	}
	unlink_node(b, w);
	return r;
}

/* Park G gp on w (its bucket locked), with w's deadline: true when a
 * waker popped w. */
static bool park_on(struct g *gp, struct waiter *w, uint8_t reason)
{
	if (w->deadline)
		g_timer_prepare(gp, w->deadline, w->seq);
	gp->waitobj = (void *)w->addr;
	g_park(park_unlock, w, reason);
	if (w->deadline)
		timer_del(&gp->timer);
	return ld_acq(&w->done);
}

int wq_wait(struct wq_bucket *b, struct waiter *w, uint8_t reason)
{
	struct g *gp = w->g;
	int r;
	if (gp) {
		if (park_on(gp, w, reason))
			return 0;
		return leave(w, w->deadline && rt_nanotime() >= w->deadline ? ETIMEDOUT : EINTR);
	}

	/* not a G: sleep in the kernel on the node's own word */
	rt_unlock(&b->lock);
	r = 0;
	for (;;) {
		int64_t rel = -1;
		if (w->deadline) {
			rel = w->deadline - rt_nanotime();
			if (rel <= 0) {
				r = ETIMEDOUT;
				break;
			}
		}
		int e = os_futex_wait(&w->done, 0, rel);
		if (ld_acq(&w->done))
			return 0;
		if (e == -ETIMEDOUT) {
			r = ETIMEDOUT;
			break;
		}
		if (e == -EINTR) {
			r = EINTR;
			break;
		}
	}
	return leave(w, r);
}

int wq_wait_resuming(struct wq_bucket *b, struct waiter *w, uint8_t reason,
		     bool (*stop)(struct g *gp))
{
	struct g *gp = w->g;
	if (!gp)
		return wq_wait(b, w, reason);
	for (;;) {
		if (park_on(gp, w, reason))
			return 0;
		if (w->deadline && rt_nanotime() >= w->deadline)
			return leave(w, ETIMEDOUT);
		if (stop(gp))
			return leave(w, EINTR);
		/* a signal: its handlers run as the program's code, the
		 * node still queued (a waker may take it meanwhile) */
		door_signals(gp);
		b = lock_node_bucket(w);
		if (!w->queued) {
			rt_unlock(&b->lock);
			await_done(w);
			return 0;
		}
		/* a waker that pops the node from now on reads this seq */
		w->seq = g_arm(gp);
	}
}

int wq_futex_wait(_Atomic uint32_t *addr, uint32_t val, uint32_t bitset, int64_t deadline,
		  uint8_t reason)
{
	struct wq_bucket *b = wq_lock(addr);
	if (ld_acq(addr) != val) {
		wq_unlock(b);
		return EAGAIN;
	}
	struct waiter w;
	wq_push(b, &w, addr, bitset, deadline, false);
	int r = wq_wait(b, &w, reason);
	if (r)
		wq_unlock(w.b);
	return r;
}

int wq_futex_wake(const void *addr, int n, uint32_t bitset)
{
	return wq_futex_wake_on(addr, n, bitset, NULL);
}

int wq_futex_wake_on(const void *addr, int n, uint32_t bitset, struct p *pp)
{
	struct wq_bucket *b = wq_bucket(addr);
	int woken = 0;
	while (woken < n) {
		/* a few at a time, so the lock is not held across many wakes */
		struct waiter *batch[32];
		int k = 0;
		rt_lock(&b->lock);
		while (k < 32 && woken + k < n) {
			struct waiter *w = wq_pop(b, addr, bitset);
			if (!w)
				break;
			batch[k++] = w;
		}
		bool more = k == 32 && !wq_empty(b, addr);
		rt_unlock(&b->lock);
		for (int i = 0; i < k; i++)
			wake_on(batch[i], pp);
		woken += k;
		if (!more)
			break;
	}
	return woken;
}

uint64_t wq_nwaiting(void)
{
	uint64_t n = 0;
	for (int i = 0; i < WQ_BUCKETS; i++)
		n += __atomic_load_n(&table[i].nwait, __ATOMIC_RELAXED);
	return n;
}

void wq_after_fork(void)
{
	memset(table, 0, sizeof table);
}
