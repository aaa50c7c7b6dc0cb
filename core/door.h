/* SPDX-License-Identifier: MIT */
/*
 * core/door.h — doors: where a G passes between the program's code and
 * libgmp's.
 *
 * Every interposed function, in preload/ and shim/ alike, opens with a
 * door (GMP_ENTRY) and leaves through one (the end of its scope); the
 * hottest ones (mutex lock and trylock) have the entry door alone. A
 * signal delivery and the return from a system call are doors too (a
 * system call's return reaches one when its interposed function
 * returns). At a door libgmp holds nothing of its own and the program's
 * code runs on either side, so the G may be switched there: it is where
 * every request that could not be served at once is served, as Go serves
 * a preemption request at the next function entry (the stack-guard
 * check, morestack -> newstack -> gopreempt_m) when the signal found the
 * goroutine at an unsafe point.
 *
 * The requests, in g->door (any thread sets them, the G clears them):
 *   DOOR_PREEMPT  sysmon asked the G to yield: its signal handler found
 *                 the G in libc, ld.so, the vDSO or libgmp, where it
 *                 must not be stopped, or the G's time slice ended while
 *                 it was making a system call (g_syscall_exit moves the
 *                 processor's request onto the G). The G yields, and
 *                 the scheduler, before it picks the next G, fires the
 *                 processor's due timers (the wake-ups go first).
 *   DOOR_SIGNAL   signals were routed to the G (core/sigq.c): their
 *                 handlers run, as the program's code.
 *   DOOR_RETAKE   sysmon is taking the processor of the G's M, which it
 *                 found blocked in a system call libgmp did not see
 *                 (core/sched.h); the G waits at its next entry until
 *                 sysmon is done, and then takes a processor back.
 * A processor taken away during a system call, or while the M was
 * blocked where libgmp could not see, is taken back at the entry
 * (door_sync), before anything else. The check is a load and a branch;
 * the work is in door_slow.
 *
 * What a door may do, and what it must not: core/HACKING.md.
 */
#ifndef GMP_CORE_DOOR_H
#define GMP_CORE_DOOR_H

#include "core/g.h"
#include "core/real.h"
#include "core/rt.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>

