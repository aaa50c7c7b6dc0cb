/* SPDX-License-Identifier: MIT */
/*
 * shim/poll.c — waiting for many descriptors: poll, ppoll, select,
 * pselect, epoll_wait, epoll_pwait, epoll_pwait2.
 *
 * The kernel stays the judge of readiness: every answer comes from the
 * real call made with a zero timeout. Between those checks the G parks on
 * the netpoller with a poll waiter on each descriptor (registering
 * inherited descriptors too; that does not change their flags), armed
 * before the check so that no edge in between is missed. An epoll
 * instance is itself a descriptor the netpoller watches. Timeouts ride on
 * the G's timer; a signal ends the wait with EINTR after its handler, as
 * these calls are never restarted. A call with a signal mask to apply
 * (ppoll, pselect, epoll_pwait with a mask) and one on a descriptor the
 * poller cannot watch are made as system calls that may block instead.
 *
 * Linux fails poll and select with EINTR, even with a zero timeout, when
 * any handler runs during the call, and so a blocking epoll_wait: sysmon's
 * preemption request too. Every real call here is made again then, the
 * time left recomputed, unless a handler of the program's ran
 * (door_eintr_spurious).
 */
#include "core/timer.h"
#include "shim/io.h"
#include "preload/runtime.h"
#include "core/sigq.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>

extern _Noreturn void __chk_fail(void);

/* check(arg) (a real call with a zero timeout; > 0 ready, < 0 error with
 * errno, 0 nothing) until it gives an answer that is not a spurious
 * EINTR. */
static int check_now(struct g *gp, int (*check)(void *arg), void *arg)
{
	for (;;) {
		uint32_t h = gp->nhandled;
		int r = check(arg);
		if (r >= 0 || errno != EINTR || !door_eintr_spurious(gp, h))
			return r;
	}
}

/* Poll waiters for fds into ws (room for 2n); returns how many, or -1
 * when a descriptor cannot be watched. */
static int build_waiters(const struct pollfd *fds, nfds_t n, struct np_waiter *ws)
{
	int k = 0;
	for (nfds_t i = 0; i < n; i++) {
		int fd = fds[i].fd;
		if (fd < 0)
			continue;
		struct fdent *e = fd_entry(fd);
		int err;
		struct pdesc *pd = e ? fd_pdesc(fd, e, &err) : NULL;
		if (!pd)
			return -1;
		short ev = fds[i].events;
		bool wr = ev & (POLLOUT | POLLWRNORM | POLLWRBAND);
		bool rd = (ev & (POLLIN | POLLPRI | POLLRDNORM | POLLRDBAND | POLLRDHUP)) || !wr;
		if (rd)
			ws[k++] = (struct np_waiter){.pd = pd, .mode = NP_READ};
		if (wr)
			ws[k++] = (struct np_waiter){.pd = pd, .mode = NP_WRITE};
	}
	return k;
}

/*
 * The waiting loop shared by poll and select: check() asks the kernel
 * without blocking (returns > 0 ready, < 0 error with errno, 0 nothing);
 * returns its answer, 0 at the deadline (after one last check), or -1
 * with EINTR.
 */
static int wait_many(struct np_waiter *ws, int k, int64_t deadline,
		     int (*check)(void *arg), void *arg)
{
	struct g *gp = getg();
	for (;;) {
		netpoll_arm(ws, k);
		uint32_t h = gp->nhandled;
		int r = check(arg);
		if (r != 0) {
			int e = errno;
			netpoll_disarm(ws, k);
			errno = e;
			if (r < 0 && e == EINTR && door_eintr_spurious(gp, h))
				continue;
			return r;
		}
		int w = netpoll_park(ws, k, deadline, WAIT_POLL);
		if (w == ETIMEDOUT)
			return check_now(gp, check, arg);
		if (w == EINTR) {
			door_testcancel(gp);
			if (door_signals(gp)) {
				errno = EINTR;
				return -1;
			}
		}
	}
}

