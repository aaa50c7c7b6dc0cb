/* SPDX-License-Identifier: MIT */
/*
 * core/lock.c — slow paths of rt_mutex and the note sleep/wakeup.
 */
#include "core/lock.h"
#include "core/os.h"

#include <errno.h>

void rt_lock_slow(struct rt_mutex *l)
{
	/* short spin: runtime critical sections are a few hundred cycles */
	for (int i = 0; i < 64; i++) {
		if (ld_rlx(&l->v) == 0 && cas_val(&l->v, 0u, 1u))
			return;
		arch_cpu_relax();
	}
	while (xchg(&l->v, 2u) != 0)
		os_futex_wait(&l->v, 2, -1);
}

void rt_unlock_slow(struct rt_mutex *l)
{
	/* the word was 2: somebody may sleep; it is 0 now */
	os_futex_wake(&l->v, 1);
}

void note_wakeup(struct note *n)
{
	if (xchg(&n->key, 1u) == 0)
		os_futex_wake(&n->key, 1);
}

void note_sleep(struct note *n)
{
	while (ld_acq(&n->key) == 0)
		os_futex_wait(&n->key, 0, -1);
}

bool note_tsleep(struct note *n, int64_t ns)
{
	if (ns < 0) {
		note_sleep(n);
		return true;
	}
	int64_t deadline = rt_nanotime() + ns;
	while (ld_acq(&n->key) == 0) {
		int64_t left = deadline - rt_nanotime();
		if (left <= 0)
			return ld_acq(&n->key) != 0;
		os_futex_wait(&n->key, 0, left);
	}
	return true;
}
