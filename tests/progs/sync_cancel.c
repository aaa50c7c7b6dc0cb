/* SPDX-License-Identifier: MIT */
/* Deferred cancellation of threads blocked in synchronisation calls, with
 * C cleanup handlers (pthread_cleanup_push/pop). One subcommand per run
 * (argv[1]); without one: points, cleanup, disabled.
 *   points    a thread is cancelled while blocked in pthread_cond_wait,
 *             pthread_cond_timedwait, pthread_cond_clockwait (its cleanup
 *             handler runs with the mutex held again, and unlocks it),
 *             sem_wait, sem_timedwait (the count is untouched), pthread_join
 *             (the target stays joinable), nanosleep, clock_nanosleep; the
 *             joiner gets PTHREAD_CANCELED. pthread_mutex_lock is not a
 *             cancellation point: the thread gets the mutex, and only the
 *             next cancellation point ends it.
 *   cleanup   nested handlers run last-pushed first on cancellation;
 *             pthread_cleanup_pop(1) runs one, pop(0) does not.
 *   disabled  PTHREAD_CANCEL_DISABLE holds a cancellation back through
 *             cancellation points until it is enabled again; then
 *             pthread_testcancel acts on it.
 *   async     PTHREAD_CANCEL_ASYNCHRONOUS ends a thread busy in a loop
 *             that makes no calls.
 * Lines printed by the cancelled threads come before the joiner's, so the
 * whole output is the same under NPTL. */
#include "sync_util.h"
#include <semaphore.h>

static pthread_mutex_t m;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static atomic_int ready;
static pthread_t join_target;

enum point {
	COND_WAIT, COND_TIMEDWAIT, COND_CLOCKWAIT, SEM_WAIT, SEM_TIMEDWAIT, JOIN, NANOSLEEP,
	CLOCK_NANOSLEEP, NPOINTS
};
static const char *const point_names[] = {
	"pthread_cond_wait", "pthread_cond_timedwait", "pthread_cond_clockwait", "sem_wait",
	"sem_timedwait", "pthread_join", "nanosleep", "clock_nanosleep",
};

static void unlock_handler(void *arg)
{
	/* m is an errorcheck mutex: unlocking says whether this thread holds it */
	SAY("  cleanup handler: the mutex is held again; unlock: %s",
	    errname(pthread_mutex_unlock(&m)));
}

static void say_handler(void *arg)
{
	SAY("  cleanup handler: %s", (const char *)arg);
}

/* Block in a cancellation point, bounded (20 s) in case the cancel never
 * comes. */
static void block_in(enum point p)
{
	struct timespec ts, rel = {20, 0};
	switch (p) {
	case COND_WAIT:
	case COND_TIMEDWAIT:
	case COND_CLOCKWAIT:
		EXPECT_ERR(0, pthread_mutex_lock(&m));
		pthread_cleanup_push(unlock_handler, NULL);
		atomic_store(&ready, 1);
		for (int i = 0; i < 100; i++) {
			ts = deadline_ms(CLOCK_REALTIME, 200);
			if (p == COND_WAIT)
				pthread_cond_wait(&c, &m);
			else if (p == COND_TIMEDWAIT)
				pthread_cond_timedwait(&c, &m, &ts);
			else
				pthread_cond_clockwait(&c, &m, CLOCK_REALTIME, &ts);
		}
		pthread_cleanup_pop(1);
		break;
	case SEM_WAIT:
	case SEM_TIMEDWAIT:
		atomic_store(&ready, 1);
		ts = deadline_ms(CLOCK_REALTIME, 20000);
		if (p == SEM_WAIT)
			sem_wait(&sem);
		else
			sem_timedwait(&sem, &ts);
		break;
	case JOIN:
		atomic_store(&ready, 1);
		pthread_join(join_target, NULL);
		break;
	case NANOSLEEP:
		atomic_store(&ready, 1);
		nanosleep(&rel, NULL);
		break;
	default:
		atomic_store(&ready, 1);
		clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL);
		break;
	}
}

static void *victim(void *arg)
{
	enum point p = (enum point)(long)arg;
	pthread_cleanup_push(say_handler, (void *)point_names[p]);
	block_in(p);
	SAY("FAIL: %s returned instead of being cancelled", point_names[p]);
	exit(1);
	pthread_cleanup_pop(0);
	return NULL;
}

static atomic_int target_may_end;

/* What the cancelled joiner waits for: it ends only when told (or 20 s). */
static void *sleepy_target(void *arg)
{
	for (int i = 0; i < 20000 && !atomic_load(&target_may_end); i++)
		usleep(1000);
	return (void *)0x5;
}

/* Start fn(arg) and return once it is about to block (and a little more). */
static pthread_t start_when_ready(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	atomic_store(&ready, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, fn, arg));
	wait_flag(&ready);
	usleep(20000);
	return t;
}

/* Start fn(arg), wait until it is about to block, cancel it, join. */
static void cancel_when_ready(void *(*fn)(void *), void *arg, const char *what)
{
	void *res = NULL;
	pthread_t t = start_when_ready(fn, arg);
	int ce = pthread_cancel(t);
	int je = pthread_join(t, &res);
	SAY("%s: cancel %s, join %s, result %s", what, errname(ce), errname(je),
	    res == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "not cancelled");
}

