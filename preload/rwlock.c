/* SPDX-License-Identifier: MIT */
/*
 * preload/rwlock.c — read-write locks that park Gs.
 *
 * glibc's 56-byte pthread_rwlock_t is kept: __readers is the state word
 * (reader count, WRITER, WAITERS), __writers counts queued writers (under
 * the queue's bucket lock), __cur_writer is the writer's tid, __shared and
 * __flags are glibc's (a process-shared lock is glibc's; __flags is the
 * kind, which the static initializers set).
 *
 * Fast paths are one CAS. When a thread must wait, or an unlock finds
 * WAITERS, everything happens under the bucket lock of the lock's address,
 * and the unlocker hands the lock over: it counts the readers it wakes in,
 * or sets WRITER for the writer it wakes, before waking them.
 *
 * Kinds, as glibc: PTHREAD_RWLOCK_PREFER_READER_NP (the default) and
 * PREFER_WRITER_NP let a reader in whenever no writer holds the lock, so a
 * thread may take a read lock again while a writer waits;
 * PREFER_WRITER_NONRECURSIVE_NP makes new readers wait behind a waiting
 * writer.
 */
#include "preload/sync.h"
#include "core/sched.h"
#include "core/waitq.h"

#include <errno.h>

#define RW_READERS	0x3fffffffu
#define RW_WRITER	0x40000000u
#define RW_WAITERS	0x80000000u

/* bitsets that tell queued readers and writers apart */
#define TAG_READER	1u
#define TAG_WRITER	2u

static inline _Atomic uint32_t *rwstate(pthread_rwlock_t *rw)
{
	return (_Atomic uint32_t *)&rw->__data.__readers;
}
static inline bool glibcs(pthread_rwlock_t *rw)
{
	return __atomic_load_n(&rw->__data.__shared, __ATOMIC_RELAXED) != 0;
}
static inline bool prefer_writer(pthread_rwlock_t *rw)
{
	return __atomic_load_n(&rw->__data.__flags, __ATOMIC_RELAXED) ==
	       PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP;
}
static inline int cur_writer(pthread_rwlock_t *rw)
{
	return __atomic_load_n(&rw->__data.__cur_writer, __ATOMIC_RELAXED);
}
static inline void set_writer(pthread_rwlock_t *rw, int id)
{
	__atomic_store_n(&rw->__data.__cur_writer, id, __ATOMIC_RELAXED);
}

/* Append w to a wake list. */
static void add(struct waiter **list, struct waiter **tail, struct waiter *w)
{
	w->next = NULL;
	if (*tail)
		(*tail)->next = w;
	else
		*list = w;
	*tail = w;
}

/*
 * Under the bucket lock: hand the lock to whoever may have it now, popping
 * them off the queue into *list (to wake after unlocking), and keep
 * WAITERS equal to "the queue is not empty".
 */
static void grant(pthread_rwlock_t *rw, struct wq_bucket *b, struct waiter **list)
{
	_Atomic uint32_t *st = rwstate(rw);
	bool wpref = prefer_writer(rw);
	struct waiter *tail = NULL;
	*list = NULL;
	for (;;) {
		uint32_t s = ld_acq(st);
		struct waiter *h = wq_peek(b, rw);
		if (!h) {
			if ((s & RW_WAITERS) && !cas(st, &s, s & ~RW_WAITERS))
				continue;
			return;
		}
		if (s & RW_WRITER)
			return;
		struct waiter *w = NULL;
		if (!wpref)
			w = wq_pop(b, rw, TAG_READER);	/* readers first */
		else if (h->bitset == TAG_READER)
			w = wq_pop(b, rw, TAG_READER);	/* readers ahead of a writer */
		if (w) {
			xadd(st, 1u);
			add(list, &tail, w);
			continue;
		}
		/* a writer is next */
		if (s & RW_READERS)
			return;
		if (!cas(st, &s, s | RW_WRITER))
			continue;
		w = wq_pop(b, rw, TAG_WRITER);
		rw->__data.__writers--;
		add(list, &tail, w);
		if (wq_empty(b, rw))
			atomic_fetch_and_explicit(st, ~RW_WAITERS, memory_order_release);
		return;
	}
}

/* Under the bucket lock: grant, unlock, wake. */
static void grant_unlock(pthread_rwlock_t *rw, struct wq_bucket *b)
{
	struct waiter *list;
	grant(rw, b, &list);
	wq_unlock(b);
	wq_wake_list(list);
}

/* Wait for a read (writer = false) or write lock. Returns 0, ETIMEDOUT
 * or EAGAIN (too many readers). */
