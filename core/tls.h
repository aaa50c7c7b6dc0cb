/* SPDX-License-Identifier: MIT */
/*
 * core/tls.h — per-G thread-local storage: glue to glibc's TLS and thread
 * descriptor, whose layout core/layout.c finds at start-up.
 *
 * Every G owns a glibc TCB (struct pthread) with its static TLS block
 * below it, placed at the top of the G's stack as nptl does. The thread
 * pointer of a G is its TCB address, which is also its pthread_t. G TCBs
 * are registered in ld.so's dl_stack_user list so that dlopen initialises
 * their static TLS and dlclose waits for them; they carry a unique fake
 * kernel tid so that glibc's recursive locks tell Gs apart.
 *
 * Functions marked "valid TLS" call into glibc (malloc, free) and must run
 * on a G or a real thread, never on g0.
 */
#ifndef GMP_CORE_TLS_H
#define GMP_CORE_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct g;

struct tls_info {
	size_t block;		/* static TLS + TCB: bytes a stack top gives up */
	size_t align;		/* alignment of the thread pointer */
	size_t tcb_size;	/* sizeof(struct pthread) */
};
extern struct tls_info tls;

/* Find glibc's layout and resolve its private entry points. Returns false,
 * with why[] saying what was not found, where this cannot be done with
 * certainty; the caller then passes every call through to glibc. Valid
 * TLS, main thread, before any G exists (starts and joins one thread). */
bool tls_init(char *why, size_t len);

/* Learn which words of libc's TLS block hold malloc's per-thread state,
 * so recycled TCBs keep them (no leak per thread). Valid TLS; call once
 * after tls_init, before any G exists. */
void tls_probe_malloc(void);

/* Thread pointer for a TCB whose block ends at `top` (page aligned or
 * not): the TCB sits just below top, the static TLS below the TCB. */
uintptr_t tls_tp_for_top(char *top);

/*
 * Prepare the TCB at tp for gp: a fresh one (first use of this memory:
 * allocate the DTV, copy the TLS images, register with ld.so) or a
 * recycled one (re-initialise in place, keeping malloc's per-thread
 * cache). Valid TLS. Returns 0 or EAGAIN (out of memory).
 */
int tls_setup(struct g *gp, uintptr_t tp, char *stack_base, size_t stack_size,
	      size_t guard, bool recycle);
/* Retire the TCB at tp for good (its memory is going away): free the
 * DTV, unregister, hand malloc's per-thread cache to the next fresh TCB.
 * Valid TLS. May be called by the G owning tp as its last use of TLS
 * (user-supplied stacks): it must not allocate afterwards. */
void tls_release(uintptr_t tp);

/* On the G, before its start routine: what glibc's start_thread does on a
 * new thread's own TLS (ctype tables, resolver state). */
void tls_enter(uintptr_t tp);
/* On the G, after its start routine: C++ thread_local destructors (glibc
 * runs them before pthread key destructors). */
void tls_run_dtors(void);
/* On the G, after every destructor: free glibc's per-thread buffers. */
void tls_exit(uintptr_t tp);

/* The G owning TCB tp ends: its robust mutexes still held (their futex
 * word holds the TCB's tid) get FUTEX_OWNER_DIED and a waiter is woken,
 * as the kernel does for an exiting thread. */
void tls_robust_release(uintptr_t tp);

/* The tid glibc knows for the thread of TCB tp (THREAD_SELF->tid): a G's
 * fake tid, or the kernel tid of the OS thread a G is dedicated to when
 * glibc must hand it to the kernel (priority-protect mutexes,
 * process-shared robust and priority-inheritance ones). */
int tls_tid(uintptr_t tp);
void tls_set_tid(uintptr_t tp, int tid);

/*
 * On the OS thread of kernel tid `tid`, which the G owning TCB tp keeps
 * for the rest of its life: glibc's tid for it becomes `tid`, the robust
 * mutexes it holds are rewritten from its old tid to the new one (futex
 * word and owner), and the kernel's robust list of this OS thread becomes
 * the G's, so that the kernel marks them FUTEX_OWNER_DIED if the process
 * dies. Returns the old tid.
 */
int tls_take_tid(uintptr_t tp, int tid);
/* The calling OS thread's robust list, for the kernel, becomes the one of
 * TCB tp (an M's own again when its dedicated G ends). */
void tls_robust_register(uintptr_t tp);
/* In a child of fork, on its G: the robust mutexes the parent held are not
 * the child's (glibc empties the list of the thread that forked). */
void tls_robust_forget(uintptr_t tp);
/* Where that tid lives in the TCB (glibc's clear_child_tid word). */
int *tls_tid_addr(uintptr_t tp);

/* Make the calling thread's own TCB (the initial thread's) gp's. */
void tls_adopt_current(struct g *gp);
/* In the child of fork, made while the thread pointer named the M's own
 * TCB (tp_m): glibc has emptied its list of user TCBs; put the G's TCB
 * (tp_g) back on it, and take the M's TCB off glibc's lists when libgmp
 * made it. Resets libgmp's own TLS locks. */
void tls_after_fork(uintptr_t tp_g, uintptr_t tp_m, bool m_tcb_ours);

/* A TCB of its own for an M whose OS thread's TCB belongs to a G (the
 * initial thread's M): not a G's (getg() is NULL on it), carrying the
 * M's kernel tid. Valid TLS; returns 0 on failure. */
uintptr_t tls_new_m_tcb(int tid);

#endif
