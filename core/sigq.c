/* SPDX-License-Identifier: MIT */
/*
 * core/sigq.c — the queue of signals on their way to Gs (see sigq.h).
 *
 * A fixed pool of records, claimed with a CAS so that a signal handler
 * can post without locks or allocation. Record states:
 *   FREE -> FILLING (poster) -> POSTED -> ROUTING (one router) -> ROUTED
 *   ROUTED -> TAKING (the target G) -> FREE
 * Everything here is TLS-free and async-signal-safe except sigq_poll,
 * which takes scheduler locks (never from a handler).
 */
#include "core/sigq.h"
#include "core/os.h"
#include "core/netpoll.h"
#include "core/sched.h"

#include <sys/syscall.h>
#include <ucontext.h>

enum { REC_FREE, REC_FILLING, REC_POSTED, REC_ROUTING, REC_ROUTED, REC_TAKING };

#define SIGQ_MAX 512

struct sigrec {
	_Atomic uint32_t state;
	struct g *target;	/* NULL while POSTED without a target */
	bool process;		/* posted for the process (routed to a G by sigq_poll) */
	uint64_t seq;		/* order of posting: queued instances are taken FIFO */
	siginfo_t info;
};
static _Atomic uint64_t post_seq;

static struct sigrec recs[SIGQ_MAX];
static _Atomic int nposted;	/* records POSTED (routed or not yet) */
/* Records ROUTED (counted before they are marked): a G that ends looks
 * for its own only when there are any, not over the whole pool at every
 * thread's end. */
static _Atomic int nrouted;

/* gp->sigpend: the signals of records routed to gp. The router marks
 * the record ROUTED, then sets the bit; the G, having taken a record of
 * signal sig, clears sig's bit and then looks for another record of sig
 * routed to it, setting the bit again if one is there. A bit is never
 * lost: a router whose bit the clear removed had marked its record
 * before, and the look after the clear (both read-modify-writes of
 * sigpend, ordered) sees it. */
static void settle_pend(struct g *gp, int sig)
{
	uint64_t bit = sigq_bit(sig);
	atomic_fetch_and_explicit(&gp->sigpend, ~bit, memory_order_acq_rel);
	for (int i = 0; i < SIGQ_MAX; i++) {
		struct sigrec *r = &recs[i];
		if (ld_acq(&r->state) == REC_ROUTED && r->target == gp && r->info.si_signo == sig) {
			atomic_fetch_or_explicit(&gp->sigpend, bit, memory_order_acq_rel);
			return;
		}
	}
}

void sysmon_kick(void);

/* A free record filled with info for target (NULL: the process), left
 * FILLING; NULL when there is none, or (*merged) when a standard signal
 * is pending already where this one would be. */
static struct sigrec *fill_record(struct g *target, const siginfo_t *info, bool *merged)
{
	int sig = info->si_signo;
	*merged = false;
	if (sig < 32) {
		/* a standard signal is pending at most once for the process
		 * and once per thread, as in the kernel's two queues: a
		 * process record routed to a G is still the process's until
		 * that G takes it (routing is only the kernel's choice of
		 * whom to wake), and a record on its way (ROUTING) ends
		 * routed or posted again, never dropped */
		for (int i = 0; i < SIGQ_MAX; i++) {
			struct sigrec *r = &recs[i];
			/* the fields are read between two equal looks at the
			 * state; a record that moved on meanwhile (a router
			 * took it from POSTED to ROUTING to ROUTED) is read
			 * again, not passed over: passing it would post a
			 * second instance of a signal still pending */
			for (;;) {
				uint32_t st = ld_acq(&r->state);
				if (st != REC_POSTED && st != REC_ROUTING && st != REC_ROUTED)
					break;
				bool same = r->info.si_signo == sig && r->process == (target == NULL) &&
					    (!target || r->target == target);
				if (ld_acq(&r->state) != st)
					continue;
				if (same) {
					*merged = true;
					return NULL;
				}
				break;
			}
		}
	}
	for (int i = 0; i < SIGQ_MAX; i++) {
		if (ld_rlx(&recs[i].state) != REC_FREE ||
		    !cas_val(&recs[i].state, (uint32_t)REC_FREE, (uint32_t)REC_FILLING))
			continue;
		recs[i].target = target;
		recs[i].process = target == NULL;
		recs[i].seq = xadd(&post_seq, 1);
		recs[i].info = *info;
		return &recs[i];
	}
	return NULL;
}

