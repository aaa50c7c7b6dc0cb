/* SPDX-License-Identifier: MIT */
/* Mutual exclusion under contention, with exact totals. One subcommand per
 * run (argv[1]); without one: counter, mix, alias.
 *   counter  1,000 threads increment one counter (read, maybe yield, write
 *            back) under each mutex type: default, recursive (locked 3
 *            deep), errorcheck, adaptive; each made by pthread_mutex_init
 *            with an attribute and by its static initializer. Afterwards
 *            the mutex still behaves as its type says.
 *   mix      the same with trylock, timedlock, clocklock (REALTIME and
 *            MONOTONIC) and short timed attempts mixed; default and
 *            recursive mutexes.
 *   alias    half the threads use __pthread_mutex_lock/__pthread_mutex_
 *            unlock (old exported aliases), half pthread_mutex_*.
 *   pi       PTHREAD_PRIO_INHERIT mutex: contended counter, trylock EBUSY,
 *            timedlock ETIMEDOUT while another thread holds it.
 *   robust   robust mutex: contended counter; the owner ends holding it:
 *            EOWNERDEAD (for a later locker and for one already waiting),
 *            pthread_mutex_consistent, ENOTRECOVERABLE when not made
 *            consistent.
 *   pshared  PTHREAD_PROCESS_SHARED mutex and condvar in shared memory:
 *            threads of this process and of a forked child increment one
 *            counter; parent and child take turns through the condvar.
 *   pp       PTHREAD_PRIO_PROTECT mutex (ceiling 10): a SCHED_OTHER thread
 *            cannot lock it (EINVAL: glibc cannot raise its priority);
 *            as root, a SCHED_FIFO thread locks, unlocks and relocks it.
 *   starve   one thread takes and releases a mutex in a tight loop (up to
 *            HOG_MAX times); another wants it once and must get it before
 *            the loop ends. Not compared with NPTL, which promises nothing
 *            here; libgmp hands the mutex over to a waiter that waited
 *            1 ms.
 * Every other line is the same under NPTL. */
#include "sync_util.h"
#include <sys/mman.h>
#include <sys/wait.h>

#define NTHREADS 1000
#define ITERS 40

static pthread_mutex_t *cur;
static int depth;		/* how deep each thread locks */
static long counter;

/* The critical section: a read-modify-write that loses updates unless the
 * lock excludes (it sometimes yields between the read and the write). */
static void bump(long salt)
{
	long v = counter;
	if (salt % 8 == 0)
		sched_yield();
	counter = v + 1;
}

static void *incr(void *arg)
{
	for (int i = 0; i < ITERS; i++) {
		for (int d = 0; d < depth; d++)
			EXPECT_ERR(0, pthread_mutex_lock(cur));
		bump((long)arg + i);
		for (int d = 0; d < depth; d++)
			EXPECT_ERR(0, pthread_mutex_unlock(cur));
	}
	return NULL;
}

/* All threads start while main holds the mutex, so they pile up on it. */
static void count_with(pthread_mutex_t *m, int nthreads, void *(*fn)(void *), int iters)
{
	cur = m;
	counter = 0;
	EXPECT_ERR(0, pthread_mutex_lock(m));
	pthread_t *t = spawn_n(nthreads, fn);
	usleep(2000);
	EXPECT_ERR(0, pthread_mutex_unlock(m));
	join_n(t, nthreads);
	CHECK(counter == (long)nthreads * iters, "counter %ld, expected %ld", counter,
	      (long)nthreads * iters);
}

