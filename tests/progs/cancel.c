/* SPDX-License-Identifier: MIT */
/* Deferred cancellation at the cancellation points of sleeps and joins:
 * the thread ends with PTHREAD_CANCELED after its cleanup handlers; a
 * disabled cancellation waits until enabled; cancelling an ended thread is
 * not an error. Output is compared with NPTL's. */
#include "common.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_int cleanups, started, waiting;

static void cleanup(void *arg)
{
	atomic_fetch_add(&cleanups, 1);
}

static void *sleeper(void *arg)
{
	pthread_cleanup_push(cleanup, NULL);
	atomic_fetch_add(&started, 1);
	for (;;)
		usleep(1000);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *forever(void *arg)
{
	for (int i = 0; i < 100000; i++)
		usleep(1000);
	return NULL;
}

static void *joiner(void *arg)
{
	pthread_t t = *(pthread_t *)arg;
	pthread_cleanup_push(cleanup, NULL);
	atomic_store(&waiting, 1);
	pthread_join(t, NULL);
	pthread_cleanup_pop(0);
	return (void *)1;
}

static atomic_int enable_now, disabled_ok;

static void *disabled(void *arg)
{
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	atomic_fetch_add(&started, 1);
	while (!atomic_load(&enable_now))
		usleep(1000);	/* not a cancellation while disabled */
	atomic_store(&disabled_ok, 1);
	pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
	pthread_testcancel();
	return (void *)2;
}

static void *quick(void *arg)
{
	return (void *)3;
}

int main(void)
{
	pthread_t t, u, j;
	void *res;

	pthread_create(&t, NULL, sleeper, NULL);
	while (atomic_load(&started) < 1)
		usleep(1000);
	printf("cancel sleeping: %d\n", pthread_cancel(t));
	pthread_join(t, &res);
	printf("sleeping thread canceled: %d, cleanups: %d\n", res == PTHREAD_CANCELED,
	       atomic_load(&cleanups));

	pthread_create(&u, NULL, forever, NULL);
	pthread_create(&j, NULL, joiner, &u);
	while (!atomic_load(&waiting))
		usleep(1000);
	usleep(20000);
	printf("cancel joining: %d\n", pthread_cancel(j));
	pthread_join(j, &res);
	printf("joining thread canceled: %d, cleanups: %d\n", res == PTHREAD_CANCELED,
	       atomic_load(&cleanups));
	pthread_cancel(u);
	pthread_join(u, &res);
	printf("its target canceled too: %d\n", res == PTHREAD_CANCELED);

	pthread_create(&t, NULL, disabled, NULL);
	while (atomic_load(&started) < 2)
		usleep(1000);
	printf("cancel disabled: %d\n", pthread_cancel(t));
	usleep(20000);
	atomic_store(&enable_now, 1);
	pthread_join(t, &res);
	printf("disabled thread ran on: %d, then canceled: %d\n", atomic_load(&disabled_ok),
	       res == PTHREAD_CANCELED);

	pthread_create(&t, NULL, quick, NULL);
	usleep(20000);
	printf("cancel ended thread: %d\n", pthread_cancel(t));
	pthread_join(t, &res);
	printf("its result: %ld\n", (long)res);

	int old;
	printf("setcancelstate(5): %d\n", pthread_setcancelstate(5, &old) == EINVAL);
	printf("setcanceltype(5): %d\n", pthread_setcanceltype(5, &old) == EINVAL);
	printf("DONE\n");
	return 0;
}
