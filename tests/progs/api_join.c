/* SPDX-License-Identifier: MIT */
/* Joins: pthread_tryjoin_np (EBUSY, then 0), pthread_timedjoin_np and
 * pthread_clockjoin_np with deadlines that pass (ETIMEDOUT, not early, and
 * the thread is still joinable) and that do not (0 and the value), and
 * joining a thread that ended long ago. With "join-main", a thread joins
 * main after main's pthread_exit. With "codes", the results of edge cases
 * are printed by name. In these modes every line is the same under NPTL.
 *
 * With "two-joins", two threads join one thread at once: one must get 0
 * and the value, the other EINVAL, as pthread_join(3) documents. glibc
 * 2.36 does not detect this (its check compares the wrong way round): the
 * second joiner waits too and one of them may hang, so this mode is not
 * compared with NPTL. */
#include "api_util.h"
#include <pthread.h>
#include <signal.h>

#define MS 1000000LL

static atomic_int release;

static void *held(void *arg)
{
	wait_flag(&release);
	return arg;
}

static void *quick(void *arg)
{
	return arg;
}

static pthread_t start_held(void *value)
{
	pthread_t t;
	atomic_store(&release, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, held, value));
	return t;
}

static void tryjoin(void)
{
	void *res = NULL;
	pthread_t t = start_held((void *)0x71);
	EXPECT_ERR(EBUSY, pthread_tryjoin_np(t, &res));
	EXPECT_ERR(EBUSY, pthread_tryjoin_np(t, &res));
	atomic_store(&release, 1);
	int r, busy = 0;
	while ((r = pthread_tryjoin_np(t, &res)) == EBUSY) {
		busy++;
		usleep(100);
	}
	EXPECT_ERR(0, r);
	CHECK(res == (void *)0x71, "value %p", res);
	SAY("tryjoin: EBUSY while the thread runs, then 0 with its value");
}

/* A deadline `ms` from now on clk, as a timespec. */
static struct timespec in_ms(clockid_t clk, int ms)
{
	return ns_ts(clock_ns(clk) + ms * MS);
}

static void timed(void)
{
	void *res = NULL;
	struct timespec dl;
	pthread_t t;

	t = start_held((void *)0x72);
	dl = in_ms(CLOCK_REALTIME, 50);
	EXPECT_ERR(ETIMEDOUT, pthread_timedjoin_np(t, &res, &dl));
	CHECK(clock_ns(CLOCK_REALTIME) >= ts_ns(&dl), "timedjoin returned before its deadline");
	CHECK(res == NULL, "value written on timeout: %p", res);
	atomic_store(&release, 1);
	EXPECT_ERR(0, pthread_join(t, &res));
	CHECK(res == (void *)0x72, "value %p", res);
	SAY("timedjoin_np, deadline passes: ETIMEDOUT, not early; then join gives the value");

	static const struct {
		clockid_t clk;
		const char *name;
	} clocks[] = {{CLOCK_MONOTONIC, "MONOTONIC"}, {CLOCK_REALTIME, "REALTIME"}};
	for (int i = 0; i < 2; i++) {
		clockid_t clk = clocks[i].clk;
		res = NULL;
		t = start_held((void *)0x73);
		dl = in_ms(clk, 50);
		EXPECT_ERR(ETIMEDOUT, pthread_clockjoin_np(t, &res, clk, &dl));
		CHECK(clock_ns(clk) >= ts_ns(&dl), "clockjoin returned before its deadline");
		/* still joinable, also with another timed join */
		dl = in_ms(clk, 20);
		EXPECT_ERR(ETIMEDOUT, pthread_clockjoin_np(t, &res, clk, &dl));
		atomic_store(&release, 1);
		dl = in_ms(clk, 30000);
		EXPECT_ERR(0, pthread_clockjoin_np(t, &res, clk, &dl));
		CHECK(res == (void *)0x73, "value %p", res);
		SAY("clockjoin_np %s, deadline passes: ETIMEDOUT twice; then a clockjoin with time"
		    " to spare gives the value", clocks[i].name);
	}

	/* the thread ends on its own while the joiner waits */
	t = start_held((void *)0x74);
	atomic_store(&release, 1);
	dl = in_ms(CLOCK_REALTIME, 30000);
	EXPECT_ERR(0, pthread_timedjoin_np(t, &res, &dl));
	CHECK(res == (void *)0x74, "value %p", res);
	SAY("timedjoin_np, deadline does not pass: 0 and the value");
}

