/* SPDX-License-Identifier: MIT */
/*
 * core/sched.h — M, P and the scheduler.
 *
 * Glossary (seed 001): a G is a user thread, an M an OS thread, a P the
 * right to run user code. An M runs a G only while it holds a P; there are
 * GMPMAXPROCS Ps. Every M has a scheduler stack, g0, on which schedule()
 * and the second half of every switch run. Code on g0 is TLS-free: %fs
 * still names the last G that ran there (switching it costs ~1-4 us on
 * the machines this was measured on, so it is written once per switch, on
 * the way into the next G). g0 code must not touch errno, malloc, stdio or
 * any libc function that does; it gets its M as an argument, never from
 * getg().
 *
 * Lock order (acquire left to right; never the reverse):
 *   g->lock  <  sched.lock
 *   g->lock  <  timers.lock (one P's heap at a time)
 *   wait-table bucket lock  <  timers.lock, sched.lock (two buckets only
 *   through wq_lock2, in address order)
 *   two timers.locks only in timers_move, in P id order;
 *   sched.lock and timers.lock are never held together; sched.gflock,
 *   the stack and slab locks and glibc's dl_stack_cache_lock are leaves.
 * All of them are short, and are taken on g0 or on a G that will not park
 * while holding them (a park's unlock callback releases them on g0).
 *
 * "Worker parking/unparking" (after Go's proc.go): a thread that makes
 * work runnable (runq_put, timer add, g_ready) then calls sched_wakep,
 * which starts a spinning M if there is an idle P and no spinning M. A
 * spinning M that finds nothing must, after decrementing nmspinning,
 * look at every run queue once more (StoreLoad: the submitter publishes
 * work, then reads nmspinning; the spinner decrements nmspinning, then
 * reads the queues) so that one of the two always sees the other.
 *
 * Hand-offs to an M that looks for work (sched.c, handoff_spinning): from
 * the top of find_runnable until it returns a G or drops its P an M has
 * spinwait set, and a G readied elsewhere may be put in its handoff (a
 * CAS), when the M still holds the G's thread pointer or spins. Again a
 * StoreLoad pair: the readier stores handoff, then reads spinwait (if it
 * is clear, it takes the G back with a CAS unless the M took it); the M
 * clears spinwait, then reads handoff (take_handoff). The readier that
 * handed a G to a spinning M stops counting it as spinning (the flag is
 * cleared by whoever wins a CAS on it, which then decrements nmspinning),
 * so that the M it runs on may spin when its own G parks.
 *
 * Ps out of service (core/adapt.c): only Ps with id < sched.nactive run
 * Gs. The others stay on the idle list, which pidleget does not hand out;
 * an M that holds one moves its queued Gs to the global queue and its
 * timers to P 0 at its next schedule, and stops.
 */
#ifndef GMP_CORE_SCHED_H
#define GMP_CORE_SCHED_H

#include "core/g.h"
#include "core/lock.h"
#include "core/timer.h"

#define RUNQ_SIZE 256
#define SYSCALL_RETAKE_NS 20000	/* a P in a system call this long may be retaken */
#define G0_STACK_SIZE (256 * 1024)	/* scheduler stack of every M */
#define GFREE_LOCAL_MAX 64

enum p_status {
	P_IDLE = 0,	/* on the idle list, or being handed to an M */
	P_RUNNING,	/* held by p->m, which runs Gs or the scheduler */
	P_SYSCALL,	/* reserved: its M is in a syscall */
	P_STOP,		/* reserved: stopped for stop-the-world */
};