/* The mutex, unlocked, still behaves as a mutex of its type. */
static void check_type(pthread_mutex_t *m, int type)
{
	EXPECT_ERR(0, pthread_mutex_lock(m));
	switch (type) {
	case PTHREAD_MUTEX_RECURSIVE:
		EXPECT_ERR(0, pthread_mutex_lock(m));
		EXPECT_ERR(0, pthread_mutex_trylock(m));
		EXPECT_ERR(0, pthread_mutex_unlock(m));
		EXPECT_ERR(0, pthread_mutex_unlock(m));
		break;
	case PTHREAD_MUTEX_ERRORCHECK:
		EXPECT_ERR(EDEADLK, pthread_mutex_lock(m));
		EXPECT_ERR(EBUSY, pthread_mutex_trylock(m));
		break;
	default:
		EXPECT_ERR(EBUSY, pthread_mutex_trylock(m));
		break;
	}
	EXPECT_ERR(0, pthread_mutex_unlock(m));
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)
		EXPECT_ERR(EPERM, pthread_mutex_unlock(m));
}

static const struct mtype {
	const char *name;
	int type;
	pthread_mutex_t init;
} types[] = {
	{"default", PTHREAD_MUTEX_DEFAULT, PTHREAD_MUTEX_INITIALIZER},
	{"recursive", PTHREAD_MUTEX_RECURSIVE, PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP},
	{"errorcheck", PTHREAD_MUTEX_ERRORCHECK, PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP},
	{"adaptive", PTHREAD_MUTEX_ADAPTIVE_NP, PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP},
};

static void init_type(pthread_mutex_t *m, int type, int protocol, int robust)
{
	pthread_mutexattr_t a;
	EXPECT_ERR(0, pthread_mutexattr_init(&a));
	EXPECT_ERR(0, pthread_mutexattr_settype(&a, type));
	if (protocol)
		EXPECT_ERR(0, pthread_mutexattr_setprotocol(&a, protocol));
	if (robust)
		EXPECT_ERR(0, pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST));
	int got = -1;
	EXPECT_ERR(0, pthread_mutexattr_gettype(&a, &got));
	CHECK(got == type, "gettype %d, set %d", got, type);
	EXPECT_ERR(0, pthread_mutex_init(m, &a));
	EXPECT_ERR(0, pthread_mutexattr_destroy(&a));
}

static void counter_all(void)
{
	for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
		const struct mtype *ty = &types[k];
		depth = ty->type == PTHREAD_MUTEX_RECURSIVE ? 3 : 1;
		for (int stat = 0; stat < 2; stat++) {
			pthread_mutex_t m;
			if (stat)
				m = ty->init;
			else
				init_type(&m, ty->type, 0, 0);
			count_with(&m, NTHREADS, incr, ITERS);
			check_type(&m, ty->type);
			EXPECT_ERR(0, pthread_mutex_destroy(&m));
			SAY("%s mutex (%s): %d threads x %d increments%s = %ld", ty->name,
			    stat ? "static initializer" : "pthread_mutex_init", NTHREADS, ITERS,
			    depth > 1 ? ", locked 3 deep" : "", counter);
		}
	}
}

/* ---- mix ---------------------------------------------------------------------------- */

#define MIX_THREADS 64
#define MIX_ITERS 200
#define MAX_TRIES 1000000

/* Lock cur in the way number `how` says; 0 when locked. */
static void lock_somehow(int how)
{
	struct timespec ts;
	int tries = 0, e;
	switch (how % 5) {
	case 0:
		while ((e = pthread_mutex_trylock(cur)) == EBUSY && ++tries < MAX_TRIES)
			sched_yield();
		break;
	case 1:
		ts = deadline_ms(CLOCK_REALTIME, 20000);
		e = pthread_mutex_timedlock(cur, &ts);
		break;
	case 2:
		ts = deadline_ms(CLOCK_REALTIME, 20000);
		e = pthread_mutex_clocklock(cur, CLOCK_REALTIME, &ts);
		break;
	case 3:
		ts = deadline_ms(CLOCK_MONOTONIC, 20000);
		e = pthread_mutex_clocklock(cur, CLOCK_MONOTONIC, &ts);
		break;
	default:	/* short attempts that may time out */
		do {
			ts = deadline_ms(CLOCK_MONOTONIC, 1);
			e = pthread_mutex_clocklock(cur, CLOCK_MONOTONIC, &ts);
			CHECK(e == 0 || e == ETIMEDOUT, "clocklock: %s", errname(e));
		} while (e == ETIMEDOUT && ++tries < MAX_TRIES);
		break;
	}
	CHECK(e == 0, "lock way %d: %s after %d tries", how % 5, errname(e), tries);
}

