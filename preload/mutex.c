/* SPDX-License-Identifier: MIT */
/*
 * preload/mutex.c — pthread mutexes that park Gs (after Go's sync.Mutex).
 *
 * glibc's 40-byte pthread_mutex_t is kept: __lock is the state word,
 * __count the recursion depth, __owner the owner's tid (recursive and
 * error-checking mutexes), __kind as glibc's pthread_mutex_init leaves it.
 * All-zero and the static initializers are valid unlocked mutexes of
 * their type. A mutex whose kind carries process-shared, robust,
 * priority-inheritance or -protection bits (or the -1 glibc writes on
 * destroy) is glibc's: every call on it goes to glibc.
 *
 * State word: LOCKED; WOKEN: a woken or spinning waiter is on its way,
 * unlockers need not wake another; STARVING: hand-off mode; WAITERS: the
 * wait queue of the mutex's address is non-empty (changed only under the
 * queue's bucket lock).
 *
 * Normal mode: a locker CASes LOCKED in, else spins a little (only while
 * the holder may be running on another P), else queues and parks; an
 * unlocker clears LOCKED and wakes the first waiter, which competes with
 * newcomers (which usually win: they are running). A waiter that fails
 * for more than 1 ms puts the mutex in starvation mode: an unlocker then
 * hands the mutex directly to the first waiter, newcomers queue at the
 * back, and the mode ends when a waiter that did not wait long gets it or
 * the queue empties. So nobody starves, and throughput stays high when
 * nobody does.
 */
#include "preload/sync.h"
#include "core/os.h"
#include "core/sched.h"
#include "core/tls.h"
#include "core/waitq.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <sys/syscall.h>

#define M_LOCKED	1u
#define M_WOKEN		2u
#define M_STARVING	4u
#define M_WAITERS	8u

#define STARVE_NS	1000000
#define SYNC_SLICE_NS	200000
#define TICKET_HANDOFF	1

/* kind bits libgmp implements: the type, priority inheritance (which
 * means nothing between Gs sharing OS threads, and which glibc's
 * FUTEX_LOCK_PI cannot do for them: the kernel knows no G's tid), and
 * glibc's elision flags. Robust (16), priority-protect (64) and
 * process-shared (128) mutexes are glibc's. */
#define KIND_OURS	(3u | 32u | 256u | 512u)
#define KIND_ROBUST	16u
#define KIND_PI		32u

static inline _Atomic uint32_t *mstate(pthread_mutex_t *m)
{
	return (_Atomic uint32_t *)&m->__data.__lock;
}
static inline bool glibcs(pthread_mutex_t *m)
{
	return ((unsigned)__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & ~KIND_OURS) != 0;
}
static inline int mtype(pthread_mutex_t *m)
{
	return __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & 3;
}
static inline int owner(pthread_mutex_t *m)
{
	return __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED);
}
static inline void set_owner(pthread_mutex_t *m, int id)
{
	__atomic_store_n(&m->__data.__owner, id, __ATOMIC_RELAXED);
}


/* --- the lock --------------------------------------------------------------- */

/* Wait for the mutex. deadline: CLOCK_MONOTONIC ns, 0 for none. Returns
 * 0 (locked) or ETIMEDOUT. */
