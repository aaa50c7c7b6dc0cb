/* SPDX-License-Identifier: MIT */
/* Barriers, spinlocks, pthread_once, keys and C11 mtx/cnd/tss/call_once
 * across threads. One subcommand per run (argv[1]); without one, all:
 *   barrier    N threads, R rounds: each round exactly one thread gets
 *              PTHREAD_BARRIER_SERIAL_THREAD, and after the barrier every
 *              thread sees all the values the others wrote before it; a
 *              barrier of 1; count 0 gives EINVAL.
 *   spin       more threads than CPUs on one spinlock, holders that yield
 *              or sleep briefly inside: exact total; trylock EBUSY.
 *   once       pthread_once from many threads whose init routine sleeps:
 *              it runs once and every caller returns after it finished.
 *   once-cancel  the init routine is cancelled: the caller ends with
 *              PTHREAD_CANCELED, and a thread waiting in pthread_once then
 *              runs the routine again (as glibc does).
 *   keys       destructors that set values again (their own key or
 *              another's) run in further rounds, at most
 *              PTHREAD_DESTRUCTOR_ITERATIONS, in many threads at once.
 *   c11        mtx_* (plain, recursive, timed), cnd_* (signal, broadcast,
 *              timedwait), tss_*, call_once across threads.
 *   futex      the futex system call made directly (syscall(SYS_futex)):
 *              a futex-based mutex under contention (private and shared
 *              futexes), an event many threads wait for, and the answers
 *              EAGAIN (value differs), ETIMEDOUT (relative timeout,
 *              absolute FUTEX_WAIT_BITSET on both clocks), EINVAL.
 * Every line is the same under NPTL. */
#include "sync_util.h"
#include <limits.h>
#include <linux/futex.h>
#include <threads.h>

/* ---- barrier ------------------------------------------------------------------------------ */

#define MAXB 100

static pthread_barrier_t bar;
static int bthreads, brounds;
static long slots[2][MAXB];
static atomic_int serials[1000];

static void *barrier_worker(void *arg)
{
	long i = (long)arg;
	for (int r = 0; r < brounds; r++) {
		slots[r % 2][i] = r * 1000L + i;
		int e = pthread_barrier_wait(&bar);
		CHECK(e == 0 || e == PTHREAD_BARRIER_SERIAL_THREAD, "barrier_wait %d", e);
		if (e == PTHREAD_BARRIER_SERIAL_THREAD)
			atomic_fetch_add(&serials[r], 1);
		for (int j = 0; j < bthreads; j++)
			CHECK(slots[r % 2][j] == r * 1000L + j, "round %d: thread %ld saw slot %d = %ld",
			      r, i, j, slots[r % 2][j]);
	}
	return NULL;
}

static void barrier_rounds(int n, int rounds)
{
	bthreads = n;
	brounds = rounds;
	for (int r = 0; r < rounds; r++)
		atomic_store(&serials[r], 0);
	EXPECT_ERR(0, pthread_barrier_init(&bar, NULL, (unsigned)n));
	run_n(n, barrier_worker);
	EXPECT_ERR(0, pthread_barrier_destroy(&bar));
	for (int r = 0; r < rounds; r++)
		CHECK(atomic_load(&serials[r]) == 1, "round %d: %d serial threads", r,
		      atomic_load(&serials[r]));
	SAY("barrier: %d threads x %d rounds: one serial thread a round, all values seen", n,
	    rounds);
}

static void barrier(void)
{
	barrier_rounds(2, 1000);
	barrier_rounds(16, 200);
	barrier_rounds(MAXB, 20);
	EXPECT_ERR(0, pthread_barrier_init(&bar, NULL, 1));
	for (int i = 0; i < 3; i++)
		EXPECT_ERR(PTHREAD_BARRIER_SERIAL_THREAD, pthread_barrier_wait(&bar));
	EXPECT_ERR(0, pthread_barrier_destroy(&bar));
	SAY("barrier of 1: every wait returns PTHREAD_BARRIER_SERIAL_THREAD");
	SAY_ERR("pthread_barrier_init count 0", pthread_barrier_init(&bar, NULL, 0));
	pthread_barrierattr_t a;
	EXPECT_ERR(0, pthread_barrierattr_init(&a));
	SAY_ERR("pthread_barrierattr_setpshared 99", pthread_barrierattr_setpshared(&a, 99));
	EXPECT_ERR(0, pthread_barrierattr_destroy(&a));
}

