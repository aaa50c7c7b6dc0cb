/* SPDX-License-Identifier: MIT */
/*
 * core/dump.c — every thread's state and stack, for the deadlock report
 * and the thread dump (see dump.h).
 *
 * Async-signal-safe: no locks, no allocation. Gs are type-stable, so a
 * walk over them needs no lock; a G that changes state while it is
 * printed may show a mixed picture, never a crash. Stacks are unwound
 * with libunwind's local unwinder (which is async-signal-safe) from the
 * context a G saved when it stopped running (switch.S's frame); a running
 * G's context is stale and is not unwound, except the caller's own.
 */
#define UNW_LOCAL_ONLY
#include "core/dump.h"
#include "core/netpoll.h"
#include "core/rt.h"
#include "core/sched.h"
#include "core/sigq.h"

#include <libunwind.h>
#include <string.h>
#include <ucontext.h>

int (*dump_describe_hook)(struct g *gp, char *buf, size_t n);

static const char *const state_names[G_NSTATUS] = {
	"idle", "runnable", "running", "in a system call", "waiting", "dead",
};

#define MAX_FRAMES 32

/* Print the frames from cursor c on. */
static void print_frames(int fd, unw_cursor_t *c)
{
	for (int i = 0; i < MAX_FRAMES; i++) {
		unw_word_t ip = 0, off = 0;
		char name[128];
		if (unw_get_reg(c, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		if (unw_get_proc_name(c, name, sizeof name, &off) == 0)
			rt_printf(fd, "\t#%d 0x%lx in %s+0x%lx\n", i, (unsigned long)ip, name,
				  (unsigned long)off);
		else
			rt_printf(fd, "\t#%d 0x%lx\n", i, (unsigned long)ip);
		if (unw_step(c) <= 0)
			break;
	}
}

/* The stack of a G that is not running, from its saved context: the
 * frame switch.S leaves (callee-saved registers, then the return
 * address). */
static void backtrace_saved(int fd, struct g *gp)
{
	const uint64_t *f = gp->ctx.sp;
	if (!f)
		return;
	unw_context_t uc;
	memset(&uc, 0, sizeof uc);
	greg_t *r = uc.uc_mcontext.gregs;
	r[REG_R15] = (greg_t)f[1];
	r[REG_R14] = (greg_t)f[2];
	r[REG_R13] = (greg_t)f[3];
	r[REG_R12] = (greg_t)f[4];
	r[REG_RBX] = (greg_t)f[5];
	r[REG_RBP] = (greg_t)f[6];
	r[REG_RIP] = (greg_t)f[7];
	r[REG_RSP] = (greg_t)(uintptr_t)(f + 8);
	unw_cursor_t c;
	if (unw_init_local(&c, &uc) == 0)
		print_frames(fd, &c);
}

static void backtrace_here(int fd)
{
	unw_context_t uc;
	unw_cursor_t c;
	if (unw_getcontext(&uc) == 0 && unw_init_local(&c, &uc) == 0) {
		unw_step(&c);	/* not this function */
		print_frames(fd, &c);
	}
}

/* What gp waits for, in words. */
static void describe(struct g *gp, char *buf, size_t n)
{
	buf[0] = '\0';
	if (dump_describe_hook && dump_describe_hook(gp, buf, n) > 0)
		return;
	void *obj = gp->waitobj;
	switch (gp->waitreason) {
	case WAIT_JOIN: {
		struct g *t = obj;
		if (t)
			rt_snprintf(buf, n, "joining thread %lu (%s)", (unsigned long)t->goid,
				    t->name[0] ? t->name : "unnamed");
		break;
	}
	case WAIT_NETPOLL:
		if (obj)
			rt_snprintf(buf, n, "descriptor %d", netpoll_pd_fd(obj));
		break;
	default:
		if (obj)
			rt_snprintf(buf, n, "%s %p", g_waitreason_names[gp->waitreason], obj);
		break;
	}
}

static void duration(int64_t ns, char *buf, size_t n)
{
	if (ns < 0)
		ns = 0;
	if (ns < 1000000000)
		rt_snprintf(buf, n, "%ld ms", (long)(ns / 1000000));
	else if (ns < 120 * (int64_t)1000000000)
		rt_snprintf(buf, n, "%ld.%ld s", (long)(ns / 1000000000),
			    (long)(ns % 1000000000 / 100000000));
	else
		rt_snprintf(buf, n, "%ld min", (long)(ns / 60000000000));
}

int dump_threads(int fd, struct g *self)
{
	int64_t now = rt_nanotime();
	uint32_t n = g_count();
	int shown = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct g *gp = g_by_index(i);
		uint32_t st = g_status(gp);
		if (st == G_IDLE || st == G_DEAD)
			continue;
		char what[160], dur[32];
		const char *name = gp->name[0] ? gp->name : "unnamed";
		if (st == G_WAITING) {
			describe(gp, what, sizeof what);
			duration(now - gp->waitsince, dur, sizeof dur);
			rt_printf(fd, "\nthread %lu (%s) [%s: %s, %s]%s%s\n", (unsigned long)gp->goid, name,
				  state_names[st], g_waitreason_names[gp->waitreason], dur,
				  what[0] ? ": " : "", what);
		} else {
			struct m *mp = gp->m;
			rt_printf(fd, "\nthread %lu (%s) [%s", (unsigned long)gp->goid, name, state_names[st]);
			if (mp && (st == G_RUNNING || st == G_SYSCALL))
				rt_printf(fd, " on OS thread %d", mp->tid);
			rt_printf(fd, "]\n");
		}
		uint64_t pend = sigq_pending_mask(gp);
		if (pend) {
			rt_printf(fd, "\tsignals pending:");
			for (int s = 1; s < 64; s++)
				if (pend & sigq_bit(s))
					rt_printf(fd, " %d%s", s,
						  ld_rlx(&gp->sigmask) & sigq_bit(s) ? " (blocked)" : "");
			rt_printf(fd, "\n");
		}
		if (gp == self)
			backtrace_here(fd);
		else if (st == G_WAITING || st == G_RUNNABLE)
			backtrace_saved(fd, gp);
		shown++;
	}
	return shown;
}

/* --- deadlock --------------------------------------------------------------------- */

bool dump_all_asleep(int64_t *switches)
{
	if (sched_timesleepuntil() != 0 || netpoll_any_waiters() || ld_rlx(&sched.runqsize) != 0 ||
	    ld_rlx(&sched.sigpoll))
		return false;
	uint64_t sw = 0;
	for (int i = 0; i < sched.gomaxprocs; i++) {
		struct p *pp = sched.allp[i];
		if (!runq_empty(pp))
			return false;
		sw += __atomic_load_n(&pp->nswitch, __ATOMIC_RELAXED) + ld_rlx(&pp->syscalltick);
	}
	uint32_t n = g_count();
	int live = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct g *gp = g_by_index(i);
		uint32_t st = g_status(gp);
		if (st == G_IDLE || st == G_DEAD)
			continue;
		/* a signal may end a signal wait, or a poll or select with
		 * nothing to watch (the rest of them wait on descriptors:
		 * netpoll_any_waiters); a system call may return */
		if (st != G_WAITING || gp->waitreason == WAIT_SIGNAL || gp->waitreason == WAIT_POLL)
			return false;
		live++;
	}
	*switches = (int64_t)sw;
	return live > 0;
}

void dump_deadlock(int fd)
{
	rt_printf(fd, "gmp: all threads are asleep - deadlock!\n");
	dump_threads(fd, NULL);
	rt_printf(fd, "\n");
}