static int lock_slow_wait(pthread_mutex_t *m, int64_t deadline)
{
	GMP_LIB_SCOPE;	/* the slow path of a GMP_ENTRY_LIGHT entry; with a P */
	_Atomic uint32_t *st = mstate(m);
	int64_t wait_start = 0;
	bool starving = false, awoke = false;
	int iter = 0;
	uint32_t old = ld_rlx(st);

	for (;;) {
		/* spin while the holder runs elsewhere (not in hand-off mode) */
		if ((old & (M_LOCKED | M_STARVING)) == M_LOCKED && sched_can_spin(iter)) {
			if (!awoke && !(old & M_WOKEN) && (old & M_WAITERS) &&
			    cas(st, &old, old | M_WOKEN))
				awoke = true;
			/* 30 pauses (leaving early when it looks free makes the
			 * spinners collide with the lock holder: 4x slower
			 * producer/consumer) */
			for (int i = 0; i < 30; i++)
				arch_cpu_relax();
			iter++;
			old = ld_rlx(st);
			continue;
		}
		if (!(old & (M_LOCKED | M_STARVING))) {
			uint32_t nw = old | M_LOCKED;
			if (awoke)
				nw &= ~M_WOKEN;
			if (cas(st, &old, nw))
				return 0;
			continue;
		}

		/* queue: decided under the bucket lock, which every change of
		 * WAITERS and every wake-up holds */
		struct wq_bucket *b = wq_lock(m);
		old = ld_rlx(st);
		if (!(old & (M_LOCKED | M_STARVING))) {
			wq_unlock(b);
			continue;
		}
		if (deadline && rt_nanotime() >= deadline) {
			if (awoke)
				atomic_fetch_and_explicit(st, ~M_WOKEN, memory_order_release);
			wq_unlock(b);
			return ETIMEDOUT;
		}
		uint32_t nw = old | M_WAITERS;
		if (awoke)
			nw &= ~M_WOKEN;
		if (starving && (old & M_LOCKED))
			nw |= M_STARVING;
		if (!cas(st, &old, nw)) {
			wq_unlock(b);
			continue;
		}
		awoke = false;
		struct waiter w;
		/* one that waited before goes back to the front */
		bool lifo = wait_start != 0;
		if (!wait_start)
			wait_start = rt_nanotime();
		wq_push(b, &w, m, WQ_BITSET_ANY, deadline, lifo);
		int r = wq_wait(b, &w, WAIT_MUTEX);
		if (r) {
			/* left the queue by itself: a timeout, or a signal */
			if (wq_empty(w.b, m))
				atomic_fetch_and_explicit(st, ~(M_WAITERS | M_STARVING),
							  memory_order_release);
			wq_unlock(w.b);
			if (r == ETIMEDOUT)
				return ETIMEDOUT;
			sync_interrupted();
			old = ld_rlx(st);
			continue;
		}
		starving = starving || rt_nanotime() - wait_start > STARVE_NS;
		if (w.ticket == TICKET_HANDOFF) {
			/* the unlocker gave us the mutex; leave hand-off mode
			 * if we did not wait long */
			if (!starving)
				atomic_fetch_and_explicit(st, ~M_STARVING, memory_order_release);
			return 0;
		}
		/* woken in normal mode: WOKEN is ours, compete */
		awoke = true;
		iter = 0;
		old = ld_rlx(st);
	}
}

/* Starvation mode: give the mutex to the first waiter. */
static void handoff(pthread_mutex_t *m, bool may_yield)
{
	_Atomic uint32_t *st = mstate(m);
	struct wq_bucket *b = wq_lock(m);
	struct waiter *w = wq_pop(b, m, WQ_BITSET_ANY);
	bool empty = wq_empty(b, m);
	uint32_t old = ld_rlx(st);
	for (;;) {
		uint32_t nw = old;
		if (w)
			nw |= M_LOCKED;
		if (empty)
			nw &= ~(M_WAITERS | M_STARVING);
		if (cas(st, &old, nw))
			break;
	}
	if (!w) {
		wq_unlock(b);
		return;
	}
	w->ticket = TICKET_HANDOFF;
	wq_unlock(b);
	wq_wake(w);
	/* as Go's semrelease with handoff: let the new owner run now, on
	 * this P, instead of after this thread's next time slice */
	if (may_yield && getg())
		g_yield_local();
}