/* r, filled, is posted for a router. */
static void post_filled(struct sigrec *r)
{
	st_rel(&r->state, (uint32_t)REC_POSTED);
	xadd(&nposted, 1);
	st_rel(&sched.sigpoll, 1);
	netpoll_break();
	sysmon_kick();
}

bool sigq_post(struct g *target, const siginfo_t *info)
{
	bool merged;
	struct sigrec *r = fill_record(target, info, &merged);
	if (!r)
		return merged;
	post_filled(r);
	return true;
}

/* Signals some G waits for (sigwait, sigsuspend, pause): per signal,
 * how many such Gs. */
static _Atomic int32_t nwant[64];
/* Per signal, how many live Gs block it. */
static _Atomic int32_t nblocked[64];

/* counts[s - 1] += d for every signal s in set */
static void count(_Atomic int32_t *counts, uint64_t set, int32_t d)
{
	while (set) {
		xadd(&counts[__builtin_ctzll(set)], d);
		set &= set - 1;
	}
}

void sigq_mask_change(uint64_t old, uint64_t new)
{
	count(nblocked, new & ~old, 1);
	count(nblocked, old & ~new, -1);
}

uint64_t sigq_accepted(void)
{
	int64_t live = ld_rlx(&sched.nlive);
	uint64_t m = 0;
	for (int b = 0; b < 64; b++)
		if (ld_rlx(&nblocked[b]) < live || ld_rlx(&nwant[b]) > 0)
			m |= (uint64_t)1 << b;
	return m;
}

static bool live(struct g *gp)
{
	uint32_t st = g_status(gp);
	return st != G_DEAD && st != G_IDLE;
}

/* Who gets a process signal: the main thread if it takes it (Linux
 * offers process signals to the main thread first, whatever the others
 * do: one in pause() does not take it from main); else a G waiting for
 * it (sigwait's signals count as taken, as the kernel unblocks them for
 * the wait); else any G that does not block it; else nobody yet (it
 * stays pending for the process until a G unblocks or waits for it). */
static struct g *choose_target(int sig)
{
	uint64_t bit = sigq_bit(sig);
	uint32_t n = g_count();
	struct g *mg = sched.maing;
	if (live(mg) && (!(ld_rlx(&mg->sigmask) & bit) || (ld_acq(&mg->sigwant) & bit)))
		return mg;
	if (ld_acq(&nwant[sig - 1]) > 0) {
		for (uint32_t i = 0; i < n; i++) {
			struct g *gp = g_by_index(i);
			if (live(gp) && (ld_acq(&gp->sigwant) & bit))
				return gp;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		struct g *gp = g_by_index(i);
		if (live(gp) && !(ld_rlx(&gp->sigmask) & bit))
			return gp;
	}
	return NULL;
}

/* Make target notice its signal: interrupt a wait that the signal ends
 * (an interruptible wait when the G does not block it, or a wait for
 * this very signal), or nudge the OS thread it runs on. */
static void kick(struct g *gp, int sig, struct p *pp)
{
	uint64_t bit = sigq_bit(sig);
	bool blocked = ld_rlx(&gp->sigmask) & bit;
	bool wanted = ld_acq(&gp->sigwant) & bit;
	if (blocked && !wanted)
		return;	/* it stays pending for gp */
	if (g_claim(gp, 0)) {
		g_ready(gp, pp, false);
		return;
	}
	if (blocked)
		return;
	struct m *mp = gp->m;
	int tid = mp ? __atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE) : 0;
	uint32_t st = g_status(gp);
	if ((st == G_RUNNING || st == G_SYSCALL) && tid) {
		siginfo_t nudge = {0};
		nudge.si_signo = sig;
		nudge.si_code = SIGQ_NUDGE;
		long pid = arch_syscall0(SYS_getpid);
		arch_syscall4(SYS_rt_tgsigqueueinfo, pid, tid, sig, &nudge);
		os_count(OSC_SIGNAL);
	}
	/* runnable, or waiting where signals do not interrupt: it looks
	 * when it next passes through libgmp */
}

