/* SPDX-License-Identifier: MIT */
/*
 * core/os.h — the operating system as the core sees it: futexes, OS
 * threads, CPU counts, and the libc entry points the core must reach
 * without going through libgmp's own interposed symbols (rule 2 of
 * DESIGN.md).
 */
#ifndef GMP_CORE_OS_H
#define GMP_CORE_OS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Resolve the libc functions below. Idempotent; called by rt_init before
 * anything else and safe to call from any thread with valid TLS. */
void os_init(void);

/* libc's clock_gettime (vDSO-backed; never fails for the clocks we use). */
extern int (*os_clock_gettime)(clockid_t, struct timespec *);

/* Start a real glibc thread (an M or a runtime service thread) running
 * fn(arg). Must be called with valid TLS (a G or a real thread, never g0).
 * Returns 0 or an errno value. */
int os_thread_start(void *(*fn)(void *), void *arg, size_t stacksize);
/* os_thread_start for a thread that starts with a real-time policy and
 * priority, set from the caller's side before it runs (glibc's explicit
 * scheduling): the kernel preempts the caller at once where the new
 * thread outranks it on a CPU they share, as for NPTL's threads. Without
 * the privilege the thread starts as os_thread_start's would. */
int os_thread_start_sched(void *(*fn)(void *), void *arg, size_t stacksize, int policy, int prio);

/* Kernel thread id of the calling OS thread. */
int os_gettid(void);

/* Private futex operations on a 32-bit word. os_futex_wait returns 0 when
 * woken (or spuriously), -ETIMEDOUT, -EAGAIN when *addr != val, -EINTR.
 * rel_ns < 0 means no timeout. */
int os_futex_wait(_Atomic uint32_t *addr, uint32_t val, int64_t rel_ns);
int os_futex_wake(_Atomic uint32_t *addr, int n);

/* libgmp's own system calls, counted for gmprun --stats (relaxed: a
 * count, not a synchronization). Thread-pointer writes made while
 * switching Gs are counted per M (struct m's ntpw); OSC_TPW counts the
 * others (os_set_fs). */
enum os_count {
	OSC_TPW,		/* thread-pointer writes outside the switch */
	OSC_FUTEX_WAIT,		/* futex sleeps: idle Ms, runtime locks, non-G waiters */
	OSC_FUTEX_WAKE,		/* futex wake-ups of those */
	OSC_EPOLL_WAIT,		/* epoll_wait calls of the netpoller */
	OSC_EVENTFD,		/* writes to the netpoller's wake-up eventfd */
	OSC_SIGNAL,		/* signals sent to Ms (preemption, routing) */
	OSC_SIGMASK,		/* signal-mask changes of Ms (a G's own mask) */
	OSC_N
};
extern _Atomic uint64_t os_counts[OSC_N];
#define os_count(c) atomic_fetch_add_explicit(&os_counts[(c)], 1, memory_order_relaxed)
/* Write the thread pointer outside a switch (counted). */
void os_set_fs(uintptr_t tp);

/* CPUs the process may use: affinity mask, capped by the cgroup v2/v1 CPU
 * quota (rounded up). At least 1. */
int os_ncpu(void);

/* The executable range [lo, hi) of the object (libgmp, or the program
 * the core is linked into) holding addr. 0 or -1. */
int os_text_range(const void *addr, uintptr_t *lo, uintptr_t *hi);
/* Executable ranges of the C library, the dynamic loader and the vDSO:
 * up to max of them into lo[]/hi[]. Returns how many. Valid TLS. */
int os_libc_text_ranges(uintptr_t *lo, uintptr_t *hi, int max);
/* The initial thread's stack: [*lo, *hi), lo as far as RLIMIT_STACK lets
 * it grow. 0 or -1. Valid TLS. */
int os_main_stack(uintptr_t *lo, uintptr_t *hi);
/* Call fn(tid, arg) for every OS thread of the process (/proc/self/task;
 * fn may be NULL) and return how many there are, or -1. TLS-free: raw
 * system calls, no allocation. */
int os_each_task(void (*fn)(int tid, void *arg), void *arg);
/* CPU time (ns) the OS thread tid of this process has used, or -1.
 * TLS-free (one system call). */
int64_t os_thread_cputime(int tid);
/* How long thread tid of this process has waited, runnable, for a CPU
 * (ns; /proc/self/task/TID/schedstat), or -1. TLS-free. */
int64_t os_thread_waittime(int tid);
/* Where thread tid of this process is blocked, from the kernel's record
 * (/proc/self/task/TID/syscall): the system call's number, the user
 * stack pointer and the address the call returns to. Returns 0 when the
 * thread is in a system call, 1 when it runs or is outside one, -1 on an
 * error. TLS-free, no malloc. */
struct os_blocked {
	long nr;
	uintptr_t sp, pc;
};
int os_thread_blocked(int tid, struct os_blocked *b);
/* os_thread_blocked's -2: the file may not be opened (a process that
 * changed its credentials is no longer dumpable, and its /proc files
 * other than the world-readable ones belong to root). Is the thread in an
 * interruptible sleep (state S in /proc/self/task/TID/stat, readable by
 * all): 1 yes, 0 no, -1 on an error. A vfork parent, and disk waits, are
 * in D. TLS-free, no malloc. */
int os_thread_sleeping(int tid);
/* Register for, and make, an expedited private memory barrier: every
 * running thread of the process passes a full barrier before
 * os_membarrier returns (threads not running pass one when they next
 * run). os_membarrier_init returns 0, or -1 where the kernel has none. */
int os_membarrier_init(void);
void os_membarrier(void);
/* Does the file name of a loaded object (a path) begin, past its last
 * '/', with prefix ("libc.so")? */
bool os_object_is(const char *path, const char *prefix);

/* Page size (4096 on x86-64 Linux; read once from the auxiliary vector). */
extern size_t os_pagesize;

#endif
