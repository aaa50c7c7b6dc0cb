/* SPDX-License-Identifier: MIT */
/* Synchronisation between the program's threads and threads glibc makes
 * itself, which under libgmp are not its threads (glibc starts them
 * without going through the interposed pthread_create): the helper
 * threads that run SIGEV_THREAD timer callbacks, and threads made with
 * libc.so.6's own pthread_create (dlopen + dlsym on that handle, as a
 * library opened with RTLD_DEEPBIND would). One subcommand per run
 * (argv[1]); without one, all:
 *   timer    10 rounds: a thread waits on a condvar for the timer
 *            callback's signal; the callback then waits on a condvar for
 *            the thread's answer, and on a semaphore the thread posts.
 *   counter  glibc's threads block in pthread_mutex_lock while one of the
 *            program's threads holds the mutex; both kinds then increment
 *            one counter under it: exact total. Timer callbacks that fire
 *            together do the same.
 *   turns    a glibc thread and one of the program's threads take 200
 *            turns through a mutex and condvar, and 200 through two
 *            semaphores.
 * Every line is the same under NPTL. */
#include "sync_util.h"
#include <dlfcn.h>
#include <semaphore.h>
#include <signal.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t to_main = PTHREAD_COND_INITIALIZER, to_cb = PTHREAD_COND_INITIALIZER;
static sem_t sem_to_cb, sem_to_main;

/* Wait on c (with m held) until *flag becomes want; bounded. */
static void wait_until(pthread_cond_t *c, const int *flag, int want, const char *who)
{
	for (int k = 0; *flag != want; k++) {
		CHECK(k < 2000, "%s waited 20 s", who);
		struct timespec ts = deadline_ms(CLOCK_REALTIME, 10000);
		int e = pthread_cond_timedwait(c, &m, &ts);
		CHECK(e == 0 || e == ETIMEDOUT, "%s: cond_timedwait %s", who, errname(e));
	}
}

static void sem_take(sem_t *s, const char *who)
{
	struct timespec ts = deadline_ms(CLOCK_REALTIME, 20000);
	int r;
	while ((r = sem_timedwait(s, &ts)) != 0 && errno == EINTR)
		;
	CHECK(r == 0, "%s: sem_timedwait: %s", who, errname(errno));
}

/* ---- timer ------------------------------------------------------------------------------- */

#define ROUNDS 10

static int cb_said, main_said, cb_done;

static void handshake_cb(union sigval sv)
{
	int r = sv.sival_int;
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	cb_said = r;
	EXPECT_ERR(0, pthread_cond_signal(&to_main));
	wait_until(&to_cb, &main_said, r, "timer callback");
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	sem_take(&sem_to_cb, "timer callback");
	CHECK(sem_post(&sem_to_main) == 0, "sem_post");
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	cb_done = r;
	EXPECT_ERR(0, pthread_cond_signal(&to_main));
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
}

static timer_t make_timer(void (*fn)(union sigval), int value)
{
	struct sigevent sev;
	timer_t tm;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD;
	sev.sigev_notify_function = fn;
	sev.sigev_value.sival_int = value;
	CHECK(timer_create(CLOCK_MONOTONIC, &sev, &tm) == 0, "timer_create");
	return tm;
}

static void arm(timer_t tm, long ms)
{
	struct itimerspec its = {.it_value = {.tv_sec = 0, .tv_nsec = ms * 1000000}};
	CHECK(timer_settime(tm, 0, &its, NULL) == 0, "timer_settime");
}

static void *handshake_rounds(void *arg)
{
	for (int r = 1; r <= ROUNDS; r++) {
		timer_t tm = make_timer(handshake_cb, r);
		EXPECT_ERR(0, pthread_mutex_lock(&m));
		arm(tm, 2);
		wait_until(&to_main, &cb_said, r, "thread");
		main_said = r;
		EXPECT_ERR(0, pthread_cond_signal(&to_cb));
		EXPECT_ERR(0, pthread_mutex_unlock(&m));
		CHECK(sem_post(&sem_to_cb) == 0, "sem_post");
		sem_take(&sem_to_main, "thread");
		EXPECT_ERR(0, pthread_mutex_lock(&m));
		wait_until(&to_main, &cb_done, r, "thread");
		EXPECT_ERR(0, pthread_mutex_unlock(&m));
		CHECK(timer_delete(tm) == 0, "timer_delete");
	}
	return NULL;
}

static void timer_handshakes(void)
{
	CHECK(sem_init(&sem_to_cb, 0, 0) == 0 && sem_init(&sem_to_main, 0, 0) == 0, "sem_init");
	/* from main, and from a thread the program created */
	handshake_rounds(NULL);
	cb_said = main_said = cb_done = 0;
	run_n(1, handshake_rounds);
	SAY("timer callback <-> thread: %d rounds each from main and from a thread: condvar "
	    "both ways, semaphore both ways", ROUNDS);
}

/* ---- counter -------------------------------------------------------------------------------- */

