/* SPDX-License-Identifier: MIT */
/*
 * core/kwait.h — a G waiting in the kernel on a process-shared object.
 *
 * Objects other processes may use too (process-shared mutexes, condition
 * variables, semaphores, barriers, rwlocks; named semaphores) are glibc's:
 * a G waits on them with glibc's own code, in the kernel, on the object's
 * own futex word, as a system call whose P is handed on at once. The
 * kernel wakes the waiters in its order (real-time priorities first:
 * such a G waits on an OS thread that carries its policy).
 *
 * Two of those waits are cancellation points, and glibc's code leaves
 * them only for a wake-up, a timeout or (the semaphore's) a signal
 * handler. A G marks them (kwait_begin, kwait_end); pthread_cancel, and
 * sysmon while the cancellation stays pending, interrupt the wait
 * (kwait_interrupt): a condition variable is broadcast (a spurious
 * wake-up for its other waiters, which POSIX allows; the G returns with
 * the mutex held and acts on the cancellation there, as NPTL's cleanup
 * does), a semaphore's OS thread gets a signal whose handler makes the
 * interrupted wait return EINTR (kwait_signal_here). An interrupter counts itself in kwait_users, and the G
 * leaving the wait waits for it: the object is not freed under it.
 */
#ifndef GMP_CORE_KWAIT_H
#define GMP_CORE_KWAIT_H

#include "core/g.h"

enum { KWAIT_NONE, KWAIT_COND, KWAIT_SEM };

/* The calling G is about to wait on obj (kind); returns false, the mark
 * undone, when a cancellation it must act on is pending. */
bool kwait_begin(struct g *gp, int kind, void *obj);
/* The wait is over (after the call returned). */
void kwait_end(struct g *gp);
/* Get gp out of its wait, if it waits on such an object. Any thread. */
void kwait_interrupt(struct g *gp);
/* sysmon: interrupt again the waits whose cancellation is still pending
 * (one the first interrupt missed: it came before the G was in the
 * kernel); true if there were any (sysmon looks again soon). */
bool kwait_recheck(void);
/* In a signal handler on an M (kwait_interrupt's request, or a signal of
 * the program whose handler ran there), gp the M's G (NULL: none): when
 * gp waits in the kernel on a semaphore, the futex wait the kernel would
 * restart ends with EINTR instead, and the G looks at why it was woken.
 * TLS-free. */
void kwait_signal_here(struct g *gp, void *uc);

/*
 * A short look at the object's word before the calling G sleeps on it:
 * another process's thread running on another CPU often hands over
 * within a few microseconds, and a thread that catches that awake costs
 * neither side a sleep and a wake-up (the poster finds nobody to wake).
 * How long, in ns (0: not at all): never with one CPU, nor for a
 * real-time G (which would keep its CPU from the thread it waits for),
 * nor while other Gs wait for the caller's P. The caller looks only while
 * nobody sleeps on the object, so the kernel's order among sleepers
 * (real-time priorities first) stays whole, and reports what it found
 * (kwait_spin_result): the budget follows what the hand-overs took, and
 * shrinks to nothing where looking does not pay (both threads on one
 * CPU), with a short probe every so often.
 */
int64_t kwait_spin_budget(struct g *gp);
void kwait_spin_result(struct g *gp, bool got, int64_t spent);

#endif
