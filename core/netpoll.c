/* SPDX-License-Identifier: MIT */
/*
 * core/netpoll.c — the epoll-based network poller (see netpoll.h).
 *
 * The epoll instance and its wake-up eventfd are made when the first
 * descriptor is registered; until then an idle M waiting for a timer
 * sleeps on a futex (`pending`), as it does when nothing was ever
 * registered. Both descriptors are close-on-exec.
 *
 * A pdesc's lock guards its queues, `closing` and `tag`; `ready` is also
 * cleared without it by netpoll_reset (an edge that arrives after the
 * reset sets it again). Wakers claim a G (g_claim) under the lock, but
 * make it runnable only after dropping the lock: a poll waiter may still
 * be running, on its way to park, and may need other pdescs' locks first.
 */
#include "core/netpoll.h"
#include "core/g.h"
#include "core/os.h"
#include "core/rt.h"
#include "core/sched.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441
#endif

struct pdesc {
	struct rt_mutex lock;
	int fd;				/* under lock */
	uint16_t tag;			/* bumped on close; under lock */
	bool closing;			/* under lock */
	_Atomic bool ready[2];		/* an edge nobody took yet */
	struct np_waiter *head[2], *tail[2];	/* FIFO; under lock */
	_Atomic int32_t nplain[2];	/* plain waiters queued */
	_Atomic int32_t nq[2];		/* all waiters queued */
	struct pdesc *link;		/* free list; under pd_lock */
} __attribute__((aligned(64)));

#define PD_PER_SLAB 1024

static struct rt_mutex pd_lock;		/* free list and slabs; leaf */
static struct pdesc *pd_free;
static struct rt_mutex init_lock;	/* leaf */
static _Atomic int epfd = -1;
static int evfd = -1;			/* constant once epfd is set */
static _Atomic int32_t nwaiters;	/* np_waiters queued anywhere */

/* Wake-ups: `pending` is set on the first break since the last poll. */
static _Atomic uint32_t pending;
static _Atomic int32_t futex_sleepers;	/* Ms waiting in the futex path */

static const uint64_t WAKE_TAG = 1;	/* epoll data of the eventfd */