static int lock_slow(pthread_rwlock_t *rw, bool writer, int64_t deadline)
{
	_Atomic uint32_t *st = rwstate(rw);
	bool wpref = prefer_writer(rw);
	struct wq_bucket *b = wq_lock(rw);
	for (;;) {
		uint32_t s = ld_acq(st);
		if (writer ? !(s & (RW_WRITER | RW_READERS))
			   : !(s & RW_WRITER) && (!wpref || rw->__data.__writers == 0)) {
			if (!writer && (s & RW_READERS) == RW_READERS) {
				wq_unlock(b);
				return EAGAIN;
			}
			if (!cas(st, &s, writer ? s | RW_WRITER : s + 1))
				continue;
			wq_unlock(b);
			return 0;
		}
		if (deadline && rt_nanotime() >= deadline) {
			wq_unlock(b);
			return ETIMEDOUT;
		}
		if (!(s & RW_WAITERS) && !cas(st, &s, s | RW_WAITERS))
			continue;
		struct waiter w;
		if (writer)
			rw->__data.__writers++;
		wq_push(b, &w, rw, writer ? TAG_WRITER : TAG_READER, deadline, false);
		int r = wq_wait(b, &w, WAIT_RWLOCK);
		if (!r)
			return 0;	/* handed over by an unlocker */
		b = w.b;
		if (writer)
			rw->__data.__writers--;
		/* leaving may let others in (readers behind this writer) */
		grant_unlock(rw, b);
		if (r == ETIMEDOUT)
			return ETIMEDOUT;
		sync_interrupted();
		b = wq_lock(rw);
	}
}

enum { HOW_WAIT, HOW_TRY, HOW_TIMED };

static int rdlock(pthread_rwlock_t *rw, int how, clockid_t clk, const struct timespec *abs)
{
	_Atomic uint32_t *st = rwstate(rw);
	int64_t deadline = 0;
	if (how == HOW_TIMED) {
		if (!sync_clock_ok(clk))
			return EINVAL;
		int e = timer_deadline(clk, abs, &deadline);
		if (e)
			return e;
	}
	uint32_t s = ld_rlx(st);
	bool wpref = prefer_writer(rw);
	for (;;) {
		if ((s & RW_WRITER) || (wpref && (s & RW_WAITERS)) || (s & RW_READERS) == RW_READERS)
			break;
		if (cas(st, &s, s + 1))
			return 0;
	}
	if ((s & RW_WRITER) && cur_writer(rw) == sync_self_id())
		return how == HOW_TRY ? EBUSY : EDEADLK;
	if (how == HOW_TRY) {
		if ((s & RW_READERS) == RW_READERS)
			return EAGAIN;
		if (!(s & RW_WRITER) && wpref) {
			/* only queued waiters stopped the fast path */
			struct wq_bucket *b = wq_lock(rw);
			s = ld_rlx(st);
			bool ok = !(s & RW_WRITER) && rw->__data.__writers == 0 &&
				  cas(st, &s, s + 1);
			wq_unlock(b);
			if (ok)
				return 0;
		}
		return EBUSY;
	}
	return lock_slow(rw, false, deadline);
}

static int wrlock(pthread_rwlock_t *rw, int how, clockid_t clk, const struct timespec *abs)
{
	_Atomic uint32_t *st = rwstate(rw);
	int64_t deadline = 0;
	if (how == HOW_TIMED) {
		if (!sync_clock_ok(clk))
			return EINVAL;
		int e = timer_deadline(clk, abs, &deadline);
		if (e)
			return e;
	}
	int me = sync_self_id();
	uint32_t s = ld_rlx(st);
	/* Not while waiters are queued: an unlocker may be counting readers
	 * in under the bucket lock (grant), and a writer must not slip in
	 * between its look at the state and its increment. */
	while (!(s & (RW_WRITER | RW_READERS | RW_WAITERS))) {
		if (cas(st, &s, s | RW_WRITER)) {
			set_writer(rw, me);
			return 0;
		}
	}
	if ((s & RW_WRITER) && cur_writer(rw) == me)
		return how == HOW_TRY ? EBUSY : EDEADLK;
	if (how == HOW_TRY) {
		if (s & (RW_WRITER | RW_READERS))
			return EBUSY;
		/* free, with waiters: decide under the bucket lock */
		struct wq_bucket *b = wq_lock(rw);
		s = ld_rlx(st);
		bool ok = !(s & (RW_WRITER | RW_READERS)) && cas(st, &s, s | RW_WRITER);
		wq_unlock(b);
		if (!ok)
			return EBUSY;
		set_writer(rw, me);
		return 0;
	}
	int r = lock_slow(rw, true, deadline);
	if (!r)
		set_writer(rw, me);
	return r;
}

/* A process-shared rwlock is glibc's: glibc's lock without waiting
 * first, then a wait in the kernel on the lock's own words, as a system
 * call whose P is handed on at once. glibc records the writer's tid,
 * which other processes compare with theirs: the caller takes an OS
 * thread of its own first (sync_own_os_thread). */
static int lock_glibc(pthread_rwlock_t *rw, bool writer, clockid_t clk, const struct timespec *abs)
{
	int err = sync_own_os_thread();
	if (err)
		return err;
	if (abs && !sync_deadline_ok(clk, abs))
		return EINVAL;	/* glibc's answer before it tries the lock */
	if (abs)
		return GMP_BLOCKING_TRY(int, false,
					writer ? real_pthread_rwlock_trywrlock(rw)
					       : real_pthread_rwlock_tryrdlock(rw),
					r_ == EBUSY,
					writer ? real_pthread_rwlock_clockwrlock(rw, clk, abs)
					       : real_pthread_rwlock_clockrdlock(rw, clk, abs));
	return GMP_BLOCKING_TRY(int, false,
				writer ? real_pthread_rwlock_trywrlock(rw) : real_pthread_rwlock_tryrdlock(rw),
				r_ == EBUSY,
				writer ? real_pthread_rwlock_wrlock(rw) : real_pthread_rwlock_rdlock(rw));
}

