/* SPDX-License-Identifier: MIT */
/* Producers and consumers on bounded queues, with checksums: every item
 * made is taken exactly once (count, sum and xor of all items match).
 *   cond  a ring guarded by a mutex and two condvars (not full, not
 *         empty): 8x8, 1x16, 16x1 producers x consumers, capacities 16 and
 *         1; waking by signal, by broadcast, by timed waits that often time
 *         out (CLOCK_REALTIME), and with a CLOCK_MONOTONIC condattr
 *         (pthread_cond_timedwait and pthread_cond_clockwait).
 *   old   the cond queues (signal, broadcast, timedwait) through the
 *         condvar functions of glibc 2.2.5 (pthread_cond_*@GLIBC_2.2.5,
 *         which old binaries still call; glibc serves them with a compat
 *         implementation that keeps a pointer in the object).
 *   sem   the same ring with counting semaphores for free slots and items
 *         and a binary semaphore as its lock: sem_wait, sem_trywait,
 *         sem_timedwait, sem_clockwait, sem_post; sem_getvalue checked at
 *         the end.
 * Without an argument: all. Every line is the same under NPTL. */
#include "sync_util.h"
#include <semaphore.h>

#define MAXCAP 16
#define STOP 0		/* item that tells a consumer to end; real items are never 0 */
#define TIMED_TRIES 100000

enum wake { BY_SIGNAL, BY_BROADCAST, BY_TIMEDWAIT, BY_MONOTONIC, BY_CLOCKWAIT };
static const char *const wake_names[] = {
	"signal", "broadcast", "timedwait(REALTIME, 2 ms)", "timedwait(MONOTONIC condattr)",
	"clockwait(MONOTONIC)",
};

static struct queue {
	uint64_t ring[MAXCAP];
	int cap, head, n;
	pthread_mutex_t m;
	pthread_cond_t not_full, not_empty;
	sem_t slots, items, lock;
} q;

/* The condvar functions: today's, or glibc 2.2.5's. */
struct cond_ops {
	const char *name;
	int (*init)(pthread_cond_t *, const pthread_condattr_t *);
	int (*destroy)(pthread_cond_t *);
	int (*wait)(pthread_cond_t *, pthread_mutex_t *);
	int (*timedwait)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
	int (*signal)(pthread_cond_t *);
	int (*broadcast)(pthread_cond_t *);
};

