/*
 * tests/progs/posix_misc.c — smaller points of POSIX and glibc. An
 * ordinary pthread program.
 *
 *   posix_misc condcancel  a thread cancelled in pthread_cond_wait and in
 *                          pthread_cond_timedwait on a condition variable
 *                          whose clock is CLOCK_MONOTONIC: it ends
 *                          cancelled, its cleanup handler runs holding the
 *                          mutex
 *   posix_misc semtimed    sem_timedwait's answers, in glibc's order of
 *                          checks: a time already past, tv_nsec out of
 *                          range, a negative time, on a semaphore that can
 *                          and one that cannot be decremented
 *
 * Prints what it saw and "PASS <what>".
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* ---- cancellation in a condition wait ------------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static atomic_int in_wait, cleaned, held;

static void cleanup(void *arg)
{
	(void)arg;
	atomic_store(&cleaned, 1);
	/* the mutex is the cancelled thread's again: an error-checking
	 * look is not possible on a default mutex, so try it */
	atomic_store(&held, pthread_mutex_trylock(&mu) == EBUSY);
	pthread_mutex_unlock(&mu);
}

static void *cond_waiter(void *arg)
{
	bool timed = arg != NULL;
	pthread_mutex_lock(&mu);
	pthread_cleanup_push(cleanup, NULL);
	atomic_store(&in_wait, 1);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += 30;
	for (;;) {
		if (timed)
			pthread_cond_timedwait(&cv, &mu, &ts);
		else
			pthread_cond_wait(&cv, &mu);
	}
	pthread_cleanup_pop(0);
	return NULL;
}

static int condcancel(void)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	CHECK(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0, "pthread_condattr_setclock");
	CHECK(pthread_cond_init(&cv, &ca) == 0, "pthread_cond_init");
	for (int timed = 0; timed < 2; timed++) {
		atomic_store(&in_wait, 0);
		atomic_store(&cleaned, 0);
		atomic_store(&held, 0);
		pthread_t t;
		CHECK(pthread_create(&t, NULL, cond_waiter, timed ? (void *)1 : NULL) == 0,
		      "pthread_create");
		while (!atomic_load(&in_wait))
			sched_yield();
		/* the waiter released the mutex: it is in the wait */
		pthread_mutex_lock(&mu);
		pthread_mutex_unlock(&mu);
		CHECK(pthread_cancel(t) == 0, "pthread_cancel");
		void *r;
		CHECK(pthread_join(t, &r) == 0, "pthread_join");
		printf("%s on a CLOCK_MONOTONIC condvar: cancelled %s, cleanup ran %s, "
		       "with the mutex held %s\n", timed ? "pthread_cond_timedwait" : "pthread_cond_wait",
		       r == PTHREAD_CANCELED ? "yes" : "no", atomic_load(&cleaned) ? "yes" : "no",
		       atomic_load(&held) ? "yes" : "no");
	}
	printf("PASS condcancel\n");
	return 0;
}

/* ---- sem_timedwait's checks ------------------------------------------------------ */

static void timed(const char *what, int value, time_t sec, long nsec)
{
	sem_t s;
	sem_init(&s, 0, (unsigned)value);
	struct timespec ts = {sec, nsec};
	errno = 0;
	int r = sem_timedwait(&s, &ts);
	int e = errno, after;
	sem_getvalue(&s, &after);
	printf("value %d, %-22s %s (value after: %d)\n", value, what,
	       r == 0 ? "0" : e == EINVAL ? "EINVAL" : e == ETIMEDOUT ? "ETIMEDOUT" : strerror(e),
	       after);
	sem_destroy(&s);
}

static int semtimed(void)
{
	for (int v = 0; v < 2; v++) {
		timed("a time already past:", v, 1, 0);
		timed("tv_nsec 1000000000:", v, 1, 1000000000);
		timed("tv_nsec -1:", v, 1, -1);
		timed("tv_sec -1:", v, -1, 0);
	}
	printf("PASS semtimed\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "condcancel") == 0)
		return condcancel();
	if (strcmp(what, "semtimed") == 0)
		return semtimed();
	fprintf(stderr, "usage: posix_misc condcancel|semtimed\n");
	return 2;
}