/*
 * Signalfds: the kernel finds one readable when a signal of its mask is
 * pending for the calling OS thread or the process, but not the signals
 * libgmp holds for the G or the process (preload/sigwait.c). The checks
 * below add those; while the G waits it asks for the signals of the
 * signalfds it watches (sigq_want), so that one routed to it ends the
 * park, and the next check finds it.
 */

/* The signalfd mask of fd, or 0 (sigfds: some signalfd was made). */
static uint64_t sigfd_mask(int fd, bool sigfds)
{
	struct fdent *e = sigfds && fd >= 0 ? fd_get(fd) : NULL;
	return e && (ld_rlx(&e->flags) & FD_SIGNALFD) ? ld_rlx(&e->sigmask) : 0;
}

/* The union of the masks of the signalfds among fds asked for reading. */
static uint64_t sigfd_want(const struct pollfd *fds, nfds_t n)
{
	bool sigfds = fd_signalfds();
	uint64_t m = 0;
	for (nfds_t i = 0; sigfds && i < n; i++)
		if (fds[i].events & POLLIN)
			m |= sigfd_mask(fds[i].fd, sigfds);
	return m;
}

/* Does libgmp hold a signal in m for this G? The first look (*looked)
 * comes after the G's wake-up was armed and its signals wanted: a router
 * that routes one later sees those, and ends the park. */
static bool sigfd_held(uint64_t m, uint64_t *held, bool *looked)
{
	if (!m)
		return false;
	if (!*looked) {
		fence_seq();
		*held = gmp_sig_held(getg());
		*looked = true;
	}
	return *held & m;
}

/* After the kernel's answer r >= 0 for fds: the signalfds that libgmp
 * holds a signal for are readable too; returns the new count. */
static int sigfd_poll(struct pollfd *fds, nfds_t n, int r)
{
	uint64_t held = 0;
	bool looked = false, sigfds = fd_signalfds();
	for (nfds_t i = 0; sigfds && i < n; i++) {
		if (!(fds[i].events & POLLIN) || (fds[i].revents & POLLIN) ||
		    !sigfd_held(sigfd_mask(fds[i].fd, sigfds), &held, &looked))
			continue;
		r += !fds[i].revents;
		fds[i].revents |= POLLIN;
	}
	return r;
}

struct poll_args {
	struct pollfd *fds;
	nfds_t n;
};

static int poll_check(void *arg)
{
	struct poll_args *a = arg;
	int r = real_poll(a->fds, a->n, 0);
	return r < 0 ? r : sigfd_poll(a->fds, a->n, r);
}

/* poll and ppoll without a mask, for a G; deadline 0: none. */
static int g_poll(struct pollfd *fds, nfds_t n, int64_t deadline, bool zero)
{
	struct g *gp = getg();
	door_testcancel(gp);
	struct poll_args a = {fds, n};
	int r = check_now(gp, poll_check, &a);
	if (r != 0 || zero)
		return r;
	struct np_waiter small[32], *ws = small;
	if (n > 16) {
		if (n > (nfds_t)1 << 20) {
			errno = EINVAL;
			return -1;
		}
		ws = malloc(2 * n * sizeof *ws);
		if (!ws) {
			errno = ENOMEM;
			return -1;
		}
	}
	int k = build_waiters(fds, n, ws);
	if (k < 0) {
		/* something the poller cannot watch: the kernel waits */
		int ms = timer_left_ms(deadline);
		r = GMP_BLOCKING_AGAIN(int, true, false, ms = timer_left_ms(deadline),
				       real_poll(fds, n, ms));
	} else {
		uint64_t want = sigfd_want(fds, n);
		if (want)
			sigq_want(gp, want);
		r = wait_many(ws, k, deadline, poll_check, &a);
		if (want)
			sigq_unwant(gp);
	}
	if (ws != small) {
		int e = errno;
		free(ws);
		errno = e;
	}
	return r;
}