struct p {
	int id;				/* constant */
	/* Written only by the M that owns the P (or takes it from the idle
	 * list under sched.lock); read racily by others for stealing. */
	_Atomic uint32_t status;
	struct m *m;			/* owner M; under the same rule */
	/* Gs started with a slice of their own (not from runnext
	 * inheriting one); owner writes, sysmon reads racily. */
	uint32_t schedtick;
	_Atomic int64_t slice_start;	/* when schedtick last changed */
	/* Bumped by the owner at each g_syscall_enter; read by sysmon. */
	_Atomic uint32_t syscalltick;
	/* sysmon only: the syscalltick it last saw and when. */
	uint32_t sysmon_tick;
	int64_t sysmon_when;
	/* sysmon only, for Ms blocked where libgmp cannot see: the nswitch
	 * it last saw and when, the M's CPU time when first found stuck
	 * (sysmon_cpu_when 0: not sampled yet), and whether it was asked
	 * to let go of the P. */
	uint64_t sysmon_sw;
	int64_t sysmon_sw_when;
	int64_t sysmon_cpu, sysmon_cpu_when;
	bool sysmon_kicked;
	/* sysmon only, for preemption: the schedtick it last saw, since
	 * when, and when it last asked the M to preempt its G. A G started
	 * from runnext inherits the slice (schedtick unchanged), as in Go:
	 * two threads that wake each other through runnext share one slice
	 * and cannot keep the rest of the queue waiting. */
	uint32_t preempt_tick;
	/* Owner only, for find_runnable's fairness rule: since when the
	 * ring and the global queue have waited (one was last taken from
	 * them, or they were seen empty); whether the last G started came
	 * from runnext (inheriting its slice), and when the current run of
	 * such Gs began. */
	int64_t ring_when, glob_when;
	bool last_inherit;
	int64_t chain_start;
	/* Owner only, for the real-time Gs' precedence (find_runnable): when
	 * an ordinary G last started here or none was seen waiting, and
	 * whether ordinary Gs go first in this look (globrunq_get_locked). */
	int64_t ord_turn;
	bool ord_first;
	int64_t preempt_when, preempt_sent;
	/* sysmon asks the G that runs here to yield while it is in a system
	 * call (no signal: it would interrupt the call); g_syscall_exit
	 * turns it into the G's door request, execute clears it. */
	_Atomic bool preempt_req;

	/* Local run queue: a single-producer (the owner), multi-consumer
	 * ring. The owner writes tail and slots; anyone may CAS head to take
	 * Gs. runnext: the owner sets it; others may CAS it to NULL. */
	_Atomic uint32_t runqhead;
	_Atomic uint32_t runqtail;
	_Atomic(struct g *) runq[RUNQ_SIZE];
	_Atomic(struct g *) runnext;

	struct timers timers;

	/* Dead G structures, and stacks (with their TLS) of ended threads,
	 * for reuse; owner only (core/proc.c). */
	struct g *gfree;
	int ngfree;
	char *sfree;
	int nsfree;
	/* the address space is short: give the stacks in sfree back to the
	 * arenas at the next schedule (sched_stacks_back) */
	_Atomic bool sflush;

	struct p *link;			/* idle list; under sched.lock */

	/* counters, owner only (read racily by schedtrace) */
	uint64_t nsteal;		/* Gs this P stole */
	uint64_t nswitch;		/* Gs started */
	uint64_t nwait[WAIT_NREASON];	/* Gs that parked here, by reason */
};

