/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_posix.c — compat tests of POSIX conformance (suite
 * "posix"). Each test runs a tests/progs/posix_* program in a child
 * process with a timeout: first under NPTL, where it must pass, then with
 * libgmp preloaded (never into this runner), with the default processors
 * and with one, and compares output and exit status.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>

#define RUN_TIMEOUT 30
#define TEST_TIMEOUT (3 * RUN_TIMEOUT + 10)

/* Every thread function's answer for a running thread, an ended one, a
 * joined one, a detached one (three ways) and the caller itself. */
Test(posix, answers_in_each_part_of_a_threads_life, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_life", "life", RUN_TIMEOUT);
}

/* pthread_kill to a thread in each kind of wait: the handler (which
 * locks, waits and posts) runs during the wait, which goes on or ends
 * with EINTR as under NPTL; without SA_RESTART and with it. */
Test(posix, a_signal_to_a_waiting_thread_runs_its_handler, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_signals", "plain", RUN_TIMEOUT);
}

Test(posix, a_restarting_handler_resumes_the_wait, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_signals", "restart", RUN_TIMEOUT);
}

/* What a handler leaves in errno, the interrupted thread finds (the
 * handler run where the thread was preempted, with one processor). */
Test(posix, a_handlers_errno_is_the_interrupted_threads, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_signals", "errno", RUN_TIMEOUT);
}

/* Process-shared mutexes (every type, robust, priority-inheriting), a
 * condition variable and a barrier between a parent and the child it
 * forks: the child is another owner, and they meet on the condvar and
 * the barrier; forked by main, and by another thread. */
Test(posix, process_shared_objects_across_fork_from_main, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_fork", "main", RUN_TIMEOUT);
}

Test(posix, process_shared_objects_across_fork_from_a_thread, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_fork", "thread", RUN_TIMEOUT);
}

/* Cancellation in a condition wait on a CLOCK_MONOTONIC condvar, timed
 * or not: cancelled, cleanup run with the mutex held. */
Test(posix, cancel_in_a_monotonic_condition_wait, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_misc", "condcancel", RUN_TIMEOUT);
}

/* sem_timedwait's answers for past, malformed and negative times, on a
 * semaphore that can and one that cannot be decremented. */
Test(posix, sem_timedwait_checks_in_glibcs_order, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_misc", "semtimed", RUN_TIMEOUT);
}

/* sighold, sigrelse, sigblock, sigsetmask, siggetmask, sigset and
 * sigignore act on the thread's own mask and actions: a held signal
 * raised stays pending across the thread's moves. */
Test(posix, system_v_and_bsd_mask_functions, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_misc", "masks", RUN_TIMEOUT);
}

/* Real-time policies (explicit at creation, set by another thread, set
 * by the thread itself, inherited) are carried by the thread's own OS
 * thread in the kernel; a SCHED_OTHER thread's stays SCHED_OTHER. */
Test(posix, real_time_policies_reach_the_kernel, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_rt", "rt", RUN_TIMEOUT);
}

/* Waiters with real-time priorities, and an ordinary one, are woken from
 * a mutex, a semaphore, a condition variable and a futex word highest
 * priority first, equals in the order they came, as the kernel's futex
 * queues wake them under NPTL. */
Test(posix, real_time_waiters_wake_in_priority_order, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_rt", "wakeorder", RUN_TIMEOUT);
}

/* Without privilege, real-time policies and a lower nice value are
 * refused with glibc's errors (EPERM, EACCES). */
Test(posix, real_time_policies_need_privilege, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_rt", "unprivileged", RUN_TIMEOUT);
}

/* Signals a thread sends its process and itself, and another thread
 * sends it, are taken by sigwaitinfo in the kernel's order (its own,
 * then the process's, lowest-numbered first, queued ones in order) with
 * the sender's siginfo; none is still on its way when the send returns. */
Test(posix, signal_waits_take_signals_in_the_kernels_order, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_misc", "sigorder", RUN_TIMEOUT);
}

/* On one CPU, a SCHED_RR 20 thread and a SCHED_FIFO 10 one woken at
 * once from a condition variable run highest priority first. */
Test(posix, real_time_threads_run_in_priority_order, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_rt", "runorder", RUN_TIMEOUT);
}

