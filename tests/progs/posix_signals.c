/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/posix_signals.c — a signal sent with pthread_kill to a
 * thread that waits runs its handler during the wait, and the wait then
 * goes on, or ends with EINTR, as the kernel and glibc decide. An
 * ordinary pthread program.
 *
 *   posix_signals plain     the handler without SA_RESTART
 *   posix_signals restart   with SA_RESTART
 *
 * For each kind of wait (a mutex of each type, timed or not; a rwlock
 * for writing and for reading; a condition variable, timed or not; a
 * barrier; a spin lock; pthread_once; a join; a semaphore, timed or not;
 * a futex; a pipe read; a sleep) a thread is made to wait, is sent
 * SIGUSR1, and the handler, which itself locks a mutex, waits 1 ms on a
 * semaphore nobody posts and posts the semaphore main waits on, must run
 * on that thread within 10 s. The line printed says whether the wait was
 * still going on 50 ms later, and what it returned once main let it end.
 * Prints "PASS <mode>" last.
 */
#include "common.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

enum {
	K_MUTEX, K_ERRORCHECK, K_RECURSIVE, K_TIMEDLOCK, K_WRLOCK, K_RDLOCK, K_COND, K_TIMEDCOND,
	K_BARRIER, K_SPIN, K_ONCE, K_JOIN, K_SEM, K_TIMEDSEM, K_FUTEX, K_READ, K_SLEEP, K_N
};
static const char *const names[K_N] = {
	"mutex", "mutex errorcheck", "mutex recursive", "mutex timedlock", "rwlock wrlock",
	"rwlock rdlock", "cond wait", "cond timedwait", "barrier", "spin lock", "pthread_once",
	"join", "sem_wait", "sem_timedwait", "futex wait", "pipe read", "nanosleep",
};

static pthread_mutex_t mx[3];
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static atomic_int cv_go;
static pthread_barrier_t bar;
static pthread_spinlock_t spin;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static atomic_int once_go, joined_go;
static sem_t sem, posted, never;
static _Atomic uint32_t fut;
static int pfd[2];
static pthread_mutex_t hmu = PTHREAD_MUTEX_INITIALIZER;

static _Atomic pthread_t target;
static atomic_int kind, in_wait, wrong = -1;
static atomic_int result;

static void on_usr1(int sig)
{
	(void)sig;
	if (!pthread_equal(pthread_self(), atomic_load(&target)))
		atomic_store(&wrong, atomic_load(&kind));
	int e = errno;
	pthread_mutex_lock(&hmu);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	sem_timedwait(&never, &ts);
	pthread_mutex_unlock(&hmu);
	sem_post(&posted);
	errno = e;
}

static struct timespec in_seconds(clockid_t clk, int s)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	ts.tv_sec += s;
	return ts;
}

static void once_routine(void)
{
	while (!atomic_load(&once_go)) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}

static void *once_caller(void *arg)
{
	(void)arg;
	pthread_once(&once, once_routine);
	return NULL;
}

