/* SPDX-License-Identifier: MIT */
/*
 * core/lock.h — the runtime's two blocking primitives. Both block the whole
 * M (the OS thread) in the kernel, never a G, so they are for short
 * critical sections of the runtime itself and for sleeping Ms.
 *
 *   primitive   blocks  use
 *   rt_mutex    M       short runtime critical sections (order: sched.h)
 *   note        M       one-shot sleep/wakeup of an M (idle Ms, sysmon)
 *   g_park      G       everything a user thread waits for (sched.h)
 */
#ifndef GMP_CORE_LOCK_H
#define GMP_CORE_LOCK_H

#include "core/rt.h"

/* 0 unlocked, 1 locked, 2 locked with possible sleepers. Zero-initialised
 * is unlocked. */
struct rt_mutex {
	_Atomic uint32_t v;
};

void rt_lock_slow(struct rt_mutex *l);
void rt_unlock_slow(struct rt_mutex *l);

static inline void rt_lock(struct rt_mutex *l)
{
	if (likely(cas_val(&l->v, 0u, 1u)))
		return;
	rt_lock_slow(l);
}

static inline bool rt_trylock(struct rt_mutex *l)
{
	return cas_val(&l->v, 0u, 1u);
}

static inline void rt_unlock(struct rt_mutex *l)
{
	if (likely(xchg(&l->v, 0u) == 1u))
		return;
	rt_unlock_slow(l);
}

/*
 * A note is a one-shot event: note_sleep blocks until note_wakeup has been
 * called once since the last note_clear. Exactly one sleeper, any number of
 * wakers (extra wakeups are harmless). Spurious futex returns are absorbed.
 */
struct note {
	_Atomic uint32_t key;	/* 0 clear, 1 woken */
};

/* Sequentially consistent (an xchg on x86): a sleeper clears, then
 * looks again at what it waits for; a release store could let that look
 * pass the clear, and a waker that published and found the key still
 * set by an old wake-up would skip the futex wake the sleeper then
 * waits for forever. */
static inline void note_clear(struct note *n)
{
	atomic_store_explicit(&n->key, 0u, memory_order_seq_cst);
}
void note_wakeup(struct note *n);
void note_sleep(struct note *n);
/* Like note_sleep with a timeout; returns true if woken, false on timeout.
 * ns < 0 sleeps without timeout. */
bool note_tsleep(struct note *n, int64_t ns);

#endif