/* --- two joins at once --------------------------------------------------------------- */

static pthread_t target;
static atomic_int results[2];	/* error number + 1, 0 = not yet */
static void *values[2];

static void join_once(int slot, bool timed_join)
{
	struct timespec dl = in_ms(CLOCK_REALTIME, 30000);
	int r = timed_join ? pthread_timedjoin_np(target, &values[slot], &dl)
			   : pthread_join(target, &values[slot]);
	atomic_store(&results[slot], r + 1);
	if (r != 0)
		atomic_store(&release, 1);	/* the loser lets the target end */
}

static void *joiner(void *arg)
{
	join_once(1, arg != NULL);
	return NULL;
}

static void two_joins(bool timed_join)
{
	pthread_t j;
	atomic_store(&results[0], 0);
	atomic_store(&results[1], 0);
	values[0] = values[1] = NULL;
	target = start_held((void *)0x75);
	EXPECT_ERR(0, pthread_create(&j, NULL, joiner, timed_join ? (void *)1 : NULL));
	join_once(0, false);
	EXPECT_ERR(0, pthread_join(j, NULL));
	int r0 = results[0] - 1, r1 = results[1] - 1;
	int winner = r0 == 0 ? 0 : 1;
	CHECK((r0 == 0 && r1 == EINVAL) || (r0 == EINVAL && r1 == 0), "results %s and %s",
	      errname(r0), errname(r1));
	CHECK(values[winner] == (void *)0x75, "winner's value %p", values[winner]);
	SAY("two %sjoins of one thread at once: one gets 0 and the value, the other EINVAL",
	    timed_join ? "(one timed) " : "");
}

/* --- long ago ----------------------------------------------------------------------------- */

static void long_ago(void)
{
	pthread_t old, old2, t;
	void *res;
	EXPECT_ERR(0, pthread_create(&old, NULL, quick, (void *)99));
	EXPECT_ERR(0, pthread_create(&old2, NULL, quick, (void *)98));
	/* plenty of other threads come and go meanwhile */
	for (long i = 0; i < 300; i++) {
		EXPECT_ERR(0, pthread_create(&t, NULL, quick, (void *)i));
		EXPECT_ERR(0, pthread_join(t, &res));
		CHECK(res == (void *)i, "value %p", res);
	}
	usleep(100000);
	EXPECT_ERR(0, pthread_join(old, &res));
	CHECK(res == (void *)99, "value %p", res);
	EXPECT_ERR(0, pthread_tryjoin_np(old2, &res));
	CHECK(res == (void *)98, "value %p", res);
	SAY("join and tryjoin of threads that ended long ago (300 others since): 0 and their values");
}

/* --- joining main -------------------------------------------------------------------------- */

static pthread_t main_thread;

static void *join_main(void *arg)
{
	void *res = NULL;
	int r = pthread_join(main_thread, &res);
	SAY("a thread joins main after main's pthread_exit(0x77): %s, value %p", errname(r), res);
	return NULL;
}

/* --- codes ------------------------------------------------------------------------------------ */

#define SHOW(what, expr) SAY("%-48s %s", what, errname(expr))

static void ignore_signal(int sig)
{
	(void)sig;
}