GMP_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	GMP_ENTRY(poll, fds, n, timeout);
	if (!getg())
		return real_poll(fds, n, timeout);
	return g_poll(fds, n, timer_ms_deadline(timeout), timeout == 0);
}

GMP_EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t size)
{
	if (size / sizeof *fds < n)
		__chk_fail();
	return poll(fds, n, timeout);
}

GMP_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
		     const sigset_t *mask)
{
	GMP_ENTRY(ppoll, fds, n, ts, mask);
	if (!getg())
		return real_ppoll(fds, n, ts, mask);
	if (ts && (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)) {
		errno = EINVAL;
		return -1;
	}
	if (mask) {
		int64_t deadline = timer_rel_deadline(ts);
		struct timespec left, *lp = (struct timespec *)ts;
		struct g *gp = getg();
		uint64_t old = gmp_call_mask_begin(gp, mask);
		int r = GMP_BLOCKING_AGAIN(int, true, false, lp = timer_left_ts(deadline, &left),
					   real_ppoll(fds, n, lp, mask));
		gmp_call_mask_end(gp, old);
		return r;
	}
	return g_poll(fds, n, timer_rel_deadline(ts), ts && ts->tv_sec == 0 && ts->tv_nsec == 0);
}

GMP_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *ts,
			   const sigset_t *mask, size_t size)
{
	if (size / sizeof *fds < n)
		__chk_fail();
	return ppoll(fds, n, ts, mask);
}

/* --- select ------------------------------------------------------------------ */

struct select_args {
	int nfds;
	fd_set *r, *w, *x;		/* the program's sets (results) */
	fd_set r0, w0, x0;		/* what it asked */
};

/* The program's sets back to what it asked. */
static void select_sets(struct select_args *a)
{
	if (a->r)
		*a->r = a->r0;
	if (a->w)
		*a->w = a->w0;
	if (a->x)
		*a->x = a->x0;
}

/* select_check's sigfd_poll: r is the kernel's count */
static int select_sigfds(struct select_args *a, int r)
{
	uint64_t held = 0;
	bool looked = false;
	for (int fd = 0; r >= 0 && a->r && fd < a->nfds && fd_signalfds(); fd++) {
		if (FD_ISSET(fd, &a->r0) && !FD_ISSET(fd, a->r) &&
		    sigfd_held(sigfd_mask(fd, true), &held, &looked)) {
			FD_SET(fd, a->r);
			r++;
		}
	}
	return r;
}

static int select_check(void *arg)
{
	struct select_args *a = arg;
	select_sets(a);
	struct timeval zero = {0, 0};
	return select_sigfds(a, real_select(a->nfds, a->r, a->w, a->x, &zero));
}

