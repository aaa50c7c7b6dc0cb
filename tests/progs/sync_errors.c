/* SPDX-License-Identifier: MIT */
/* The error codes of mutexes, condition variables, semaphores and their
 * attributes, printed one a line so that the whole output can be compared
 * with NPTL's. Only cases where glibc's answer is defined are asked
 * (never unlocking someone else's default mutex, say). Deadlines are in
 * the past or 20 ms ahead; no duration is measured.
 *   mutex  per type (default, recursive, errorcheck, adaptive): relock,
 *          trylock by the owner and by another thread, unlock by a
 *          non-owner and when unlocked, destroy while held, timedlock and
 *          clocklock expiring (ETIMEDOUT) or given tv_nsec = 1e9 or a
 *          clock they cannot use (EINVAL)
 *   cond   timedwait/clockwait expiring on CLOCK_REALTIME and with a
 *          CLOCK_MONOTONIC condattr, the mutex owned again afterwards;
 *          EINVAL for tv_nsec = 1e9 and bad clocks; EPERM for waiting with
 *          an errorcheck mutex the caller does not hold
 *   sem    (errno) sem_trywait EAGAIN, sem_timedwait/sem_clockwait
 *          ETIMEDOUT and EINVAL, sem_init EINVAL, sem_post EOVERFLOW,
 *          sem_timedwait interrupted by a signal: EINTR even with
 *          SA_RESTART
 *   attr   EINVAL for bad mutex, condvar and rwlock attribute values
 * Without an argument: all. */
#include "sync_util.h"
#include <limits.h>
#include <semaphore.h>
#include <signal.h>

static pthread_mutex_t m;
static atomic_int held, release;

/* ---- mutex -------------------------------------------------------------------------------- */

static void *hold_m(void *arg)
{
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	atomic_store(&held, 1);
	wait_flag(&release);
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	return NULL;
}

static pthread_t holder;

/* Another thread takes m and keeps it until let_go. */
static void hold_elsewhere(void)
{
	atomic_store(&held, 0);
	atomic_store(&release, 0);
	EXPECT_ERR(0, pthread_create(&holder, NULL, hold_m, NULL));
	wait_flag(&held);
}

static void let_go(void)
{
	atomic_store(&release, 1);
	EXPECT_ERR(0, pthread_join(holder, NULL));
}

static int other_result;

static void *unlock_m(void *arg)
{
	other_result = pthread_mutex_unlock(&m);
	return NULL;
}

static void *trylock_m(void *arg)
{
	other_result = pthread_mutex_trylock(&m);
	if (other_result == 0)
		EXPECT_ERR(0, pthread_mutex_unlock(&m));
	return NULL;
}

/* What fn says when another thread runs it. */
static const char *elsewhere(void *(*fn)(void *))
{
	pthread_t t;
	EXPECT_ERR(0, pthread_create(&t, NULL, fn, NULL));
	EXPECT_ERR(0, pthread_join(t, NULL));
	return sync_errname(other_result);
}

/* The timed ways to lock m: expired (past, 20 ms) on both clocks, tv_nsec
 * out of range, a clock that cannot be used. m is held elsewhere. */
static void timed_answers(const char *name)
{
	struct timespec past = past_ts(), bad = bad_ns_ts(CLOCK_REALTIME);
	struct timespec soon = deadline_ms(CLOCK_REALTIME, 20);
	SAY("%s held elsewhere: timedlock, past: %s", name,
	    errname(pthread_mutex_timedlock(&m, &past)));
	SAY("%s held elsewhere: timedlock, 20 ms: %s", name,
	    errname(pthread_mutex_timedlock(&m, &soon)));
	SAY("%s held elsewhere: clocklock REALTIME, past: %s", name,
	    errname(pthread_mutex_clocklock(&m, CLOCK_REALTIME, &past)));
	soon = deadline_ms(CLOCK_MONOTONIC, 20);
	SAY("%s held elsewhere: clocklock MONOTONIC, 20 ms: %s", name,
	    errname(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &soon)));
	SAY("%s held elsewhere: timedlock, tv_nsec 1e9: %s", name,
	    errname(pthread_mutex_timedlock(&m, &bad)));
	bad = bad_ns_ts(CLOCK_MONOTONIC);
	SAY("%s held elsewhere: clocklock MONOTONIC, tv_nsec 1e9: %s", name,
	    errname(pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &bad)));
	SAY("%s held elsewhere: clocklock CLOCK_PROCESS_CPUTIME_ID: %s", name,
	    errname(pthread_mutex_clocklock(&m, CLOCK_PROCESS_CPUTIME_ID, &past)));
}