/* ---- spin ------------------------------------------------------------------------------------ */

#define SPIN_THREADS 8
#define SPIN_ITERS 400

static pthread_spinlock_t spin;
static long spin_total;

static void *spinner(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < SPIN_ITERS; i++) {
		EXPECT_ERR(0, pthread_spin_lock(&spin));
		long v = spin_total;
		if (i % 100 == 50)
			sched_yield();
		if (i == 200 && id % 2 == 0)
			usleep(100);
		spin_total = v + 1;
		EXPECT_ERR(0, pthread_spin_unlock(&spin));
	}
	return NULL;
}

static void *spin_try(void *arg)
{
	EXPECT_ERR(EBUSY, pthread_spin_trylock(&spin));
	return NULL;
}

static void spinlocks(void)
{
	EXPECT_ERR(0, pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE));
	run_n(SPIN_THREADS, spinner);
	CHECK(spin_total == SPIN_THREADS * SPIN_ITERS, "total %ld", spin_total);
	SAY("spinlock: %d threads x %d = %ld, holders yield and sleep inside", SPIN_THREADS,
	    SPIN_ITERS, spin_total);
	EXPECT_ERR(0, pthread_spin_lock(&spin));
	run_n(1, spin_try);
	EXPECT_ERR(0, pthread_spin_unlock(&spin));
	EXPECT_ERR(0, pthread_spin_trylock(&spin));
	EXPECT_ERR(0, pthread_spin_unlock(&spin));
	EXPECT_ERR(0, pthread_spin_destroy(&spin));
	SAY("spin_trylock while another thread holds it: EBUSY; free: 0");
}

/* ---- once ----------------------------------------------------------------------------------- */

#define ONCE_THREADS 100

static pthread_once_t once_ctl = PTHREAD_ONCE_INIT;
static atomic_int once_runs, once_done, go;

static void slow_init(void)
{
	atomic_fetch_add(&once_runs, 1);
	usleep(20000);
	atomic_store(&once_done, 1);
}

static void *once_caller(void *arg)
{
	wait_flag(&go);
	EXPECT_ERR(0, pthread_once(&once_ctl, slow_init));
	CHECK(atomic_load(&once_done), "pthread_once returned before the routine finished");
	return NULL;
}

static void once(void)
{
	pthread_t *t = spawn_n(ONCE_THREADS, once_caller);
	atomic_store(&go, 1);
	join_n(t, ONCE_THREADS);
	EXPECT_ERR(0, pthread_once(&once_ctl, slow_init));
	SAY("pthread_once from %d threads at once, routine sleeps: it ran %d time(s), every "
	    "caller saw it done", ONCE_THREADS, atomic_load(&once_runs));
}

static pthread_once_t cancel_ctl = PTHREAD_ONCE_INIT;
static atomic_int cancel_runs, cancel_started, second_waiting;

static void cancellable_init(void)
{
	if (atomic_fetch_add(&cancel_runs, 1) == 0) {
		atomic_store(&cancel_started, 1);
		for (int i = 0; i < 20000; i++)
			usleep(1000);	/* a cancellation point */
		SAY("FAIL: the first init routine was not cancelled");
		exit(1);
	}
}

static void *once_cancel_caller(void *arg)
{
	if (arg)
		atomic_store(&second_waiting, 1);
	EXPECT_ERR(0, pthread_once(&cancel_ctl, cancellable_init));
	return NULL;
}