/* A record (ROUTING) whose G ended before it took it: a process signal
 * goes back to be routed to another thread, as the kernel would have
 * delivered it to one that takes it; a thread's is dropped with its
 * thread, as Linux drops it. */
static void give_back(struct sigrec *r)
{
	xadd(&nrouted, -1);
	if (!r->process) {
		st_rel(&r->state, (uint32_t)REC_FREE);
		return;
	}
	r->target = NULL;
	xadd(&nposted, 1);
	st_rel(&r->state, (uint32_t)REC_POSTED);
	st_rel(&sched.sigpoll, 1);
	sysmon_kick();
}

void sigq_g_exited(struct g *gp)
{
	/* gp is DEAD (stored before); a router that routed to it before
	 * seeing that looks again after its own count and store
	 * (sigq_poll): when the count reads 0 here, that look sees DEAD */
	fence_seq();
	for (int i = 0; i < SIGQ_MAX && ld_acq(&nrouted) > 0; i++) {
		struct sigrec *r = &recs[i];
		if (ld_acq(&r->state) == REC_ROUTED && r->target == gp &&
		    cas_val(&r->state, (uint32_t)REC_ROUTED, (uint32_t)REC_ROUTING))
			give_back(r);
	}
	st_rel(&gp->sigpend, (uint64_t)0);
}

/* r (ROUTING, or FILLING when it was never posted) goes to gp, live
 * when the router looked. */
static void route(struct sigrec *r, struct g *gp, struct p *pp)
{
	int sig = r->info.si_signo;
	r->target = gp;
	xadd(&nrouted, 1);
	st_rel(&r->state, (uint32_t)REC_ROUTED);
	fence_seq();
	if (!live(gp)) {
		/* it ended meanwhile; sigq_g_exited may have missed this
		 * record: whoever moves it out of ROUTED gives it back */
		if (cas_val(&r->state, (uint32_t)REC_ROUTED, (uint32_t)REC_ROUTING))
			give_back(r);
		return;
	}
	atomic_fetch_or_explicit(&gp->sigpend, sigq_bit(sig), memory_order_release);
	/* its handler runs at the G's next door, wherever the nudge
	 * below finds it */
	if (!(ld_rlx(&gp->sigmask) & sigq_bit(sig)))
		atomic_fetch_or_explicit(&gp->door, DOOR_SIGNAL, memory_order_release);
	kick(gp, sig, pp);
}

bool sigq_send(struct g *target, const siginfo_t *info, struct p *pp)
{
	bool merged;
	struct sigrec *r = fill_record(target, info, &merged);
	if (!r)
		return merged;
	if (!target) {
		/* the process's: routed here, never left to a router that
		 * another thread (sysmon) may be, which would route it only
		 * after the sender's call returned */
		struct g *gp = choose_target(info->si_signo);
		if (gp)
			route(r, gp, pp);
		else
			post_filled(r);
		return true;
	}
	if (!live(target)) {
		/* its thread is gone: dropped, as Linux drops it */
		st_rel(&r->state, (uint32_t)REC_FREE);
		return true;
	}
	route(r, target, pp);
	return true;
}

void sigq_poll(struct p *pp)
{
	/* An exchange, not a store: a poster counts its record (nposted)
	 * and then sets sigpoll; a plain store of 0 could land after that
	 * set while the look at nposted below passed it and saw none,
	 * leaving the record unrouted with nobody asked to look again */
	if (!ld_acq(&sched.sigpoll) || !xchg(&sched.sigpoll, 0))
		return;
	for (int i = 0; i < SIGQ_MAX && ld_acq(&nposted) > 0; i++) {
		struct sigrec *r = &recs[i];
		if (!cas_val(&r->state, (uint32_t)REC_POSTED, (uint32_t)REC_ROUTING))
			continue;
		int sig = r->info.si_signo;
		struct g *gp = r->target ? r->target : choose_target(sig);
		if (!gp || !live(gp)) {
			/* pending for the process (also when the G chosen for
			 * it has just ended), or its thread is gone (as with a
			 * thread-directed signal under Linux) */
			if (gp && !r->process) {
				xadd(&nposted, -1);
				st_rel(&r->state, (uint32_t)REC_FREE);
			} else {
				st_rel(&r->state, (uint32_t)REC_POSTED);
				/* a G that unblocked it meanwhile polled while
				 * this record was ROUTING, and skipped it: one
				 * of the two sees the other (its mask store,
				 * this state store), so look again */
				fence_seq();
				if (gp || choose_target(sig)) {
					st_rel(&sched.sigpoll, 1);
					sysmon_kick();
				}
			}
			continue;
		}
		xadd(&nposted, -1);
		route(r, gp, pp);
	}
}

