/* SPDX-License-Identifier: MIT */
/*
 * preload/runtime.h — what the interposed thread API files share: the
 * G-level operations behind pthread_create / pthread_exit / keys, signals
 * and cancellation. The doors every interposed function opens with are
 * core/door.h's.
 */
#ifndef GMP_PRELOAD_RUNTIME_H
#define GMP_PRELOAD_RUNTIME_H

#include "core/door.h"
#include "core/g.h"
#include "core/rt.h"

#include <stdbool.h>

/*
 * A thread libgmp created is named by its G: pthread_t is the address of
 * the G structure, which is never freed, so a stale pthread_t never points
 * into freed memory. (The G's TCB is recycled as soon as the thread ends,
 * so it cannot serve as the name of a thread that waits to be joined.)
 * Threads glibc made keep their TCB as pthread_t.
 *
 * g_lookup: the G behind th: 0 with *gpp set, -1 for a thread glibc
 * made (the caller hands the call to glibc), or ESRCH.
 */
int g_lookup(pthread_t th, struct g **gpp);
/* Has gp's thread ended? */
bool g_exited(struct g *gp);

/* thread.c: end the calling G with result r: key destructors, C++
 * thread_local destructors, then the switch away (or exit(0) when it was
 * the last thread). */
_Noreturn void thread_finish(struct g *gp, void *r);

/* exit.c: what pthread_exit(r) does for the calling G. */
_Noreturn void thread_exit_unwind(struct g *gp, void *r);

/* cancel.c: act on gp's pending cancellation (door_hooks.cancel). */
_Noreturn void gmp_cancel_act(struct g *gp);

/* signal.c: make sure the signals in set reach libgmp's trampoline even
 * at their default or ignore action (the action itself is kept), so that
 * one delivered to any thread can be handed to a G waiting for it. */
void gmp_sig_catch(uint64_t set);
/* signal.c: the signals in set were just blocked by a G: those at their
 * default action get the trampoline (see there). */
void gmp_sig_blocked(uint64_t set);
/* signal.c: keep libgmp's trampoline on SCHED_SIG (core/sched.h), for
 * sysmon's requests, with the program's own action behind it. */
void gmp_signal_init(void);
/* sigwait.c: find the unwinder's text, whose own mask changes are the
 * kernel's alone. */
void gmp_sigmask_init(void);
/* sigwait.c: a call that applies a signal mask of its own in the kernel
 * (ppoll, pselect, epoll_pwait): for its length the G's mask is `mask`,
 * and a signal of the G's that libgmp holds (sent while the G blocked
 * it) and mask lets through is made the kernel's (a nudge to this OS
 * thread, kept pending by its mask until the call applies mask), so that
 * its handler runs and the call ends with EINTR, as under NPTL. Returns
 * the mask to give back with gmp_call_mask_end after the call. */
uint64_t gmp_call_mask_begin(struct g *gp, const sigset_t *mask);
void gmp_call_mask_end(struct g *gp, uint64_t old);
/* sigwait.c: the signals libgmp holds that gp could take now (sent to
 * it while it blocked them, or to the process while every G did). */
uint64_t gmp_sig_held(struct g *gp);
/* sigwait.c: read(2) of a signalfd of the signals in mask, n bytes at
 * buf (room for one record at least), for gp: the signals libgmp holds
 * with the kernel's, in the kernel's order. Bytes read, or -errno. */
ssize_t gmp_sigfd_read(struct g *gp, uint64_t mask, bool nonblock, void *buf, size_t n);
/* signal.c: nudge this OS thread for each signal routed to gp that gp
 * does not block. */
void gmp_renudge(struct g *gp);
/* A jump to the stack pointer target leaves the program's handlers
 * running on gp (innermost first) whose frames lie below it: what their
 * returns would have undone is undone (preemption allowed again), and
 * the kernel's mask is the G's own again. */
void gmp_handlers_left(struct g *gp, uintptr_t target);
/* signal.c: send info to G gp (pthread_kill). 0 or an errno value. */
int gmp_signal_g(struct g *gp, const siginfo_t *info);
/* signal.c: kill or sigqueue (val set) from a G to its own process:
 * what the trampoline would do wherever the kernel delivered the signal,
 * done before the call returns, so that the signal is routed or pending
 * for the process by then, as the kernel's would be. 0, or -1 when the
 * kernel must send it (the signal does not reach the trampoline, its
 * generation has side effects, or the queue is full). */
int gmp_signal_process(int sig, const union sigval *val);
/* thread_np.c: pthread_kill (val NULL) or pthread_sigqueue to gp from the
 * calling thread, with glibc's siginfo; 0 or an error number. */
int gmp_kill_g(struct g *gp, int sig, const union sigval *val);

/* timer.c: the id of the G a signal that reached the service thread is
 * for, when a timer made for a G sent it; else 0. Lock-free. */
int gmp_timer_owner(const siginfo_t *info);

/* thread_np.c: may this process give a thread a real-time priority
 * prio (CAP_SYS_NICE, or within RLIMIT_RTPRIO)? */
bool gmp_rt_permitted(int prio);

/* keys.c: run the destructors of gp's non-NULL key values. */
void keys_run_destructors(struct g *gp);

/* attr.c: the default attributes for new threads. */
size_t attr_default_stacksize(void);
size_t attr_default_guardsize(void);
bool attr_default_detached(void);
/* attr.c: was pthread_attr_setscope(PTHREAD_SCOPE_SYSTEM) called? */
bool attr_scope_system(const pthread_attr_t *a);
/* attr.c: did the program give its own stack (setstack/setstackaddr)? */
bool attr_has_stack(const pthread_attr_t *a);

#endif
