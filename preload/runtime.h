/*
 * preload/runtime.h — what the interposed API files share: start-up state,
 * the entry guard, and the G-level operations behind pthread_create /
 * pthread_exit / keys.
 */
#ifndef GMP_PRELOAD_RUNTIME_H
#define GMP_PRELOAD_RUNTIME_H

#include "preload/real.h"
#include "core/g.h"
#include "core/rt.h"

#include <stdbool.h>

/* Interposed entry points are the only default-visibility symbols. */
#define GMP_EXPORT __attribute__((visibility("default")))
/* Export `name` as another name of the interposed function `target`. */
#define GMP_ALIAS(name, target) \
	_Pragma("GCC diagnostic push") \
	_Pragma("GCC diagnostic ignored \"-Wmissing-attributes\"") \
	extern __typeof(target) name __attribute__((alias(#target), visibility("default"))); \
	_Pragma("GCC diagnostic pop")

void g_syscall_exit(void);

/* 0: not started, 1: starting, 2: ready. */
extern _Atomic int gmp_state;
/* True when glibc's layout is unknown: every call goes to glibc. */
extern bool gmp_passthrough;

void gmp_init_slow(void);
static inline void gmp_init(void)
{
	if (unlikely(ld_acq(&gmp_state) != 2))
		gmp_init_slow();
}

/*
 * The G inside an interposed function: g->inlib counts the entries it is
 * in, from just after the pass-through test to the return (a cleanup
 * variable ends it on every path). While it is non-zero, code that
 * libgmp called (glibc, a handler or callback of the program) runs on
 * libgmp's behalf, and libgmp goes on when it returns: sysmon's
 * blocked-M retake must not turn it into a system call of the G behind
 * libgmp's back (core/sched.h), or libgmp would park the G without a P,
 * maybe holding a runtime lock.
 */
struct gmp_lib_scope {
	struct g *g;
};
static inline struct gmp_lib_scope gmp_lib_enter(void)
{
	struct g *gp = getg();
	if (gp && gp->inlib++ == 0)
		gp->inlib_sp = (uintptr_t)arch_stack_pointer();
	return (struct gmp_lib_scope){ gp };
}
static inline void gmp_lib_leave(struct gmp_lib_scope *s)
{
	/* a longjmp out of a handler may have reset it (sched_sig_retake) */
	if (s->g && s->g->inlib)
		s->g->inlib--;
}
#define GMP_LIB_SCOPE \
	struct gmp_lib_scope gmp_lib_scope_ __attribute__((cleanup(gmp_lib_leave))) = \
		gmp_lib_enter()

/* Make sure the runtime is up, and in pass-through mode hand the call to
 * glibc: the first half of every entry below. */
#define GMP_PASS(name, ...) \
	gmp_init(); \
	if (unlikely(gmp_passthrough)) \
		return real_##name(__VA_ARGS__)

/* Start of every interposed function: GMP_PASS, then the G is inside
 * libgmp until the function returns. Used as a statement, at the top of
 * the function's body. */
#define GMP_ENTRY(name, ...) \
	GMP_PASS(name, __VA_ARGS__); \
	GMP_LIB_SCOPE; \
	gmp_reenter()

/* GMP_ENTRY for functions that work before any G exists (the key
 * table): while the runtime starts, start-up's own calls (a malloc such
 * as jemalloc creating its key) are served by libgmp too, so the key
 * stays valid afterwards; only the lasting pass-through mode hands them
 * to glibc. */
#define GMP_ENTRY_EARLY(name, ...) \
	gmp_init(); \
	if (unlikely(gmp_passthrough) && ld_acq(&gmp_state) == 2) \
		return real_##name(__VA_ARGS__); \
	GMP_LIB_SCOPE; \
	gmp_reenter()

/* GMP_ENTRY without the scope, for the exec family: a successful exec
 * never returns, and in a child made by vfork, whose memory is the
 * parent's, the count would stay on the parent's G for good. They park
 * nowhere. */
#define GMP_ENTRY_EXEC(name, ...) \
	GMP_PASS(name, __VA_ARGS__); \
	gmp_reenter()

/* GMP_ENTRY without gmp_reenter or the scope, for the hottest entries
 * (mutex lock, trylock, unlock), whose fast paths touch neither the P
 * nor anything outside libgmp; their slow paths open the scope
 * (GMP_LIB_SCOPE) and call gmp_reenter before they may park. */
#define GMP_ENTRY_LIGHT(name, ...) do { \
	GMP_PASS(name, __VA_ARGS__); \
} while (0)

/* A G that calls into libgmp from inside a call made as a system call
 * (GMP_BLOCKING: a name service module opening a socket inside
 * getaddrinfo, a signal handler) takes a P back first; the rest of the
 * outer call then runs holding it. */
static inline void gmp_reenter(void)
{
	struct g *gp = getg();
	if (gp && unlikely(ld_rlx(&gp->status) == G_SYSCALL))
		g_syscall_exit();
}

/* Run the program's code (a once routine, a destructor, a signal
 * handler) from inside an interposed function, at a point where libgmp
 * holds no lock of its own: it runs as the program's (inlib 0, so sysmon
 * may take the P from a call it blocks in), and libgmp has its P again
 * when it returns. */
#define GMP_PROGRAM(call) do { \
	struct g *pg_ = getg(); \
	uint32_t in_ = 0; \
	if (pg_) { \
		in_ = pg_->inlib; \
		pg_->inlib = 0; \
	} \
	call; \
	if (pg_) { \
		pg_->inlib = in_; \
		gmp_reenter(); \
	} \
} while (0)

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

/* cancel.c: a cancellation point; acts (never returns) when a
 * cancellation is pending and enabled for the calling G. */
void gmp_testcancel(struct g *gp);

/* signal.c: run the handlers of signals routed to gp (on gp); returns
 * how many ran. */
int gmp_sig_deliver(struct g *gp);
/* signal.c: make sure the signals in set reach libgmp's trampoline even
 * at their default or ignore action (the action itself is kept), so that
 * one delivered to any thread can be handed to a G waiting for it. */
void gmp_sig_catch(uint64_t set);
/* signal.c: as gmp_sig_deliver; *restart is false when a handler that
 * ran was installed without SA_RESTART (the interrupted call fails with
 * EINTR rather than restarting). */
int gmp_sig_deliver_restart(struct g *gp, bool *restart);
/* signal.c: keep libgmp's trampoline on SCHED_SIG (core/sched.h), for
 * sysmon's requests, with the program's own action behind it. */
void gmp_signal_init(void);
/* signal.c: send info to G gp (pthread_kill). 0 or an errno value. */
int gmp_signal_g(struct g *gp, const siginfo_t *info);
/* thread_np.c: pthread_kill (val NULL) or pthread_sigqueue to gp from the
 * calling thread, with glibc's siginfo; 0 or an error number. */
int gmp_kill_g(struct g *gp, int sig, const union sigval *val);

/* keys.c: run the destructors of gp's non-NULL key values. */
void keys_run_destructors(struct g *gp);

/* attr.c: the default attributes for new threads. */
size_t attr_default_stacksize(void);
size_t attr_default_guardsize(void);
/* attr.c: was pthread_attr_setscope(PTHREAD_SCOPE_SYSTEM) called? */
bool attr_scope_system(const pthread_attr_t *a);
/* attr.c: did the program give its own stack (setstack/setstackaddr)? */
bool attr_has_stack(const pthread_attr_t *a);

/* Run `call` (an expression of type T) as a system call of the calling G
 * that may block (g_syscall_enter/exit: its P is handed on if it lasts),
 * after acting on a pending cancellation when `cancel`. errno survives.
 * A thread that is not a G just makes the call. */
#define GMP_BLOCKING(T, cancel, call) ({ \
	struct g *gp_ = getg(); \
	T r_; \
	if (gp_) { \
		if (cancel) \
			gmp_testcancel(gp_); \
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

/* sleep.c: park the calling G until the deadline (CLOCK_MONOTONIC ns). */
void gmp_sleep_until(int64_t when);

#endif