static void mutex_type(const char *name, int type)
{
	pthread_mutexattr_t a;
	EXPECT_ERR(0, pthread_mutexattr_init(&a));
	EXPECT_ERR(0, pthread_mutexattr_settype(&a, type));
	EXPECT_ERR(0, pthread_mutex_init(&m, &a));
	EXPECT_ERR(0, pthread_mutexattr_destroy(&a));
	bool checks = type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK;

	if (checks)
		SAY("%s: unlock while unlocked: %s", name, errname(pthread_mutex_unlock(&m)));
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	int e = type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK ?
			pthread_mutex_lock(&m) : pthread_mutex_trylock(&m);
	SAY("%s: owner %s: %s", name, checks ? "locks again" : "trylocks", errname(e));
	if (type == PTHREAD_MUTEX_RECURSIVE) {
		SAY("%s: owner trylocks: %s", name, errname(pthread_mutex_trylock(&m)));
		struct timespec past = past_ts();
		SAY("%s: owner timedlocks, past: %s", name,
		    errname(pthread_mutex_timedlock(&m, &past)));
		EXPECT_ERR(0, pthread_mutex_unlock(&m));
		EXPECT_ERR(0, pthread_mutex_unlock(&m));
		EXPECT_ERR(0, pthread_mutex_unlock(&m));
	}
	if (type == PTHREAD_MUTEX_ERRORCHECK) {
		struct timespec past = past_ts();
		SAY("%s: owner trylocks: %s", name, errname(pthread_mutex_trylock(&m)));
		SAY("%s: owner timedlocks, past: %s", name,
		    errname(pthread_mutex_timedlock(&m, &past)));
	}
	SAY("%s: another thread trylocks: %s", name, elsewhere(trylock_m));
	if (checks)
		SAY("%s: another thread unlocks: %s", name, elsewhere(unlock_m));
	SAY("%s: destroy while held: %s", name, errname(pthread_mutex_destroy(&m)));
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	if (checks)
		SAY("%s: unlock once more: %s", name, errname(pthread_mutex_unlock(&m)));

	hold_elsewhere();
	timed_answers(name);
	let_go();
	EXPECT_ERR(0, pthread_mutex_destroy(&m));
}

static void mutexes(void)
{
	mutex_type("default", PTHREAD_MUTEX_DEFAULT);
	mutex_type("recursive", PTHREAD_MUTEX_RECURSIVE);
	mutex_type("errorcheck", PTHREAD_MUTEX_ERRORCHECK);
	mutex_type("adaptive", PTHREAD_MUTEX_ADAPTIVE_NP);
	pthread_mutex_t s = PTHREAD_MUTEX_INITIALIZER;
	EXPECT_ERR(0, pthread_mutex_lock(&s));
	SAY_ERR("static default mutex: destroy while held", pthread_mutex_destroy(&s));
	EXPECT_ERR(0, pthread_mutex_unlock(&s));
	SAY_ERR("static default mutex: destroy", pthread_mutex_destroy(&s));
}

/* ---- cond ----------------------------------------------------------------------------------- */

/* Print the answer e of a timed wait with m (errorcheck, held): m must be
 * held again afterwards, which unlocking it shows. */
static void said(const char *what, int e)
{
	int u = pthread_mutex_unlock(&m);
	SAY("%s: %s, mutex held again: %s", what, errname(e), u == 0 ? "yes" : errname(u));
	EXPECT_ERR(0, pthread_mutex_lock(&m));
}