static void *mixer(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < MIX_ITERS; i++) {
		lock_somehow((int)(id + i));
		for (int d = 1; d < depth; d++)
			lock_somehow((int)(id + i + d));
		bump(id + i);
		for (int d = 0; d < depth; d++)
			EXPECT_ERR(0, pthread_mutex_unlock(cur));
	}
	return NULL;
}

static void mix(void)
{
	for (int k = 0; k < 2; k++) {
		pthread_mutex_t m;
		init_type(&m, k ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_DEFAULT, 0, 0);
		depth = k ? 2 : 1;
		count_with(&m, MIX_THREADS, mixer, MIX_ITERS);
		EXPECT_ERR(0, pthread_mutex_destroy(&m));
		SAY("%s mutex, trylock/timedlock/clocklock mixed: %d threads x %d = %ld",
		    k ? "recursive" : "default", MIX_THREADS, MIX_ITERS, counter);
	}
}

/* ---- alias -------------------------------------------------------------------------- */

/* Exported by glibc only as GLIBC_2.2.5 compat symbols: bind to those. */
extern int __pthread_mutex_lock(pthread_mutex_t *m);
extern int __pthread_mutex_unlock(pthread_mutex_t *m);
__asm__(".symver __pthread_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver __pthread_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");

#define ALIAS_THREADS 32
#define ALIAS_ITERS 500

static void *alias_user(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < ALIAS_ITERS; i++) {
		EXPECT_ERR(0, id % 2 ? __pthread_mutex_lock(cur) : pthread_mutex_lock(cur));
		bump(id + i);
		EXPECT_ERR(0, (id + i) % 2 ? __pthread_mutex_unlock(cur) : pthread_mutex_unlock(cur));
	}
	return NULL;
}

static void alias(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	count_with(&m, ALIAS_THREADS, alias_user, ALIAS_ITERS);
	EXPECT_ERR(0, __pthread_mutex_lock(&m));
	EXPECT_ERR(EBUSY, pthread_mutex_trylock(&m));
	EXPECT_ERR(0, __pthread_mutex_unlock(&m));
	EXPECT_ERR(0, pthread_mutex_trylock(&m));
	EXPECT_ERR(0, __pthread_mutex_unlock(&m));
	SAY("__pthread_mutex_lock/unlock mixed with pthread_mutex_*: %d threads x %d = %ld",
	    ALIAS_THREADS, ALIAS_ITERS, counter);
}

/* ---- priority inheritance --------------------------------------------------------------- */

#define PI_THREADS 16
#define PI_ITERS 500

static atomic_int held, release;

/* Hold cur until told to let go. */
static void *holder(void *arg)
{
	EXPECT_ERR(0, pthread_mutex_lock(cur));
	atomic_store(&held, 1);
	wait_flag(&release);
	EXPECT_ERR(0, pthread_mutex_unlock(cur));
	return NULL;
}

static void *pi_incr(void *arg)
{
	for (int i = 0; i < PI_ITERS; i++) {
		EXPECT_ERR(0, pthread_mutex_lock(cur));
		bump((long)arg + i);
		EXPECT_ERR(0, pthread_mutex_unlock(cur));
	}
	return NULL;
}

/* While another thread holds cur: trylock EBUSY, timedlock ETIMEDOUT. */
static void busy_while_held(void)
{
	pthread_t t;
	atomic_store(&held, 0);
	atomic_store(&release, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, holder, NULL));
	wait_flag(&held);
	EXPECT_ERR(EBUSY, pthread_mutex_trylock(cur));
	struct timespec ts = deadline_ms(CLOCK_REALTIME, 20);
	EXPECT_ERR(ETIMEDOUT, pthread_mutex_timedlock(cur, &ts));
	atomic_store(&release, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
}