static void once_cancel(void)
{
	pthread_t first, second;
	void *res = NULL;
	EXPECT_ERR(0, pthread_create(&first, NULL, once_cancel_caller, NULL));
	wait_flag(&cancel_started);
	EXPECT_ERR(0, pthread_create(&second, NULL, once_cancel_caller, (void *)1));
	wait_flag(&second_waiting);
	usleep(20000);
	SAY("the second caller waits while the routine runs: runs %d", atomic_load(&cancel_runs));
	EXPECT_ERR(0, pthread_cancel(first));
	EXPECT_ERR(0, pthread_join(first, &res));
	SAY("first caller cancelled inside the routine: %s",
	    res == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "not cancelled");
	EXPECT_ERR(0, pthread_join(second, &res));
	EXPECT_ERR(0, pthread_once(&cancel_ctl, cancellable_init));
	SAY("the waiting caller ran the routine again: runs %d; a later call runs nothing",
	    atomic_load(&cancel_runs));
}

/* ---- keys ------------------------------------------------------------------------------------ */

#define KEY_THREADS 50

static pthread_key_t k_bounded, k_forever, k_setter, k_target;
static atomic_int n_bounded, n_forever, n_setter, n_target, target_ok;

static void d_bounded(void *v)	/* sets its own key again twice */
{
	atomic_fetch_add(&n_bounded, 1);
	if ((long)v < 3)
		EXPECT_ERR(0, pthread_setspecific(k_bounded, (void *)((long)v + 1)));
}

static void d_forever(void *v)
{
	atomic_fetch_add(&n_forever, 1);
	EXPECT_ERR(0, pthread_setspecific(k_forever, (void *)((long)v + 1)));
}

static void d_setter(void *v)	/* gives another key a value */
{
	atomic_fetch_add(&n_setter, 1);
	EXPECT_ERR(0, pthread_setspecific(k_target, v));
}

static void d_target(void *v)
{
	atomic_fetch_add(&n_target, 1);
	if (v == (void *)0x77)
		atomic_fetch_add(&target_ok, 1);
}

static void *key_user(void *arg)
{
	wait_flag(&go);
	CHECK(pthread_getspecific(k_bounded) == NULL, "a new thread sees a value");
	EXPECT_ERR(0, pthread_setspecific(k_bounded, (void *)1));
	EXPECT_ERR(0, pthread_setspecific(k_forever, (void *)1));
	EXPECT_ERR(0, pthread_setspecific(k_setter, (void *)0x77));
	CHECK(pthread_getspecific(k_setter) == (void *)0x77, "getspecific");
	return NULL;
}

static void keys(void)
{
	pthread_key_t tmp[64];
	for (int r = 0; r < 20; r++) {	/* create/delete, slots reused */
		for (int i = 0; i < 64; i++) {
			EXPECT_ERR(0, pthread_key_create(&tmp[i], NULL));
			CHECK(pthread_getspecific(tmp[i]) == NULL, "fresh key %d has a value", i);
			EXPECT_ERR(0, pthread_setspecific(tmp[i], (void *)(long)(r + 1)));
		}
		for (int i = 0; i < 64; i++)
			EXPECT_ERR(0, pthread_key_delete(tmp[i]));
	}
	SAY("20 x 64 keys created, set and deleted: a new key always starts with NULL");
	EXPECT_ERR(0, pthread_key_create(&k_bounded, d_bounded));
	EXPECT_ERR(0, pthread_key_create(&k_forever, d_forever));
	EXPECT_ERR(0, pthread_key_create(&k_setter, d_setter));
	EXPECT_ERR(0, pthread_key_create(&k_target, d_target));
	atomic_store(&go, 0);
	pthread_t *t = spawn_n(KEY_THREADS, key_user);
	atomic_store(&go, 1);
	join_n(t, KEY_THREADS);
	SAY("%d threads at once (PTHREAD_DESTRUCTOR_ITERATIONS %d): a destructor that sets its "
	    "key twice more ran %d times; one that always sets it ran %d times",
	    KEY_THREADS, PTHREAD_DESTRUCTOR_ITERATIONS, atomic_load(&n_bounded),
	    atomic_load(&n_forever));
	SAY("a destructor that set another key ran %d times; that key's destructor ran %d times, "
	    "%d with the value", atomic_load(&n_setter), atomic_load(&n_target),
	    atomic_load(&target_ok));
	EXPECT_ERR(0, pthread_key_delete(k_bounded));
	EXPECT_ERR(0, pthread_key_delete(k_forever));
	EXPECT_ERR(0, pthread_key_delete(k_setter));
	EXPECT_ERR(0, pthread_key_delete(k_target));
}