/* Interposed entry points are the only default-visibility symbols. */
#define GMP_EXPORT __attribute__((visibility("default")))
/* Export `name` as another name of the interposed function `target`. */
#define GMP_ALIAS(name, target) \
	_Pragma("GCC diagnostic push") \
	_Pragma("GCC diagnostic ignored \"-Wmissing-attributes\"") \
	extern __typeof(target) name __attribute__((alias(#target), visibility("default"))); \
	_Pragma("GCC diagnostic pop")

/* --- start-up --------------------------------------------------------------- */

/* 0: not started, 1: starting, 2: ready. */
extern _Atomic int gmp_state;
/* True when glibc's layout is unknown: every call goes to glibc. */
extern bool gmp_passthrough;

/*
 * The start-up of the layers above the core: a function that brings the
 * runtime up (preload/init.c) and returns true when libgmp must pass
 * every call to glibc instead (the take-over decision). A layer registers
 * it with GMP_START_STEP(fn), in a section of its own, which the core
 * reads without naming anything above it: the steps are there before any
 * constructor has run, so the first interposed call, whoever makes it,
 * starts the runtime. Run in link order.
 */
typedef bool (*gmp_start_step)(void);
#define GMP_START_STEP(fn) \
	static const gmp_start_step gmp_start_##fn \
		__attribute__((used, section("gmp_start_steps"))) = fn

/* Bring the runtime up (once; a second caller waits for the first): the
 * registered start steps, then gmp_passthrough and gmp_state set. */
void gmp_init_slow(void);
static inline void gmp_init(void)
{
	if (unlikely(ld_acq(&gmp_state) != 2))
		gmp_init_slow();
}

/* --- what the doors do ----------------------------------------------------- */

void g_syscall_exit(void);

/* Serve g->door's requests (and nothing while gp is inside libgmp, runs
 * a signal handler, or is a vfork child on its parent's memory); the
 * signals only unless may_yield. errno survives. */
void door_slow(struct g *gp, bool may_yield);

static inline void door_check(struct g *gp)
{
	if (unlikely(ld_rlx(&gp->door) != 0))
		door_slow(gp, true);
}
/*
 * After gp->inlib became non-zero: make sure the G holds a P. A G that
 * calls into libgmp from inside a call made as a system call
 * (GMP_BLOCKING: a name service module opening a socket inside
 * getaddrinfo, a signal handler), or whose P sysmon took while its M was
 * blocked in a call libgmp did not see, takes a P back here; the rest of
 * the call then runs holding it.
 *
 * sysmon's side (sched_retake_blocked): it sets DOOR_RETAKE, makes every
 * running thread of the process pass a full memory barrier
 * (membarrier), and then gives up if inlib is non-zero; otherwise it
 * turns the G into one in a system call and clears DOOR_RETAKE. The G's
 * side is the store of inlib, then the load of the request: either
 * sysmon sees the count, or the G sees the request, and waits for it to
 * clear. A compiler barrier is all the G needs.
 */
void door_retake_wait(struct g *gp);
/* sysmon's side of the retake protocol only: wait while it is at work */
static inline void door_retake_sync(struct g *gp)
{
	atomic_signal_fence(memory_order_seq_cst);
	if (unlikely(ld_acq(&gp->door) & DOOR_RETAKE))
		door_retake_wait(gp);
}
static inline void door_sync(struct g *gp)
{
	door_retake_sync(gp);
	if (unlikely(ld_rlx(&gp->status) == G_SYSCALL))
		g_syscall_exit();
}
/* Code of libgmp that runs at a door, where inlib is 0 (a yield the door
 * serves, a preemption, a thread's end), holds the G inside libgmp
 * while it uses the P. */
static inline void door_hold(struct g *gp)
{
	/* an outermost hold marks its frame as door_enter does: a signal
	 * handler that runs meanwhile enters below it, and must not take
	 * the count for a stale one and start afresh */
	if (gp->inlib == 0)
		gp->inlib_sp = (uintptr_t)arch_stack_pointer();
	gp->inlib++;
	door_sync(gp);
}
static inline void door_unhold(struct g *gp)
{
	gp->inlib--;
}

/*
 * The G inside an interposed function: g->inlib counts the entries it is
 * in, from just after the pass-through test to the return (a cleanup
 * variable ends it on every path). While it is non-zero, code that
 * libgmp called (glibc, a handler or callback of the program) runs on
 * libgmp's behalf, and libgmp goes on when it returns: sysmon's
 * blocked-M retake must not turn it into a system call of the G behind
 * libgmp's back (core/sched.h), or libgmp would park the G without a P,
 * maybe holding a runtime lock; and no door serves requests there. The
 * outermost entry and its return are the doors.
 *
 * A count whose outermost entry is gone is stale: a signal handler's
 * longjmp, or a vfork child's exec, left an entry without returning. An
 * entry made on the G's own stack above the outermost entry's frame
 * finds it so, and starts afresh.
 */
bool door_stale(struct g *gp, uintptr_t sp);
struct door_scope {
	struct g *g;
};
/* Count gp in one more entry (its frame at sp); returns the count before,
 * 0 for an outermost entry (or one that found a stale count). */
static inline uint32_t door_count_in(struct g *gp, uintptr_t sp)
{
	uint32_t in = gp->inlib;
	if (unlikely(in) && unlikely(sp > gp->inlib_sp) && door_stale(gp, sp))
		in = 0;
	if (in == 0)
		gp->inlib_sp = sp;
	gp->inlib = in + 1;
	return in;
}
static inline struct door_scope door_enter(void)
{
	struct g *gp = getg();
	if (gp) {
		uintptr_t sp = (uintptr_t)arch_stack_pointer();
		uint32_t in = door_count_in(gp, sp);
		door_sync(gp);
		if (in == 0 && unlikely(ld_rlx(&gp->door) & DOOR_SIGNAL)) {
			/* the handlers run as the program's code */
			gp->inlib = 0;
			door_slow(gp, false);
			gp->inlib_sp = sp;	/* a handler's own entries moved it */
			gp->inlib = 1;
			door_sync(gp);
		}
	}
	return (struct door_scope){ gp };
}
static inline void door_leave(struct door_scope *s)
{
	struct g *gp = s->g;
	/* a longjmp out of a handler may have reset it (door_enter) */
	if (gp && gp->inlib && --gp->inlib == 0)
		door_check(gp);
}
#define GMP_LIB_SCOPE \
	struct door_scope door_scope_ __attribute__((cleanup(door_leave))) = door_enter()

/*
 * The entry of a process-shared object's call (core/kwait.h): inside
 * libgmp as any entry (a signal's handler waits for the exit door, sysmon
 * does not take the P behind its back), but a G still in a system call
 * stays there, without a P: glibc's code for those objects needs none,
 * and a G that holds a process-shared mutex must not queue for one.
 */
static inline struct door_scope door_enter_nosync(void)
{
	struct g *gp = getg();
	if (gp) {
		door_count_in(gp, (uintptr_t)arch_stack_pointer());
		door_retake_sync(gp);
	}
	return (struct door_scope){ gp };
}
#define GMP_LIB_SCOPE_NOSYNC \
	struct door_scope door_scope_ __attribute__((cleanup(door_leave))) = door_enter_nosync()

/* Make sure the runtime is up, and in pass-through mode hand the call to
 * glibc: the first half of every entry below. */
#define GMP_PASS(name, ...) \
	gmp_init(); \
	if (unlikely(gmp_passthrough)) \
		return real_##name(__VA_ARGS__)

/* Start of every interposed function: GMP_PASS, then the entry door;
 * the G is inside libgmp until the function returns through the exit
 * door. Used as a statement, at the top of the function's body. */
#define GMP_ENTRY(name, ...) \
	GMP_PASS(name, __VA_ARGS__); \
	GMP_LIB_SCOPE

/* GMP_ENTRY for functions that work before any G exists (the key
 * table): while the runtime starts, start-up's own calls (a malloc such
 * as jemalloc creating its key) are served by libgmp too, so the key
 * stays valid afterwards; only the lasting pass-through mode hands them
 * to glibc. */
#define GMP_ENTRY_EARLY(name, ...) \
	gmp_init(); \
	if (unlikely(gmp_passthrough) && ld_acq(&gmp_state) == 2) \
		return real_##name(__VA_ARGS__); \
	GMP_LIB_SCOPE

/* The entry door alone, for the hottest entries (mutex lock and
 * trylock), whose fast paths touch neither the P nor anything outside
 * libgmp: a load and a branch. Their slow paths open the scope
 * (GMP_LIB_SCOPE) before they may park. */
#define GMP_ENTRY_LIGHT(name, ...) do { \
	GMP_PASS(name, __VA_ARGS__); \
	struct g *dg_ = getg(); \
	if (dg_) \
		door_check(dg_); \
} while (0)

/* Run the program's code (a once routine, a destructor, a signal
 * handler) from inside an interposed function, at a point where libgmp
 * holds no lock of its own: it runs as the program's (inlib 0, so sysmon
 * may take the P from a call it blocks in, and its own calls into
 * libgmp are doors), and libgmp has its P again when it returns. */
#define GMP_PROGRAM(call) do { \
	struct g *pg_ = getg(); \
	uint32_t in_ = 0; \
	uintptr_t insp_ = 0; \
	if (pg_) { \
		in_ = pg_->inlib; \
		insp_ = pg_->inlib_sp; \
		pg_->inlib = 0; \
	} \
	call; \
	if (pg_) { \
		pg_->inlib_sp = insp_; \
		pg_->inlib = in_; \
		door_sync(pg_); \
	} \
} while (0)

/* --- cancellation and signals at the doors ------------------------------ */

/*
 * What the API layer does at a door (preload/ registers them at start):
 * `signals` runs the handlers of the signals routed to gp, on gp, and
 * returns how many ran (*restart, when asked, false if one was installed
 * without SA_RESTART); `cancel` acts on gp's pending cancellation
 * (never returns).
 */
struct door_hooks {
	int (*signals)(struct g *gp, bool *restart);
	void (*cancel)(struct g *gp);	/* never returns */
};
extern struct door_hooks door_hooks;

/* Run the handlers of signals routed to gp (on gp); returns how many
 * ran. */
int door_signals(struct g *gp);
/* door_signals when signals are routed to gp, errno kept: after a yield
 * (routed while it waited to run again). */
void door_signals_kept(struct g *gp);
/* door_signals when signals are routed to gp, where its own code was
 * interrupted (a preemption): what the handlers leave in errno stays, as
 * after the kernel's delivery of a signal. */
void door_signals_here(struct g *gp);
/* The same as door_signals; *restart is false when a handler that ran was installed
 * without SA_RESTART (the interrupted call fails with EINTR rather than
 * restarting). */
int door_signals_restart(struct g *gp, bool *restart);

/* A cancellation point: acts (never returns) when a cancellation is
 * pending and enabled for gp. */
static inline void door_testcancel(struct g *gp)
{
	if (unlikely(g_cancel_acts(gp)))
		door_hooks.cancel(gp);
}

/*
 * After a system call of gp's, made since `handled` was read from
 * gp->nhandled, failed with EINTR: true when no handler of the
 * program's ran, and the call is to be made again. Linux ends poll,
 * select, epoll_wait (even with a zero timeout), semop and msgrcv with
 * EINTR whenever any handler runs during the call, SA_RESTART or not;
 * sysmon's preemption request (SCHED_SIG) has a handler, and so does a
 * signal libgmp raised to run a default or ignore action on the
 * trampoline (one the kernel restarts the call for): the program must
 * not see their EINTR. Runs the handlers of signals held back for gp
 * first (those count as the program's).
 */
bool door_eintr_spurious(struct g *gp, uint32_t handled);
/* The same for a call Linux ends with EINTR, never restarted, whenever a
 * signal is taken during it, also one its action ignores (epoll_pwait
 * with a mask): `handled` was read from gp->ndelivered, and only libgmp's
 * own signals are spurious. */
bool door_eintr_spurious_any(struct g *gp, uint32_t handled);

/* Run `call` (an expression of type T) as a system call of the calling G
 * that may block (g_syscall_enter/exit: its P is handed on if it lasts),
 * after acting on a pending cancellation when `cancel`. errno survives.
 * A thread that is not a G just makes the call. */
void g_syscall_enter(void);
#define GMP_BLOCKING(T, cancel, call) ({ \
	struct g *gp_ = getg(); \
	T r_; \
	if (gp_) { \
		if (cancel) \
			door_testcancel(gp_); \
		g_syscall_enter(); \
		r_ = (call); \
		int e_ = errno; \
		g_syscall_exit(); \
		errno = e_; \
	} else { \
		r_ = (call); \
	} \
	r_; \
})