static void pi(void)
{
	pthread_mutex_t m;
	int proto = -1;
	pthread_mutexattr_t a;
	EXPECT_ERR(0, pthread_mutexattr_init(&a));
	EXPECT_ERR(0, pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT));
	EXPECT_ERR(0, pthread_mutexattr_getprotocol(&a, &proto));
	CHECK(proto == PTHREAD_PRIO_INHERIT, "getprotocol %d", proto);
	EXPECT_ERR(0, pthread_mutexattr_destroy(&a));
	for (int k = 0; k < 2; k++) {
		init_type(&m, k ? PTHREAD_MUTEX_ERRORCHECK : PTHREAD_MUTEX_DEFAULT,
			  PTHREAD_PRIO_INHERIT, 0);
		count_with(&m, PI_THREADS, pi_incr, PI_ITERS);
		busy_while_held();
		if (k) {
			EXPECT_ERR(0, pthread_mutex_lock(&m));
			EXPECT_ERR(EDEADLK, pthread_mutex_lock(&m));
			EXPECT_ERR(0, pthread_mutex_unlock(&m));
			EXPECT_ERR(EPERM, pthread_mutex_unlock(&m));
		}
		EXPECT_ERR(0, pthread_mutex_destroy(&m));
		SAY("priority-inheritance %s mutex: %d threads x %d = %ld; trylock EBUSY and "
		    "timedlock ETIMEDOUT while another thread holds it",
		    k ? "errorcheck" : "default", PI_THREADS, PI_ITERS, counter);
	}
}

/* ---- robust ---------------------------------------------------------------------------- */

static void *lock_and_end(void *arg)
{
	EXPECT_ERR(0, pthread_mutex_lock(cur));
	atomic_store(&held, 1);
	if (arg)
		wait_flag(&release);
	return NULL;	/* still holding it */
}

/* A thread locks cur and ends holding it. */
static void owner_ends_holding(void)
{
	pthread_t t;
	atomic_store(&held, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, lock_and_end, NULL));
	EXPECT_ERR(0, pthread_join(t, NULL));
}

static int waiter_got = -1;

static void *lock_and_report(void *arg)
{
	atomic_fetch_add(&held, 1);
	waiter_got = pthread_mutex_lock(cur);
	if (waiter_got == EOWNERDEAD)
		EXPECT_ERR(0, pthread_mutex_consistent(cur));
	EXPECT_ERR(0, pthread_mutex_unlock(cur));
	return NULL;
}

static void robust(void)
{
	pthread_mutex_t m;
	pthread_t t, w;
	init_type(&m, PTHREAD_MUTEX_DEFAULT, 0, 1);
	cur = &m;
	count_with(&m, PI_THREADS, pi_incr, PI_ITERS);
	SAY("robust mutex: %d threads x %d = %ld", PI_THREADS, PI_ITERS, counter);

	/* the owner ends; a later locker gets EOWNERDEAD and repairs it */
	owner_ends_holding();
	SAY_ERR("lock after the owner ended", pthread_mutex_lock(&m));
	SAY_ERR("pthread_mutex_consistent", pthread_mutex_consistent(&m));
	SAY_ERR("unlock", pthread_mutex_unlock(&m));
	SAY_ERR("lock again", pthread_mutex_lock(&m));
	SAY_ERR("unlock", pthread_mutex_unlock(&m));

	/* a thread already waiting when the owner ends */
	atomic_store(&held, 0);
	atomic_store(&release, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, lock_and_end, (void *)1));
	wait_flag(&held);
	EXPECT_ERR(0, pthread_create(&w, NULL, lock_and_report, NULL));
	wait_count(&held, 2);
	usleep(20000);
	atomic_store(&release, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
	EXPECT_ERR(0, pthread_join(w, NULL));
	SAY("waiter when the owner ended: %s", sync_errname(waiter_got));

	/* not made consistent: unusable from then on */
	owner_ends_holding();
	SAY_ERR("lock after the owner ended", pthread_mutex_lock(&m));
	SAY_ERR("unlock without consistent", pthread_mutex_unlock(&m));
	SAY_ERR("lock", pthread_mutex_lock(&m));
	SAY_ERR("trylock", pthread_mutex_trylock(&m));
	SAY_ERR("destroy", pthread_mutex_destroy(&m));
}