struct m {
	int id;				/* constant */
	int tid;			/* kernel tid; set by the M at start */
	/* Scheduler stack top (16-aligned): where gmp_ctx_mcall lands. */
	void *g0_top;
	struct g *curg;			/* G running on this M; owner M only */
	struct p *p;			/* P held; owner M only (see sched.h) */
	/* The P this M held when its G entered a system call (it may have
	 * been retaken since); owner M only. */
	struct p *oldp;
	/* P handed to this M by whoever woke it; written before note_wakeup,
	 * read by the M after note_sleep. */
	struct p *nextp;
	bool spinning;			/* looking for work; owner, or set before wake */
	/* The M spins on its P waiting for work (spin_wait in sched.c) and
	 * looks at handoff before it stops: a G made runnable whose thread
	 * pointer this M still holds may be put there (put_runnable), to run
	 * without a thread-pointer write. Owner sets and clears spinwait;
	 * handoff is claimed with a CAS by the readier, taken with xchg. */
	_Atomic bool spinwait;
	_Atomic(struct g *) handoff;
	struct note park;		/* sleeps here when idle */
	struct m *schedlink;		/* idle M list; under sched.lock */
	struct m *alllink;		/* all Ms; append-only */
	uintptr_t fs;			/* thread pointer loaded now; owner only */
	uint64_t ntpw;			/* thread-pointer writes; owner only */
	/* The M's own TCB (its OS thread's, or one made for M0), worn while
	 * the M sleeps so that a signal landing there does not run on the
	 * TLS of a G that may be running elsewhere. 0: none. */
	uintptr_t own_tp;
	/* The G this M is dedicated to (pinned with an affinity mask, or the
	 * owner of a priority-protect mutex) and only runs; written before
	 * the M is published. */
	struct g *lockedg;
	/* Kernel CPU mask the M's thread applies to itself when it starts
	 * (a pinned G's M); NULL: the process's. */
	cpu_set_t *cpumask;
	size_t cpumask_size;
	/* g_park hand-off to the g0 half; owner only. */
	bool (*waitunlockf)(struct m *mp, struct g *gp, void *arg);
	void *waitlock;
	/* The M is inside fork(): sysmon's blocked-M retake must not turn
	 * its state into a system call the child would inherit half-done.
	 * Owner only (read by sysmon). */
	bool in_fork;
	/* Its G was found blocked where libgmp cannot see and its P retaken
	 * (sched_retake_blocked); cleared when the G takes a P again. sysmon
	 * watches such an M's CPU clock: if it runs, the G runs user code
	 * without a P and is preempted at its next safe point. */
	_Atomic bool blocked;
	int64_t sysmon_cpu, sysmon_cpu_when, preempt_sent;	/* sysmon only */
	/* core/adapt.c's last look at the thread's wait for a CPU; sysmon only */
	int64_t adapt_when, adapt_wait;
	/* sysmon's last look at the thread's CPU clock before a preemption
	 * request (m_computing); sysmon only */
	int64_t ask_cpu, ask_cpu_when;
	uint64_t rand;			/* owner only */
	_Atomic(struct m *) spawnlink;	/* pending OS-thread creation */
	/* The kernel signal mask of the M's thread as last set (the running
	 * G's, without SCHED_SIG); owner only. */
	uint64_t kmask;
	struct trace_buf *trace;	/* GMPTRACE events; owner only */
};

struct sched {
	struct rt_mutex lock;

	/* Idle Ms and Ps; under lock. */
	struct m *midle;
	int nmidle;
	struct p *pidle;
	_Atomic int32_t npidle;
	_Atomic int32_t nmspinning;

	/* Global run queue: FIFO linked through g->schedlink; under lock.
	 * runqsize is also read without the lock as a hint. */
	struct g *runqhead, *runqtail;
	_Atomic int32_t runqsize;
	/* The global queue's real-time part, taken before anything else:
	 * Gs with a real-time policy (each with an M of its own) woken or
	 * new (a preempted one goes to the ordinary queue), highest
	 * priority first, first come first served among equals, as a
	 * kernel runs a woken real-time thread before the others. Through
	 * g->schedlink; counted in runqsize too; under lock (nrtq also read
	 * without it as a hint). */
	struct g *rtq;
	_Atomic int32_t nrtq;
	/* Runnable Gs, queued anywhere, that wait for events rather than
	 * compute (g->ia_counted): woken, new, or preempted before they
	 * became CPU-bound. While there are none, a computing G keeps its
	 * whole slice although computing Gs wait (core/preempt.c). */
	_Atomic int32_t nready_ia;

	/* Dead Gs beyond the per-P caches; under gflock. */
	struct rt_mutex gflock;
	struct g *gfree;
	int ngfree;

	/* Netpoll/timer waiting (see core/netpoll.c): lastpoll is 0 while an
	 * M blocks in netpoll, otherwise the time of the last poll. pollUntil
	 * is when that blocked M will wake on its own. */
	_Atomic int64_t lastpoll;
	_Atomic int64_t pollUntil;