GMP_EXPORT int pthread_rwlock_init(pthread_rwlock_t *rw, const pthread_rwlockattr_t *attr)
{
	gmp_init();
	return real_pthread_rwlock_init(rw, attr);	/* zeroes it, writes kind and pshared */
}

GMP_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *rw)
{
	GMP_ENTRY(pthread_rwlock_destroy, rw);
	if (glibcs(rw))
		return real_pthread_rwlock_destroy(rw);
	return 0;	/* as glibc: nothing to release */
}

#define RW_ENTRY(name, ...) \
	GMP_ENTRY(name, __VA_ARGS__); \
	if (glibcs(rw)) \
		return sync_own_os_thread() ?: real_##name(__VA_ARGS__)
/* the same for the calls that wait */
#define RW_ENTRY_WAIT(name, writer, clk, abs, ...) \
	GMP_ENTRY(name, __VA_ARGS__); \
	if (glibcs(rw)) \
		return lock_glibc(rw, writer, clk, abs)

GMP_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *rw)
{
	RW_ENTRY_WAIT(pthread_rwlock_rdlock, false, 0, NULL, rw);
	return rdlock(rw, HOW_WAIT, 0, NULL);
}

GMP_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *rw)
{
	RW_ENTRY(pthread_rwlock_tryrdlock, rw);
	return rdlock(rw, HOW_TRY, 0, NULL);
}

GMP_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *rw, const struct timespec *abs)
{
	RW_ENTRY_WAIT(pthread_rwlock_timedrdlock, false, CLOCK_REALTIME, abs, rw, abs);
	return rdlock(rw, HOW_TIMED, CLOCK_REALTIME, abs);
}

GMP_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *rw, clockid_t clk,
					  const struct timespec *abs)
{
	RW_ENTRY_WAIT(pthread_rwlock_clockrdlock, false, clk, abs, rw, clk, abs);
	return rdlock(rw, HOW_TIMED, clk, abs);
}

GMP_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *rw)
{
	RW_ENTRY_WAIT(pthread_rwlock_wrlock, true, 0, NULL, rw);
	return wrlock(rw, HOW_WAIT, 0, NULL);
}

GMP_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *rw)
{
	RW_ENTRY(pthread_rwlock_trywrlock, rw);
	return wrlock(rw, HOW_TRY, 0, NULL);
}

GMP_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *rw, const struct timespec *abs)
{
	RW_ENTRY_WAIT(pthread_rwlock_timedwrlock, true, CLOCK_REALTIME, abs, rw, abs);
	return wrlock(rw, HOW_TIMED, CLOCK_REALTIME, abs);
}

GMP_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *rw, clockid_t clk,
					  const struct timespec *abs)
{
	RW_ENTRY_WAIT(pthread_rwlock_clockwrlock, true, clk, abs, rw, clk, abs);
	return wrlock(rw, HOW_TIMED, clk, abs);
}

GMP_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *rw)
{
	RW_ENTRY(pthread_rwlock_unlock, rw);
	_Atomic uint32_t *st = rwstate(rw);
	uint32_t s = ld_rlx(st);
	if (s & RW_WRITER) {
		if (cur_writer(rw) != sync_self_id())
			return EPERM;
		set_writer(rw, 0);
		if (s == RW_WRITER && cas(st, &s, 0u))
			return 0;
		struct wq_bucket *b = wq_lock(rw);
		atomic_fetch_and_explicit(st, ~RW_WRITER, memory_order_release);
		grant_unlock(rw, b);
		return 0;
	}
	for (;;) {
		if (!(s & RW_READERS))
			return 0;	/* not locked: glibc does not complain */
		if (!(s & RW_WAITERS) || (s & RW_READERS) > 1) {
			if (cas(st, &s, s - 1))
				return 0;
			continue;
		}
		/* the last reader, with waiters: hand over */
		struct wq_bucket *b = wq_lock(rw);
		xadd(st, -1u);
		grant_unlock(rw, b);
		return 0;
	}
}

/* glibc's old internal names */
GMP_ALIAS(__pthread_rwlock_init, pthread_rwlock_init);
GMP_ALIAS(__pthread_rwlock_destroy, pthread_rwlock_destroy);
GMP_ALIAS(__pthread_rwlock_rdlock, pthread_rwlock_rdlock);
GMP_ALIAS(__pthread_rwlock_tryrdlock, pthread_rwlock_tryrdlock);
GMP_ALIAS(__pthread_rwlock_wrlock, pthread_rwlock_wrlock);
GMP_ALIAS(__pthread_rwlock_trywrlock, pthread_rwlock_trywrlock);
GMP_ALIAS(__pthread_rwlock_unlock, pthread_rwlock_unlock);
