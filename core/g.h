/* SPDX-License-Identifier: MIT */
/*
 * core/g.h — the G: one user thread.
 *
 * A G is type-stable: G structures are carved from slabs that are never
 * freed, so a pointer to a G stays dereferenceable forever and its index
 * (hence its fake kernel tid) is permanent. A dead G keeps its stack and
 * TLS block and waits on a free list for reuse.
 *
 * Status is the lock on a G's stack and context. It changes only through
 * g_casstatus, along the transitions below; the "by" column names the only
 * code allowed to make each one.
 *
 *   from      to        by
 *   IDLE      RUNNABLE  g_new (creator), before the G is published
 *   DEAD      RUNNABLE  g_new reusing a dead G from a free list
 *   RUNNABLE  RUNNING   sched_execute, on the M that took it off a queue
 *   RUNNING   RUNNABLE  g_yield's g0 half (gosched), also after preemption
 *   RUNNING   WAITING   g_park's g0 half, after the G's context is saved
 *   WAITING   RUNNABLE  g_ready (any thread), or g_park when unlockf fails
 *   RUNNING   SYSCALL   (reserved for the syscall hand-off)
 *   SYSCALL   RUNNING   (reserved)
 *   RUNNING   DEAD      g_exit's g0 half
 *
 *   IDLE     never ran; no stack yet.
 *   RUNNABLE on exactly one run queue (a P's runq/runnext or the global
 *            queue), or being handed to a locked M. Not running; its
 *            context is valid; the queue owns it. g->m is NULL.
 *   RUNNING  running user code, or runtime code on its own stack, on g->m,
 *            which holds a P. Its context is stale. Only this G (and g0
 *            of g->m while switching) touch its stack.
 *   WAITING  parked; on no run queue; context valid. Whoever will call
 *            g_ready owns it: a timer, a join, a wait queue.
 *   DEAD     exited. Context and stack unused. On a free list, or waiting
 *            for pthread_join (then the joiner owns it).
 */
#ifndef GMP_CORE_G_H
#define GMP_CORE_G_H

#include "core/lock.h"
#include "core/timer.h"

#include <pthread.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>

/* g->preempt_streak from which a G counts as computing, not waiting */
#define G_CPU_BOUND 2

enum g_status {
	G_IDLE = 0,
	G_RUNNABLE,
	G_RUNNING,
	G_SYSCALL,
	G_WAITING,
	G_DEAD,
	G_NSTATUS
};

/* Why a G waits (g->waitreason); shown by schedtrace and later dumps. */
enum g_waitreason {
	WAIT_NONE = 0,
	WAIT_SLEEP,
	WAIT_JOIN,
	WAIT_TEST,	/* unit tests */
	WAIT_MUTEX,
	WAIT_COND,
	WAIT_RWLOCK,
	WAIT_BARRIER,
	WAIT_SEM,
	WAIT_ONCE,
	WAIT_FUTEX,
	WAIT_NETPOLL,	/* a descriptor's readiness (read, accept ...) */
	WAIT_POLL,	/* poll, select, epoll_wait */
	WAIT_SIGNAL,	/* sigwait, sigsuspend, pause */
	WAIT_NREASON
};
extern const char *const g_waitreason_names[WAIT_NREASON];
/* The same as one word each, for statistics keys ("io", "condvar"). */
extern const char *const g_waitreason_keys[WAIT_NREASON];

enum g_stack_kind {
	STACK_NONE = 0,
	STACK_ARENA,	/* default shape, carved from a shared arena */
	STACK_MAPPED,	/* its own mapping (non-default size or guard) */
	STACK_USER,	/* pthread_attr_setstack: the program's memory */
	STACK_MAIN,	/* the process's initial stack (main G) */
};

/* A G's stack. Owned by the G while alive, by the free lists when dead. */
struct gstack {
	char *base;		/* lowest address, guard included */
	size_t size;		/* usable bytes above the guard (TLS included) */
	size_t guard;		/* guard bytes at base */
	uint8_t kind;		/* enum g_stack_kind */
	bool tls_ready;		/* a TCB at the top has had its DTV allocated */
};

/* g->door: requests served at the G's next door (core/door.h) */
#define DOOR_PREEMPT	0x1u	/* yield */
#define DOOR_SIGNAL	0x2u	/* run the handlers of signals routed to it */
#define DOOR_RETAKE	0x4u	/* sysmon is taking the P of the G's blocked M:
				 * wait at the next entry until it is done */