	/* All Ms: appended under lock (release), read without it. */
	struct m *_Atomic allm;
	_Atomic int32_t mcount;		/* Ms ever created */
	struct p **allp;		/* constant after init */
	int gomaxprocs;			/* constant after init */

	_Atomic int64_t nlive;		/* Gs created and not yet exited */
	struct g *maing;		/* the main thread's G; constant */
	/* The G whose id is the process id: maing, or in the child of a
	 * fork the forking G (core/proc.h) */
	struct g *leader;
	_Atomic int sigpoll;		/* signals wait in core/sigq.c */
	_Atomic uint64_t goidgen;

	/* statistics (relaxed atomics) */
	_Atomic uint64_t ncreated;
	_Atomic int64_t peaklive;
	_Atomic uint64_t nsteal;
	_Atomic uint64_t nswitch;
	_Atomic uint64_t nretake;	/* Ps sysmon took back from system calls */
	_Atomic uint64_t nblocked;	/* Ms found blocked where libgmp cannot see */
	_Atomic uint64_t nnetpoll_sysmon;	/* network polls by sysmon that readied Gs */
	_Atomic uint64_t nnetpollg;	/* Gs readied because a descriptor became ready */
	_Atomic uint64_t nsysmon_timers;	/* Ms sysmon woke for overdue timers */
	_Atomic uint64_t npreempt;	/* Gs preempted asynchronously */
	_Atomic uint64_t npreempt_door;	/* Gs that yielded at a door when asked */
	_Atomic uint64_t nhandoff;	/* Ps handed to another M (a G blocked) */
	_Atomic uint64_t nspin_handoff;	/* Gs readied onto a spinning M that held their TCB */
	/* Ps with id < nactive run Gs; the others stay on the idle list,
	 * which pidleget does not hand out (core/adapt.c takes Ps out of
	 * service while the kernel keeps the Ms waiting for CPUs). */
	_Atomic int32_t nactive;
	_Atomic uint64_t nparked;	/* times a P left service */
	_Atomic uint64_t nrt_run;	/* times a real-time G started (core/adapt.c) */
	/* How long an M out of work spins on its P before it sleeps (ns);
	 * set at start. */
	int64_t spin_ns;
	/* What one thread-pointer write costs here (ns, measured at start;
	 * 0 with WRFSBASE), and whether a readied G goes to the M that still
	 * holds its thread pointer (handoff_spinning); set at start. */
	int64_t tpw_ns;
	bool affinity;
	int64_t start_ns;
};

extern struct sched sched;

/* --- setup --------------------------------------------------------------- */

/* Create the Ps and make the calling thread M0 running `maing` (which
 * already has its TCB), with m0_tp as M0's own TCB (0: none). Called
 * once. */
void sched_init(int nprocs, struct g *maing, uintptr_t m0_tp);
/* Start the runtime's service thread (sysmon) if it is not running. Must
 * be called from a G (valid TLS). Returns 0 or an errno value. */
int sched_start(void);

/* --- run queues (core/runq.c) ---------------------------------------------- */

/* Owner P only. Put gp on pp's local queue (in runnext if next). */
void runq_put(struct p *pp, struct g *gp, bool next);
/* Owner P only. Take a G; *inherit is true for runnext. */
struct g *runq_get(struct p *pp, bool *inherit);
/* Owner P only. Take the G at the head of the ring, passing over runnext;
 * NULL when the ring is empty. */
struct g *runq_get_ring(struct p *pp);
/* Owner P of pp. Steal about half of p2's queue into pp's; return one G
 * to run, or NULL. Takes runnext too when stealnext. */
struct g *runq_steal(struct p *pp, struct p *p2, bool stealnext);
/* Racy emptiness check of a P's queue (runnext included). */
bool runq_empty(struct p *pp);
uint32_t runq_len(struct p *pp);
/* Owner P only: how many Gs the ring holds (runnext not counted). */
uint32_t runq_ring_len(struct p *pp);
/* Global queue; caller holds sched.lock. globrunq_get_locked takes the
 * real-time part (rtq_put_locked: a real-time G made runnable by a
 * wake-up or created) first, a G at a time. */