/* On one CPU, a SCHED_FIFO thread that yields in a loop until main, an
 * ordinary thread, tells it to stop, from its own code and then from a
 * SIGALRM handler: main gets the CPU now and then, as the kernel gives
 * ordinary threads a share of each second. libgmp always ran the
 * real-time thread first, and main never ran again (stress-ng's mutex
 * stressor outlived its run by seconds). */
Test(posix, a_yielding_real_time_thread_leaves_ordinary_ones_a_turn, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_rt", "yieldloop", RUN_TIMEOUT);
}

/* On one CPU, main SCHED_FIFO 10: a thread created with an explicit
 * SCHED_FIFO 20 runs before pthread_create returns, a SCHED_FIFO 20
 * thread woken by sem_post before sem_post returns, and so does an
 * ordinary one main raised to SCHED_FIFO 20 while it waited. libgmp ran
 * the creator on first: the new thread's OS thread took its policy only
 * once it ran, and a readied real-time thread waited for an M to find it
 * in the queue. */
Test(posix, a_higher_real_time_thread_preempts_its_creator_and_waker, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_rt", "preempt", RUN_TIMEOUT);
}

/* flock, lockf, fcntl(F_SETLKW), semop, semtimedop, msgrcv, msgsnd and
 * the waits for children answer as glibc's, whether they need to wait
 * or not (libgmp tries their non-blocking forms first). */
Test(posix, calls_that_wait_in_the_kernel_answer_as_glibcs, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_misc", "waits", RUN_TIMEOUT);
}

/* ---- process-shared objects --------------------------------------------------------------- */

/* A thread cancelled while it waits on a process-shared condition
 * variable (realtime and monotonic clocks, with and without a deadline)
 * or semaphore (unnamed, with and without a deadline, and named) ends
 * PTHREAD_CANCELED, the condition variable's cleanup with the mutex held,
 * another waiter undisturbed. libgmp's waits there could not be
 * cancelled: the thread went on waiting. */
Test(posix, cancelling_waits_on_process_shared_objects, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_pshared", "cancel", RUN_TIMEOUT);
}

/* Process-shared condition variable, semaphore, mutex and rwlock waits
 * time out with ETIMEDOUT, and invalid deadlines and clocks are refused
 * as glibc refuses them. A condition wait with a deadline returned 0
 * where it should have timed out. */
Test(posix, process_shared_waits_time_out, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_pshared", "timeout", RUN_TIMEOUT);
}

/* A handler without SA_RESTART ends a process-shared sem_wait with EINTR,
 * one with SA_RESTART does not (the wait takes the post), but ends
 * sem_timedwait; a condition wait goes on after a handler. libgmp ended
 * sem_wait for the SA_RESTART handler too. */
Test(posix, signals_reach_process_shared_waits_as_under_nptl, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_pshared", "signal", RUN_TIMEOUT);
}

/* Across processes: a semaphore ping-pong, a broadcast to 12 waiters in 3
 * processes, a mutex counting for 3 processes. */
Test(posix, process_shared_objects_across_processes, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_pshared", "procs", RUN_TIMEOUT);
}

/* Objects that record their owner's thread id: a robust process-shared
 * mutex (plain and priority-inheritance) whose owner ends (its process
 * killed with the main thread or another thread owning it, its process
 * exiting, the owning thread ending) gives the next locker EOWNERDEAD; a
 * process-shared priority-inheritance mutex under contention from 2
 * processes counts right; process-shared recursive and error-checking
 * mutexes and an rwlock let one thread in at a time across 2 processes.
 * libgmp hung in all three: the kernel never saw its threads' robust
 * lists, FUTEX_LOCK_PI found no thread of the owner's id, and two
 * processes' first threads had the same id. */
Test(posix, owner_ids_of_process_shared_objects, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_pshared", "owners", RUN_TIMEOUT);
}

/* Real-time threads waiting on process-shared mutexes, semaphores and
 * condition variables are woken highest priority first, equals in
 * arrival order, as the kernel's futex queues do. libgmp polled the
 * semaphore: arrival order. */
Test(posix, process_shared_waits_wake_in_priority_order, .timeout = TEST_TIMEOUT)
{
	sub_same_as_nptl("posix_rt", "pwakeorder", RUN_TIMEOUT);
}