/* g_syscall_enter for a call about to block: the P is handed on at once,
 * not when sysmon next looks (Go's entersyscallblock). */
void g_syscall_enter_block(void);
/*
 * g_syscall_enter for a wait that lasts (a process-shared object's, in
 * the kernel: core/kwait.h): the P is handed on at once even when nobody
 * waits for it, so that sysmon has nothing to retake.
 *
 * When the wait returns, the G runs on in its system call, its M without
 * a P, until its next door takes one back (door_sync) or it calls
 * g_syscall_exit. glibc's code for those objects needs no P, so a G that
 * goes from one such wait to the next (a ping-pong through
 * process-shared semaphores, a waiter of a process-shared condition
 * variable) touches no scheduler state, as an OS thread under NPTL; and
 * one that holds a process-shared mutex lets go of it without queueing
 * for a P first. sysmon watches the M as one whose G runs without a P
 * (m->blocked, set here): a G that computes there is asked to take a P
 * back, as one whose P was retaken.
 */
void g_syscall_enter_wait(void);
/*
 * GMP_BLOCKING for a call with a non-blocking form: `try` (that form, of
 * type T) first, on the P; when `wouldblock` (an expression of r_ and
 * errno) says it would have blocked, `call` as a system call of the G
 * whose P is handed on before it enters the kernel, so that the Gs
 * queued behind it run within microseconds. errno is as `call` (or
 * `try`) left it; a cancellation is acted on first when `cancel`. A
 * thread that is not a G just makes the call.
 */