static void conds(void)
{
	pthread_cond_t rt, mono;
	pthread_condattr_t ca;
	m = (pthread_mutex_t)PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
	EXPECT_ERR(0, pthread_cond_init(&rt, NULL));
	EXPECT_ERR(0, pthread_condattr_init(&ca));
	EXPECT_ERR(0, pthread_condattr_setclock(&ca, CLOCK_MONOTONIC));
	clockid_t clk = -1;
	EXPECT_ERR(0, pthread_condattr_getclock(&ca, &clk));
	CHECK(clk == CLOCK_MONOTONIC, "getclock %d", (int)clk);
	EXPECT_ERR(0, pthread_cond_init(&mono, &ca));
	EXPECT_ERR(0, pthread_condattr_destroy(&ca));

	SAY_ERR("cond_wait, errorcheck mutex not held", pthread_cond_wait(&rt, &m));
	struct timespec ts = past_ts();
	SAY_ERR("cond_timedwait, errorcheck mutex not held", pthread_cond_timedwait(&rt, &m, &ts));

	EXPECT_ERR(0, pthread_mutex_lock(&m));
	static const clockid_t clocks[] = {CLOCK_REALTIME, CLOCK_MONOTONIC};
	static const char *const names[] = {"REALTIME", "MONOTONIC"};
	char what[128];
	for (int c = 0; c < 2; c++) {
		pthread_cond_t *cv = c ? &mono : &rt;
		const char *attr = c ? "MONOTONIC condattr" : "default condattr";
		ts = past_ts();
		snprintf(what, sizeof what, "cond_timedwait (%s), past", attr);
		said(what, pthread_cond_timedwait(cv, &m, &ts));
		ts = deadline_ms(clocks[c], 20);
		snprintf(what, sizeof what, "cond_timedwait (%s), 20 ms on %s", attr, names[c]);
		said(what, pthread_cond_timedwait(cv, &m, &ts));
		ts = bad_ns_ts(clocks[c]);
		snprintf(what, sizeof what, "cond_timedwait (%s), tv_nsec 1e9", attr);
		said(what, pthread_cond_timedwait(cv, &m, &ts));
		for (int k = 0; k < 2; k++) {
			ts = past_ts();
			snprintf(what, sizeof what, "cond_clockwait (%s) %s, past", attr, names[k]);
			said(what, pthread_cond_clockwait(cv, &m, clocks[k], &ts));
			ts = deadline_ms(clocks[k], 20);
			snprintf(what, sizeof what, "cond_clockwait (%s) %s, 20 ms", attr, names[k]);
			said(what, pthread_cond_clockwait(cv, &m, clocks[k], &ts));
			ts = bad_ns_ts(clocks[k]);
			snprintf(what, sizeof what, "cond_clockwait (%s) %s, tv_nsec 1e9", attr, names[k]);
			said(what, pthread_cond_clockwait(cv, &m, clocks[k], &ts));
		}
		ts = past_ts();
		snprintf(what, sizeof what, "cond_clockwait (%s) CLOCK_PROCESS_CPUTIME_ID", attr);
		said(what, pthread_cond_clockwait(cv, &m, CLOCK_PROCESS_CPUTIME_ID, &ts));
	}
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	SAY_ERR("cond_destroy, no waiters", pthread_cond_destroy(&rt));
	EXPECT_ERR(0, pthread_cond_destroy(&mono));
}

/* ---- semaphores --------------------------------------------------------------------------------- */

static sem_t sem;
static atomic_int waiting, interrupted, returned, may_end;
static int sem_result, sem_errno;

static void on_signal(int sig)
{
	atomic_fetch_add(&interrupted, 1);
}

static void *sem_waiter(void *arg)
{
	struct timespec ts = deadline_ms(CLOCK_REALTIME, 20000);
	atomic_store(&waiting, 1);
	errno = 0;
	sem_result = sem_timedwait(&sem, &ts);
	sem_errno = errno;
	atomic_store(&returned, 1);
	wait_flag(&may_end);	/* so that every signal finds it alive */
	return NULL;
}

/* A signal (with SA_RESTART) ends a blocked sem_timedwait with EINTR. */
static void sem_eintr(void)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	pthread_t t;
	EXPECT_ERR(0, pthread_create(&t, NULL, sem_waiter, NULL));
	wait_flag(&waiting);
	usleep(20000);
	/* until it has returned: a signal that came before the wait began
	 * only ran the handler */
	for (int i = 0; i < 200 && !atomic_load(&returned); i++) {
		EXPECT_ERR(0, pthread_kill(t, SIGUSR1));
		usleep(20000);
	}
	CHECK(atomic_load(&returned), "sem_timedwait did not return after %d signals",
	      atomic_load(&interrupted));
	atomic_store(&may_end, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
	SAY("sem_timedwait interrupted by a SA_RESTART signal: %d %s", sem_result,
	    sync_errname(sem_errno));
}