void globrunq_put_locked(struct g *gp);
void rtq_put_locked(struct g *gp);
void globrunq_putbatch_locked(struct g *head, struct g *tail, int n);
struct g *globrunq_get_locked(struct p *pp, int max);

/* --- G life ------------------------------------------------------------------- */

/* Owner P only (pp held by the caller). Take a dead G structure from pp's
 * cache or the global one; NULL if none. */
struct g *gfget(struct p *pp);
/* Put a dead G structure on pp's cache. Owner P only. */
void gfput(struct p *pp, struct g *gp);

/* Make a new RUNNABLE G runnable from a G (the back of its own P's
 * queue, first come first served among new threads) or from a thread
 * that is not a G (global queue), and wake an M for it. */
void sched_newproc(struct g *gp);
/* Should the calling G, which just made threads, let those queued on its
 * P run before it goes on (g_yield_local)? Yes when at least
 * NEWPROC_YIELD wait there: a creator that makes threads faster than the
 * processors run them would otherwise queue thousands behind it for a
 * whole slice, where a kernel shares the CPU between a creator and the
 * threads it made. */
#define NEWPROC_YIELD 16
bool sched_creator_gives_way(void);

/* Make a list of RUNNABLE Gs linked through schedlink (n of them)
 * runnable: on the global queue for idle Ps (starting Ms for them) and the
 * rest on pp, the caller's P (NULL: all global). TLS-free. */
void sched_inject(struct g *list, int n, struct p *pp);

/* --- parking (core/sched.c) --------------------------------------------------- */

/*
 * Park the calling G. On g0, after its context is saved and its status is
 * WAITING, unlockf(m, gp, arg) runs: it publishes the G to whoever will
 * wake it and drops the lock that kept wakers away. If it returns false
 * the park is cancelled and the G resumes at once; it may do so only with
 * the G's wake-up claimed by itself (g_claim), for a waker that claimed
 * an armed G spins in g_ready until the G is WAITING. Returns when the G has
 * been readied and runs again (possibly on another M).
 */
void g_park(bool (*unlockf)(struct m *mp, struct g *gp, void *arg), void *arg, uint8_t reason);
/* Make a WAITING G runnable. pp is the P held by the caller (the G goes
 * to its runnext when next), or NULL for a caller without a P (global
 * queue). Never runs gp on the caller's stack. */
void g_ready(struct g *gp, struct p *pp, bool next);
/* The P held by the calling G, or NULL when the caller is not a G. Not
 * for g0. */
struct p *sched_my_p(void);
/* A stack of the default shape could not be mapped: the stacks other Ps
 * keep for their next threads go back to the arenas. Idle Ps' at once;
 * each other P gives its own at its next schedule. Returns how many Ps
 * have yet to (0: all that can come back has). `mine` is the caller's
 * P, or NULL. */
int sched_stacks_back(struct p *mine);
/* g_ready from a caller that does not know whether it holds a P: a G uses
 * its own P, anything else the global queue. Not for g0. */
void g_ready_any(struct g *gp);
/*
 * System calls that may block (Go's entersyscall/exitsyscall, in
 * core/syscall.c with sysmon's retakes below). Around one,
 * the calling G keeps its M but lets go of its P: the P stays in
 * P_SYSCALL, and the G takes it back on return at the cost of one CAS
 * when nobody needed it. sysmon hands a P that stayed in a system call
 * for 20 us to another M when work waits (sched_retake). A G whose P was
 * retaken takes an idle P on return, or queues itself and stops its M.
 * No system call of its own on either side. Not for g0 or a thread that
 * is not a G; nothing between the two may touch the P: code that may
 * call back into libgmp from inside (name service modules, signal
 * handlers) is covered by g_syscall_exit at every interposed entry
 * (door_sync), which makes the outer exit a no-op. A nested enter is a
 * no-op too.
 */