extern int old_cond_init(pthread_cond_t *, const pthread_condattr_t *);
extern int old_cond_destroy(pthread_cond_t *);
extern int old_cond_wait(pthread_cond_t *, pthread_mutex_t *);
extern int old_cond_timedwait(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
extern int old_cond_signal(pthread_cond_t *);
extern int old_cond_broadcast(pthread_cond_t *);
__asm__(".symver old_cond_init, pthread_cond_init@GLIBC_2.2.5");
__asm__(".symver old_cond_destroy, pthread_cond_destroy@GLIBC_2.2.5");
__asm__(".symver old_cond_wait, pthread_cond_wait@GLIBC_2.2.5");
__asm__(".symver old_cond_timedwait, pthread_cond_timedwait@GLIBC_2.2.5");
__asm__(".symver old_cond_signal, pthread_cond_signal@GLIBC_2.2.5");
__asm__(".symver old_cond_broadcast, pthread_cond_broadcast@GLIBC_2.2.5");

static const struct cond_ops new_ops = {
	"", pthread_cond_init, pthread_cond_destroy, pthread_cond_wait,
	pthread_cond_timedwait, pthread_cond_signal, pthread_cond_broadcast,
};
static const struct cond_ops old_ops = {
	"GLIBC_2.2.5 ", old_cond_init, old_cond_destroy, old_cond_wait,
	old_cond_timedwait, old_cond_signal, old_cond_broadcast,
};
static const struct cond_ops *ops = &new_ops;

static enum wake wake;
static int nproducers, nconsumers, per_producer;
static struct checksum total;
static pthread_mutex_t total_lock = PTHREAD_MUTEX_INITIALIZER;

/* Wait on c the current way; bounded by a deadline when timed. */
static void cond_wait_once(pthread_cond_t *c)
{
	struct timespec ts;
	int e;
	switch (wake) {
	case BY_TIMEDWAIT:
		ts = deadline_ms(CLOCK_REALTIME, 2);
		e = ops->timedwait(c, &q.m, &ts);
		break;
	case BY_MONOTONIC:
		ts = deadline_ms(CLOCK_MONOTONIC, 20000);
		e = ops->timedwait(c, &q.m, &ts);
		break;
	case BY_CLOCKWAIT:
		ts = deadline_ms(CLOCK_MONOTONIC, 20000);
		e = pthread_cond_clockwait(c, &q.m, CLOCK_MONOTONIC, &ts);
		break;
	default:
		e = ops->wait(c, &q.m);
		break;
	}
	CHECK(e == 0 || (e == ETIMEDOUT && wake == BY_TIMEDWAIT), "wait: %s", errname(e));
}

static void cond_wake(pthread_cond_t *c)
{
	EXPECT_ERR(0, wake == BY_BROADCAST ? ops->broadcast(c) : ops->signal(c));
}

static void ring_put(uint64_t v)
{
	q.ring[(q.head + q.n) % q.cap] = v;
	q.n++;
}

static uint64_t ring_take(void)
{
	uint64_t v = q.ring[q.head];
	q.head = (q.head + 1) % q.cap;
	q.n--;
	return v;
}

static void cond_put(uint64_t v)
{
	EXPECT_ERR(0, pthread_mutex_lock(&q.m));
	for (int k = 0; q.n == q.cap; k++) {
		CHECK(k < TIMED_TRIES, "queue stayed full");
		cond_wait_once(&q.not_full);
	}
	ring_put(v);
	cond_wake(&q.not_empty);
	EXPECT_ERR(0, pthread_mutex_unlock(&q.m));
}

static uint64_t cond_take(void)
{
	EXPECT_ERR(0, pthread_mutex_lock(&q.m));
	for (int k = 0; q.n == 0; k++) {
		CHECK(k < TIMED_TRIES, "queue stayed empty");
		cond_wait_once(&q.not_empty);
	}
	uint64_t v = ring_take();
	cond_wake(&q.not_full);
	EXPECT_ERR(0, pthread_mutex_unlock(&q.m));
	return v;
}

/* ---- semaphores ------------------------------------------------------------------------ */

/* Take one unit of s, each way in turn: wait, trywait (then wait),
 * timedwait, clockwait with short deadlines that may pass. */
static void sem_take_unit(sem_t *s, int how)
{
	struct timespec ts;
	int r = -1;
	for (int k = 0; r != 0; k++) {
		CHECK(k < TIMED_TRIES, "semaphore stayed at 0");
		errno = 0;
		switch ((how + k) % 4) {
		case 0:
			r = sem_wait(s);
			break;
		case 1:
			r = sem_trywait(s);
			CHECK(r == 0 || errno == EAGAIN, "sem_trywait: %s", errname(errno));
			if (r)
				sched_yield();
			continue;
		case 2:
			ts = deadline_ms(CLOCK_REALTIME, 2);
			r = sem_timedwait(s, &ts);
			break;
		default:
			ts = deadline_ms(CLOCK_MONOTONIC, 2);
			r = sem_clockwait(s, CLOCK_MONOTONIC, &ts);
			break;
		}
		CHECK(r == 0 || errno == ETIMEDOUT, "sem wait way %d: %s", (how + k) % 4,
		      errname(errno));
	}
}

static int sem_calls;

static void sem_put(uint64_t v)
{
	int how = __atomic_fetch_add(&sem_calls, 1, __ATOMIC_RELAXED);
	sem_take_unit(&q.slots, how);
	sem_take_unit(&q.lock, how + 1);
	ring_put(v);
	CHECK(sem_post(&q.lock) == 0, "sem_post: %s", errname(errno));
	CHECK(sem_post(&q.items) == 0, "sem_post: %s", errname(errno));
}

static uint64_t sem_take(void)
{
	int how = __atomic_fetch_add(&sem_calls, 1, __ATOMIC_RELAXED);
	sem_take_unit(&q.items, how);
	sem_take_unit(&q.lock, how + 2);
	uint64_t v = ring_take();
	CHECK(sem_post(&q.lock) == 0, "sem_post: %s", errname(errno));
	CHECK(sem_post(&q.slots) == 0, "sem_post: %s", errname(errno));
	return v;
}

/* ---- the run --------------------------------------------------------------------------------- */

static bool use_sem;

static void put(uint64_t v)
{
	if (use_sem)
		sem_put(v);
	else
		cond_put(v);
}

static uint64_t take(void)
{
	return use_sem ? sem_take() : cond_take();
}

static void *producer(void *arg)
{
	int p = (int)(long)arg;
	for (int i = 0; i < per_producer; i++)
		put(item_value(p, i));
	return NULL;
}

static void *consumer(void *arg)
{
	struct checksum c = {0, 0, 0};
	for (uint64_t v; (v = take()) != STOP;)
		checksum_add(&c, v);
	EXPECT_ERR(0, pthread_mutex_lock(&total_lock));
	checksum_merge(&total, &c);
	EXPECT_ERR(0, pthread_mutex_unlock(&total_lock));
	return NULL;
}

static void *producer_or_consumer(void *arg)
{
	long i = (long)arg;
	return i < nconsumers ? consumer(arg) : producer((void *)(i - nconsumers));
}

/* np producers of n items each, nc consumers; after the producers end,
 * one STOP per consumer. */
static void run_queue(int np, int nc, int n)
{
	nproducers = np;
	nconsumers = nc;
	per_producer = n;
	memset(&total, 0, sizeof total);
	pthread_t *t = spawn_n(nc + np, producer_or_consumer);
	for (int i = nc; i < nc + np; i++)
		EXPECT_ERR(0, pthread_join(t[i], NULL));
	for (int i = 0; i < nc; i++)
		put(STOP);
	for (int i = 0; i < nc; i++)
		EXPECT_ERR(0, pthread_join(t[i], NULL));
	free(t);
	struct checksum want = expected_checksum(np, n);
	CHECK_CHECKSUM(total, want);
	CHECK(q.n == 0, "%d items left", q.n);
}

static const struct shape {
	int np, nc, cap, n;
} shapes[] = {
	{8, 8, 16, 2000}, {1, 16, 16, 8000}, {16, 1, 16, 500}, {4, 4, 1, 1000},
};

/* The cond queues of every shape, waking the ways from first to last. */
static void cond_queues_by(enum wake first, enum wake last)
{
	for (int w = first; w <= (int)last; w++) {
		pthread_condattr_t ca;
		wake = (enum wake)w;
		EXPECT_ERR(0, pthread_condattr_init(&ca));
		if (w == BY_MONOTONIC)
			EXPECT_ERR(0, pthread_condattr_setclock(&ca, CLOCK_MONOTONIC));
		EXPECT_ERR(0, pthread_mutex_init(&q.m, NULL));
		/* glibc 2.2.5's init takes no attributes; the static
		 * initializer serves as well */
		if (ops == &old_ops && w == BY_BROADCAST) {
			q.not_full = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
			q.not_empty = (pthread_cond_t)PTHREAD_COND_INITIALIZER;
		} else {
			EXPECT_ERR(0, ops->init(&q.not_full, ops == &old_ops ? NULL : &ca));
			EXPECT_ERR(0, ops->init(&q.not_empty, ops == &old_ops ? NULL : &ca));
		}
		EXPECT_ERR(0, pthread_condattr_destroy(&ca));
		for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
			const struct shape *sh = &shapes[s];
			q.cap = sh->cap;
			q.head = q.n = 0;
			run_queue(sh->np, sh->nc, sh->n);
			SAY("%scond queue, %s, %dx%d, capacity %d: %ld items, checksums match",
			    ops->name, wake_names[w], sh->np, sh->nc, sh->cap, total.count);
		}
		EXPECT_ERR(0, ops->destroy(&q.not_full));
		EXPECT_ERR(0, ops->destroy(&q.not_empty));
		EXPECT_ERR(0, pthread_mutex_destroy(&q.m));
	}
}

