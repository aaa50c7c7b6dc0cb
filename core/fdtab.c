/* SPDX-License-Identifier: MIT */
/*
 * core/fdtab.c — the descriptor table (see fdtab.h).
 */
#include "core/fdtab.h"
#include "core/door.h"
#include "core/sched.h"

#include <errno.h>
#include <sys/mman.h>

#define CHUNK 1024
#define NCHUNKS 1024		/* descriptors below 1M (the usual hard limit) */

static _Atomic(struct fdent *) chunks[NCHUNKS];
static struct rt_mutex chunk_lock;	/* leaf */
static struct rt_mutex reg_lock;	/* first registrations; leaf */
static struct rt_mutex ring_lock;	/* dupnext rings; leaf */
static _Atomic int maxfd = -1;		/* highest descriptor recorded */

struct fdent *fd_get(int fd)
{
	if (fd < 0 || fd >= CHUNK * NCHUNKS)
		return NULL;
	struct fdent *c = ld_acq(&chunks[fd / CHUNK]);
	return c ? &c[fd % CHUNK] : NULL;
}

struct fdent *fd_entry(int fd)
{
	struct fdent *e = fd_get(fd);
	if (e || fd < 0 || fd >= CHUNK * NCHUNKS)
		return e;
	rt_lock(&chunk_lock);
	struct fdent *c = ld_rlx(&chunks[fd / CHUNK]);
	if (!c) {
		c = rt_mmap(CHUNK * sizeof(struct fdent), PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS);
		if (c)
			st_rel(&chunks[fd / CHUNK], c);
	}
	rt_unlock(&chunk_lock);
	return c ? &c[fd % CHUNK] : NULL;
}

static void drop_pd(int fd, struct fdent *e)
{
	struct pdesc *pd = xchg(&e->pd, (struct pdesc *)NULL);
	if (pd)
		netpoll_close(pd, fd);
}

/* Take fd out of its ring of duplicates. */
static void ring_leave(int fd, struct fdent *e)
{
	if (!__atomic_load_n(&e->dupnext, __ATOMIC_RELAXED))
		return;
	rt_lock(&ring_lock);
	int next = e->dupnext;
	for (int cur = next, i = 0; cur && i < 1 << 20; i++) {
		struct fdent *c = fd_get(cur - 1);
		if (!c)
			break;
		if (c->dupnext == fd + 1) {
			/* c points at us: at our next, or at nobody if c
			 * would be left alone */
			c->dupnext = next == cur ? 0 : next;
			break;
		}
		cur = c->dupnext;
	}
	e->dupnext = 0;
	rt_unlock(&ring_lock);
}

static void note_max(int fd)
{
	int m = ld_rlx(&maxfd);
	while (fd > m && !cas(&maxfd, &m, fd))
		;
}

void fd_created(int fd, bool user_nb, bool socket)
{
	struct fdent *e = fd_entry(fd);
	if (!e)
		return;	/* no table memory: an ordinary descriptor */
	drop_pd(fd, e);		/* a stale one: fd was closed behind our back */
	ring_leave(fd, e);
	st_rlx(&e->rcvtimeo, 0);
	st_rlx(&e->sndtimeo, 0);
	st_rlx(&e->peer, 0);
	st_rel(&e->flags, FD_POLLED | (user_nb ? FD_USER_NB : 0) | (socket ? FD_SOCKET : 0));
	note_max(fd);
}

void fd_set_peers(int a, int b)
{
	struct fdent *ea = fd_get(a), *eb = fd_get(b);
	if (ea && eb) {
		st_rlx(&ea->peer, b + 1);
		st_rlx(&eb->peer, a + 1);
	}
}

/* Apply fn to fd and every duplicate of it. */
static void ring_each(int fd, void (*fn)(struct fdent *e, void *arg), void *arg)
{
	struct fdent *e = fd_get(fd);
	if (!e)
		return;
	rt_lock(&ring_lock);
	fn(e, arg);
	int cur = e->dupnext;
	for (int i = 0; cur && cur != fd + 1 && i < 1 << 20; i++) {
		struct fdent *c = fd_get(cur - 1);
		if (!c)
			break;
		fn(c, arg);
		cur = c->dupnext;
	}
	rt_unlock(&ring_lock);
}

static void set_nb(struct fdent *e, void *arg)
{
	if (arg)
		atomic_fetch_or(&e->flags, FD_USER_NB);
	else
		atomic_fetch_and(&e->flags, ~(uint32_t)FD_USER_NB);
}

void fd_set_user_nb(int fd, bool nb)
{
	ring_each(fd, set_nb, nb ? (void *)1 : NULL);
}

static void set_pollfirst(struct fdent *e, void *arg)
{
	atomic_fetch_or(&e->flags, (uint32_t)(uintptr_t)arg);
}

void fd_refuse_nowait(int fd, int mode)
{
	ring_each(fd, set_pollfirst, (void *)(uintptr_t)(mode == NP_READ ? FD_POLLFIRST_R : FD_POLLFIRST_W));
}

static _Atomic bool any_sigfd;