/* Normal mode: wake one waiter unless one is already on its way. */
static void wake_one(pthread_mutex_t *m)
{
	_Atomic uint32_t *st = mstate(m);
	struct wq_bucket *b = wq_lock(m);
	uint32_t old = ld_rlx(st);
	for (;;) {
		if (!(old & M_WAITERS) || (old & (M_LOCKED | M_WOKEN | M_STARVING))) {
			/* a locker, a woken waiter or a hand-off takes over */
			wq_unlock(b);
			return;
		}
		struct waiter *w = wq_peek(b, m);
		uint32_t nw = old | M_WOKEN;
		if (!w || !w->next)
			nw &= ~M_WAITERS;	/* the queue is (about to be) empty */
		if (!w)
			nw &= ~M_WOKEN;
		if (cas(st, &old, nw)) {
			if (w)
				wq_pop(b, m, WQ_BITSET_ANY);
			wq_unlock(b);
			if (w)
				wq_wake(w);
			return;
		}
	}
}

/*
 * An unlock is a scheduling point. Without preemption, two Gs that pass a
 * mutex between them on two Ps never block, and the others, runnable or
 * queued on the mutex, wait for as long as that lasts. So a G that has
 * kept its P for SYNC_SLICE_NS yields at an unlock, to the back of the
 * global queue, when another G waits to run, as a kernel's time slicing
 * would (the global queue is one FIFO for all Ps, so every G gets its
 * turn). The clock is read at every SLICE_EVERY-th unlock.
 *
 * The slice is short because the runs of Gs that share a mutex are
 * uneven: most end within microseconds, when the G loses the mutex and
 * parks, a few last until the slice ends. A G's share of the CPU is then
 * the number of long runs it happened to get, and with a 2 ms slice the
 * fewest/most ratio of 64 threads on one mutex was about 0.1 (NPTL's:
 * 0.3-0.5). With 200 us it is 0.85-0.9, at NPTL's rate or above; the
 * yield costs a switch (about 0.3 us, a few us where the thread-pointer
 * write is a system call) every 200 us, and nothing when nobody waits.
 */
#define SLICE_EVERY 64

static inline void slice_tick(void)
{
	struct g *gp = getg();
	if (gp && unlikely(++gp->syncticks % SLICE_EVERY == 0) &&
	    rt_nanotime() - gp->run_start > SYNC_SLICE_NS) {
		door_hold(gp);	/* an unlock has no door of its own */
		if (sched_others_queued())
			g_preempt_yield();
		door_unhold(gp);
	}
}

static __attribute__((noinline)) void unlock_slow(pthread_mutex_t *m, uint32_t old, bool may_yield)
{
	GMP_LIB_SCOPE;	/* a wake-up may start an M (GMP_ENTRY_LIGHT) */
	_Atomic uint32_t *st = mstate(m);
	for (;;) {
		if (!(old & M_LOCKED))
			return;		/* not locked: glibc ignores it too */
		if (cas(st, &old, old & ~M_LOCKED))
			break;
	}
	old &= ~M_LOCKED;
	if (old & M_STARVING) {
		handoff(m, may_yield);
		return;
	}
	if ((old & M_WAITERS) && !(old & M_WOKEN))
		wake_one(m);
}

/* lock_slow_wait, and on success the owner recorded (glibc records it
 * for every type: thread dumps name it). */
static int lock_slow(pthread_mutex_t *m, int64_t deadline)
{
	int r = lock_slow_wait(m, deadline);
	if (!r)
		set_owner(m, sync_self_id());
	return r;
}

static inline int lock_plain(pthread_mutex_t *m, int64_t deadline)
{
	uint32_t z = 0;
	if (likely(cas(mstate(m), &z, M_LOCKED))) {
		set_owner(m, sync_self_id());
		return 0;
	}
	return lock_slow(m, deadline);
}

/* may_yield: false for a G that has queued itself on a condvar (armed for
 * a wake-up), which must not stop running before it parks. */
static inline void unlock_plain(pthread_mutex_t *m, bool may_yield)
{
	set_owner(m, 0);
	uint32_t old = M_LOCKED;
	if (unlikely(!cas(mstate(m), &old, 0u)))
		unlock_slow(m, old, may_yield);
	if (may_yield)
		slice_tick();
}