/* ---- process-shared ---------------------------------------------------------------------- */

#define SH_THREADS 8
#define SH_ITERS 500
#define SH_TURNS 100

struct shared {
	pthread_mutex_t m;
	pthread_cond_t c;
	long counter;
	int turn;	/* 0: parent's, 1: child's */
	int rounds[2];
};
static struct shared *sh;

static void *sh_incr(void *arg)
{
	for (int i = 0; i < SH_ITERS; i++) {
		EXPECT_ERR(0, pthread_mutex_lock(&sh->m));
		long v = sh->counter;
		if (((long)arg + i) % 8 == 0)
			sched_yield();
		sh->counter = v + 1;
		EXPECT_ERR(0, pthread_mutex_unlock(&sh->m));
	}
	return NULL;
}

/* Take SH_TURNS turns with the other process: wait for ours, pass it on. */
static void take_turns(int me)
{
	for (int i = 0; i < SH_TURNS; i++) {
		EXPECT_ERR(0, pthread_mutex_lock(&sh->m));
		for (int k = 0; sh->turn != me && k < 100000; k++) {
			struct timespec ts = deadline_ms(CLOCK_REALTIME, 100);
			int e = pthread_cond_timedwait(&sh->c, &sh->m, &ts);
			CHECK(e == 0 || e == ETIMEDOUT, "cond_timedwait %s", errname(e));
		}
		CHECK(sh->turn == me, "never got turn %d", i);
		sh->rounds[me]++;
		sh->turn = !me;
		EXPECT_ERR(0, pthread_cond_broadcast(&sh->c));
		EXPECT_ERR(0, pthread_mutex_unlock(&sh->m));
	}
}

static void pshared(void)
{
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED, "mmap");
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	EXPECT_ERR(0, pthread_mutexattr_init(&ma));
	EXPECT_ERR(0, pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED));
	EXPECT_ERR(0, pthread_mutex_init(&sh->m, &ma));
	EXPECT_ERR(0, pthread_condattr_init(&ca));
	EXPECT_ERR(0, pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED));
	EXPECT_ERR(0, pthread_cond_init(&sh->c, &ca));

	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	pthread_t *t = spawn_n(SH_THREADS, sh_incr);
	join_n(t, SH_THREADS);
	take_turns(pid == 0);
	if (pid == 0)
		_exit(0);
	int st = -1;
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	CHECK(sh->counter == 2L * SH_THREADS * SH_ITERS, "counter %ld", sh->counter);
	CHECK(sh->rounds[0] == SH_TURNS && sh->rounds[1] == SH_TURNS, "turns %d %d",
	      sh->rounds[0], sh->rounds[1]);
	SAY("process-shared mutex: 2 processes x %d threads x %d = %ld; condvar: %d turns each",
	    SH_THREADS, SH_ITERS, sh->counter, SH_TURNS);
	EXPECT_ERR(0, pthread_cond_destroy(&sh->c));
	EXPECT_ERR(0, pthread_mutex_destroy(&sh->m));
}

/* ---- priority protection ---------------------------------------------------------------- */

static pthread_mutex_t ppm;