#define G_MAGIC 0x47475f474d50ull	/* "PMG_GG": a live or dead G */

/* g->flags */
#define G_FLAG_MAIN	0x1	/* the process's initial thread */
#define G_FLAG_SCOPE_SYSTEM	0x2	/* created with PTHREAD_SCOPE_SYSTEM (reported only) */
#define G_FLAG_KTID	0x4	/* on an OS thread of its own for life, whose
				 * kernel tid glibc knows for it and whose
				 * robust list is the G's (preload/mutex.c) */

/* g->joiner value for a joiner that is not a G (it sleeps on exit_futex). */
#define G_JOINER_FOREIGN ((struct g *)1)

struct m;
struct gmp_cleanup;

struct g {
	uint64_t magic;			/* G_MAGIC; constant */
	uint32_t index;			/* slab index; constant */
	int tid;			/* the thread's id (g_tid); per life */
	uint32_t flags;			/* set by the creator before publishing */

	/* --- one cache line: what every call into libgmp reads ----------- */
	/* (its doors, its state, a process-shared object's wait): a thread
	 * woken from a wait in the kernel, its caches cold, reads one line
	 * of its G rather than four. */
	_Alignas(64) _Atomic uint32_t status;	/* enum g_status; see the table above */
	/* Interposed functions the G is inside (core/door.h,
	 * GMP_ENTRY), and its stack pointer when the outermost one began;
	 * while non-zero, sysmon's blocked-M retake leaves the G alone.
	 * Written by the G only; read by sysmon (core/door.h: door_sync). */
	uint32_t inlib;
	/* The M running this G: set by sched_execute, cleared when the G
	 * stops running. Read by the G itself to find its M. */
	struct m *m;
	uintptr_t inlib_sp;
	/* Requests served at the G's next door (core/door.h: DOOR_PREEMPT,
	 * DOOR_SIGNAL, DOOR_RETAKE): set by sysmon's signal handler on the
	 * G's M, by sysmon, by g_syscall_exit, by signal routers; cleared by
	 * the G (DOOR_PREEMPT by execute too, which starts a new slice;
	 * DOOR_RETAKE by sysmon alone). */
	_Atomic uint32_t door;
	_Atomic uint32_t cancel_pending;	/* set by pthread_cancel */
	int cancelstate, canceltype;	/* owned by the G */
	/* A wait in the kernel on a process-shared object, made by glibc's
	 * own code (core/kwait.h): which kind, on what, and how many
	 * interrupters are at work on it. */
	_Atomic uint8_t kwait;
	/* A handler was held back because the signal found the G inside
	 * libgmp (g_in_runtime): its next park ends at once if the signal
	 * is still pending for it. The G's own M only (trampoline, park_m). */
	bool sig_deferred;
	/* How long it looks at such an object's word before it sleeps
	 * there (kwait_spin_budget): 0 not yet measured, -1 off until the
	 * next probe (kspin_skip counts the waits to it). Owner only. */
	uint8_t kspin_skip;
	int32_t kspin_ns;
	_Atomic uint32_t kwait_users;
	void *kwait_obj;

	/* --- scheduling ---------------------------------------------------- */
	struct gmp_ctx ctx;		/* valid unless RUNNING; see status */
	/* The M it ran on last (stays set): where its /proc/.../task/<id>
	 * files are read from while it does not run (core/proc.h). */
	struct m *lastm;
	/* Link on the global run queue or a free list; owned by the holder
	 * of that list (its lock, or the owner P for p->gfree). */
	struct g *schedlink;
	struct m *lockedm;		/* set once by the creator (SCOPE_SYSTEM) */
	uint64_t goid;			/* set by the creator */

	/* --- stack and TLS: owned by the G while alive ------------------- */
	struct gstack stack;
	uintptr_t tcb;			/* its thread pointer while alive */

	/* --- start and exit: written by the creator before publishing ---- */
	void *(*start)(void *);
	void *arg;
	void *result;			/* written by the G before it dies */

	/* --- join/detach: under lock ------------------------------------- */
	struct rt_mutex lock;		/* before sched.lock and timers.lock */
	bool detached;
	bool exited;
	/* reaped by a join: until the G starts another thread, its
	 * pthread_t names a thread that is gone (ESRCH, as glibc's) */
	bool joined;
	struct g *joiner;		/* a G, G_JOINER_FOREIGN or NULL */
	uint64_t joinseq;		/* the joiner's wake-up seq (g_arm) */
	_Atomic uint32_t exit_futex;	/* 1 once exited; foreign joiners wait here */