/* select and pselect without a mask, for a G; deadline 0: none. */
static int g_select(int nfds, fd_set *r, fd_set *w, fd_set *x, int64_t deadline, bool zero)
{
	struct g *gp = getg();
	door_testcancel(gp);
	if (nfds < 0 || nfds > FD_SETSIZE) {
		/* the kernel's answer: EINVAL below 0 or above RLIMIT_NOFILE,
		 * else it looks at the descriptors it has (it caps nfds at
		 * the size of the descriptor table) */
		struct timespec left;
		return GMP_BLOCKING_AGAIN(int, true, false, (void)0,
					  real_pselect(nfds, r, w, x, timer_left_ts(deadline, &left),
						       NULL));
	}
	struct select_args a = {.nfds = nfds, .r = r, .w = w, .x = x};
	if (r)
		a.r0 = *r;
	if (w)
		a.w0 = *w;
	if (x)
		a.x0 = *x;
	int ret = check_now(gp, select_check, &a);
	if (ret != 0 || zero)
		return ret;
	struct pollfd pf[FD_SETSIZE];
	nfds_t n = 0;
	for (int fd = 0; fd < nfds; fd++) {
		short ev = 0;
		if (r && FD_ISSET(fd, &a.r0))
			ev |= POLLIN;
		if (w && FD_ISSET(fd, &a.w0))
			ev |= POLLOUT;
		if (x && FD_ISSET(fd, &a.x0))
			ev |= POLLPRI;
		if (ev)
			pf[n++] = (struct pollfd){fd, ev, 0};
	}
	struct np_waiter *ws = malloc((2 * n + 1) * sizeof *ws);
	if (!ws) {
		errno = ENOMEM;
		return -1;
	}
	int k = build_waiters(pf, n, ws);
	if (k < 0) {
		/* the kernel waits, on the sets asked (the check wrote its
		 * answer into the program's) */
		struct timespec left;
		ret = GMP_BLOCKING_AGAIN(int, true, false, (void)0,
					 (select_sets(&a), real_pselect(nfds, r, w, x,
									timer_left_ts(deadline, &left),
									NULL)));
	} else {
		uint64_t want = sigfd_want(pf, n);
		if (want)
			sigq_want(gp, want);
		ret = wait_many(ws, k, deadline, select_check, &a);
		if (want)
			sigq_unwant(gp);
	}
	int e = errno;
	free(ws);
	if (ret < 0) {
		/* Linux leaves the sets as they were on an error (EINTR): a
		 * caller may retry with them (CPython's select does) */
		if (r)
			*r = a.r0;
		if (w)
			*w = a.w0;
		if (x)
			*x = a.x0;
	}
	errno = e;
	return ret;
}

GMP_EXPORT int select(int nfds, fd_set *r, fd_set *w, fd_set *x, struct timeval *tv)
{
	GMP_ENTRY(select, nfds, r, w, x, tv);
	if (!getg())
		return real_select(nfds, r, w, x, tv);
	int64_t deadline = 0;
	if (tv) {
		if (tv->tv_sec < 0 || tv->tv_usec < 0) {
			errno = EINVAL;
			return -1;
		}
		deadline = rt_nanotime() + (int64_t)tv->tv_sec * 1000000000 +
			   (int64_t)tv->tv_usec * 1000;
	}
	int ret = g_select(nfds, r, w, x, deadline, tv && tv->tv_sec == 0 && tv->tv_usec == 0);
	if (tv && deadline) {
		/* Linux reports the time left */
		int64_t left = deadline - rt_nanotime();
		if (left < 0)
			left = 0;
		tv->tv_sec = left / 1000000000;
		tv->tv_usec = left % 1000000000 / 1000;
	}
	return ret;
}

GMP_EXPORT int pselect(int nfds, fd_set *r, fd_set *w, fd_set *x, const struct timespec *ts,
		       const sigset_t *mask)
{
	GMP_ENTRY(pselect, nfds, r, w, x, ts, mask);
	if (!getg())
		return real_pselect(nfds, r, w, x, ts, mask);
	if (ts && (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)) {
		errno = EINVAL;
		return -1;
	}
	if (mask) {
		/* the kernel leaves the sets as they were on EINTR */
		int64_t deadline = timer_rel_deadline(ts);
		struct timespec left, *lp = (struct timespec *)ts;
		struct g *gp = getg();
		uint64_t old = gmp_call_mask_begin(gp, mask);
		int ret = GMP_BLOCKING_AGAIN(int, true, false, lp = timer_left_ts(deadline, &left),
					     real_pselect(nfds, r, w, x, lp, mask));
		gmp_call_mask_end(gp, old);
		return ret;
	}
	return g_select(nfds, r, w, x, timer_rel_deadline(ts),
			ts && ts->tv_sec == 0 && ts->tv_nsec == 0);
}

/* --- epoll -------------------------------------------------------------------- */

