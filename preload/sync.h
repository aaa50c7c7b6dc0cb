/* SPDX-License-Identifier: MIT */
/*
 * preload/sync.h — what the synchronization objects share: who the caller
 * is, deadlines, and the internal entry points one object uses of
 * another (a condvar waits with a mutex).
 *
 * Every object lives in glibc's own memory layout and size (DESIGN.md
 * rule 5): the all-zero and static-initializer states are valid, and a
 * process-shared (or robust, PI, PP) object, whose memory another process
 * may use with plain glibc, is handed to glibc's implementation.
 */
#ifndef GMP_PRELOAD_SYNC_H
#define GMP_PRELOAD_SYNC_H

#include "preload/runtime.h"
#include "core/os.h"
#include "core/timer.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* glibc's `private`/`shared` word of a sem_t or a barrier: 0 (glibc's
 * FUTEX_PRIVATE) for a process-private object, 128 (FUTEX_SHARED) for a
 * process-shared one (sem_init with pshared, sem_open, a barrier with
 * PTHREAD_PROCESS_SHARED), whose futex other processes use: those stay
 * glibc's. libgmp's own objects are private and carry 0. */
#define SYNC_FUTEX_PRIVATE 0
#define SYNC_FUTEX_SHARED 128

/* The caller's id as the owner of libgmp's mutexes and rwlocks: a G's
 * fake tid, or the kernel tid of a thread that is not a G. Inline: every
 * mutex lock records it. */
static inline int sync_self_id(void)
{
	struct g *gp = getg();
	return likely(gp != NULL) ? g_tid(gp) : os_gettid();
}

/* Let thread dumps name the holder of a mutex or rwlock a thread waits
 * for (core/dump.h). */
void sync_dump_init(void);

static inline bool sync_clock_ok(clockid_t clk)
{
	return clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC;
}

/* What glibc checks of a deadline before it tries a process-shared
 * rwlock or a semaphore: a clock it can wait on, nanoseconds in range
 * (EINVAL otherwise, even when the lock or a unit is free). */
static inline bool sync_deadline_ok(clockid_t clk, const struct timespec *abs)
{
	return sync_clock_ok(clk) && abs->tv_nsec >= 0 && abs->tv_nsec < 1000000000;
}

/* A wait was interrupted (wq_wait returned EINTR): run the handlers of
 * signals routed to the caller. */
void sync_interrupted(void);

/* mutex.c, for condvars: may the caller unlock m (EPERM if it is an
 * error-checking or recursive mutex the caller does not own)? Then the
 * unlock and the relock around the wait. A G that has queued itself
 * (wq_push armed it for a wake-up) must not stop running before it parks:
 * it unlocks with may_yield false, or a waker could spin on it forever. */
int mutex_check_owner(pthread_mutex_t *m);
/* The calling G, about to lock a glibc object that records its owner's
 * tid where the kernel or another process reads it, gets an OS thread of
 * its own for life, whose tid glibc knows for it from then on
 * (mutex.c). 0, or the error of starting that OS thread. */
int sync_own_os_thread(void);
int gmp_mutex_lock(pthread_mutex_t *m);
int gmp_mutex_unlock(pthread_mutex_t *m, bool may_yield);

#endif
