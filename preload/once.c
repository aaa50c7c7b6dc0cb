/* SPDX-License-Identifier: MIT */
/*
 * preload/once.c — pthread_once that parks Gs.
 *
 * The pthread_once_t int: 0 not run, 1 running, 2 done (glibc's
 * INPROGRESS and DONE bits). Threads that find it running wait in the wait
 * table on its address. An init routine that is cancelled (or unwinds by
 * pthread_exit) leaves it not run, and the waiters compete again, as with
 * glibc: this file is built with -fexceptions so the cleanup below runs
 * during the forced unwind.
 */
#include "preload/sync.h"
#include "core/sched.h"
#include "core/waitq.h"

#include <errno.h>
#include <limits.h>

#define ONCE_RUNNING 1u
#define ONCE_DONE 2u

static void once_abandon(_Atomic uint32_t **pp)
{
	_Atomic uint32_t *o = *pp;
	if (!o)
		return;
	st_rel(o, 0u);
	wq_futex_wake(o, INT_MAX, WQ_BITSET_ANY);
}

int gmp_once(pthread_once_t *once, void (*fn)(void))
{
	_Atomic uint32_t *o = (_Atomic uint32_t *)(void *)once;
	for (;;) {
		uint32_t v = ld_acq(o);
		if (v & ONCE_DONE)
			return 0;
		if (!(v & ONCE_RUNNING)) {
			if (!cas(o, &v, ONCE_RUNNING))
				continue;
			_Atomic uint32_t *guard __attribute__((cleanup(once_abandon))) = o;
			GMP_PROGRAM(fn());
			guard = NULL;
			st_rel(o, ONCE_DONE);
			wq_futex_wake(o, INT_MAX, WQ_BITSET_ANY);
			return 0;
		}
		int r = wq_futex_wait(o, v, WQ_BITSET_ANY, 0, WAIT_ONCE);
		if (r == EINTR)
			sync_interrupted();
	}
}

/* Served by libgmp while the runtime starts (GMP_ENTRY_EARLY): before
 * glibc 2.34, libdl's dlsym and dlvsym, which start-up uses to find
 * glibc's functions, call __pthread_once, whose glibc definition libgmp
 * has not found yet then. The int means the same to both. */
GMP_EXPORT int pthread_once(pthread_once_t *once, void (*fn)(void))
{
	GMP_ENTRY_EARLY(pthread_once, once, fn);
	return gmp_once(once, fn);
}

GMP_ALIAS(__pthread_once, pthread_once);
