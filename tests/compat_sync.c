/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_sync.c — compat tests of synchronisation (suite "sync"):
 * mutexes of every type and protocol, condvars (also glibc 2.2.5's),
 * rwlocks, barriers, spinlocks, once, keys, semaphores, C11 and C++20
 * primitives, the futex system call, cancellation, threads glibc starts
 * itself, and Rust's std::sync. Each test runs one subcommand of an
 * ordinary pthread program from tests/progs/sync_* in a child process,
 * with a timeout: first under NPTL, where it must pass, then with libgmp
 * preloaded (never into this runner), with the default processors and
 * with GMPMAXPROCS=1. Every program prints only what is deterministic, so
 * libgmp's output and exit status must be identical to NPTL's.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds one run of a program may take (they need well under 2 s under
 * NPTL); a test makes at most three runs. */
#define RUN_TIMEOUT 30
#define TEST_TIMEOUT (3 * RUN_TIMEOUT + 10)

/* One run of prog with subcommand sub (may be NULL). procs: -1 under
 * NPTL, 0 under libgmp with its default, n > 0 with GMPMAXPROCS=n. */
static struct run run_sync(const char *prog, const char *sub, int procs)
{
	char path[4096], env1[32];
	snprintf(path, sizeof path, "%s", prog_path(prog));
	snprintf(env1, sizeof env1, "GMPMAXPROCS=%d", procs);
	const char *argv[] = {path, sub, NULL};
	const char *env[] = {procs > 0 ? env1 : NULL, NULL};
	return run_prog(argv, env, RUN_TIMEOUT, procs >= 0);
}

/*
 * The test proper: prog sub passes under NPTL (exit 0, its PASS line
 * last), and libgmp, with the default processors and with one, prints
 * exactly the same and exits the same. Each line in `lines` (NULL-ended,
 * may be NULL) must be in the output.
 */
static void same_as_nptl(const char *prog, const char *sub, const char *const lines[],
			 int nvariants)
{
	char what[256], pass[300];
	snprintf(what, sizeof what, "%s%s%s", prog, sub ? " " : "", sub ? sub : "");
	snprintf(pass, sizeof pass, "PASS %s\n", what);

	struct run nptl = run_sync(prog, sub, -1);
	size_t ol = strlen(nptl.out), pl = strlen(pass);
	bool passed = run_code(&nptl) == 0 && ol >= pl && strcmp(nptl.out + ol - pl, pass) == 0;
	if (!passed)
		run_dump("under NPTL", &nptl);
	cr_assert(passed, "%s does not pass under NPTL (code %d)", what, run_code(&nptl));
	for (int i = 0; lines && lines[i]; i++)
		cr_assert(strstr(nptl.out, lines[i]), "%s: output lacks \"%s\"", what, lines[i]);

	static const int procs[] = {0, 1};
	for (int k = 0; k < nvariants; k++) {
		struct run gmp = run_sync(prog, sub, procs[k]);
		const char *how = procs[k] ? "under libgmp, GMPMAXPROCS=1" : "under libgmp";
		bool same = strcmp(nptl.out, gmp.out) == 0;
		if (!same || run_code(&gmp) != 0) {
			run_dump(how, &gmp);
			run_show_difference(nptl.out, gmp.out);
		}
		cr_assert_eq(run_code(&gmp), 0, "%s %s: exit code %d%s", what, how, run_code(&gmp),
			     gmp.timed_out ? " (timed out)" : "");
		cr_assert(same, "%s: output %s differs from NPTL's", what, how);
		run_free(&gmp);
	}
	run_free(&nptl);
}

#define LINES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Test `name`: prog sub as same_as_nptl says, with the lines (LINES(...)
 * or NULL) in its output. */
#define SAME_AS_NPTL(name, prog, sub, lines) \
	Test(sync, name, .timeout = TEST_TIMEOUT) \
	{ \
		same_as_nptl(prog, sub, lines, 2); \
	}

/* ---- 1. mutexes (sync_mutex) ------------------------------------------------------------ */

/* 1,000 threads on one counter under each mutex type, made by
 * pthread_mutex_init and by the static initializers
 * (PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP ...): exact totals, recursive
 * ones locked 3 deep; afterwards each still behaves as its type. */
SAME_AS_NPTL(mutex_types_thousand_threads, "sync_mutex", "counter",
	     LINES("recursive mutex (static initializer): 1000 threads x 40 "
		   "increments, locked 3 deep = 40000"))

/* trylock, timedlock, clocklock (REALTIME, MONOTONIC) and 1 ms attempts
 * that time out, mixed on default and recursive mutexes: exact totals. */
SAME_AS_NPTL(mutex_trylock_timedlock_clocklock_mix, "sync_mutex", "mix", NULL)