static int trylock_plain(pthread_mutex_t *m)
{
	_Atomic uint32_t *st = mstate(m);
	uint32_t old = ld_rlx(st);
	while (!(old & (M_LOCKED | M_STARVING))) {
		if (cas(st, &old, old | M_LOCKED)) {
			set_owner(m, sync_self_id());
			return 0;
		}
	}
	return EBUSY;
}

/* --- types ------------------------------------------------------------------- */

enum { LOCK_WAIT, LOCK_TRY, LOCK_TIMED };

/* A timed lock that must wait: the deadline, CLOCK_MONOTONIC ns. glibc
 * hands a priority-inheritance mutex's deadline to the kernel, which
 * refuses a negative one (EINVAL); the others' time out (ETIMEDOUT). */
static int wait_deadline(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs,
			 int64_t *deadline)
{
	unsigned kind = (unsigned)__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
	if ((kind & KIND_PI) && abs->tv_sec < 0)
		return EINVAL;
	return timer_deadline(clk, abs, deadline);
}

/* Recursive and error-checking mutexes: ownership first. */
static int lock_owned(pthread_mutex_t *m, int type, int how, clockid_t clk,
		      const struct timespec *abs)
{
	int me = sync_self_id();
	if (owner(m) == me) {
		/* (glibc's trylock of a priority-inheritance one says
		 * EDEADLK too) */
		if (type == PTHREAD_MUTEX_ERRORCHECK)
			return how == LOCK_TRY && !(m->__data.__kind & KIND_PI) ? EBUSY : EDEADLK;
		if (m->__data.__count == UINT_MAX)
			return EAGAIN;
		m->__data.__count++;
		return 0;
	}
	int r;
	if (how == LOCK_TRY) {
		r = trylock_plain(m);
	} else if (how == LOCK_WAIT) {
		r = lock_plain(m, 0);
	} else {
		r = trylock_plain(m);
		if (r) {
			int64_t deadline;
			r = wait_deadline(m, clk, abs, &deadline);
			if (!r)
				r = lock_slow(m, deadline);
		}
	}
	if (r)
		return r;
	set_owner(m, me);
	m->__data.__count = 1;
	return 0;
}

int mutex_check_owner(pthread_mutex_t *m)
{
	if (glibcs(m)) {
		/* the mutexes whose unlock glibc checks (robust, priority-
		 * inheritance, error-checking, recursive): its owner word
		 * holds the owner's id */
		unsigned kind = (unsigned)__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
		int type = (int)(kind & 3u);
		bool checked = (kind & (KIND_ROBUST | KIND_PI)) || type == PTHREAD_MUTEX_RECURSIVE ||
			       type == PTHREAD_MUTEX_ERRORCHECK;
		struct g *gp = getg();
		int self = gp ? tls_tid(gp->tcb) : os_gettid();	/* THREAD_SELF->tid */
		return checked && __atomic_load_n(&m->__data.__owner, __ATOMIC_RELAXED) != self ?
			       EPERM : 0;
	}
	int type = mtype(m);
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)
		return owner(m) == sync_self_id() ? 0 : EPERM;
	return 0;
}

/* --- glibc's mutexes ----------------------------------------------------------- */

/* Process-shared, robust and priority-protect mutexes are glibc's. A G
 * that must wait for one waits in glibc as in a system call that may
 * block (its P is handed on); when it already owns the mutex glibc
 * answers at once (EDEADLK, a recursive count) or, for a normal mutex,
 * deadlocks as under NPTL. */