static int poller_init(void)
{
	if (ld_acq(&epfd) >= 0)
		return 0;
	rt_lock(&init_lock);
	int err = 0;
	if (ld_rlx(&epfd) < 0) {
		long ep = arch_syscall1(SYS_epoll_create1, EPOLL_CLOEXEC);
		long ev = ep < 0 ? ep : arch_syscall2(SYS_eventfd2, 0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (ep < 0 || ev < 0) {
			err = (int)-(ep < 0 ? ep : ev);
			if (ep >= 0)
				arch_syscall1(SYS_close, ep);
		} else {
			struct epoll_event e = {.events = EPOLLIN, .data.u64 = WAKE_TAG};
			long r = arch_syscall4(SYS_epoll_ctl, ep, EPOLL_CTL_ADD, ev, &e);
			if (r < 0) {
				err = (int)-r;
				arch_syscall1(SYS_close, ep);
				arch_syscall1(SYS_close, ev);
			} else {
				evfd = (int)ev;
				st_rel(&epfd, (int)ep);
				/* A break made before the instance existed may
				 * have left `pending` set with nothing written
				 * (no M was in the futex path to take it): then
				 * netpoll_break would never write again, and an
				 * M blocked in epoll would sleep through every
				 * timer. Write one now, whatever `pending` says,
				 * so the flag and the eventfd agree; it also
				 * brings an M sleeping in the futex path round
				 * to epoll. */
				st_rel(&pending, 1u);
				uint64_t one = 1;
				arch_syscall3(SYS_write, evfd, &one, sizeof one);
				os_count(OSC_EVENTFD);
				if (ld_acq(&futex_sleepers))
					os_futex_wake(&pending, 1);
			}
		}
	}
	rt_unlock(&init_lock);
	return err;
}

static struct pdesc *pd_alloc(void)
{
	rt_lock(&pd_lock);
	struct pdesc *pd = pd_free;
	if (!pd) {
		struct pdesc *slab = rt_mmap(PD_PER_SLAB * sizeof(struct pdesc),
					     PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
		if (!slab) {
			rt_unlock(&pd_lock);
			return NULL;
		}
		for (int i = PD_PER_SLAB - 1; i >= 0; i--) {
			slab[i].link = pd_free;
			pd_free = &slab[i];
		}
		pd = pd_free;
	}
	pd_free = pd->link;
	rt_unlock(&pd_lock);
	return pd;
}

static void pd_release(struct pdesc *pd);

void netpoll_reserve(void)
{
	struct pdesc *pd = pd_alloc();
	if (pd)
		pd_release(pd);
}

static void pd_release(struct pdesc *pd)
{
	rt_lock(&pd_lock);
	pd->link = pd_free;
	pd_free = pd;
	rt_unlock(&pd_lock);
}

static inline uint64_t pd_data(struct pdesc *pd, uint16_t tag)
{
	return (uint64_t)(uintptr_t)pd | (uint64_t)tag << 48;
}

struct pdesc *netpoll_open(int fd, int *err)
{
	int e = poller_init();
	if (e) {
		*err = e;
		return NULL;
	}
	struct pdesc *pd = pd_alloc();
	if (!pd) {
		*err = ENOMEM;
		return NULL;
	}
	rt_lock(&pd->lock);
	pd->fd = fd;
	pd->closing = false;
	st_rlx(&pd->ready[0], false);
	st_rlx(&pd->ready[1], false);
	uint16_t tag = ++pd->tag;
	rt_unlock(&pd->lock);
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLPRI | EPOLLET,
		.data.u64 = pd_data(pd, tag),
	};
	long r = arch_syscall4(SYS_epoll_ctl, ld_rlx(&epfd), EPOLL_CTL_ADD, fd, &ev);
	if (r < 0) {
		*err = (int)-r;
		pd_release(pd);
		return NULL;
	}
	return pd;
}

static void enqueue(struct pdesc *pd, struct np_waiter *w)
{
	int m = w->mode;
	w->next = NULL;
	if (pd->tail[m])
		pd->tail[m]->next = w;
	else
		pd->head[m] = w;
	pd->tail[m] = w;
	w->queued = true;
	xadd(&pd->nq[m], 1);
	if (!w->poll)
		xadd(&pd->nplain[m], 1);
	xadd(&nwaiters, 1);
}

static void dequeue(struct pdesc *pd, struct np_waiter *w)
{
	int m = w->mode;
	struct np_waiter **pp = &pd->head[m], *prev = NULL;
	while (*pp != w) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	*pp = w->next;
	if (pd->tail[m] == w)
		pd->tail[m] = prev;
	w->queued = false;
	xadd(&pd->nq[m], -1);
	if (!w->poll)
		xadd(&pd->nplain[m], -1);
	xadd(&nwaiters, -1);
}

/* Claimed Gs, made runnable after the pdesc lock is dropped. */
struct claimed {
	int n;
	struct g *gs[64];
};

/* Under pd's lock: take w off its queue with `result` and claim its G. */
static void fire(struct pdesc *pd, struct np_waiter *w, int result, struct claimed *c)
{
	struct g *gp = w->g;
	uint64_t seq = w->seq;
	dequeue(pd, w);
	w->result = result;
	st_rel(&w->fired, 1u);	/* w may be gone after this */
	if (g_claim(gp, seq))
		c->gs[c->n++] = gp;
}

/* Wake the Gs of an edge in mode m: every poll waiter, and one plain
 * waiter (or remember the edge). Stops early when c is full; returns
 * true when done. */
static bool edge(struct pdesc *pd, int m, struct claimed *c)
{
	bool plain = false;
	struct np_waiter *w = pd->head[m];
	while (w && c->n < 64) {
		struct np_waiter *next = w->next;
		if (w->poll) {
			fire(pd, w, 0, c);
		} else if (!plain) {
			plain = true;
			fire(pd, w, 0, c);
		}
		w = next;
	}
	if (w)
		return false;
	if (!plain)
		st_rel(&pd->ready[m], true);
	return true;
}

/* Make the claimed Gs runnable on the caller's P or the global queue. */
static void ready_claimed(struct claimed *c)
{
	if (c->n)
		xadd(&sched.nnetpollg, (uint64_t)c->n);
	for (int i = 0; i < c->n; i++)
		g_ready_any(c->gs[i]);
	c->n = 0;
}

void netpoll_close(struct pdesc *pd, int fd)
{
	struct claimed c = {0};
	rt_lock(&pd->lock);
	pd->closing = true;
	pd->tag++;
	for (int m = 0; m < 2; m++)
		while (pd->head[m]) {
			fire(pd, pd->head[m], EBADF, &c);
			if (c.n == 64) {
				rt_unlock(&pd->lock);
				ready_claimed(&c);
				rt_lock(&pd->lock);
			}
		}
	rt_unlock(&pd->lock);
	ready_claimed(&c);
	arch_syscall4(SYS_epoll_ctl, ld_rlx(&epfd), EPOLL_CTL_DEL, fd, NULL);
	pd_release(pd);
}

void netpoll_reset(struct pdesc *pd, int mode)
{
	if (ld_rlx(&pd->ready[mode]))
		st_rlx(&pd->ready[mode], false);
}

static bool wait_unlock(struct m *mp, struct g *gp, void *arg)
{
	struct np_waiter *w = arg;
	if (gp->timer.when)
		timer_add(&gp->timer, mp->p);
	rt_unlock(&w->pd->lock);
	return true;
}

int netpoll_wait(struct pdesc *pd, int mode, int64_t deadline, uint8_t reason)
{
	struct g *gp = getg();
	struct np_waiter w = {.pd = pd, .mode = (uint8_t)mode, .g = gp};

	rt_lock(&pd->lock);
	if (pd->closing) {
		rt_unlock(&pd->lock);
		return EBADF;
	}
	if (ld_rlx(&pd->ready[mode])) {
		st_rlx(&pd->ready[mode], false);
		rt_unlock(&pd->lock);
		return 0;
	}
	if (deadline && rt_nanotime() >= deadline) {
		rt_unlock(&pd->lock);
		return ETIMEDOUT;
	}
	w.seq = g_arm(gp);
	enqueue(pd, &w);
	gp->timer.when = 0;
	if (deadline)
		g_timer_prepare(gp, deadline, w.seq);
	gp->waitobj = pd;
	g_park(wait_unlock, &w, reason);
	if (deadline)
		timer_del(&gp->timer);
	if (ld_acq(&w.fired))
		return w.result;
	rt_lock(&pd->lock);
	if (w.queued)
		dequeue(pd, &w);
	rt_unlock(&pd->lock);
	if (ld_acq(&w.fired))
		return w.result;
	return deadline && rt_nanotime() >= deadline ? ETIMEDOUT : EINTR;
}

void netpoll_pass(struct pdesc *pd, int mode)
{
	if (ld_rlx(&pd->nplain[mode]) == 0)
		return;
	struct claimed c = {0};
	rt_lock(&pd->lock);
	for (struct np_waiter *w = pd->head[mode]; w; w = w->next)
		if (!w->poll) {
			fire(pd, w, 0, &c);
			break;
		}
	rt_unlock(&pd->lock);
	ready_claimed(&c);
}

void netpoll_notify(struct pdesc *pd, int mode)
{
	if (ld_rlx(&pd->nq[mode]) == 0)
		return;
	struct claimed c = {0};
	rt_lock(&pd->lock);
	if (!pd->closing)
		while (!edge(pd, mode, &c)) {
			rt_unlock(&pd->lock);
			ready_claimed(&c);
			rt_lock(&pd->lock);
		}
	rt_unlock(&pd->lock);
	ready_claimed(&c);
}

void netpoll_arm(struct np_waiter *ws, int n)
{
	struct g *gp = getg();
	uint64_t seq = g_arm(gp);
	for (int i = 0; i < n; i++) {
		struct np_waiter *w = &ws[i];
		struct pdesc *pd = w->pd;
		w->poll = true;
		w->g = gp;
		w->seq = seq;
		w->result = 0;
		w->queued = false;
		st_rlx(&w->fired, 0u);
		rt_lock(&pd->lock);
		if (pd->closing) {
			w->result = EBADF;
			st_rlx(&w->fired, 1u);
		} else {
			enqueue(pd, w);
		}
		rt_unlock(&pd->lock);
	}
}

struct park_arg {
	struct np_waiter *ws;
	int n;
};

static bool park_unlock(struct m *mp, struct g *gp, void *arg)
{
	struct park_arg *a = arg;
	/* A waiter that fired already (at arming, on a descriptor being
	 * closed, or by a waker since) ends the park: claim the wake-up
	 * ourselves and go on, unless a waker claimed it first and will make
	 * us runnable. */
	for (int i = 0; i < a->n; i++)
		if (ld_acq(&a->ws[i].fired))
			return !g_claim(gp, a->ws[i].seq);
	if (gp->timer.when)
		timer_add(&gp->timer, mp->p);
	return true;
}

static void take_all(struct np_waiter *ws, int n)
{
	for (int i = 0; i < n; i++) {
		struct np_waiter *w = &ws[i];
		if (ld_acq(&w->fired))
			continue;
		rt_lock(&w->pd->lock);
		if (w->queued)
			dequeue(w->pd, w);
		rt_unlock(&w->pd->lock);
	}
}

static bool any_fired(struct np_waiter *ws, int n)
{
	for (int i = 0; i < n; i++)
		if (ld_acq(&ws[i].fired))
			return true;
	return false;
}

int netpoll_park(struct np_waiter *ws, int n, int64_t deadline, uint8_t reason)
{
	struct g *gp = getg();
	struct park_arg a = {ws, n};
	gp->timer.when = 0;
	if (deadline)
		g_timer_prepare(gp, deadline, n ? ws[0].seq : g_arm(gp));
	else if (!n)
		g_arm(gp);	/* nothing to wait on and no deadline: a signal ends it */
	gp->waitobj = n ? ws[0].pd : NULL;
	g_park(park_unlock, &a, reason);
	if (deadline)
		timer_del(&gp->timer);
	take_all(ws, n);
	if (any_fired(ws, n))
		return 0;
	return deadline && rt_nanotime() >= deadline ? ETIMEDOUT : EINTR;
}

static bool absorb_unlock(struct m *mp, struct g *gp, void *arg)
{
	(void)mp;
	(void)gp;
	(void)arg;
	return true;
}

void netpoll_disarm(struct np_waiter *ws, int n)
{
	struct g *gp = getg();
	if (n && !g_claim(gp, ws[0].seq))
		/* a waker claimed us and will make us runnable: let it */
		g_park(absorb_unlock, NULL, WAIT_NETPOLL);
	take_all(ws, n);
}

void netpoll_after_fork(void)
{
	int ep = ld_rlx(&epfd);
	if (ep >= 0) {
		arch_syscall1(SYS_close, ep);
		arch_syscall1(SYS_close, evfd);
	}
	st_rlx(&epfd, -1);
	evfd = -1;
	st_rlx(&nwaiters, 0);
	st_rlx(&pending, 0u);
	st_rlx(&futex_sleepers, 0);
	init_lock = (struct rt_mutex){0};
	pd_lock = (struct rt_mutex){0};
	/* an M of the parent may have been blocked in the poller */
	st_rel(&sched.lastpoll, rt_nanotime());
	st_rel(&sched.pollUntil, (int64_t)0);
}

bool netpoll_owns_fd(int fd)
{
	int ep = ld_acq(&epfd);
	return ep >= 0 && (fd == ep || fd == evfd);
}

bool netpoll_any_waiters(void)
{
	return ld_rlx(&nwaiters) > 0;
}

void netpoll_break(void)
{
	if (!cas_val(&pending, 0u, 1u))
		return;
	int ep = ld_acq(&epfd);
	if (ep >= 0) {
		uint64_t one = 1;
		arch_syscall3(SYS_write, evfd, &one, sizeof one);
		os_count(OSC_EVENTFD);
	}
	if (ep < 0 || ld_acq(&futex_sleepers))
		os_futex_wake(&pending, 1);
}

/* Before the epoll instance exists: only timers and breaks end a wait. */
static void futex_wait(int64_t delay)
{
	xadd(&futex_sleepers, 1);
	if (ld_acq(&epfd) < 0)
		os_futex_wait(&pending, 0, delay);
	xadd(&futex_sleepers, -1);
	xchg(&pending, 0u);
}

/* Append the claimed Gs, made runnable, to the list head..tail. */
static void flush(struct claimed *c, struct g **head, struct g **tail, int *n)
{
	for (int j = 0; j < c->n; j++) {
		struct g *gp = c->gs[j];
		g_casstatus(gp, G_WAITING, G_RUNNABLE);
		gp->schedlink = NULL;
		if (*tail)
			(*tail)->schedlink = gp;
		else
			*head = gp;
		*tail = gp;
		(*n)++;
	}
	c->n = 0;
}

static struct g *handle(struct epoll_event *evs, int k, bool blocking, int *n)
{
	struct g *head = NULL, *tail = NULL;
	struct claimed c = {0};
	for (int i = 0; i < k; i++) {
		uint64_t d = evs[i].data.u64;
		if (d == WAKE_TAG) {
			/* level-triggered: only a poll that would block takes
			 * the break, the one it was meant for */
			if (!blocking)
				continue;
			uint64_t buf;
			arch_syscall3(SYS_read, evfd, &buf, sizeof buf);
			xchg(&pending, 0u);
			continue;
		}
		struct pdesc *pd = (struct pdesc *)(uintptr_t)(d & ((1ull << 48) - 1));
		uint16_t tag = (uint16_t)(d >> 48);
		uint32_t e = evs[i].events;
		bool fired[2] = {
			e & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR | EPOLLPRI),
			e & (EPOLLOUT | EPOLLHUP | EPOLLERR),
		};
		rt_lock(&pd->lock);
		for (int m = 0; m < 2; m++) {
			if (!fired[m])
				continue;
			/* a full batch: make it runnable without the lock, and
			 * go on unless the descriptor was closed meanwhile */
			while (pd->tag == tag && !pd->closing && !edge(pd, m, &c)) {
				rt_unlock(&pd->lock);
				flush(&c, &head, &tail, n);
				rt_lock(&pd->lock);
			}
		}
		rt_unlock(&pd->lock);
		flush(&c, &head, &tail, n);
	}
	return head;
}