/* __pthread_mutex_lock/__pthread_mutex_unlock (glibc's old exported
 * aliases, GLIBC_2.2.5) and pthread_mutex_* on one mutex. */
SAME_AS_NPTL(mutex_old_aliases, "sync_mutex", "alias", NULL)

/* PTHREAD_PRIO_INHERIT mutexes: contended locking, trylock EBUSY and
 * timedlock ETIMEDOUT from threads that share OS threads (glibc's PI
 * futexes would give the kernel a tid it does not know; libgmp serves
 * them). */
SAME_AS_NPTL(mutex_priority_inheritance, "sync_mutex", "pi", NULL)

/* Robust mutexes (glibc's): contended counter; when the owner thread
 * ends holding the mutex, the next locker (and one already waiting) gets
 * EOWNERDEAD; without pthread_mutex_consistent it becomes
 * ENOTRECOVERABLE. Under NPTL the kernel marks the owner dead when its OS
 * thread exits; under libgmp, libgmp does when the G ends. */
SAME_AS_NPTL(mutex_robust_owner_ends, "sync_mutex", "robust",
	     LINES("lock after the owner ended: EOWNERDEAD",
		   "waiter when the owner ended: EOWNERDEAD",
		   "lock: ENOTRECOVERABLE"))

/* PTHREAD_PRIO_PROTECT mutexes (glibc's): glibc raises the owner's
 * kernel thread to the ceiling, so a SCHED_OTHER thread gets EINVAL and,
 * as root, a SCHED_FIFO one locks it (libgmp gives the thread an OS thread
 * of its own, with its policy, whose tid glibc hands to the kernel). */
SAME_AS_NPTL(mutex_priority_protect, "sync_mutex", "pp",
	     LINES("SCHED_OTHER thread, priority 0\n  lock: EINVAL"))

/* PTHREAD_PROCESS_SHARED mutex and condvar in shared memory, used by the
 * threads of this process and of a forked child: exact total, turns. */
SAME_AS_NPTL(mutex_and_cond_process_shared_across_fork, "sync_mutex", "pshared", NULL)

/* A thread takes and releases a mutex in a tight loop; another that wants
 * it once gets it before the loop ends (libgmp's hand-off after a 1 ms
 * wait, and its time slices). Under libgmp only, with 2 processors and
 * with 1: NPTL promises nothing here. */
Test(sync, mutex_waiter_does_not_starve, .timeout = TEST_TIMEOUT)
{
	static const int procs[] = {0, 1};
	for (int k = 0; k < 2; k++) {
		struct run gmp = run_sync("sync_mutex", "starve", procs[k]);
		bool ok = run_code(&gmp) == 0 && strstr(gmp.out, "PASS sync_mutex starve");
		if (!ok)
			run_dump(procs[k] ? "under libgmp, GMPMAXPROCS=1" : "under libgmp", &gmp);
		cr_assert(ok, "sync_mutex starve under libgmp (GMPMAXPROCS %s): code %d%s",
			  procs[k] ? "1" : "default", run_code(&gmp), gmp.timed_out ? " (timed out)" : "");
		run_free(&gmp);
	}
}

/* ---- 2. producers and consumers (sync_queue) --------------------------------------------- */

/* Bounded queues on a mutex and two condvars, 8x8, 1x16, 16x1 and 4x4
 * with capacity 1; waking by signal, broadcast, 2 ms timed waits,
 * MONOTONIC condattr and clockwait: every item taken once (checksums). */
SAME_AS_NPTL(cond_producer_consumer_queues, "sync_queue", "cond",
	     LINES("cond queue, signal, 8x8, capacity 16: 16000 items, checksums match"))

/* The same queues through pthread_cond_*@GLIBC_2.2.5, the symbols old
 * binaries still call (glibc serves them with a compat implementation). */
SAME_AS_NPTL(cond_glibc_2_2_5_symbols, "sync_queue", "old", NULL)

/* The queue on semaphores: sem_wait/trywait/timedwait/clockwait/post;
 * sem_getvalue afterwards. */
SAME_AS_NPTL(semaphore_producer_consumer_queues, "sync_queue", "sem", NULL)

/* ---- 3. rwlocks (sync_rwlock) ------------------------------------------------------------ */

/* Writers keep two fields equal, readers check; all lock variants mixed;
 * default and writer-preferring kinds (attribute and static initializer). */
SAME_AS_NPTL(rwlock_readers_writers_invariant, "sync_rwlock", "invariant", NULL)

/* With a writer waiting: a reader's re-lock succeeds for the default kind
 * (no deadlock); PREFER_WRITER_NONRECURSIVE_NP turns new readers away
 * (tryrdlock EBUSY) and makes the re-lock time out. */
SAME_AS_NPTL(rwlock_preference_while_a_writer_waits, "sync_rwlock", "prefer",
	     LINES("default: the reader's own re-lock (rdlock): 0",
		   "PREFER_WRITER_NONRECURSIVE_NP: writer waits; another thread's "
		   "tryrdlock: EBUSY"))