static atomic_int got_mutex;

static void *lock_then_sleep(void *arg)
{
	pthread_cleanup_push(say_handler, "after pthread_mutex_lock");
	atomic_store(&ready, 1);
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	atomic_store(&got_mutex, 1);
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	sleep(20);	/* a cancellation point */
	pthread_cleanup_pop(0);
	return NULL;
}

static void points(void)
{
	m = (pthread_mutex_t)PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	CHECK(sem_init(&sem, 0, 0) == 0, "sem_init");
	for (int p = 0; p < NPOINTS; p++) {
		if (p == JOIN)
			EXPECT_ERR(0, pthread_create(&join_target, NULL, sleepy_target, NULL));
		SAY("%s:", point_names[p]);
		cancel_when_ready(victim, (void *)(long)p, point_names[p]);
		if (p == JOIN) {
			void *res = NULL;
			atomic_store(&target_may_end, 1);
			EXPECT_ERR(0, pthread_join(join_target, &res));
			SAY("the joined target is still joinable: result %p", res);
		}
	}
	int v = -1;
	CHECK(sem_getvalue(&sem, &v) == 0, "sem_getvalue");
	SAY("semaphore count after the cancelled waits: %d", v);
	SAY("the mutex after the cancelled waits: trylock %s", errname(pthread_mutex_trylock(&m)));

	/* not a cancellation point (main holds the mutex from the trylock) */
	void *res = NULL;
	pthread_t t = start_when_ready(lock_then_sleep, NULL);
	EXPECT_ERR(0, pthread_cancel(t));
	usleep(20000);
	int before = atomic_load(&got_mutex);
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	EXPECT_ERR(0, pthread_join(t, &res));
	SAY("cancelled while blocked in pthread_mutex_lock: got the mutex before it was unlocked: "
	    "%d; after: %d; result %s", before, atomic_load(&got_mutex),
	    res == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "not cancelled");
}

/* ---- cleanup ------------------------------------------------------------------------------ */

static char order[32];

static void note(void *arg)
{
	strncat(order, (const char *)arg, sizeof order - strlen(order) - 1);
}

static void *nested(void *arg)
{
	pthread_cleanup_push(note, "1");
	pthread_cleanup_push(note, "2");
	pthread_cleanup_push(note, "x");
	pthread_cleanup_pop(0);	/* not run */
	pthread_cleanup_push(note, "p");
	pthread_cleanup_pop(1);	/* run now */
	pthread_cleanup_push(note, "3");
	atomic_store(&ready, 1);
	for (int i = 0; i < 2000; i++) {
		pthread_testcancel();
		usleep(10000);
	}
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	return NULL;
}

static void cleanup(void)
{
	cancel_when_ready(nested, NULL, "nested handlers");
	SAY("handlers ran in the order %s (p: popped with 1 before the cancel; x: popped with 0)",
	    order);
}

/* ---- disabled --------------------------------------------------------------------------------- */

static atomic_int cancelled_sent, steps;

static void *disabled(void *arg)
{
	int old = -1;
	EXPECT_ERR(0, pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old));
	pthread_cleanup_push(say_handler, "after re-enabling");
	atomic_store(&ready, 1);
	wait_flag(&cancelled_sent);
	/* cancellation points while disabled: nothing happens */
	usleep(1000);
	pthread_testcancel();
	struct timespec ts = deadline_ms(CLOCK_REALTIME, 5);
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	EXPECT_ERR(ETIMEDOUT, pthread_cond_timedwait(&c, &m, &ts));
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	atomic_store(&steps, 1);
	SAY("  disabled thread: went through 3 cancellation points");
	EXPECT_ERR(0, pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old));
	if (old == PTHREAD_CANCEL_DISABLE)
		atomic_store(&steps, 2);
	pthread_testcancel();
	atomic_store(&steps, 3);
	pthread_cleanup_pop(0);
	return NULL;
}

static void disabled_cancel(void)
{
	pthread_t t;
	void *res = NULL;
	m = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	atomic_store(&ready, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, disabled, NULL));
	wait_flag(&ready);
	int ce = pthread_cancel(t);
	atomic_store(&cancelled_sent, 1);
	EXPECT_ERR(0, pthread_join(t, &res));
	SAY("cancel while disabled: %s; the thread reached step %d of 3; result %s", errname(ce),
	    atomic_load(&steps), res == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "not cancelled");
}

/* ---- async ------------------------------------------------------------------------------------ */

static volatile unsigned long spin_sink;

static void *busy(void *arg)
{
	int old;
	EXPECT_ERR(0, pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old));
	atomic_store(&ready, 1);
	/* no calls from here on; some 20 s of work at most */
	for (unsigned long i = 0; i < 200000; i++)
		for (int k = 0; k < 100000; k++)
			spin_sink = spin_sink * 31 + i + (unsigned long)k;
	SAY("FAIL: the busy thread was not cancelled");
	exit(1);
}

static void async_cancel(void)
{
	cancel_when_ready(busy, NULL, "asynchronous cancel of a busy thread");
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{"points", points, true}, {"cleanup", cleanup, true},
		{"disabled", disabled_cancel, true}, {"async", async_cancel, false},
		{NULL, NULL, false},
	};
	return run_subcommands("sync_cancel", cmds, argc, argv);
}