#define GMP_BLOCKING_TRY(T, cancel, try, wouldblock, call) ({ \
	struct g *gp_ = getg(); \
	T r_; \
	if (gp_) { \
		if (cancel) \
			door_testcancel(gp_); \
		int e0_ = errno; \
		r_ = (try); \
		if (wouldblock) { \
			errno = e0_; \
			g_syscall_enter_block(); \
			r_ = (call); \
			int e_ = errno; \
			g_syscall_exit(); \
			errno = e_; \
		} \
	} else { \
		r_ = (call); \
	} \
	r_; \
})
/* GMP_BLOCKING for a call that blocks for certain (system): the P is
 * handed on before it starts. */
#define GMP_BLOCKING_NOW(T, cancel, call) GMP_BLOCKING_TRY(T, cancel, (T)0, true, call)

/*
 * GMP_BLOCKING (GMP_BLOCKING_NOW when `now`) for a call Linux ends with
 * EINTR whenever a handler runs, SA_RESTART or not (poll, select,
 * epoll_wait, semop, msgrcv, msgsnd): made again while the EINTR is not
 * the program's (door_eintr_spurious), `rearm` (which recomputes the time
 * left) run before each new try.
 */
#define GMP_BLOCKING_AGAIN(T, cancel, now, rearm, call) \
	GMP_BLOCKING_AGAIN_(T, cancel, now, rearm, call, nhandled, door_eintr_spurious)
/* GMP_BLOCKING_AGAIN for a call door_eintr_spurious_any judges. */
#define GMP_BLOCKING_AGAIN_ANY(T, cancel, now, rearm, call) \
	GMP_BLOCKING_AGAIN_(T, cancel, now, rearm, call, ndelivered, door_eintr_spurious_any)
#define GMP_BLOCKING_AGAIN_(T, cancel, now, rearm, call, count, spurious) ({ \
	struct g *again_g = getg(); \
	T again_r; \
	for (;;) { \
		uint32_t again_h = again_g ? again_g->count : 0; \
		again_r = (now) ? GMP_BLOCKING_NOW(T, cancel, call) : GMP_BLOCKING(T, cancel, call); \
		if (!again_g || again_r != -1 || errno != EINTR || !spurious(again_g, again_h)) \
			break; \
		rearm; \
	} \
	again_r; \
})

#endif