static int g_epoll_wait(int epfd, struct epoll_event *ev, int max, int64_t deadline, bool zero)
{
	struct g *gp = getg();
	door_testcancel(gp);
	int r = real_epoll_wait(epfd, ev, max, 0);
	if (r != 0 || zero)
		return r;
	struct fdent *e = fd_entry(epfd);
	int err;
	struct pdesc *pd = e ? fd_pdesc(epfd, e, &err) : NULL;
	if (!pd) {
		int ms = timer_left_ms(deadline);
		return GMP_BLOCKING_AGAIN(int, true, false, ms = timer_left_ms(deadline),
					  real_epoll_wait(epfd, ev, max, ms));
	}
	bool woken = false;
	for (;;) {
		netpoll_reset(pd, NP_READ);
		r = real_epoll_wait(epfd, ev, max, 0);
		if (r != 0) {
			if (r > 0 && woken)
				netpoll_pass(pd, NP_READ);
			return r;
		}
		int w = netpoll_wait(pd, NP_READ, deadline, WAIT_POLL);
		switch (w) {
		case 0:
			woken = true;
			break;
		case ETIMEDOUT:
			return 0;
		case EINTR:
			door_testcancel(gp);
			if (door_signals(gp)) {
				errno = EINTR;
				return -1;
			}
			break;
		default:
			errno = w;
			return -1;
		}
	}
}

GMP_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	GMP_ENTRY(epoll_wait, epfd, ev, max, timeout);
	if (!getg())
		return real_epoll_wait(epfd, ev, max, timeout);
	return g_epoll_wait(epfd, ev, max, timer_ms_deadline(timeout), timeout == 0);
}

GMP_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
			   const sigset_t *mask)
{
	GMP_ENTRY(epoll_pwait, epfd, ev, max, timeout, mask);
	if (!getg())
		return real_epoll_pwait(epfd, ev, max, timeout, mask);
	if (mask) {
		int64_t deadline = timer_ms_deadline(timeout);
		struct g *gp = getg();
		uint64_t old = gmp_call_mask_begin(gp, mask);
		int r = GMP_BLOCKING_AGAIN_ANY(int, true, false, timeout = timer_left_ms(deadline),
					       real_epoll_pwait(epfd, ev, max, timeout, mask));
		gmp_call_mask_end(gp, old);
		return r;
	}
	return g_epoll_wait(epfd, ev, max, timer_ms_deadline(timeout), timeout == 0);
}

GMP_EXPORT int epoll_pwait2(int epfd, struct epoll_event *ev, int max,
			    const struct timespec *ts, const sigset_t *mask)
{
	GMP_ENTRY(epoll_pwait2, epfd, ev, max, ts, mask);
	if (!getg())
		return real_epoll_pwait2(epfd, ev, max, ts, mask);
	if (ts && (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)) {
		errno = EINVAL;
		return -1;
	}
	if (mask) {
		int64_t deadline = timer_rel_deadline(ts);
		struct timespec left, *lp = (struct timespec *)ts;
		struct g *gp = getg();
		uint64_t old = gmp_call_mask_begin(gp, mask);
		int r = GMP_BLOCKING_AGAIN_ANY(int, true, false, lp = timer_left_ts(deadline, &left),
					       real_epoll_pwait2(epfd, ev, max, lp, mask));
		gmp_call_mask_end(gp, old);
		return r;
	}
	return g_epoll_wait(epfd, ev, max, timer_rel_deadline(ts),
			    ts && ts->tv_sec == 0 && ts->tv_nsec == 0);
}

GMP_EXPORT int epoll_create1(int flags)
{
	GMP_ENTRY(epoll_create1, flags);
	int fd = real_epoll_create1(flags);
	if (fd >= 0)
		fd_forget(fd);	/* a stale entry of a number reused */
	return fd;
}

GMP_EXPORT int epoll_create(int size)
{
	GMP_ENTRY(epoll_create, size);
	int fd = real_epoll_create(size);
	if (fd >= 0)
		fd_forget(fd);
	return fd;
}