void g_syscall_enter(void);
void g_syscall_exit(void);
/* sysmon: retake Ps stuck in system calls; returns how many. */
int sched_retake(int64_t now);

/*
 * Ms blocked where libgmp cannot see (a system call made inside glibc or
 * with the syscall instruction itself): sysmon finds a P whose G has not
 * come back to the scheduler for SCHED_BLOCKED_NS while work waits, and
 * whose M's thread CPU clock has hardly moved meanwhile. The kernel's
 * record of the thread (/proc/self/task/TID/syscall) must show it in a
 * system call made by code that is not libgmp's. sysmon then turns the
 * state into a system call of the G, as g_syscall_enter would have, when
 * the G is not inside libgmp nor in code libgmp called and goes on after
 * (g->inlib: glibc; the program's code libgmp runs at its safe points,
 * GMP_PROGRAM, counts as the program's), and hands the P on. No signal
 * reaches the M: its call is not interrupted. The G takes a P back at
 * its next entry into libgmp (door_sync, which says how the two sides
 * agree), or when sysmon preempts it running without one. Returns how
 * many Ms lost their P. Needs membarrier (Linux 4.14); without it, a
 * blocked M keeps its P until its call returns.
 */
#define SCHED_SIG SIGURG
#define SCHED_BLOCKED_NS 100000
int sched_retake_blocked(int64_t now);
/* Send the M with kernel tid `tid` SCHED_SIG with si_code `code`
 * (SCHED_SIG_PREEMPT). TLS-free; true if sent. */
bool sched_sig_send(int tid, int code);

/*
 * Asynchronous preemption (core/preempt.c). sysmon asks the M of a P
 * whose G has run for the time slice (GMPDEBUG=preempt=MS, default 10 ms)
 * without coming back to the scheduler to preempt it: SCHED_SIG with
 * si_code SCHED_SIG_PREEMPT. The handler, on that M, acts only at a safe
 * point: the G runs its own code (not libc, ld.so, the vDSO or libgmp) on
 * its own stack, not in a signal handler (g->preemptoff). It then makes
 * the interrupted code call a routine that saves every register and
 * yields (arch_preempt_inject). Otherwise sysmon asks again 1 ms later.
 * An M whose G runs without a P (m->blocked) is asked the same way; its G
 * then takes a P back, or queues itself and stops the M.
 */
#define SCHED_SIG_PREEMPT (-0x49)
/* Is sp on gp's own stack (the initial thread's for the main G; known
 * once preemption is set up)? *lo, if asked: the stack's lowest usable
 * address. Async-signal-safe. */
bool g_stack_bounds(struct g *gp, uintptr_t sp, uintptr_t *lo);
/* Learn the unsafe code ranges (valid TLS; sched_init calls it). */
void preempt_init(void);
/*
 * Is gp, interrupted at uc on its own M, inside libgmp: in an interposed
 * function (or the glibc code it called) that may hold a descriptor's or
 * the wait table's lock, or have armed its wake-up, so that a program's
 * handler run there and calling back into libgmp could deadlock or ready
 * the G itself? Also inside a handler's own call into libgmp. Not in a
 * call made as the program's system call (G_SYSCALL, which a signal must
 * interrupt), nor with a count a longjmp left stale (the outermost
 * entry's frame gone), nor in a vfork child. Async-signal-safe.
 */
bool g_in_runtime(struct g *gp, void *uc);
/* sysmon: send the requests due; returns how many. *waiting: some
 * running processor has threads waiting for it (sysmon then looks again
 * within 1 ms, the shorter slice's resolution). *next_due: the earliest
 * timer not yet due on a running processor, 0 if none (sysmon looks
 * again then: nobody else will before that processor schedules). */
int sched_preempt_long(int64_t now, bool *waiting, int64_t *next_due);
/* Ask one P that runs a G without a real-time policy to give it up (a
 * real-time G waits for a P): returns false when every P runs a
 * real-time G or none could be asked. */
