/* SPDX-License-Identifier: MIT */
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

/* --- mutexes, condition variables, call_once: the pthread ones ------------------ */

GMP_EXPORT int mtx_init(mtx_t *m, int type)
{
	GMP_ENTRY(mtx_init, m, type);
	/* as glibc: recursive if asked, otherwise (whatever else) plain */
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	if (type == (mtx_plain | mtx_recursive) || type == (mtx_timed | mtx_recursive))
		pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	int err = pthread_mutex_init((pthread_mutex_t *)m, &a);
	pthread_mutexattr_destroy(&a);
	return thrd_err(err);
}

GMP_EXPORT void mtx_destroy(mtx_t *m)
{
	gmp_init();
	if (gmp_passthrough) {
		real_mtx_destroy(m);
		return;
	}
	pthread_mutex_destroy((pthread_mutex_t *)m);
}

GMP_EXPORT int mtx_lock(mtx_t *m)
{
	GMP_ENTRY(mtx_lock, m);
	return thrd_err(pthread_mutex_lock((pthread_mutex_t *)m));
}

GMP_EXPORT int mtx_trylock(mtx_t *m)
{
	GMP_ENTRY(mtx_trylock, m);
	return thrd_err(pthread_mutex_trylock((pthread_mutex_t *)m));
}

GMP_EXPORT int mtx_timedlock(mtx_t *restrict m, const struct timespec *restrict abs)
{
	GMP_ENTRY(mtx_timedlock, m, abs);
	return thrd_err(pthread_mutex_timedlock((pthread_mutex_t *)m, abs));
}

GMP_EXPORT int mtx_unlock(mtx_t *m)
{
	GMP_ENTRY(mtx_unlock, m);
	return thrd_err(pthread_mutex_unlock((pthread_mutex_t *)m));
}

GMP_EXPORT int cnd_init(cnd_t *c)
{
	GMP_ENTRY(cnd_init, c);
	return thrd_err(pthread_cond_init((pthread_cond_t *)c, NULL));
}

GMP_EXPORT void cnd_destroy(cnd_t *c)
{
	gmp_init();
	if (gmp_passthrough) {
		real_cnd_destroy(c);
		return;
	}
	pthread_cond_destroy((pthread_cond_t *)c);
}

GMP_EXPORT int cnd_signal(cnd_t *c)
{
	GMP_ENTRY(cnd_signal, c);
	return thrd_err(pthread_cond_signal((pthread_cond_t *)c));
}

GMP_EXPORT int cnd_broadcast(cnd_t *c)
{
	GMP_ENTRY(cnd_broadcast, c);
	return thrd_err(pthread_cond_broadcast((pthread_cond_t *)c));
}

GMP_EXPORT int cnd_wait(cnd_t *c, mtx_t *m)
{
	GMP_ENTRY(cnd_wait, c, m);
	return thrd_err(pthread_cond_wait((pthread_cond_t *)c, (pthread_mutex_t *)m));
}

GMP_EXPORT int cnd_timedwait(cnd_t *restrict c, mtx_t *restrict m,
			     const struct timespec *restrict abs)
{
	GMP_ENTRY(cnd_timedwait, c, m, abs);
	return thrd_err(pthread_cond_timedwait((pthread_cond_t *)c, (pthread_mutex_t *)m, abs));
}

GMP_EXPORT void call_once(once_flag *flag, void (*fn)(void))
{
	gmp_init();
	if (gmp_passthrough) {
		real_call_once(flag, fn);
		return;
	}
	pthread_once((pthread_once_t *)flag, fn);
}