void sigq_reroute(struct p *pp)
{
	st_rel(&sched.sigpoll, 1);
	sigq_poll(pp);
}

void sigq_reroute_soon(void)
{
	st_rel(&sched.sigpoll, 1);
}

bool sigq_pending_for(struct g *gp)
{
	return (ld_acq(&gp->sigpend) & ~ld_rlx(&gp->sigmask)) != 0;
}

/* A record gp may take (routed to it, or, with process, posted for the
 * process and not yet routed) of a signal in accept; its state in *st. */
static bool takeable(struct sigrec *r, struct g *gp, uint64_t accept, bool process,
		     uint32_t *st)
{
	/* the fields read between two equal looks at the state (as in
	 * fill_record): a router that takes a process's record from POSTED
	 * to ROUTING sets its target, which read alone made the record
	 * look like neither */
	for (;;) {
		*st = ld_acq(&r->state);
		bool mine = *st == REC_ROUTED && r->target == gp;
		bool unrouted = process && *st == REC_POSTED && r->process;
		bool wanted = sigq_bit(r->info.si_signo) & accept;
		if (ld_acq(&r->state) == *st)
			return (mine || unrouted) && wanted;
	}
}

/* The kernel's order of taking (dequeue_signal): the thread's own
 * signals before the process's, each lowest-numbered first, queued
 * instances first posted first. */
static bool before(const struct sigrec *a, const struct sigrec *b)
{
	if (a->process != b->process)
		return !a->process;
	if (a->info.si_signo != b->info.si_signo)
		return a->info.si_signo < b->info.si_signo;
	return a->seq < b->seq;
}

void sigq_discard(int sig)
{
	for (int i = 0; i < SIGQ_MAX; i++) {
		struct sigrec *r = &recs[i];
		uint32_t st = ld_acq(&r->state);
		if ((st != REC_POSTED && st != REC_ROUTED) || r->info.si_signo != sig ||
		    !cas_val(&r->state, st, (uint32_t)REC_TAKING))
			continue;
		/* taken here: target is stable */
		struct g *gp = r->target;
		if (st == REC_POSTED)
			xadd(&nposted, -1);
		else
			xadd(&nrouted, -1);
		st_rel(&r->state, (uint32_t)REC_FREE);
		if (st == REC_ROUTED && gp)
			settle_pend(gp, sig);
	}
}

/* The record sigq_take_mask would take now, in that order; NULL if none.
 * Its state in *st; *routing: a process's signal in accept is being
 * routed (with process). */
static struct sigrec *pick(struct g *gp, uint64_t accept, bool process, uint32_t *st,
			   bool *routing)
{
	*routing = false;
	if (!process && !(ld_acq(&gp->sigpend) & accept))
		return NULL;
	struct sigrec *best = NULL;
	uint32_t s;
	for (int i = 0; i < SIGQ_MAX; i++) {
		struct sigrec *r = &recs[i];
		if (!takeable(r, gp, accept, process, &s)) {
			if (process && s == REC_ROUTING && r->process &&
			    (sigq_bit(r->info.si_signo) & accept))
				*routing = true;
			continue;
		}
		if (!best || before(r, best)) {
			best = r;
			*st = s;
		}
	}
	return best;
}

/* How long a look waits for a process's signal that a router (sysmon,
 * another thread) is routing at that moment: pending all the same
 * (sigpending shows it), and a sigtimedwait that polls must take it. A
 * bound, not a wait for good: the router may be the code this call's
 * signal frame interrupted. */
#define ROUTING_WAIT_NS 200000

/* pick, once no process's signal it could take is being routed. */
static struct sigrec *pick_settled(struct g *gp, uint64_t accept, bool process, uint32_t *st)
{
	int64_t until = 0;
	for (;;) {
		bool routing;
		struct sigrec *r = pick(gp, accept, process, st, &routing);
		if (r || !routing)
			return r;
		int64_t now = rt_nanotime();
		if (!until)
			until = now + ROUTING_WAIT_NS;
		else if (now >= until)
			return NULL;
		arch_cpu_relax();
	}
}