struct g *netpoll(int64_t delay, int *n)
{
	*n = 0;
	int ep = ld_acq(&epfd);
	if (ep < 0) {
		if (delay != 0 && xchg(&pending, 0u) == 0)
			futex_wait(delay);
		return NULL;
	}
	struct epoll_event evs[128];
	long k;
	os_count(OSC_EPOLL_WAIT);
	if (delay == 0) {
		k = arch_syscall4(SYS_epoll_wait, ep, evs, 128, 0);
	} else {
		static _Atomic int no_pwait2;
		struct timespec ts = {delay / 1000000000, delay % 1000000000};
		k = -ENOSYS;
		if (!ld_rlx(&no_pwait2)) {
			k = arch_syscall6(SYS_epoll_pwait2, ep, (long)evs, 128,
					  (long)(delay < 0 ? NULL : &ts), 0, 8);
			if (k == -ENOSYS)
				st_rlx(&no_pwait2, 1);
		}
		if (k == -ENOSYS) {
			/* before Linux 5.11: whole milliseconds, rounded up */
			long ms = delay < 0 ? -1 : (long)((delay + 999999) / 1000000);
			k = arch_syscall6(SYS_epoll_pwait, ep, (long)evs, 128, ms, 0, 8);
		}
	}
	if (k <= 0)
		return NULL;
	struct g *list = handle(evs, (int)k, delay != 0, n);
	if (*n)
		xadd(&sched.nnetpollg, (uint64_t)*n);
	return list;
}

int netpoll_pd_fd(const void *pd)
{
	return ((const struct pdesc *)pd)->fd;
}