bool sched_preempt_ordinary(void);
/* gp was just given an OS thread of its own (a real-time policy set by
 * another thread): if it runs elsewhere, ask it to move (a preemption
 * request) and wait, at most 20 ms, until it no longer runs there, so
 * that it runs under its policy once the caller goes on, as the kernel's
 * change would have it. A G in a system call moves when it comes back. */
void sched_move_to_lockedm(struct g *gp);
/* The handler of sysmon's request (SCHED_SIG_PREEMPT), async-signal-safe,
 * on the signalled M: a G at a safe point is preempted; a G waiting in the
 * kernel on a semaphore sees its wait end (kwait_interrupt's request). */
void sched_sig_request(void *uc);

/* Put the calling G at the back of the global queue and run others. */
void g_yield(void);
/* sched_yield's: a real-time G on its own OS thread yields as the kernel's. */
void g_sched_yield(void);
/* Put the calling G at the back of its P's queue and run others (Gs this
 * G just readied run before it, on this P). */
void g_yield_local(void);
/* Yield because sysmon asked (preemption): to the back of the global
 * queue when the slice ended, as Go's preemption does; to the back of the
 * P's own queue when a timer of the P is due (the scheduler fires it and
 * runs the Gs it wakes first; the G is not sent behind every runnable G
 * of the process for it). */
void g_preempt_yield(void);
/* Make gp's timer claim (for wake-up seq) and ready gp at `when`; the
 * caller queues it with timer_add from its park unlock callback, and
 * removes it with timer_del once running again. */
void g_timer_prepare(struct g *gp, int64_t when, uint64_t seq);
/* May a thread waiting for a lock spin once more (round `iter`) instead
 * of parking? As Go's canSpin, only a few rounds and only while another P
 * is busy (the holder may be running there); unlike Go, also when Gs wait
 * in the caller's queue: a park and the wake-up that follows cost two
 * switches, more than the few hundred cycles the spin may take. Any
 * thread with valid TLS. */
bool sched_can_spin(int iter);
/* Does another G wait to run, on the running G's P or in the global queue?
 * Racy (a hint). The calling G must not migrate meanwhile (door_hold). */
bool sched_others_queued(void);
/* Sleep the calling G until CLOCK_MONOTONIC reaches `when` (ns); a time
 * already reached yields the processor. */
void g_sleep_until(int64_t when);
/* The calling G is done: switch away for good. The caller has already run
 * every destructor and released its TLS state. */
_Noreturn void g_exit_switch(void);

/* Wake an M to run Gs if a P is idle and nobody is spinning. Any thread
 * with or without a P; TLS-free. */
void sched_wakep(void);
/* A timer was added that is the new earliest on its P: make sure some M
 * will wake for it. TLS-free. */
void sched_wake_netpoller(int64_t when);
/* core/adapt.c: sysmon's look at how long the Ms of running Ps wait for
 * a CPU, which may take a P out of service or bring one back. */
void adapt_procs(int64_t now);
/* Earliest pending timer over all Ps, or 0. */
int64_t sched_timesleepuntil(void);
/* Gs started on all Ps so far (racy reads of each P's count). */
uint64_t sched_switches(void);

/* --- Ms (core/m.c) ------------------------------------------------------------------ */

/* Give an M the P pp (idle M, else a new one) and wake it. TLS-free. */
void m_start(struct p *pp, bool spinning);
/* sysmon: mp's OS thread could not be made; its P is given back by the
 * caller, and mp waits to be used by the next m_start. */
void m_spawn_failed(struct m *mp);
/* No M could be had for pp (no memory for one, or its OS thread could
 * not be made; err says why): warned once, and pp (if any) goes back to
 * the idle Ps, spinning undone. Whoever makes work next tries again. */
void m_start_failed(struct p *pp, bool spinning, int err);
/* A dedicated M for gp (pinned to mask when mask is not NULL; else for
 * a priority-protect mutex). Valid TLS (starts a thread). Returns 0 or an
 * errno value. gp runs only there from its next scheduling on. */