/* EBUSY, ETIMEDOUT (past and 20 ms, both clocks), EDEADLK for a writer
 * that locks again, EINVAL for tv_nsec = 1e9 and bad clocks. */
SAME_AS_NPTL(rwlock_error_codes, "sync_rwlock", "errors",
	     LINES("holding the write lock; wrlock: EDEADLK"))

/* ---- 4, 5. barriers, spinlocks, once, keys, C11, futex (sync_misc) ----------------------- */

/* One PTHREAD_BARRIER_SERIAL_THREAD per round and every value written
 * before the barrier seen after it (2, 16 and 100 threads); count 0 is
 * EINVAL. */
SAME_AS_NPTL(barrier_rounds, "sync_misc", "barrier", LINES("pthread_barrier_init count 0: EINVAL"))

/* More threads than CPUs on a spinlock whose holders yield and sleep
 * inside it: exact total (a spinner must not keep the holder from
 * running when they share a processor). */
SAME_AS_NPTL(spinlock_holders_sleep, "sync_misc", "spin", NULL)

/* pthread_once from 100 threads at once with a sleeping init routine:
 * it runs once and nobody returns before it finished. */
SAME_AS_NPTL(once_from_many_threads, "sync_misc", "once",
	     LINES("it ran 1 time(s), every caller saw it done"))

/* pthread_once whose routine is cancelled: a waiting caller runs it
 * again, as glibc does. */
SAME_AS_NPTL(once_routine_cancelled, "sync_misc", "once-cancel",
	     LINES("the waiting caller ran the routine again: runs 2"))

/* Keys created and deleted; destructors that set values again run more
 * rounds, at most PTHREAD_DESTRUCTOR_ITERATIONS, in 50 threads at once. */
SAME_AS_NPTL(keys_destructor_rounds, "sync_misc", "keys", NULL)

/* C11 mtx (plain, recursive, timed), cnd, tss and call_once. */
SAME_AS_NPTL(c11_mtx_cnd_tss_call_once, "sync_misc", "c11",
	     LINES("C11: mtx_timedlock held elsewhere, 20 ms: thrd_timedout"))

/* The futex system call made directly: a futex mutex under contention,
 * an event many wait for, and EAGAIN/ETIMEDOUT/EINVAL answers. */
SAME_AS_NPTL(futex_syscall, "sync_misc", "futex", LINES("FUTEX_WAIT, value differs: -1 EAGAIN"))

/* ---- 6. error codes (sync_errors) -------------------------------------------------------- */

/* Per mutex type: EDEADLK, EPERM, EBUSY, ETIMEDOUT, EINVAL exactly as
 * NPTL answers them. */
SAME_AS_NPTL(mutex_error_codes, "sync_errors", "mutex",
	     LINES("errorcheck: owner locks again: EDEADLK",
		   "recursive: another thread unlocks: EPERM",
		   "adaptive: destroy while held: EBUSY"))

/* Timed condvar waits expire (REALTIME, MONOTONIC condattr, clockwait)
 * and leave the mutex held; EINVAL, EPERM as NPTL answers them. */
SAME_AS_NPTL(cond_error_codes, "sync_errors", "cond",
	     LINES("cond_wait, errorcheck mutex not held: EPERM"))

/* Semaphore errno values, including EINTR for a SA_RESTART signal. */
SAME_AS_NPTL(semaphore_error_codes, "sync_errors", "sem",
	     LINES("sem_post at SEM_VALUE_MAX: -1 EOVERFLOW",
		   "sem_timedwait interrupted by a SA_RESTART signal: -1 EINTR"))

/* EINVAL for bad mutex, condvar and rwlock attribute values. */
SAME_AS_NPTL(attribute_error_codes, "sync_errors", "attr", NULL)

/* ---- 7. threads glibc makes (sync_foreign) ----------------------------------------------- */

/* A SIGEV_THREAD timer callback (glibc's helper thread) and a thread
 * signal each other through condvars and semaphores, both ways. */
SAME_AS_NPTL(timer_callback_handshakes, "sync_foreign", "timer", NULL)

/* glibc's own threads (and timer callbacks) block in pthread_mutex_lock
 * while a program thread holds the mutex; exact total afterwards. */
SAME_AS_NPTL(glibc_threads_share_a_mutex, "sync_foreign", "counter", NULL)

/* A glibc thread and a program thread take turns (condvar, semaphores). */
SAME_AS_NPTL(glibc_thread_takes_turns, "sync_foreign", "turns", NULL)

/* ---- 8. C++20 (sync_cxx) ----------------------------------------------------------------- */

/* Function-local statics reached by 64 threads at once wait in
 * __cxa_guard_acquire (futex); a throwing constructor is retried. */
