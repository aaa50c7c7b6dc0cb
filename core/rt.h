/* SPDX-License-Identifier: MIT */
/*
 * core/rt.h — vocabulary shared by every core file: atomics with the memory
 * order in their name, the assert-and-die policy, and the async-signal-safe
 * writer. Everything here is usable on a scheduler stack (g0), where %fs
 * still names some G's TLS and nothing may touch errno, malloc or stdio.
 */
#ifndef GMP_CORE_RT_H
#define GMP_CORE_RT_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86_64/arch.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
/* A function on the paths a thread takes between two waits of its own
 * (a lock and its unlock, a process-shared object's wait and post): the
 * compiler puts these together (.text.hot), so that a thread woken with
 * cold caches fetches a few lines of libgmp's code, not one per call. */
#define GMP_HOT __attribute__((hot))
#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Atomics. A field declared _Atomic has concurrent accessors; every access
 * names its ordering. Plain fields say in a comment what protects them.
 */
#define ld_rlx(p) atomic_load_explicit((p), memory_order_relaxed)
#define ld_acq(p) atomic_load_explicit((p), memory_order_acquire)
#define st_rlx(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define st_rel(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define xadd(p, v) atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define xadd_rlx(p, v) atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#define xchg(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)
/* Strong CAS; on failure *expp receives the current value. */
#define cas(p, expp, v) \
	atomic_compare_exchange_strong_explicit((p), (expp), (v), memory_order_acq_rel, memory_order_acquire)
/* CAS from a known value, for the many places that only want a yes/no. */
#define cas_val(p, old, v) ({ __typeof__(old) o__ = (old); cas((p), &o__, (v)); })
#define fence_seq() atomic_thread_fence(memory_order_seq_cst)

/* --- assert-and-die ------------------------------------------------------ */

/* Print "gmp: fatal: <msg>" and abort the process. msg is a constant string
 * that starts with the function name. Safe anywhere, allocation-free. */
_Noreturn void rt_throw(const char *msg);
#define rt_assert(cond, msg) do { if (unlikely(!(cond))) rt_throw(msg); } while (0)

/* --- async-signal-safe output -------------------------------------------- */

/* printf subset: %s %c %d %u %ld %lu %lld %llu %x %lx %p %%, with an
 * optional width and '-' or '0' flag. Writes with raw write(2); never
 * allocates, never touches errno. Output longer than 1 KiB is cut. */
void rt_printf(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int rt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap);
int rt_snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Write all of buf to fd with raw write(2), retrying on EINTR/short writes. */
void rt_write_all(int fd, const char *buf, size_t len);

/* --- time ------------------------------------------------------------------ */

/* CLOCK_MONOTONIC in nanoseconds, through the vDSO (no errno, no TLS). */
int64_t rt_nanotime(void);
/* CLOCK_REALTIME in nanoseconds. */
int64_t rt_walltime(void);

/* Raw mmap/munmap/mremap wrappers: return MAP_FAILED-style NULL on error. */
void *rt_mmap(size_t len, int prot, int flags);
int rt_munmap(void *p, size_t len);

#endif