static void sems(void)
{
	struct timespec past = past_ts(), ts;
	int v = -1;
	CHECK(sem_init(&sem, 0, 0) == 0, "sem_init");
	SAY_ERRNO("sem_trywait at 0", sem_trywait(&sem));
	SAY_ERRNO("sem_timedwait at 0, past", sem_timedwait(&sem, &past));
	ts = deadline_ms(CLOCK_REALTIME, 20);
	SAY_ERRNO("sem_timedwait at 0, 20 ms", sem_timedwait(&sem, &ts));
	SAY_ERRNO("sem_clockwait MONOTONIC at 0, past", sem_clockwait(&sem, CLOCK_MONOTONIC, &past));
	ts = deadline_ms(CLOCK_MONOTONIC, 20);
	SAY_ERRNO("sem_clockwait MONOTONIC at 0, 20 ms", sem_clockwait(&sem, CLOCK_MONOTONIC, &ts));
	ts = deadline_ms(CLOCK_REALTIME, 20);
	SAY_ERRNO("sem_clockwait REALTIME at 0, 20 ms", sem_clockwait(&sem, CLOCK_REALTIME, &ts));
	ts = bad_ns_ts(CLOCK_REALTIME);
	SAY_ERRNO("sem_timedwait at 0, tv_nsec 1e9", sem_timedwait(&sem, &ts));
	ts.tv_nsec = -1;
	SAY_ERRNO("sem_timedwait at 0, tv_nsec -1", sem_timedwait(&sem, &ts));
	ts = bad_ns_ts(CLOCK_MONOTONIC);
	SAY_ERRNO("sem_clockwait MONOTONIC at 0, tv_nsec 1e9",
		  sem_clockwait(&sem, CLOCK_MONOTONIC, &ts));
	SAY_ERRNO("sem_clockwait CLOCK_PROCESS_CPUTIME_ID",
		  sem_clockwait(&sem, CLOCK_PROCESS_CPUTIME_ID, &past));
	SAY_ERRNO("sem_post", sem_post(&sem));
	SAY_ERRNO("sem_timedwait at 1, past", sem_timedwait(&sem, &past));
	CHECK(sem_getvalue(&sem, &v) == 0 && v == 0, "value %d", v);
	SAY_ERRNO("sem_destroy", sem_destroy(&sem));
	SAY_ERRNO("sem_init SEM_VALUE_MAX + 1", sem_init(&sem, 0, (unsigned)SEM_VALUE_MAX + 1u));
	SAY_ERRNO("sem_init SEM_VALUE_MAX", sem_init(&sem, 0, SEM_VALUE_MAX));
	SAY_ERRNO("sem_post at SEM_VALUE_MAX", sem_post(&sem));
	CHECK(sem_getvalue(&sem, &v) == 0 && v == SEM_VALUE_MAX, "value %d", v);
	SAY_ERRNO("sem_trywait at SEM_VALUE_MAX", sem_trywait(&sem));
	CHECK(sem_init(&sem, 0, 0) == 0, "sem_init");
	sem_eintr();
}

/* ---- attributes ------------------------------------------------------------------------------- */

static void attrs(void)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_rwlockattr_t ra;
	EXPECT_ERR(0, pthread_mutexattr_init(&ma));
	SAY_ERR("mutexattr_settype 99", pthread_mutexattr_settype(&ma, 99));
	SAY_ERR("mutexattr_settype -1", pthread_mutexattr_settype(&ma, -1));
	SAY_ERR("mutexattr_setpshared 99", pthread_mutexattr_setpshared(&ma, 99));
	SAY_ERR("mutexattr_setprotocol 99", pthread_mutexattr_setprotocol(&ma, 99));
	SAY_ERR("mutexattr_setrobust 99", pthread_mutexattr_setrobust(&ma, 99));
	int type = -1;
	EXPECT_ERR(0, pthread_mutexattr_gettype(&ma, &type));
	SAY("mutexattr type after the failed calls: %s",
	    type == PTHREAD_MUTEX_DEFAULT ? "default" : "changed");
	EXPECT_ERR(0, pthread_mutexattr_destroy(&ma));

	EXPECT_ERR(0, pthread_condattr_init(&ca));
	SAY_ERR("condattr_setclock CLOCK_PROCESS_CPUTIME_ID",
		pthread_condattr_setclock(&ca, CLOCK_PROCESS_CPUTIME_ID));
	SAY_ERR("condattr_setclock CLOCK_THREAD_CPUTIME_ID",
		pthread_condattr_setclock(&ca, CLOCK_THREAD_CPUTIME_ID));
	SAY_ERR("condattr_setclock 99", pthread_condattr_setclock(&ca, 99));
	SAY_ERR("condattr_setpshared 99", pthread_condattr_setpshared(&ca, 99));
	SAY_ERR("condattr_setclock CLOCK_REALTIME", pthread_condattr_setclock(&ca, CLOCK_REALTIME));
	EXPECT_ERR(0, pthread_condattr_destroy(&ca));

	EXPECT_ERR(0, pthread_rwlockattr_init(&ra));
	SAY_ERR("rwlockattr_setkind_np 99", pthread_rwlockattr_setkind_np(&ra, 99));
	SAY_ERR("rwlockattr_setpshared 99", pthread_rwlockattr_setpshared(&ra, 99));
	EXPECT_ERR(0, pthread_rwlockattr_destroy(&ra));
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{"mutex", mutexes, true}, {"cond", conds, true}, {"sem", sems, true},
		{"attr", attrs, true}, {NULL, NULL, false},
	};
	return run_subcommands("sync_errors", cmds, argc, argv);
}