static void *pp_user(void *arg)
{
	int policy;
	struct sched_param sp;
	EXPECT_ERR(0, pthread_getschedparam(pthread_self(), &policy, &sp));
	SAY("%s thread, priority %d", policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER",
	    sp.sched_priority);
	int r = pthread_mutex_lock(&ppm);
	SAY("  lock: %s", sync_errname(r));
	if (r == 0) {
		SAY("  trylock while held: %s", sync_errname(pthread_mutex_trylock(&ppm)));
		SAY("  unlock: %s", sync_errname(pthread_mutex_unlock(&ppm)));
		SAY("  lock again: %s", sync_errname(pthread_mutex_lock(&ppm)));
		SAY("  unlock: %s", sync_errname(pthread_mutex_unlock(&ppm)));
	}
	int ceiling = -1;
	r = pthread_mutex_getprioceiling(&ppm, &ceiling);
	SAY("  getprioceiling: %s, ceiling %d", sync_errname(r), ceiling);
	return arg;
}

static void pp(void)
{
	pthread_mutexattr_t a;
	EXPECT_ERR(0, pthread_mutexattr_init(&a));
	EXPECT_ERR(0, pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_PROTECT));
	EXPECT_ERR(0, pthread_mutexattr_setprioceiling(&a, 10));
	EXPECT_ERR(0, pthread_mutex_init(&ppm, &a));
	EXPECT_ERR(0, pthread_mutexattr_destroy(&a));
	pthread_t t;
	EXPECT_ERR(0, pthread_create(&t, NULL, pp_user, NULL));
	EXPECT_ERR(0, pthread_join(t, NULL));
	if (geteuid() != 0) {
		SAY("not root: no SCHED_FIFO thread");
		return;
	}
	pthread_attr_t at;
	struct sched_param sp = {.sched_priority = 5};
	EXPECT_ERR(0, pthread_attr_init(&at));
	EXPECT_ERR(0, pthread_attr_setinheritsched(&at, PTHREAD_EXPLICIT_SCHED));
	EXPECT_ERR(0, pthread_attr_setschedpolicy(&at, SCHED_FIFO));
	EXPECT_ERR(0, pthread_attr_setschedparam(&at, &sp));
	EXPECT_ERR(0, pthread_create(&t, &at, pp_user, NULL));
	EXPECT_ERR(0, pthread_join(t, NULL));
	EXPECT_ERR(0, pthread_attr_destroy(&at));
	EXPECT_ERR(0, pthread_mutex_destroy(&ppm));
}

/* ---- starvation ---------------------------------------------------------------------------- */

#define HOG_MAX 500000000L

static pthread_mutex_t hogged = PTHREAD_MUTEX_INITIALIZER;
static atomic_int hog_started, wanted_it;
static long hog_rounds;

static void *hog(void *arg)
{
	long i;
	atomic_store(&hog_started, 1);
	for (i = 0; i < HOG_MAX && !atomic_load(&wanted_it); i++) {
		EXPECT_ERR(0, pthread_mutex_lock(&hogged));
		EXPECT_ERR(0, pthread_mutex_unlock(&hogged));
	}
	hog_rounds = i;
	return arg;
}

static void *wanter(void *arg)
{
	EXPECT_ERR(0, pthread_mutex_lock(&hogged));
	atomic_store(&wanted_it, 1);
	EXPECT_ERR(0, pthread_mutex_unlock(&hogged));
	return arg;
}

static void starve(void)
{
	pthread_t h, w;
	EXPECT_ERR(0, pthread_create(&h, NULL, hog, NULL));
	wait_count(&hog_started, 1);
	EXPECT_ERR(0, pthread_create(&w, NULL, wanter, NULL));
	EXPECT_ERR(0, pthread_join(w, NULL));
	EXPECT_ERR(0, pthread_join(h, NULL));
	CHECK(hog_rounds < HOG_MAX, "the waiting thread got the mutex only after all %ld rounds",
	      HOG_MAX);
	SAY("a thread that wants the mutex once gets it while another takes it in a tight loop");
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{"counter", counter_all, true}, {"mix", mix, true}, {"alias", alias, true},
		{"pi", pi, false}, {"robust", robust, false}, {"pshared", pshared, false},
		{"pp", pp, false}, {"starve", starve, false}, {NULL, NULL, false},
	};
	return run_subcommands("sync_mutex", cmds, argc, argv);
}