static void *joinee(void *arg)
{
	(void)arg;
	while (!atomic_load(&joined_go)) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static pthread_t helper;

static int do_wait(int k)
{
	int r = 0;
	struct timespec ts = in_seconds(CLOCK_REALTIME, 5);
	switch (k) {
	case K_MUTEX:
	case K_ERRORCHECK:
	case K_RECURSIVE:
		r = pthread_mutex_lock(&mx[k - K_MUTEX]);
		if (!r)
			pthread_mutex_unlock(&mx[k - K_MUTEX]);
		return r;
	case K_TIMEDLOCK:
		r = pthread_mutex_timedlock(&mx[0], &ts);
		if (!r)
			pthread_mutex_unlock(&mx[0]);
		return r;
	case K_WRLOCK:
	case K_RDLOCK:
		r = k == K_WRLOCK ? pthread_rwlock_wrlock(&rw) : pthread_rwlock_rdlock(&rw);
		if (!r)
			pthread_rwlock_unlock(&rw);
		return r;
	case K_COND:
	case K_TIMEDCOND:
		pthread_mutex_lock(&cmu);
		atomic_store(&in_wait, 1);
		while (!atomic_load(&cv_go) && !r)
			r = k == K_COND ? pthread_cond_wait(&cv, &cmu)
					: pthread_cond_timedwait(&cv, &cmu, &ts);
		pthread_mutex_unlock(&cmu);
		return r;
	case K_BARRIER:
		r = pthread_barrier_wait(&bar);
		return r == PTHREAD_BARRIER_SERIAL_THREAD ? 0 : r;
	case K_SPIN:
		r = pthread_spin_lock(&spin);
		if (!r)
			pthread_spin_unlock(&spin);
		return r;
	case K_ONCE:
		return pthread_once(&once, once_routine);
	case K_JOIN:
		return pthread_join(helper, NULL);
	case K_SEM:
		return sem_wait(&sem) ? errno : 0;
	case K_TIMEDSEM:
		return sem_timedwait(&sem, &ts) ? errno : 0;
	case K_FUTEX:
		return syscall(SYS_futex, &fut, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0) ? errno : 0;
	case K_READ: {
		char c;
		return read(pfd[0], &c, 1) == 1 ? 0 : errno;
	}
	default: {
		struct timespec one = {1, 0};
		return nanosleep(&one, NULL) ? errno : 0;
	}
	}
}

static void *waiter(void *arg)
{
	int k = (int)(intptr_t)arg;
	if (k != K_COND && k != K_TIMEDCOND)
		atomic_store(&in_wait, 1);
	atomic_store(&result, do_wait(k));
	return NULL;
}

/* Hold what the waiter of kind k will wait for. */
static void hold(int k)
{
	switch (k) {
	case K_MUTEX: case K_ERRORCHECK: case K_RECURSIVE:
		pthread_mutex_lock(&mx[k - K_MUTEX]);
		break;
	case K_TIMEDLOCK:
		pthread_mutex_lock(&mx[0]);
		break;
	case K_WRLOCK:
		pthread_rwlock_rdlock(&rw);
		break;
	case K_RDLOCK:
		pthread_rwlock_wrlock(&rw);
		break;
	case K_SPIN:
		pthread_spin_lock(&spin);
		break;
	case K_ONCE:
		CHECK(pthread_create(&helper, NULL, once_caller, NULL) == 0, "pthread_create");
		break;
	case K_JOIN:
		CHECK(pthread_create(&helper, NULL, joinee, NULL) == 0, "pthread_create");
		break;
	case K_FUTEX:
		atomic_store(&fut, 0);
		break;
	}
}

/* Let the waiter of kind k end; a semaphore, futex or pipe only if it
 * still waits (what it would have taken stays for the next one). */
static void release(int k, bool waiting)
{
	if ((k == K_SEM || k == K_TIMEDSEM || k == K_FUTEX || k == K_READ) && !waiting)
		return;
	switch (k) {
	case K_MUTEX: case K_ERRORCHECK: case K_RECURSIVE:
		pthread_mutex_unlock(&mx[k - K_MUTEX]);
		break;
	case K_TIMEDLOCK:
		pthread_mutex_unlock(&mx[0]);
		break;
	case K_WRLOCK: case K_RDLOCK:
		pthread_rwlock_unlock(&rw);
		break;
	case K_COND: case K_TIMEDCOND:
		pthread_mutex_lock(&cmu);
		atomic_store(&cv_go, 1);
		pthread_cond_broadcast(&cv);
		pthread_mutex_unlock(&cmu);
		break;
	case K_BARRIER:
		pthread_barrier_wait(&bar);
		break;
	case K_SPIN:
		pthread_spin_unlock(&spin);
		break;
	case K_ONCE:
		atomic_store(&once_go, 1);
		pthread_join(helper, NULL);
		break;
	case K_JOIN:
		atomic_store(&joined_go, 1);
		break;
	case K_SEM: case K_TIMEDSEM:
		sem_post(&sem);
		break;
	case K_FUTEX:
		atomic_store(&fut, 1);
		syscall(SYS_futex, &fut, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
		break;
	case K_READ:
		CHECK(write(pfd[1], "x", 1) == 1, "write");
		break;
	}
}

static const char *err(int r)
{
	static char buf[16];
	switch (r) {
	case 0: return "0";
	case EINTR: return "EINTR";
	case ETIMEDOUT: return "ETIMEDOUT";
	}
	snprintf(buf, sizeof buf, "%d", r);
	return buf;
}

/* errno: a thread that computes without calling anything gets a signal
 * whose handler sets errno; the thread then reads errno, and finds the
 * handler's, as a signal the kernel delivers leaves it. With one
 * processor the handler runs where the thread was preempted (it spins,
 * and main sends the signal only once it runs itself). */
static volatile sig_atomic_t errno_ran;
static atomic_int errno_go;

static void on_usr2(int sig)
{
	(void)sig;
	errno = 4242;
	errno_ran = 1;
}

static void *errno_spinner(void *arg)
{
	errno = 7;
	atomic_store(&errno_go, 1);
	while (!errno_ran)
		;
	int e = errno;
	printf("errno after the handler: %s\n", e == 4242 ? "the handler's" : e == 7 ? "the thread's own" : "other");
	return arg;
}

static int do_errno(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_usr2;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0, "sigaction");
	pthread_t t;
	CHECK(pthread_create(&t, NULL, errno_spinner, NULL) == 0, "create");
	while (!atomic_load(&errno_go))
		sched_yield();
	CHECK(pthread_kill(t, SIGUSR2) == 0, "pthread_kill");
	CHECK(pthread_join(t, NULL) == 0, "join");
	printf("PASS errno\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "errno") == 0)
		return do_errno();
	bool restart = strcmp(mode, "restart") == 0;
	if (!restart && strcmp(mode, "plain") != 0) {
		fprintf(stderr, "usage: posix_signals plain|restart|errno\n");
		return 2;
	}
	struct sigaction sa = {0};
	sa.sa_handler = on_usr1;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	pthread_mutexattr_t ma;
	pthread_mutexattr_init(&ma);
	int types[3] = {PTHREAD_MUTEX_NORMAL, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_MUTEX_RECURSIVE};
	for (int i = 0; i < 3; i++) {
		pthread_mutexattr_settype(&ma, types[i]);
		pthread_mutex_init(&mx[i], &ma);
	}
	pthread_barrier_init(&bar, NULL, 2);
	pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
	sem_init(&sem, 0, 0);
	sem_init(&posted, 0, 0);
	sem_init(&never, 0, 0);
	CHECK(pipe(pfd) == 0, "pipe");

	for (int k = 0; k < K_N; k++) {
		atomic_store(&kind, k);
		atomic_store(&in_wait, 0);
		atomic_store(&result, -1);
		atomic_store(&cv_go, 0);
		hold(k);
		pthread_t t;
		CHECK(pthread_create(&t, NULL, waiter, (void *)(intptr_t)k) == 0, "pthread_create");
		atomic_store(&target, t);
		while (!atomic_load(&in_wait))
			sched_yield();
		/* into the wait: a thread that has said so takes a few
		 * microseconds to get there (the output says if it did not) */
		struct timespec into = {0, 200000000}, settle = {0, 50000000};
		nanosleep(&into, NULL);
		CHECK(pthread_kill(t, SIGUSR1) == 0, "pthread_kill");
		struct timespec dl = in_seconds(CLOCK_REALTIME, 10);
		int ran = 0;
		while ((ran = sem_timedwait(&posted, &dl)) != 0 && errno == EINTR)
			;
		CHECK(ran == 0, "%s: the handler did not run in 10 s", names[k]);
		nanosleep(&settle, NULL);
		bool waiting = atomic_load(&result) == -1;
		release(k, waiting);
		CHECK(pthread_join(t, NULL) == 0, "pthread_join");
		CHECK(atomic_load(&wrong) < 0, "%s: the handler ran on another thread", names[k]);
		printf("%-17s handler ran in the wait; then %s; returned %s\n", names[k],
		       waiting ? "still waiting" : "the wait had ended", err(atomic_load(&result)));
	}
	printf("PASS %s\n", mode);
	return 0;
}
