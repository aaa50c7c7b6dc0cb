/* SPDX-License-Identifier: MIT */
/*
 * core/sysmon.c — the runtime's service thread.
 *
 * A real glibc thread without a P. It starts the OS threads of new Ms
 * (m_start runs on g0, where glibc's pthread_create must not be called),
 * prints GMPDEBUG=schedtrace lines, retakes Ps from system calls and
 * blocked Ms, and asks Gs that ran a whole time slice to yield.
 */
#include "core/config.h"
#include "core/debug.h"
#include "core/dump.h"
#include "core/trace.h"
#include "core/netpoll.h"
#include "core/os.h"
#include "core/sched.h"
#include "core/kwait.h"
#include "core/sigq.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static struct note sysmon_note;
/* 1 while sysmon sleeps without a deadline (every P idle) */
static _Atomic int sysmon_deep;
/* 1 when sysmon was woken for something to look after closely (a system
 * call, an M to start, a signal, a timer), not only because a P went
 * busy: its rounds start again at 20 us */
static _Atomic int sysmon_closely;

/* Wake sysmon from its sleep. */
static void sysmon_wake(void)
{
	st_rlx(&sysmon_closely, 1);
	note_wakeup(&sysmon_note);
}

void sysmon_syscall_entered(void)
{
	/* the caller published P_SYSCALL; sysmon publishes sysmon_deep and
	 * then looks at the Ps: one of the two sees the other */
	fence_seq();
	if (ld_rlx(&sysmon_deep))
		sysmon_wake();
}

void sysmon_p_busy(void)
{
	/* the caller's npidle decrement (a locked instruction) comes
	 * before this load; sysmon sets sysmon_deep, then reads npidle.
	 * Only a G to watch for its time slice: sysmon goes on at the pace
	 * it had (processes whose threads all wait and wake many times a
	 * millisecond would otherwise have it look every 20 us) */
	if (ld_rlx(&sysmon_deep))
		note_wakeup(&sysmon_note);
}

/* When sysmon's current sleep ends (INT64_MAX: not before it is woken;
 * 0: it is awake). */
static _Atomic int64_t sysmon_until;

void sysmon_timer_added(int64_t when)
{
	/* a wake-up within 20 us of the planned one gains nothing */
	if (when + SYSCALL_RETAKE_NS < ld_rlx(&sysmon_until) && !ld_rlx(&sysmon_deep))
		sysmon_wake();
}

static bool all_idle(void)
{
	return ld_acq(&sched.npidle) == sched.gomaxprocs;
}
static _Atomic(struct m *) spawnq;	/* Ms waiting for an OS thread */
static _Atomic int started;

void sysmon_spawn_m(struct m *mp)
{
	struct m *head = ld_rlx(&spawnq);
	do
		st_rlx(&mp->spawnlink, head);
	while (!cas(&spawnq, &head, mp));
	/* the first M asked for may come before any thread was made (a
	 * blocking call's hand-off): sysmon starts and serves it */
	sched_start();
	sysmon_wake();
}

/* The thread for mp could not be created: give its P back. */
static void spawn_failed(struct m *mp, int err)
{
	struct p *pp = mp->nextp;
	mp->nextp = NULL;
	bool spinning = mp->spinning;
	mp->spinning = false;
	m_start_failed(pp, spinning, err);
	m_spawn_failed(mp);
}

static _Atomic int sysmon_tid;

bool sysmon_is_current(void)
{
	int t = ld_acq(&sysmon_tid);
	return t && t == (int)arch_syscall0(SYS_gettid);
}

/* A signal was posted (async-signal-safe). */
void sysmon_kick(void)
{
	sysmon_wake();
}

static void serve_spawns(void)
{
	struct m *mp = xchg(&spawnq, (struct m *)NULL);
	while (mp) {
		struct m *next = ld_rlx(&mp->spawnlink);
		int err = os_thread_start(m_main, mp, 256 * 1024);
		if (err)
			spawn_failed(mp, err);
		mp = next;
	}
}