int m_new_locked(struct g *gp, const cpu_set_t *mask, size_t size);
/* Change the kernel CPU mask of a G's dedicated M. Valid TLS. Returns 0
 * or an errno value. */
int m_set_affinity(struct m *mp, const cpu_set_t *mask, size_t size);

/* sysmon.c: ask the service thread to create the OS thread of mp. */
void sysmon_spawn_m(struct m *mp);
/* sysmon.c: a G entered a system call; wakes sysmon if it sleeps with
 * nothing to watch. */
void sysmon_syscall_entered(void);
/* sysmon.c: an idle P was taken (under sched.lock); the same. */
void sysmon_p_busy(void);
/* sysmon.c: a timer became the earliest of its P; wakes sysmon if it
 * sleeps past `when` while some P runs (the timer's P may not schedule
 * in time, and sysmon then asks it to). TLS-free. */
void sysmon_timer_added(int64_t when);
/* The OS-thread body of every M but M0. */
void *m_main(void *arg);

/* The CPU mask of threads that were never pinned: the initial thread's
 * kernel mask (M0 is never dedicated to a G). 0 or an errno value, with
 * the kernel's rules on size. */
int sched_default_affinity(size_t size, cpu_set_t *set);

/* The M whose OS thread has kernel tid `tid`, or NULL. Lock-free,
 * async-signal-safe. */
struct m *m_by_tid(int tid);

/* A fault at addr on this OS thread: is it the running G's stack
 * overflowing (a touch of its guard page)? Then *lo and *hi are the
 * stack's usable bounds. Every M has an alternate signal stack for the
 * handler. Async-signal-safe. */
bool sched_stack_overflow(uintptr_t addr, uintptr_t *lo, uintptr_t *hi);

/* --- signal masks ---------------------------------------------------------------------- */

/* The kernel mask of the calling G's M follows gp->sigmask (after the G
 * changed it). execute() does the same at every switch, with a system
 * call only when the mask differs from the M's. Valid TLS, on gp. */
void sched_apply_sigmask(struct g *gp);
/* The kernel mask of gp's M was changed behind its record (a handler's
 * frame, glibc's setcontext, a raw system call): the next switch or
 * sched_apply_sigmask sets it, whatever it was. Valid TLS, on gp. */
void sched_kmask_unknown(struct g *gp);
/* Ask sysmon to look at its work now (a signal waiter appeared). */
void sysmon_kick(void);
/* Is the caller the child of a vfork (or of a clone sharing memory),
 * running on its parent's memory, where libgmp's state must be left as
 * it is? One system call. */
bool sched_in_vfork_child(void);
/* The process's id, as the runtime last learnt it (at start-up or in a
 * fork's child): no system call. Async-signal-safe. */
int sched_getpid(void);
/* Is the calling thread the service thread (sysmon)? Async-signal-safe. */
bool sysmon_is_current(void);
/* The service thread's kernel id, starting it if needed (from a G), or 0
 * if it cannot start. A thread of the process that never runs a G and
 * takes the signals addressed to none (preload/timer.c). */
int sysmon_thread_id(void);

/* --- fork (core/m.c) -------------------------------------------------------------------- */

/*
 * In the child of fork, on the forking G (the only thread left): rebuild
 * the scheduler around it. This M is the only M and keeps (or takes back)
 * one P; every other G is dead; run queues, timers, free lists and the
 * runtime's locks are reset; sysmon starts again when needed; the wait
 * table, signal queue, netpoller, stack caches and glibc's TCB lists are
 * reset too (their own after-fork steps). The fork was made with the
 * thread pointer naming the M's own TCB (TLS.md P6).
 */
void sched_after_fork(struct g *gp);
/* sysmon.c: the child has no service thread. */
void sysmon_after_fork(void);

/* --- introspection --------------------------------------------------------------- */

/* Live OS threads libgmp runs (Ms + service threads), for stats. */
int sched_os_threads(void);

#endif