	/* --- waiting -------------------------------------------------------- */
	uint8_t waitreason;		/* written by the G before parking */
	void *waitobj;			/* what it waits on, for diagnostics */
	int64_t waitsince;		/* when it last stopped running (ns) */
	/*
	 * Wake-up arbitration for a park that several parties may end (an
	 * event and a timeout): (seq << 1) | armed. The G arms it before
	 * parking; every waker calls g_wake, and only the one whose CAS
	 * clears `armed` for the right seq readies the G.
	 */
	_Atomic uint64_t wakeup;
	struct timer timer;		/* sleeps and timed waits */

	/* --- thread API state: owned by the running G -------------------- */
	struct gmp_cleanup *cleanup;	/* pthread_cleanup_push chain */
	/* The _Unwind_Exception of pthread_exit's forced unwind: it must
	 * outlive the frames the unwind discards, so not on the stack. */
	_Alignas(16) unsigned char unwind_exc[32];
	/* Signals the G blocks, one bit per signal (sigq_bit). Written by
	 * the G itself; read by signal routers. The kernel mask of the M
	 * follows it while the G runs (SCHED_SIG excepted: never blocked in
	 * the kernel, blocked here only). */
	_Atomic uint64_t sigmask;
	/* Signals the unwinder blocked on top of sigmask around its own
	 * lookups (preload/sigwait.c): the kernel's mask only, on whichever
	 * M the G runs, until the unwinder puts it back. Owner. */
	uint64_t kmask_extra;
	/* Signals whose arrival ends the G's wait (sigwait, sigsuspend,
	 * pause); 0 otherwise. core/sigq.c. */
	_Atomic uint64_t sigwant;
	/* Handlers of the program's run on it (owner): what ends a wait
	 * with EINTR. A signal whose action is to ignore it, or its default
	 * action, runs none (the kernel interrupts nothing for it). */
	uint32_t nhandled;
	/* ... of them, handlers installed without SA_RESTART (owner) */
	uint32_t nhandled_intr;
	/* Signals delivered to it by the trampoline, whatever their action
	 * (owner) */
	uint32_t ndelivered;
	bool keys_used;			/* a key value was ever set */
	/* The G's set_tid_address (clear_tid_set: it was called): the word
	 * is written 0 and woken when the G ends, as the kernel does for a
	 * thread. Owner only. */
	int *clear_tid;
	bool clear_tid_set;
	uint32_t syncticks;		/* mutex unlocks, for time slicing */
	/* Slices the G used up since it last blocked (g_park resets it):
	 * from G_CPU_BOUND on, it computes rather than waits, and a long
	 * slice serves it better than a short one (core/preempt.c). Owner
	 * only; read by sysmon as a hint. */
	uint8_t preempt_streak;
	/* Run time of the turns the G ended by yielding (sched_yield, a
	 * spin's yield) since it last blocked or used up a slice: the
	 * kernel's accounting goes on across sched_yield, and so does the
	 * slice sysmon gives the G (core/preempt.c). Without it a G that
	 * yields every millisecond would never be preempted, and a G that
	 * waits for it to be interrupted mid-turn would never see that.
	 * Owner writes; sysmon reads. */
	_Atomic int64_t yield_ns;
	/* Counted in sched.nready_ia: made runnable as a thread that waits
	 * for events, not yet run. Set by whoever queues it, cleared by the
	 * M that runs it. */
	bool ia_counted;
	/* Non-zero: the G must not be preempted asynchronously (it runs a
	 * signal handler, or the runtime is between two halves of a state
	 * change). Owner only; read by its own M's signal handler. */
	uint32_t preemptoff;
	/* Signals routed to this G (core/sigq.c): their bits. */
	_Atomic uint64_t sigpend;
	int sig_reinject;		/* signal the G is re-raising for itself */
	/* sigsuspend (pause, sigpause) waits on the G and no handler ran
	 * yet: the first to run leaves its mask in place when it returns
	 * (preload/signal.c: call_user), as the kernel's first frame for
	 * such a wait returns to the wait's caller with the caller's mask,
	 * which the wait puts back; the frames stacked on it meanwhile
	 * restore the first handler's mask, under which other signals run
	 * as usual. The first handler clears it. Owner only. */
	bool sig_nest;
	/* The program's handlers running on the G (preload/signal.c:
	 * call_user), innermost last: the stack pointer each began at, for
	 * a longjmp that leaves them (preload/jump.c). Past HFRAMES deep,
	 * only counted. Owner only. */
#define HFRAMES 8
	uint8_t hdepth;
	uintptr_t hframe_sp[HFRAMES];
	int schedpolicy, schedprio;	/* stored scheduling attributes */
	int nice;			/* setpriority's value for the thread */
	int ioprio;			/* ioprio_set's, when ioprio_set */
	bool ioprio_set;
	cpu_set_t *affinity;		/* stored affinity, NULL = inherit */
	size_t affinity_size;
	char name[16];