/*
 * glibc writes the owner's tid (THREAD_SELF->tid) into some of its
 * objects, and reads it back: as the kernel does for a priority-protect
 * mutex (glibc changes the priority of the owner's kernel thread), and
 * for a process-shared priority-inheritance one (FUTEX_LOCK_PI finds the
 * owner by its tid; FUTEX_UNLOCK_PI must come from it) or robust one
 * (marked FUTEX_OWNER_DIED when its owner's OS thread ends with the
 * process, through that thread's robust list); and as other processes do
 * for a process-shared recursive or error-checking mutex (the owner) and
 * a process-shared rwlock (the writer), where a G's id, unique in its
 * process only, could be another process's G's too. A G that locks one
 * of these is first given an OS thread of its own for the rest of its
 * life (as a pinned thread has), carrying its scheduling policy; that
 * thread's tid becomes the one glibc knows, unique on the machine, and
 * its robust list the G's (tls_take_tid). A private robust mutex needs
 * none of it: libgmp releases those when a G ends.
 */
#define KIND_PP 64u
#define KIND_PSHARED 128u

static bool owner_known_outside(pthread_mutex_t *m)
{
	unsigned kind = (unsigned)__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
	unsigned type = kind & 3u;
	return (kind & KIND_PP) ||
	       ((kind & KIND_PSHARED) && ((kind & (KIND_PI | KIND_ROBUST)) ||
					  type == PTHREAD_MUTEX_RECURSIVE ||
					  type == PTHREAD_MUTEX_ERRORCHECK));
}

int sync_own_os_thread(void)
{
	struct g *gp = getg();
	if (!gp || (gp->flags & G_FLAG_KTID))
		return 0;
	GMP_LIB_SCOPE;	/* starts an OS thread (GMP_ENTRY_LIGHT) */
	if (!gp->lockedm) {
		rt_lock(&gp->lock);
		int err = gp->lockedm ? 0 : m_new_locked(gp, NULL, 0);
		rt_unlock(&gp->lock);
		if (err)
			return err;
		g_yield();	/* off to the dedicated OS thread */
	}
	tls_take_tid(gp->tcb, os_gettid());
	gp->flags |= G_FLAG_KTID;
	struct sched_param sp = {.sched_priority = gp->schedprio};
	if (gp->schedpolicy != SCHED_OTHER)
		arch_syscall3(SYS_sched_setscheduler, 0, gp->schedpolicy, &sp);
	return 0;
}

static int own_os_thread(pthread_mutex_t *m)
{
	return owner_known_outside(m) ? sync_own_os_thread() : 0;
}

GMP_HOT static int lock_glibc_wait(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs)
{
	return abs ? real_pthread_mutex_clocklock(m, clk, abs) : real_pthread_mutex_lock(m);
}

GMP_HOT static int lock_glibc(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs)
{
	int err = own_os_thread(m);
	if (err)
		return err;
	/* glibc's lock, first without waiting; then it waits in the kernel
	 * on the mutex's word, as a system call whose P is handed on at once
	 * (the holder may be queued on it) */
	if (abs && !sync_clock_ok(clk))
		return EINVAL;	/* glibc's answer before it tries the lock */
	/* (not a robust one: glibc's trylock of a robust mutex that is not
	 * recoverable leaves it locked, where its lock leaves it free) */
	bool robust = __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED) & KIND_ROBUST;
	int r = robust ? EBUSY : real_pthread_mutex_trylock(m);
	if (r != EBUSY || !getg())
		return r == EBUSY ? lock_glibc_wait(m, clk, abs) : r;
	/* libgmp's own code follows (a light entry has no scope): inside
	 * libgmp, with or without a P (kwait.h) */
	GMP_LIB_SCOPE_NOSYNC;
	g_syscall_enter_wait();
	/* it holds the mutex then: it runs on at once, without a P */
	return lock_glibc_wait(m, clk, abs);
}

/* --- the API ------------------------------------------------------------------ */

GMP_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	gmp_init();
	/* glibc checks the attributes and writes __kind; the rest is zero,
	 * which is our unlocked state */
	return real_pthread_mutex_init(m, attr);
}