#define NFOREIGN 8
#define NOWN 8
#define NTIMERS 4
#define CITERS 500

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*join_fn)(pthread_t, void **);
static create_fn libc_create;
static join_fn libc_join;

static void find_libc_threads(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	CHECK(h != NULL, "dlopen libc.so.6: %s", dlerror());
	libc_create = (create_fn)dlsym(h, "pthread_create");
	libc_join = (join_fn)dlsym(h, "pthread_join");
	CHECK(libc_create && libc_join, "dlsym: %s", dlerror());
}

static long counter;
static atomic_int started;

static void *incr(void *arg)
{
	atomic_fetch_add(&started, 1);
	for (int i = 0; i < CITERS; i++) {
		EXPECT_ERR(0, pthread_mutex_lock(&m));
		long v = counter;
		if (((long)arg + i) % 8 == 0)
			sched_yield();
		counter = v + 1;
		EXPECT_ERR(0, pthread_mutex_unlock(&m));
	}
	return NULL;
}

static atomic_int timers_done;

static void incr_cb(union sigval sv)
{
	incr((void *)(long)sv.sival_int);
	atomic_fetch_add(&timers_done, 1);
}

static void counters(void)
{
	pthread_t foreign[NFOREIGN];
	find_libc_threads();
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	for (long i = 0; i < NFOREIGN; i++)
		EXPECT_ERR(0, libc_create(&foreign[i], NULL, incr, (void *)i));
	pthread_t *own = spawn_n(NOWN, incr);
	wait_count(&started, NFOREIGN + NOWN);
	usleep(20000);	/* they block in pthread_mutex_lock */
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	join_n(own, NOWN);
	for (int i = 0; i < NFOREIGN; i++)
		EXPECT_ERR(0, libc_join(foreign[i], NULL));
	CHECK(counter == (NFOREIGN + NOWN) * CITERS, "counter %ld", counter);
	SAY("%d glibc threads and %d own threads, all blocked on a mutex main held, then x %d: %ld",
	    NFOREIGN, NOWN, CITERS, counter);

	counter = 0;
	timer_t tm[NTIMERS];
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	for (int i = 0; i < NTIMERS; i++) {
		tm[i] = make_timer(incr_cb, i);
		arm(tm[i], 1);
	}
	own = spawn_n(NOWN, incr);
	usleep(20000);
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	join_n(own, NOWN);
	for (int i = 0; i < 2000 && atomic_load(&timers_done) < NTIMERS; i++)
		usleep(10000);
	for (int i = 0; i < NTIMERS; i++)
		CHECK(timer_delete(tm[i]) == 0, "timer_delete");
	CHECK(atomic_load(&timers_done) == NTIMERS, "%d timer callbacks ended", timers_done);
	EXPECT_ERR(0, pthread_mutex_lock(&m));
	CHECK(counter == (NTIMERS + NOWN) * CITERS, "counter %ld", counter);
	EXPECT_ERR(0, pthread_mutex_unlock(&m));
	SAY("%d timer callbacks and %d own threads on one mutex x %d: %ld", NTIMERS, NOWN, CITERS,
	    counter);
}

/* ---- turns ------------------------------------------------------------------------------------- */

#define TURNS 200

static int turn;	/* 0: the program's thread, 1: glibc's */

static void *take_turns(void *arg)
{
	int me = (int)(long)arg;
	for (int i = 0; i < TURNS; i++) {
		EXPECT_ERR(0, pthread_mutex_lock(&m));
		wait_until(me ? &to_cb : &to_main, &turn, me, me ? "glibc thread" : "thread");
		turn = !me;
		EXPECT_ERR(0, pthread_cond_signal(me ? &to_main : &to_cb));
		EXPECT_ERR(0, pthread_mutex_unlock(&m));
	}
	for (int i = 0; i < TURNS; i++) {
		if (me) {
			sem_take(&sem_to_cb, "glibc thread");
			CHECK(sem_post(&sem_to_main) == 0, "sem_post");
		} else {
			CHECK(sem_post(&sem_to_cb) == 0, "sem_post");
			sem_take(&sem_to_main, "thread");
		}
	}
	return NULL;
}

static void turns(void)
{
	pthread_t g, own;
	find_libc_threads();
	CHECK(sem_init(&sem_to_cb, 0, 0) == 0 && sem_init(&sem_to_main, 0, 0) == 0, "sem_init");
	EXPECT_ERR(0, libc_create(&g, NULL, take_turns, (void *)1));
	EXPECT_ERR(0, pthread_create(&own, NULL, take_turns, (void *)0));
	EXPECT_ERR(0, pthread_join(own, NULL));
	EXPECT_ERR(0, libc_join(g, NULL));
	SAY("a glibc thread and an own thread: %d turns through a condvar, %d through semaphores",
	    TURNS, TURNS);
}

int main(int argc, char **argv)
{
	static const struct subcommand cmds[] = {
		{"timer", timer_handshakes, true}, {"counter", counters, true},
		{"turns", turns, true}, {NULL, NULL, false},
	};
	return run_subcommands("sync_foreign", cmds, argc, argv);
}