/* The deadlock check (core/dump.h): every P idle and nothing that could
 * ever run again, twice DEAD_CONFIRM_NS apart with no switch between,
 * and no OS thread in the process but libgmp's (a thread glibc made may
 * still call in). Returns true to be called again DEAD_CONFIRM_NS later. */
#define DEAD_CONFIRM_NS 100000000
/* how soon sysmon interrupts again a wait whose cancellation is pending */
#define KWAIT_RECHECK_NS 10000000
/* How long every P must have been idle before sysmon sleeps without a
 * deadline (and a P that goes busy wakes it). Threads that wait and wake
 * many times a millisecond (a ping-pong with another process through a
 * process-shared semaphore) leave every P idle between their turns: woken
 * at each turn, sysmon was one more thread to wake per round trip, with
 * its own inter-processor interrupt, where NPTL has none. */
#define DEEP_AFTER_NS 50000000
static bool dead_reported;
static int64_t dead_since, dead_sw;

static bool checkdead(int64_t now)
{
	if (rt_cfg.deadlock == DEADLOCK_OFF || dead_reported || !all_idle())
		return false;
	int64_t sw;
	if (!dump_all_asleep(&sw) || os_each_task(NULL, NULL) > sched_os_threads() + 1) {
		dead_since = 0;
		return false;
	}
	if (!dead_since || sw != dead_sw) {
		dead_since = now;
		dead_sw = sw;
		return true;
	}
	if (now - dead_since < DEAD_CONFIRM_NS)
		return true;
	dead_reported = true;
	dump_deadlock(2);
	if (rt_cfg.deadlock == DEADLOCK_FATAL)
		arch_syscall1(SYS_exit_group, 2);
	return false;
}

/* What nobody looks at while every M runs Gs: the network, when nobody
 * has polled it for 10 ms (what it readies is made runnable), and timers
 * more than 1 ms overdue while a P is idle (their P runs a long G: an M
 * is started, which runs other Ps' expired timers when it looks for
 * work). */
static void look_after_neglected(int64_t now)
{
	int64_t last = ld_acq(&sched.lastpoll);
	if (netpoll_any_waiters() && last != 0 && now - last > 10000000 &&
	    cas(&sched.lastpoll, &last, now)) {
		int n;
		struct g *list = netpoll(0, &n);
		if (list) {
			xadd(&sched.nnetpoll_sysmon, 1);
			trace_ev(NULL, TR_NETPOLL, list, n);
			sched_inject(list, n, NULL);
		}
	}
	int64_t next = sched_timesleepuntil();
	if (next && now - next > 1000000 && ld_rlx(&sched.npidle) > 0) {
		xadd(&sched.nsysmon_timers, 1);
		sched_wakep();
	}
}