static void set_sigmask(struct fdent *e, void *arg)
{
	st_rlx(&e->sigmask, *(const uint64_t *)arg);
	atomic_fetch_or(&e->flags, FD_SIGNALFD);
}

void fd_set_sigmask(int fd, uint64_t mask)
{
	struct fdent *e = fd_polled(fd);
	if (!e)
		return;
	st_rel(&any_sigfd, true);
	ring_each(fd, set_sigmask, &mask);
}

bool fd_signalfds(void)
{
	return ld_acq(&any_sigfd);
}

struct timeo {
	bool rcv;
	int64_t ns;
};

static void set_timeo(struct fdent *e, void *arg)
{
	struct timeo *t = arg;
	st_rlx(t->rcv ? &e->rcvtimeo : &e->sndtimeo, t->ns);
}

void fd_set_timeo(int fd, bool rcv, int64_t ns)
{
	struct timeo t = {rcv, ns};
	ring_each(fd, set_timeo, &t);
}

void fd_forget(int fd)
{
	struct fdent *e = fd_get(fd);
	if (!e || (!ld_acq(&e->flags) && !ld_rlx(&e->peer) && !ld_rlx(&e->pd) &&
		   !__atomic_load_n(&e->dupnext, __ATOMIC_RELAXED) && !ld_rlx(&e->sig_owner)))
		return;
	/* a vfork child (Python's, opening /proc/self/fd before it closes
	 * descriptors) must not touch the table it shares with its parent */
	if (sched_in_vfork_child())
		return;
	st_rel(&e->flags, 0u);
	st_rel(&e->sig_owner, 0);
	ring_leave(fd, e);
	int p = xchg(&e->peer, 0);
	if (p) {
		struct fdent *pe = fd_get(p - 1);
		int me = fd + 1;
		if (pe)
			cas(&pe->peer, &me, 0);
	}
	drop_pd(fd, e);
}

void fd_dup(int oldfd, int newfd)
{
	struct fdent *o = fd_get(oldfd);
	uint32_t fl = o ? ld_acq(&o->flags) : 0;
	if (!(fl & FD_POLLED)) {
		fd_forget(newfd);
		return;
	}
	fd_created(newfd, fl & FD_USER_NB, fl & FD_SOCKET);
	struct fdent *n = fd_get(newfd);
	if (n) {
		st_rlx(&n->sigmask, ld_rlx(&o->sigmask));
		atomic_fetch_or(&n->flags, fl & (FD_POLLFIRST_R | FD_POLLFIRST_W | FD_SIGNALFD));
		st_rlx(&n->rcvtimeo, ld_rlx(&o->rcvtimeo));
		st_rlx(&n->sndtimeo, ld_rlx(&o->sndtimeo));
		/* into oldfd's ring of duplicates */
		rt_lock(&ring_lock);
		n->dupnext = o->dupnext ? o->dupnext : oldfd + 1;
		o->dupnext = newfd + 1;
		rt_unlock(&ring_lock);
	}
}

struct pdesc *fd_pdesc(int fd, struct fdent *e, int *err)
{
	struct pdesc *pd = ld_acq(&e->pd);
	if (pd)
		return pd;
	rt_lock(&reg_lock);
	pd = ld_acq(&e->pd);
	if (!pd) {
		pd = netpoll_open(fd, err);
		if (pd)
			st_rel(&e->pd, pd);
	}
	rt_unlock(&reg_lock);
	return pd;
}

/* fn(fd, e) for every descriptor with an entry. */
static void each_entry(void (*fn)(int fd, struct fdent *e, void *arg), void *arg)
{
	int m = ld_acq(&maxfd);
	for (int fd = 0; fd <= m; fd++) {
		struct fdent *e = fd_get(fd);
		if (!e) {
			fd |= CHUNK - 1;	/* skip the whole chunk */
			continue;
		}
		fn(fd, e, arg);
	}
}

static void forget_pd(int fd, struct fdent *e, void *arg)
{
	(void)fd;
	(void)arg;
	st_rlx(&e->pd, (struct pdesc *)NULL);
}

void fd_after_fork(void)
{
	reg_lock = (struct rt_mutex){0};
	ring_lock = (struct rt_mutex){0};
	chunk_lock = (struct rt_mutex){0};
	each_entry(forget_pd, NULL);
}

bool fd_internal(int fd)
{
	return netpoll_owns_fd(fd);
}

int fd_sig_owner(const siginfo_t *info, siginfo_t *out)
{
	/* send_sigio's signals: si_code is the event (POLL_IN ..
	 * POLL_HUP), si_fd the descriptor */
	if (info->si_code < POLL_IN || info->si_code > POLL_HUP)
		return 0;
	struct fdent *e = fd_get(info->si_fd);
	int owner = e ? ld_acq(&e->sig_owner) : 0;
	if (!owner)
		return 0;
	int user = ld_rlx(&e->sig_user);
	if (info->si_signo != (user ? user : SIGIO))
		return 0;
	*out = *info;
	if (!user) {
		/* what the kernel sends for F_SETSIG 0: SIGIO, no details */
		__builtin_memset(out, 0, sizeof *out);
		out->si_signo = SIGIO;
		out->si_code = SI_KERNEL;
	}
	return owner;
}
