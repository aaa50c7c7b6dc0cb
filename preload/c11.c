/*
 * preload/c11.c — C11 <threads.h> on top of the pthread layer. glibc's
 * thrd_* call its hidden pthread implementation directly, so they must be
 * interposed too (TLS.md §4). Same conventions as glibc: a thread's int
 * result travels as the pthread result, error codes map to thrd_*.
 */
#include "preload/runtime.h"

#include <errno.h>
#include <stdint.h>

static int thrd_err(int err)
{
	switch (err) {
	case 0:
		return thrd_success;
	case ENOMEM:
	case EAGAIN:
		return thrd_nomem;
	case ETIMEDOUT:
		return thrd_timedout;
	case EBUSY:
		return thrd_busy;
	default:
		return thrd_error;
	}
}

GMP_EXPORT int thrd_create(thrd_t *thr, thrd_start_t func, void *arg)
{
	GMP_ENTRY(thrd_create, thr, func, arg);
	/* glibc calls an int(*)(void*) as a void*(*)(void*): same ABI on x86-64
	 * for the argument; the int result is read back from the low bits. */
	return thrd_err(pthread_create((pthread_t *)thr, NULL, (void *(*)(void *))(void (*)(void))func, arg));
}

GMP_EXPORT int thrd_join(thrd_t thr, int *res)
{
	GMP_ENTRY(thrd_join, thr, res);
	void *r;
	int err = pthread_join((pthread_t)thr, &r);
	if (err == 0 && res)
		*res = (int)(intptr_t)r;
	return err == 0 ? thrd_success : thrd_error;
}

GMP_EXPORT int thrd_detach(thrd_t thr)
{
	GMP_ENTRY(thrd_detach, thr);
	return pthread_detach((pthread_t)thr) == 0 ? thrd_success : thrd_error;
}

GMP_EXPORT _Noreturn void thrd_exit(int res)
{
	gmp_init();
	if (gmp_passthrough)
		real_thrd_exit(res);
	pthread_exit((void *)(intptr_t)res);
}

GMP_EXPORT thrd_t thrd_current(void)
{
	return (thrd_t)pthread_self();
}

GMP_EXPORT int thrd_equal(thrd_t a, thrd_t b)
{
	return a == b;
}

GMP_EXPORT void thrd_yield(void)
{
	sched_yield();
}

GMP_EXPORT int thrd_sleep(const struct timespec *dur, struct timespec *rem)
{
	GMP_ENTRY(thrd_sleep, dur, rem);
	int err = clock_nanosleep(CLOCK_REALTIME, 0, dur, rem);
	if (err == 0)
		return 0;
	return err == EINTR ? -1 : -2;
}

GMP_EXPORT int tss_create(tss_t *key, tss_dtor_t destr)
{
	GMP_ENTRY(tss_create, key, destr);
	return thrd_err(pthread_key_create((pthread_key_t *)key, destr));
}

GMP_EXPORT void tss_delete(tss_t key)
{
	gmp_init();
	if (gmp_passthrough) {
		real_tss_delete(key);
		return;
	}
	pthread_key_delete((pthread_key_t)key);
}

GMP_EXPORT void *tss_get(tss_t key)
{
	GMP_ENTRY(tss_get, key);
	return pthread_getspecific((pthread_key_t)key);
}

GMP_EXPORT int tss_set(tss_t key, void *val)
{
	GMP_ENTRY(tss_set, key, val);
	return thrd_err(pthread_setspecific((pthread_key_t)key, val));
}