SAME_AS_NPTL(cxx_function_local_statics, "sync_cxx", "statics",
	     LINES("4 statics whose constructors sleep: 4 constructions",
		   "2 attempts, 1 thread(s) got the exception"))

/* std::mutex, recursive_mutex, timed_mutex: exact totals of 64 threads;
 * try_lock_for/try_lock_until fail while another thread holds it. */
SAME_AS_NPTL(cxx_mutexes, "sync_cxx", "mutex", NULL)

/* std::condition_variable: a 4x4 bounded queue with checksums;
 * wait_for times out when nobody notifies. */
SAME_AS_NPTL(cxx_condition_variable, "sync_cxx", "condvar", NULL)

/* std::shared_mutex and shared_timed_mutex: writers keep two fields
 * equal, readers check them; timed attempts fail while a writer holds it. */
SAME_AS_NPTL(cxx_shared_mutex, "sync_cxx", "shared", NULL)

/* std::async (100 tasks), a shared_future 32 threads wait on, an
 * exception carried through a promise from another thread. */
SAME_AS_NPTL(cxx_async_and_futures, "sync_cxx", "async", NULL)

/* std::latch: nobody passes before all arrived; std::barrier: its
 * completion runs once a phase. libstdc++ builds both (and the two tests
 * below) on std::atomic wait/notify, i.e. on the futex system call. */
SAME_AS_NPTL(cxx_latch_and_barrier, "sync_cxx", "latch", NULL)

/* std::counting_semaphore<4> never lets more than 4 in; a
 * binary_semaphore ping-pong of 1000 round trips. */
SAME_AS_NPTL(cxx_semaphores, "sync_cxx", "semaphore", NULL)

/* std::atomic<int>::wait/notify_one ping-pong; notify_all wakes all 32. */
SAME_AS_NPTL(cxx_atomic_wait_notify, "sync_cxx", "atomic-wait", NULL)

/* ---- 9. cancellation (sync_cancel, sync_cxx cancel) -------------------------------------- */

/* Cancelled in cond_wait/timedwait/clockwait (handler runs with the
 * mutex held), sem_wait, sem_timedwait, join, nanosleep,
 * clock_nanosleep: PTHREAD_CANCELED; mutex_lock is no cancellation
 * point. */
SAME_AS_NPTL(cancel_at_blocking_points, "sync_cancel", "points",
	     LINES("  cleanup handler: the mutex is held again; unlock: 0",
		   "sem_wait: cancel 0, join 0, result PTHREAD_CANCELED"))

/* Nested pthread_cleanup_push/pop in C: order p321. */
SAME_AS_NPTL(cancel_cleanup_handler_order, "sync_cancel", "cleanup",
	     LINES("handlers ran in the order p321"))

/* PTHREAD_CANCEL_DISABLE holds the cancel back until re-enabled; then
 * pthread_testcancel acts. */
SAME_AS_NPTL(cancel_disabled_then_enabled, "sync_cancel", "disabled",
	     LINES("the thread reached step 2 of 3"))

/* PTHREAD_CANCEL_ASYNCHRONOUS ends a thread in a loop without calls,
 * also with one processor, where the canceller runs only while the busy
 * thread is preempted: the cancellation acts when it runs again. */
SAME_AS_NPTL(cancel_asynchronous, "sync_cancel", "async", NULL)

/* C++: cancelled in pthread_cond_wait; locals' destructors, the cleanup
 * handler and a catch (abi::__forced_unwind &) that rethrows run in
 * order. */
SAME_AS_NPTL(cxx_cancel_runs_destructors, "sync_cxx", "cancel",
	     LINES("cleanup handler: unlock the mutex: 0\ndestructor: inner frame's "
		   "local\ncatch (abi::__forced_unwind &): rethrow\ndestructor: outer "
		   "frame's local"))

/* A futex word in a MAP_SHARED file mapping, waited on without
 * FUTEX_PRIVATE_FLAG by a thread of one process and woken through the
 * kernel by another process, both ways. */
SAME_AS_NPTL(futex_shared_between_processes, "sync_xfutex", NULL,
	     LINES("shared futex between two processes: 5 rounds each way"))

/* ---- 10. Rust (sync_rust) ---------------------------------------------------------------- */

/* std::sync::Mutex, Condvar, mpsc (64 producers), RwLock, Barrier, Once:
 * Rust's std builds them on the futex system call. Built only when
 * configure found rustc. */
Test(sync, rust_std_sync, .timeout = TEST_TIMEOUT)
{
	if (access(prog_path("sync_rust"), X_OK) != 0)
		cr_skip("tests/progs/sync_rust was not built (no rustc)");
	same_as_nptl("sync_rust", NULL, LINES("mpsc::channel, 64 producers x 1000: 64000 received"), 2);
}