int sigq_next(struct g *gp, uint64_t accept, bool process, bool *own)
{
	uint32_t st;
	struct sigrec *r = pick_settled(gp, accept, process, &st);
	*own = r && !r->process;
	return r ? r->info.si_signo : 0;
}

bool sigq_take_mask(struct g *gp, uint64_t accept, bool process, siginfo_t *out)
{
	for (;;) {
		uint32_t st = 0;
		struct sigrec *r = pick_settled(gp, accept, process, &st);
		if (!r)
			return false;
		if (!cas_val(&r->state, st, (uint32_t)REC_TAKING))
			continue;	/* taken or moved meanwhile: look again */
		*out = r->info;
		if (st == REC_POSTED)
			xadd(&nposted, -1);
		else
			xadd(&nrouted, -1);
		st_rel(&r->state, (uint32_t)REC_FREE);
		if (st == REC_ROUTED)
			settle_pend(gp, out->si_signo);
		return true;
	}
}


uint64_t sigq_takeable_mask(struct g *gp)
{
	uint64_t m = 0;
	uint32_t st;
	for (int i = 0; i < SIGQ_MAX; i++)
		if (takeable(&recs[i], gp, ~(uint64_t)0, true, &st))
			m |= sigq_bit(recs[i].info.si_signo);
	return m;
}

/* A record is pending from its post until it is taken, whoever routes
 * it meanwhile: a thread's for its G (posted, being routed by a router
 * that came first, or routed), a process's for every G (routing only
 * chooses whom to wake). */
uint64_t sigq_pending_mask(struct g *gp)
{
	uint64_t m = 0;
	for (int i = 0; i < SIGQ_MAX; i++) {
		struct sigrec *r = &recs[i];
		uint32_t st = ld_acq(&r->state);
		if (st != REC_POSTED && st != REC_ROUTING && st != REC_ROUTED)
			continue;
		if (r->process || r->target == gp)
			m |= sigq_bit(r->info.si_signo);
	}
	return m;
}

void sigq_want(struct g *gp, uint64_t set)
{
	count(nwant, set, 1);
	st_rel(&gp->sigwant, set);
}

void sigq_unwant(struct g *gp)
{
	count(nwant, xchg(&gp->sigwant, (uint64_t)0), -1);
}

bool sigq_blocked_any(int sig)
{
	return ld_rlx(&nblocked[sig - 1]) > 0;
}

bool sigq_wanting(int sig)
{
	return ld_acq(&nwant[sig - 1]) > 0;
}

struct g *sigq_current_g(void *ucontext, bool *is_m)
{
	int tid = (int)arch_syscall0(SYS_gettid);
	struct m *mp = m_by_tid(tid);
	*is_m = mp != NULL;
	if (!mp)
		return NULL;
	struct g *gp = mp->curg;
	uint32_t st = gp ? g_status(gp) : G_IDLE;
	/* running, or inside a system call it makes holding this M (the
	 * handler runs there, as it would on its own thread) */
	if (!gp || (st != G_RUNNING && st != G_SYSCALL) || gp->m != mp)
		return NULL;
	/* between the switch and the status change the G is still RUNNING
	 * but the CPU is on the scheduler stack */
	uintptr_t sp = (uintptr_t)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RSP];
	if (sp <= (uintptr_t)mp->g0_top && sp >= (uintptr_t)mp->g0_top - G0_STACK_SIZE)
		return NULL;
	/* the thread pointer must be the G's (not the M's own, nor a stale
	 * one in the window where it is being switched) */
	if (arch_tp() != gp->tcb)
		return NULL;
	return gp;
}

void sigq_after_fork(struct g *gp)
{
	for (int i = 0; i < SIGQ_MAX; i++)
		st_rlx(&recs[i].state, (uint32_t)REC_FREE);
	st_rlx(&nposted, 0);
	st_rlx(&nrouted, 0);
	for (int s = 0; s < 64; s++) {
		st_rlx(&nwant[s], 0);
		st_rlx(&nblocked[s], 0);
	}
	st_rlx(&gp->sigwant, (uint64_t)0);
	st_rlx(&gp->sigpend, (uint64_t)0);
	sigq_mask_change(0, ld_rlx(&gp->sigmask));
}