static void codes(void)
{
	pthread_t t, d;
	pthread_attr_t a;
	struct timespec dl;
	void *res;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	atomic_store(&release, 0);
	EXPECT_ERR(0, pthread_create(&d, &a, held, NULL));
	pthread_attr_destroy(&a);
	SHOW("join running detached", pthread_join(d, NULL));
	SHOW("tryjoin running detached", pthread_tryjoin_np(d, NULL));
	dl = in_ms(CLOCK_REALTIME, 10);
	SHOW("timedjoin running detached", pthread_timedjoin_np(d, NULL, &dl));
	SHOW("detach running detached", pthread_detach(d));
	atomic_store(&release, 1);

	/* a past deadline: ETIMEDOUT until the thread has ended, then 0 */
	int r;
	EXPECT_ERR(0, pthread_create(&t, NULL, quick, (void *)2));
	dl = ns_ts(clock_ns(CLOCK_REALTIME) - 1000 * MS);
	while ((r = pthread_timedjoin_np(t, &res, &dl)) == ETIMEDOUT)
		usleep(1000);
	SHOW("timedjoin past deadline, once it ended", r);
	CHECK(res == (void *)2, "value %p", res);

	/* an ended thread not joined yet: pthread_sigqueue answers ESRCH
	 * (which tells it has ended), pthread_kill 0 (glibc 2.34+) */
	signal(SIGUSR1, ignore_signal);
	EXPECT_ERR(0, pthread_create(&t, NULL, quick, (void *)4));
	union sigval sv = {.sival_int = 0};
	for (int k = 0; pthread_sigqueue(t, SIGUSR1, sv) != ESRCH; k++) {
		CHECK(k < 5000, "the thread did not end");
		usleep(1000);
	}
	SHOW("pthread_sigqueue, ended not joined", pthread_sigqueue(t, SIGUSR1, sv));
	SHOW("pthread_kill SIGUSR1, ended not joined", pthread_kill(t, SIGUSR1));
	SHOW("pthread_kill 0, ended not joined", pthread_kill(t, 0));
	EXPECT_ERR(0, pthread_join(t, &res));

	EXPECT_ERR(0, pthread_create(&t, NULL, quick, (void *)3));
	dl = ns_ts(clock_ns(CLOCK_MONOTONIC) - 1000 * MS);
	while ((r = pthread_clockjoin_np(t, &res, CLOCK_MONOTONIC, &dl)) == ETIMEDOUT)
		usleep(1000);
	SHOW("clockjoin past deadline, once it ended", r);
	CHECK(res == (void *)3, "value %p", res);

	t = start_held(NULL);
	dl.tv_sec = -1;
	dl.tv_nsec = 0;
	SHOW("timedjoin tv_sec=-1", pthread_timedjoin_np(t, &res, &dl));
	SHOW("clockjoin MONOTONIC tv_sec=-1", pthread_clockjoin_np(t, &res, CLOCK_MONOTONIC, &dl));
	/* (an invalid tv_nsec makes glibc 2.36 retry its wait forever) */
	dl = in_ms(CLOCK_MONOTONIC, 10);
	SHOW("clockjoin CLOCK_BOOTTIME", pthread_clockjoin_np(t, &res, CLOCK_BOOTTIME, &dl));
	SHOW("clockjoin CLOCK_THREAD_CPUTIME_ID", pthread_clockjoin_np(t, &res,
								CLOCK_THREAD_CPUTIME_ID, &dl));
	atomic_store(&release, 1);
	SHOW("timedjoin NULL deadline (waits)", pthread_timedjoin_np(t, &res, NULL));

	EXPECT_ERR(0, pthread_create(&t, NULL, quick, (void *)4));
	usleep(20000);
	SHOW("detach a thread that ends soon or has ended", pthread_detach(t));
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "codes") == 0) {
		codes();
		SAY("DONE");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "join-main") == 0) {
		pthread_t t;
		main_thread = pthread_self();
		EXPECT_ERR(0, pthread_create(&t, NULL, join_main, NULL));
		pthread_exit((void *)0x77);
	}
	if (argc > 1 && strcmp(argv[1], "two-joins") == 0) {
		two_joins(false);
		two_joins(true);
		for (int i = 0; i < 50; i++)
			two_joins(i % 2);
		SAY("PASS api_join two-joins");
		return 0;
	}
	tryjoin();
	timed();
	long_ago();
	SAY("PASS api_join");
	return 0;
}