/* ---- C11 ---------------------------------------------------------------------------------------- */

#define C11_THREADS 32
#define C11_ITERS 300

static mtx_t cm;
static cnd_t cc;
static int ctype;
static long c11_total;
static tss_t ctss;
static atomic_int tss_dtors;
static once_flag c11_once = ONCE_FLAG_INIT;
static atomic_int c11_once_runs;

static void c11_slow_init(void)
{
	atomic_fetch_add(&c11_once_runs, 1);
	thrd_sleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
}

static void tss_dtor(void *v)
{
	atomic_fetch_add(&tss_dtors, 1);
}

static int c11_worker(void *arg)
{
	long id = (long)arg;
	call_once(&c11_once, c11_slow_init);
	CHECK(tss_set(ctss, (void *)(id + 1)) == thrd_success, "tss_set");
	for (int i = 0; i < C11_ITERS; i++) {
		struct timespec ts = deadline_ms(CLOCK_REALTIME, 20000);
		int e = (ctype & mtx_timed) && i % 2 ? mtx_timedlock(&cm, &ts) : mtx_lock(&cm);
		CHECK(e == thrd_success, "lock %d", e);
		if (ctype & mtx_recursive)
			CHECK(mtx_trylock(&cm) == thrd_success, "recursive trylock");
		long v = c11_total;
		if ((id + i) % 8 == 0)
			thrd_yield();
		c11_total = v + 1;
		if (ctype & mtx_recursive)
			CHECK(mtx_unlock(&cm) == thrd_success, "unlock");
		CHECK(mtx_unlock(&cm) == thrd_success, "unlock");
	}
	CHECK(tss_get(ctss) == (void *)(id + 1), "tss_get");
	return 0;
}

static void c11_run(int (*fn)(void *), int n)
{
	thrd_t t[C11_THREADS];
	for (long i = 0; i < n; i++)
		CHECK(thrd_create(&t[i], fn, (void *)i) == thrd_success, "thrd_create");
	for (int i = 0; i < n; i++) {
		int res = -1;
		CHECK(thrd_join(t[i], &res) == thrd_success && res == 0, "thrd_join %d", res);
	}
}

/* cnd: a counter handed between threads in turn, each waiting its turn */
static int turn;

static int turn_taker(void *arg)
{
	long id = (long)arg;
	for (int r = 0; r < 20; r++) {
		CHECK(mtx_lock(&cm) == thrd_success, "lock");
		while (turn % 8 != id)
			CHECK(cnd_wait(&cc, &cm) == thrd_success, "cnd_wait");
		turn++;
		CHECK(cnd_broadcast(&cc) == thrd_success, "cnd_broadcast");
		CHECK(mtx_unlock(&cm) == thrd_success, "unlock");
	}
	return 0;
}

static atomic_int c11_held;

static int c11_holder(void *arg)
{
	CHECK(mtx_lock(&cm) == thrd_success, "lock");
	atomic_store(&c11_held, 1);
	wait_flag(&go);
	CHECK(mtx_unlock(&cm) == thrd_success, "unlock");
	return 0;
}

static const char *thrd_name(int r)
{
	switch (r) {
	case thrd_success: return "thrd_success";
	case thrd_busy: return "thrd_busy";
	case thrd_timedout: return "thrd_timedout";
	case thrd_error: return "thrd_error";
	case thrd_nomem: return "thrd_nomem";
	default: return "other";
	}
}