GMP_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m)
{
	GMP_ENTRY(pthread_mutex_destroy, m);
	if (glibcs(m))
		return real_pthread_mutex_destroy(m);
	if (ld_acq(mstate(m)) & (M_LOCKED | M_WAITERS))
		return EBUSY;
	/* as glibc: a destroyed mutex is invalid until initialised again */
	__atomic_store_n(&m->__data.__kind, -1, __ATOMIC_RELAXED);
	return 0;
}

GMP_HOT int gmp_mutex_lock(pthread_mutex_t *m)
{
	/* The first access to a contended mutex is a read of its kind,
	 * then the CAS wants the line exclusive: ask for it so at once. */
	arch_prefetchw(m);
	if (unlikely(glibcs(m)))
		return lock_glibc(m, 0, NULL);
	int type = mtype(m);
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)
		return lock_owned(m, type, LOCK_WAIT, 0, NULL);
	return lock_plain(m, 0);
}

GMP_HOT GMP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	GMP_ENTRY_LIGHT(pthread_mutex_lock, m);
	return gmp_mutex_lock(m);
}

GMP_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	GMP_ENTRY_LIGHT(pthread_mutex_trylock, m);
	if (unlikely(glibcs(m))) {
		int err = own_os_thread(m);
		return err ? err : real_pthread_mutex_trylock(m);
	}
	int type = mtype(m);
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)
		return lock_owned(m, type, LOCK_TRY, 0, NULL);
	return trylock_plain(m);
}

static int clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs)
{
	if (!sync_clock_ok(clk))
		return EINVAL;
	int type = mtype(m);
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK)
		return lock_owned(m, type, LOCK_TIMED, clk, abs);
	if (!trylock_plain(m))
		return 0;
	int64_t deadline;
	int r = wait_deadline(m, clk, abs, &deadline);
	return r ? r : lock_slow(m, deadline);
}

GMP_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *abs)
{
	GMP_ENTRY(pthread_mutex_timedlock, m, abs);
	if (unlikely(glibcs(m)))
		return lock_glibc(m, CLOCK_REALTIME, abs);
	return clocklock(m, CLOCK_REALTIME, abs);
}

GMP_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t clk, const struct timespec *abs)
{
	GMP_ENTRY(pthread_mutex_clocklock, m, clk, abs);
	if (unlikely(glibcs(m)))
		return lock_glibc(m, clk, abs);
	return clocklock(m, clk, abs);
}

GMP_HOT int gmp_mutex_unlock(pthread_mutex_t *m, bool may_yield)
{
	arch_prefetchw(m);	/* as gmp_mutex_lock */
	if (unlikely(glibcs(m)))
		return real_pthread_mutex_unlock(m);
	unsigned kind = (unsigned)__atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
	int type = (int)(kind & 3u);
	if (type == PTHREAD_MUTEX_RECURSIVE || type == PTHREAD_MUTEX_ERRORCHECK) {
		if (owner(m) != sync_self_id())
			return EPERM;
		if (type == PTHREAD_MUTEX_RECURSIVE && --m->__data.__count != 0)
			return 0;
		m->__data.__count = 0;
		set_owner(m, 0);
	} else if (unlikely(kind & KIND_PI) && owner(m) != sync_self_id()) {
		return EPERM;	/* glibc's priority-inheritance mutexes check, whatever the type */
	}
	unlock_plain(m, may_yield);
	return 0;
}

GMP_HOT GMP_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	/* no door: a loop of unlocks alone is no loop */
	GMP_PASS(pthread_mutex_unlock, m);
	return gmp_mutex_unlock(m, true);
}

/* glibc's old internal names, still exported and used by some programs */
GMP_ALIAS(__pthread_mutex_init, pthread_mutex_init);
GMP_ALIAS(__pthread_mutex_destroy, pthread_mutex_destroy);
GMP_ALIAS(__pthread_mutex_lock, pthread_mutex_lock);
GMP_ALIAS(__pthread_mutex_trylock, pthread_mutex_trylock);
GMP_ALIAS(__pthread_mutex_unlock, pthread_mutex_unlock);