static void *sysmon_main(void *arg)
{
	/* never the thread the kernel picks for a process signal (glibc's
	 * sigfillset leaves out its reserved signals: SIGSETXID, used by
	 * preload/cred.c, still reaches this thread) */
	sigset_t all;
	sigfillset(&all);
	arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8);
	/* its 20 us rounds are the retake's latency: without the kernel's
	 * default 50 us of timer slack, which would triple them */
	arch_syscall2(SYS_prctl, PR_SET_TIMERSLACK, 1);
	uint64_t mask, want = 0;
	memcpy(&mask, &all, sizeof mask);
	const uint64_t all_mask = mask;
	st_rel(&sysmon_tid, os_gettid());
	int64_t period = (int64_t)rt_cfg.schedtrace_ms * 1000000;
	int64_t next_trace = period ? rt_nanotime() + period : 0;

	/* Between 20 us and 10 ms between rounds (below). With every P idle there
	 * is nothing to watch: sleep until kicked (a system call, a spawn, a
	 * signal) or the next trace. */
	int64_t delay = SYSCALL_RETAKE_NS;
	int idle = 0;
	int64_t busy_seen = 0;	/* the last round that found a P busy */
	for (;;) {
		note_clear(&sysmon_note);
		st_rlx(&sysmon_closely, 0);
		serve_spawns();
		/* signals some G takes (does not block, or waits for) while
		 * every running thread may block them: this thread takes
		 * them, for sigq to route */
		uint64_t w = sigq_accepted();
		if (w != want) {
			want = w;
			mask = all_mask & ~w;
			arch_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &mask, NULL, 8);
		}
		sigq_poll(NULL);
		int64_t now = rt_nanotime();
		if (next_trace && now >= next_trace) {
			debug_schedtrace(rt_cfg.scheddetail);
			next_trace += period;
			if (next_trace < now)
				next_trace = now + period;
		}
		look_after_neglected(now);
		/* as Go's sysmon: 20 us rounds until 50 in a row found nothing
		 * to retake (1 ms), then doubling. Preemption requests do not
		 * count: with threads computing all the time, sysmon would
		 * otherwise wake every 20 us and take a CPU's share itself. */
		bool waiting;
		int64_t next_due;
		sched_preempt_long(now, &waiting, &next_due);
		adapt_procs(now);
		bool kwaits = kwait_recheck();
		if (sched_retake(now) + sched_retake_blocked(now))
			idle = 0;
		else
			idle++;
		if (idle <= 50)
			delay = SYSCALL_RETAKE_NS;
		else if (delay < 10000000)
			delay *= 2;
		int64_t sleep = delay;
		if (waiting && sleep > 1000000)
			sleep = 1000000;
		/* a timer of a busy processor: be there when it is due */
		if (next_due && next_due - now < sleep)
			sleep = next_due - now < SYSCALL_RETAKE_NS ? SYSCALL_RETAKE_NS : next_due - now;
		bool look_again = checkdead(now);
		if (look_again)
			sleep = DEAD_CONFIRM_NS;
		else if (!all_idle())
			busy_seen = now;
		else if (now - busy_seen >= DEEP_AFTER_NS) {
			st_rlx(&sysmon_deep, 1);
			fence_seq();
			if (all_idle())
				sleep = -1;
		}
		/* a cancellation that has yet to get its G out of a wait */
		if (kwaits && (sleep < 0 || sleep > KWAIT_RECHECK_NS)) {
			st_rlx(&sysmon_deep, 0);
			sleep = KWAIT_RECHECK_NS;
		}
		if (next_trace && (sleep < 0 || next_trace - now < sleep))
			sleep = next_trace - now;
		st_rlx(&sysmon_until, sleep < 0 ? INT64_MAX : now + sleep);
		note_tsleep(&sysmon_note, sleep);
		st_rlx(&sysmon_until, (int64_t)0);
		st_rlx(&sysmon_deep, 0);
		if (sleep < 0 && ld_rlx(&sysmon_closely)) {
			delay = SYSCALL_RETAKE_NS;
			idle = 0;
		}
	}
	return NULL;
}

int sched_start(void)
{
	if (ld_acq(&started))
		return 0;
	int expect = 0;
	if (!cas(&started, &expect, 1))
		return 0;
	int err = os_thread_start(sysmon_main, NULL, 256 * 1024);
	if (err)
		st_rel(&started, 0);
	return err;
}

void sysmon_after_fork(void)
{
	st_rel(&started, 0);
	st_rel(&sysmon_tid, 0);
	st_rel(&spawnq, (struct m *)NULL);
	st_rlx(&sysmon_deep, 0);
	note_clear(&sysmon_note);
}

int sysmon_thread_id(void)
{
	if (sched_start() != 0)
		return 0;
	int t;
	while (!(t = ld_acq(&sysmon_tid)))
		arch_syscall0(SYS_sched_yield);
	return t;
}

int sysmon_running(void)
{
	return ld_acq(&started);
}