static void c11_answers(void)
{
	thrd_t t;
	struct timespec past = past_ts(), soon = deadline_ms(CLOCK_REALTIME, 20);
	CHECK(mtx_init(&cm, mtx_timed) == thrd_success, "mtx_init");
	atomic_store(&go, 0);
	CHECK(thrd_create(&t, c11_holder, NULL) == thrd_success, "thrd_create");
	wait_flag(&c11_held);
	SAY("C11: mtx_trylock held elsewhere: %s", thrd_name(mtx_trylock(&cm)));
	SAY("C11: mtx_timedlock held elsewhere, 20 ms: %s", thrd_name(mtx_timedlock(&cm, &soon)));
	SAY("C11: mtx_timedlock held elsewhere, past: %s", thrd_name(mtx_timedlock(&cm, &past)));
	atomic_store(&go, 1);
	CHECK(thrd_join(t, NULL) == thrd_success, "thrd_join");
	CHECK(mtx_lock(&cm) == thrd_success, "lock");
	SAY("C11: cnd_timedwait, past: %s", thrd_name(cnd_timedwait(&cc, &cm, &past)));
	soon = deadline_ms(CLOCK_REALTIME, 20);
	SAY("C11: cnd_timedwait, 20 ms: %s", thrd_name(cnd_timedwait(&cc, &cm, &soon)));
	CHECK(mtx_unlock(&cm) == thrd_success, "unlock");
	mtx_destroy(&cm);
}

static void c11(void)
{
	static const struct {
		const char *name;
		int type;
	} mt[] = {{"mtx_plain", mtx_plain},
		  {"mtx_recursive", mtx_plain | mtx_recursive},
		  {"mtx_timed", mtx_timed},
		  {"mtx_timed|mtx_recursive", mtx_timed | mtx_recursive}};
	CHECK(tss_create(&ctss, tss_dtor) == thrd_success, "tss_create");
	for (size_t k = 0; k < sizeof mt / sizeof mt[0]; k++) {
		ctype = mt[k].type;
		c11_total = 0;
		CHECK(mtx_init(&cm, ctype) == thrd_success, "mtx_init");
		c11_run(c11_worker, C11_THREADS);
		mtx_destroy(&cm);
		CHECK(c11_total == C11_THREADS * C11_ITERS, "total %ld", c11_total);
		SAY("C11 %s: %d threads x %d = %ld", mt[k].name, C11_THREADS, C11_ITERS, c11_total);
	}
	SAY("C11: call_once from %d threads ran %d time(s); tss destructors ran %d times",
	    4 * C11_THREADS, atomic_load(&c11_once_runs), atomic_load(&tss_dtors));
	tss_delete(ctss);
	CHECK(mtx_init(&cm, mtx_plain) == thrd_success, "mtx_init");
	CHECK(cnd_init(&cc) == thrd_success, "cnd_init");
	c11_run(turn_taker, 8);
	SAY("C11: 8 threads took %d turns in order through cnd_wait/cnd_broadcast", turn);
	mtx_destroy(&cm);
	c11_answers();
	cnd_destroy(&cc);
}

/* ---- futex ----------------------------------------------------------------------------------- */

#define FX_THREADS 32
#define FX_ITERS 500

static atomic_int fword, fevent, fwoke;
static int fprivate;	/* FUTEX_PRIVATE_FLAG or 0 */
static long fx_total;

static long futex(atomic_int *uaddr, int op, int val, const struct timespec *ts, int val3)
{
	return syscall(SYS_futex, uaddr, op | fprivate, val, ts, NULL, val3);
}

/* Drepper's mutex: 0 free, 1 locked, 2 locked with waiters. */
static void fx_lock(void)
{
	int c = 0;
	if (atomic_compare_exchange_strong(&fword, &c, 1))
		return;
	if (c != 2)
		c = atomic_exchange(&fword, 2);
	while (c != 0) {
		long r = futex(&fword, FUTEX_WAIT, 2, NULL, 0);
		CHECK(r == 0 || errno == EAGAIN || errno == EINTR, "FUTEX_WAIT: %s", errname(errno));
		c = atomic_exchange(&fword, 2);
	}
}