static void cond_queues(void)
{
	cond_queues_by(BY_SIGNAL, BY_CLOCKWAIT);
}

static void old_cond_queues(void)
{
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	struct timespec past = past_ts();
	ops = &old_ops;
	cond_queues_by(BY_SIGNAL, BY_TIMEDWAIT);
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	SAY_ERR("GLIBC_2.2.5 pthread_cond_timedwait, past", old_cond_timedwait(&c, &m, &past));
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	EXPECT_ERR(0, old_cond_destroy(&c));
	ops = &new_ops;
}

static void sem_queues(void)
{
	use_sem = true;
	for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
		const struct shape *sh = &shapes[s];
		int v = -1;
		q.cap = sh->cap;
		q.head = q.n = 0;
		CHECK(sem_init(&q.slots, 0, (unsigned)sh->cap) == 0, "sem_init");
		CHECK(sem_init(&q.items, 0, 0) == 0, "sem_init");
		CHECK(sem_init(&q.lock, 0, 1) == 0, "sem_init");
		run_queue(sh->np, sh->nc, sh->n);
		CHECK(sem_getvalue(&q.slots, &v) == 0 && v == sh->cap, "slots %d", v);
		CHECK(sem_getvalue(&q.items, &v) == 0 && v == 0, "items %d", v);
		CHECK(sem_getvalue(&q.lock, &v) == 0 && v == 1, "lock %d", v);
		SAY("semaphore queue, %dx%d, capacity %d: %ld items, checksums match; "
		    "sem_getvalue: %d free slots, 0 items, lock 1",
		    sh->np, sh->nc, sh->cap, total.count, sh->cap);
		CHECK(sem_destroy(&q.slots) == 0 && sem_destroy(&q.items) == 0 &&
		      sem_destroy(&q.lock) == 0, "sem_destroy");
	}
	use_sem = false;
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{"cond", cond_queues, true}, {"old", old_cond_queues, true},
		{"sem", sem_queues, true}, {NULL, NULL, false},
	};
	return run_subcommands("sync_queue", cmds, argc, argv);
}
