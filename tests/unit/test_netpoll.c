/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_netpoll.c — the netpoller (core/netpoll.c): a G parked
 * on a pipe wakes when another G writes (through the scheduler's own
 * polls, no notify), several waiters on one descriptor are all served
 * (the wake-up is passed on), deadlines, closing wakes with EBADF,
 * readiness seen before the wait is not lost, poll waiters on many
 * descriptors, and an idle M blocked in the poller wakes for a write
 * from a thread that is not a G.
 */
#include "unit.h"
#include "core/netpoll.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static int pfd[2];
static struct pdesc *rpd;
static _Atomic int result = -1;
static _Atomic int started;
static struct wg done_wg;

static void open_pipe(void)
{
	cr_assert_eq(pipe2(pfd, O_NONBLOCK | O_CLOEXEC), 0);
	int err = 0;
	rpd = netpoll_open(pfd[0], &err);
	cr_assert(rpd, "netpoll_open: error %d", err);
}

/* read one byte, parking on EAGAIN as the shim does */
static int read_one(int64_t deadline)
{
	char c;
	for (;;) {
		netpoll_reset(rpd, NP_READ);
		ssize_t n = read(pfd[0], &c, 1);
		if (n == 1)
			return 0;
		if (n < 0 && errno != EAGAIN)
			return errno;
		int r = netpoll_wait(rpd, NP_READ, deadline, WAIT_TEST);
		if (r)
			return r;
	}
}

static void reader(void *arg)
{
	(void)arg;
	xadd(&started, 1);
	st_rel(&result, read_one(0));
	wg_done(&done_wg);
}

Test(netpoll, parked_reader_wakes_on_write, .timeout = 30)
{
	core_up(2);
	open_pipe();
	st_rlx(&done_wg.left, 1);
	unit_go(reader, NULL);
	while (!netpoll_any_waiters())
		g_yield();
	cr_assert_eq(write(pfd[1], "x", 1), 1);
	wg_wait(&done_wg);
	cr_assert_eq(ld_acq(&result), 0);
	cr_assert(!netpoll_any_waiters());
}

static _Atomic int nread;

static void many_reader(void *arg)
{
	(void)arg;
	if (read_one(0) == 0) {
		xadd(&nread, 1);
		/* as the shim: a woken G that succeeded passes the wake-up on */
		netpoll_pass(rpd, NP_READ);
	}
	wg_done(&done_wg);
}

Test(netpoll, many_waiters_on_one_descriptor_all_served, .timeout = 30)
{
	core_up(2);
	open_pipe();
	enum { N = 16 };
	st_rlx(&done_wg.left, N);
	for (int i = 0; i < N; i++)
		unit_go(many_reader, NULL);
	for (int i = 0; i < 50; i++)
		g_yield();
	/* one write of N bytes: one edge for all of them */
	char buf[N] = {0};
	cr_assert_eq(write(pfd[1], buf, N), N);
	wg_wait(&done_wg);
	cr_assert_eq(ld_acq(&nread), N);
}

static void timed_reader(void *arg)
{
	int64_t ms = (int64_t)(intptr_t)arg;
	int64_t start = rt_nanotime();
	int r = read_one(start + ms * 1000000);
	if (r == ETIMEDOUT && rt_nanotime() < start + ms * 1000000)
		r = -2;	/* early */
	st_rel(&result, r);
	wg_done(&done_wg);
}

Test(netpoll, deadline_passes, .timeout = 30)
{
	core_up(2);
	open_pipe();
	st_rlx(&done_wg.left, 1);
	unit_go(timed_reader, (void *)(intptr_t)30);
	wg_wait(&done_wg);
	cr_assert_eq(ld_acq(&result), ETIMEDOUT, "got %d", ld_acq(&result));
}

Test(netpoll, close_wakes_with_ebadf, .timeout = 30)
{
	core_up(2);
	open_pipe();
	st_rlx(&done_wg.left, 1);
	unit_go(reader, NULL);
	while (!netpoll_any_waiters())
		g_yield();
	netpoll_close(rpd, pfd[0]);
	close(pfd[0]);
	wg_wait(&done_wg);
	cr_assert_eq(ld_acq(&result), EBADF);
}

static void latch_waiter(void *arg)
{
	(void)arg;
	/* no read first: the remembered edge alone must end the wait */
	st_rel(&result, netpoll_wait(rpd, NP_READ, rt_nanotime() + 5000000000ll, WAIT_TEST));
	wg_done(&done_wg);
}

Test(netpoll, edge_before_the_wait_is_kept, .timeout = 30)
{
	core_up(1);
	open_pipe();
	/* data arrives and the poller sees the edge while nobody waits */
	cr_assert_eq(write(pfd[1], "x", 1), 1);
	int n;
	cr_assert_null(netpoll(0, &n));
	st_rlx(&done_wg.left, 1);
	int64_t start = rt_nanotime();
	unit_go(latch_waiter, NULL);
	wg_wait(&done_wg);
	cr_assert_eq(ld_acq(&result), 0, "got %d", ld_acq(&result));
	cr_assert_lt(rt_nanotime() - start, 4000000000ll, "waited for the deadline");
}

static int pfd2[2];
static struct pdesc *rpd2;

static void poller(void *arg)
{
	(void)arg;
	struct np_waiter ws[2] = {
		{.pd = rpd, .mode = NP_READ},
		{.pd = rpd2, .mode = NP_READ},
	};
	netpoll_arm(ws, 2);
	int r = netpoll_park(ws, 2, 0, WAIT_TEST);
	int which = ld_acq(&ws[1].fired) ? 2 : ld_acq(&ws[0].fired) ? 1 : 0;
	st_rel(&result, r == 0 ? which : -r);
	wg_done(&done_wg);
}

Test(netpoll, poll_waiter_on_two_descriptors, .timeout = 30)
{
	core_up(2);
	open_pipe();
	cr_assert_eq(pipe2(pfd2, O_NONBLOCK | O_CLOEXEC), 0);
	int err;
	rpd2 = netpoll_open(pfd2[0], &err);
	cr_assert(rpd2);
	st_rlx(&done_wg.left, 1);
	unit_go(poller, NULL);
	while (!netpoll_any_waiters())
		g_yield();
	cr_assert_eq(write(pfd2[1], "y", 1), 1);
	wg_wait(&done_wg);
	cr_assert_eq(ld_acq(&result), 2, "got %d", ld_acq(&result));
	cr_assert(!netpoll_any_waiters(), "the other waiter was not taken off");
}

static void *foreign_writer(void *arg)
{
	(void)arg;
	usleep(50000);
	if (write(pfd[1], "z", 1) != 1)
		abort();
	return NULL;
}

Test(netpoll, idle_m_blocked_in_poller_wakes, .timeout = 30)
{
	/* one P: the main G parks on the pipe, the only M then blocks in
	 * the poller, and a plain thread's write must wake it */
	core_up(1);
	open_pipe();
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, foreign_writer, NULL), 0);
	cr_assert_eq(read_one(0), 0);
	pthread_join(t, NULL);
}