static void fx_unlock(void)
{
	if (atomic_fetch_sub(&fword, 1) != 1) {
		atomic_store(&fword, 0);
		CHECK(futex(&fword, FUTEX_WAKE, 1, NULL, 0) >= 0, "FUTEX_WAKE: %s", errname(errno));
	}
}

static void *fx_worker(void *arg)
{
	for (int i = 0; i < FX_ITERS; i++) {
		fx_lock();
		long v = fx_total;
		if (((long)arg + i) % 8 == 0)
			sched_yield();
		fx_total = v + 1;
		fx_unlock();
	}
	return NULL;
}

static void *fx_event_waiter(void *arg)
{
	for (int k = 0; !atomic_load(&fevent) && k < 100000; k++) {
		long r = futex(&fevent, FUTEX_WAIT, 0, NULL, 0);
		CHECK(r == 0 || errno == EAGAIN || errno == EINTR, "FUTEX_WAIT: %s", errname(errno));
	}
	CHECK(atomic_load(&fevent), "the event never came");
	atomic_fetch_add(&fwoke, 1);
	return NULL;
}

static void futexes(void)
{
	for (int priv = 0; priv < 2; priv++) {
		fprivate = priv ? FUTEX_PRIVATE_FLAG : 0;
		fx_total = 0;
		run_n(FX_THREADS, fx_worker);
		CHECK(fx_total == FX_THREADS * FX_ITERS, "total %ld", fx_total);
		SAY("futex mutex (%s): %d threads x %d = %ld", priv ? "private" : "shared",
		    FX_THREADS, FX_ITERS, fx_total);

		atomic_store(&fevent, 0);
		atomic_store(&fwoke, 0);
		pthread_t *t = spawn_n(FX_THREADS, fx_event_waiter);
		usleep(20000);
		atomic_store(&fevent, 1);
		CHECK(futex(&fevent, FUTEX_WAKE, INT_MAX, NULL, 0) >= 0, "FUTEX_WAKE");
		join_n(t, FX_THREADS);
		SAY("futex event (%s): %d waiters, %d woke", priv ? "private" : "shared",
		    FX_THREADS, atomic_load(&fwoke));
	}
	struct timespec rel = {0, 20000000}, past = past_ts(), bad = {0, 1000000000};
	atomic_int w = 5;
	SAY_ERRNO("FUTEX_WAIT, value differs", (int)futex(&w, FUTEX_WAIT, 4, NULL, 0));
	SAY_ERRNO("FUTEX_WAIT, relative 20 ms", (int)futex(&w, FUTEX_WAIT, 5, &rel, 0));
	SAY_ERRNO("FUTEX_WAIT, relative tv_nsec 1e9", (int)futex(&w, FUTEX_WAIT, 5, &bad, 0));
	SAY_ERRNO("FUTEX_WAIT_BITSET MONOTONIC, absolute past",
		  (int)futex(&w, FUTEX_WAIT_BITSET, 5, &past, FUTEX_BITSET_MATCH_ANY));
	struct timespec soon = deadline_ms(CLOCK_REALTIME, 20);
	SAY_ERRNO("FUTEX_WAIT_BITSET REALTIME, absolute 20 ms",
		  (int)futex(&w, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 5, &soon,
			     FUTEX_BITSET_MATCH_ANY));
	SAY_ERRNO("FUTEX_WAIT_BITSET, bitset 0",
		  (int)futex(&w, FUTEX_WAIT_BITSET, 5, &past, 0));
	SAY_ERRNO("FUTEX_WAKE, nobody waits", (int)futex(&w, FUTEX_WAKE, 1, NULL, 0));
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{"barrier", barrier, true}, {"spin", spinlocks, true}, {"once", once, true},
		{"once-cancel", once_cancel, true}, {"keys", keys, true}, {"c11", c11, true},
		{"futex", futexes, true}, {NULL, NULL, false},
	};
	return run_subcommands("sync_misc", cmds, argc, argv);
}