	/* --- counters --------------------------------------------------------- */
	uint64_t nrun;			/* times it was switched in */
	int64_t runtime_ns;		/* time spent RUNNING, ns */
	int64_t run_start;		/* when it was last switched in */
};
_Static_assert(offsetof(struct g, kwait_obj) + sizeof(void *) - offsetof(struct g, status) <= 64,
	       "struct g: the fields every call reads fill more than a cache line");

/* Word of the glibc TCB that points to the G owning it (arch/x86_64/tcb.h;
 * core/tls.c checks the layout before any G exists). */
#define GMP_TCB_G_SLOT ARCH_TCB_G_SLOT

/* The G running on this thread, or NULL on a thread that is not a G (a
 * foreign thread, sysmon). Never call from g0: there %fs names the last G
 * that ran, not a running one. */
static inline struct g *getg(void)
{
	return (struct g *)arch_tp_load(GMP_TCB_G_SLOT);
}

/* CAS the status from `from` to `to`; aborts on an illegal transition
 * and spins while the status is not `from` (a concurrent owner finishing). */
void g_casstatus(struct g *gp, uint32_t from, uint32_t to);
static inline uint32_t g_status(struct g *gp)
{
	return ld_acq(&gp->status);
}

/* Allocate a never-used G structure (IDLE). Any context (TLS-free). */
struct g *g_alloc(void);
/* The G with slab index i, or NULL if none was ever allocated. */
struct g *g_by_index(uint32_t i);
/* In the child of fork: the allocator's lock is free. */
void g_after_fork(void);
/* Number of G structures ever allocated. */
uint32_t g_count(void);

/* Wake-up arbitration (see g->wakeup). g_arm returns the new seq. */
uint64_t g_arm(struct g *gp);
/* Claim the wake-up for `seq` (or for whatever seq is armed when seq is
 * 0). Returns true if the caller must g_ready the G. */
bool g_claim(struct g *gp, uint64_t seq);

/*
 * Thread ids (core/proc.h). The main thread's is the process id; every
 * other G's is GMP_TID_BASE (PID_MAX_LIMIT: no OS thread or process has
 * an id as high) + generation * G_TID_SLOTS + index, where the
 * generation moves on each time the G structure starts a new thread: an
 * id is unique among live threads (by its index), and comes back only
 * after its G structure has served G_TID_GENS threads, as the kernel's
 * come back only after pid_max others. Ids stay below 2^29, which the
 * kernel's encoding of a thread's CPU clock (id << 3) keeps whole.
 */
#define GMP_TID_BASE (1u << 22)
#define G_TID_SLOTS (1u << 22)	/* > every G index (core/g.c) */
#define G_TID_GENS 127u
static inline int g_tid(struct g *gp)
{
	return gp->tid;
}
/* The id of the thread gp is about to start (proc_new). */
void g_new_tid(struct g *gp);

/* A real-time scheduling policy: such a thread runs on an OS thread of
 * its own that carries the policy in the kernel (core/m.c m_main). */
static inline bool g_rt_policy(int policy)
{
	int p = policy & ~SCHED_RESET_ON_FORK;
	return p == SCHED_FIFO || p == SCHED_RR;
}

/* A G the scheduler hands to its real-time M before other Gs run. */
static inline bool g_rt_runnable(struct g *gp)
{
	return gp->lockedm && g_rt_policy(gp->schedpolicy);
}

/* Would a cancellation act on gp at a cancellation point now: one is
 * pending, and its cancellation is enabled. */
static inline bool g_cancel_acts(struct g *gp)
{
	return ld_acq(&gp->cancel_pending) && gp->cancelstate == PTHREAD_CANCEL_ENABLE;
}

/* The running G used up a slice without blocking (preempt_streak). */
static inline void g_slice_used(struct g *gp)
{
	if (gp->preempt_streak < UINT8_MAX)
		gp->preempt_streak++;
	st_rlx(&gp->yield_ns, (int64_t)0);
}

#endif
