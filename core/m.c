/* SPDX-License-Identifier: MIT */
/*
 * core/m.c — Ms: the OS threads that run Gs. Making them (m_start,
 * m_main, Ms dedicated to one G), stopping and waking them around the P
 * they are handed, their signal stack, and the reset of the whole runtime
 * in the child of fork. The scheduler loop they run is in sched.c.
 */
#include "core/sched_impl.h"
#include "core/netpoll.h"
#include "core/proc.h"
#include "core/sigq.h"
#include "core/os.h"
#include "core/stack.h"
#include "core/tls.h"
#include "core/waitq.h"
#include "core/trace.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <linux/futex.h>
#include <sys/syscall.h>

/* M0 is the process's initial thread; the others come from m_alloc. */
struct m m0;

/* The initial thread's signal mask, which every M starts with: Ms are
 * started by sysmon, which blocks every signal. */
sigset_t m_sigmask;
/* The initial thread's timer slack, which every M takes too: sysmon,
 * which starts them, runs with a slack of its own (1 ns), which a thread
 * inherits, and a program that reads its thread's slack (prctl) must
 * find the process's. Set by sched_init. */
long m_timerslack;

/* Caller holds sched.lock. */
static void mput(struct m *mp)
{
	mp->schedlink = sched.midle;
	sched.midle = mp;
	sched.nmidle++;
}

/* Caller holds sched.lock. */
static struct m *mget(void)
{
	struct m *mp = sched.midle;
	if (mp) {
		sched.midle = mp->schedlink;
		sched.nmidle--;
	}
	return mp;
}

uint32_t m_rand(struct m *mp)
{
	/* xorshift64* */
	uint64_t x = mp->rand;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	mp->rand = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

/* --- Ms ---------------------------------------------------------------- */

static struct m *m_alloc(void)
{
	struct m *mp = rt_mmap(sizeof(struct m), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS);
	if (!mp)
		return NULL;
	mp->id = xadd(&sched.mcount, 1);
	mp->rand = 0x9E3779B97F4A7C15ull * (uint64_t)(mp->id + 1);
	rt_lock(&sched.lock);
	mp->alllink = ld_rlx(&sched.allm);
	st_rel(&sched.allm, mp);
	rt_unlock(&sched.lock);
	return mp;
}

/* Ms whose OS thread could not be made (m_spawn_failed), used again
 * before another is allocated: spawns that keep failing (RLIMIT_NPROC,
 * say) do not pile up Ms. Under sched.lock. */
static struct m *spare;

static struct m *m_take_spare(void)
{
	rt_lock(&sched.lock);
	struct m *mp = spare;
	if (mp)
		spare = mp->spawnlink;
	rt_unlock(&sched.lock);
	if (mp)
		mp->spawnlink = NULL;
	return mp;
}

void m_start_failed(struct p *pp, bool spinning, int err)
{
	static _Atomic int warned;
	if (!xchg(&warned, 1))
		rt_printf(2, "gmp: warning: cannot create an OS thread for a processor "
			  "(error %d%s); running with fewer threads until one can be "
			  "made\n", err,
			  err == EAGAIN   ? ", EAGAIN: RLIMIT_NPROC reached, or no address space "
					    "for its stack?"
			  : err == ENOMEM ? ", ENOMEM: no memory or mapping left"
					  : "");
	if (spinning)
		xadd(&sched.nmspinning, -1);
	if (pp) {
		rt_lock(&sched.lock);
		pp->link = sched.pidle;
		sched.pidle = pp;
		xadd(&sched.npidle, 1);
		rt_unlock(&sched.lock);
	}
}

void m_spawn_failed(struct m *mp)
{
	rt_lock(&sched.lock);
	mp->spawnlink = spare;
	spare = mp;
	rt_unlock(&sched.lock);
}

/* Before an M sleeps: wear its own TLS instead of the last G's (see
 * m->own_tp). The next G switch writes the thread pointer anyway. */
void m_wear_own_tls(struct m *mp)
{
	if (mp->own_tp && mp->fs != mp->own_tp) {
		arch_set_fs(mp->own_tp);
		__atomic_store_n(&mp->fs, mp->own_tp, __ATOMIC_RELAXED);
		mp->ntpw++;
	}
}

/* Sleep until a P is handed over in mp->nextp, then hold it, and return
 * true. The note may carry a wake-up meant for an earlier sleep: nextp is
 * what counts. A locked M (locked) also returns, false and without a P,
 * when it is released from its G. */
static bool m_wait_nextp(struct m *mp, bool locked)
{
	struct p *pp;
	while (!(pp = __atomic_load_n(&mp->nextp, __ATOMIC_ACQUIRE))) {
		if (locked && !__atomic_load_n(&mp->lockedg, __ATOMIC_ACQUIRE))
			return false;	/* released: its G ended elsewhere */
		note_sleep(&mp->park);
		note_clear(&mp->park);
	}
	mp->nextp = NULL;
	acquirep(mp, pp);
	return true;
}

/* Stop the M until someone hands it a P (m_start); then hold that P. */
void stopm(struct m *mp)
{
	rt_assert(!mp->p, "stopm: holding a P");
	rt_assert(!mp->spinning, "stopm: spinning");
	m_wear_own_tls(mp);
	rt_lock(&sched.lock);
	mput(mp);
	rt_unlock(&sched.lock);
	m_wait_nextp(mp, false);
}

void m_start(struct p *pp, bool spinning)
{
	rt_lock(&sched.lock);
	if (!pp) {
		rt_assert(!spinning, "m_start: spinning without a P");
		pp = pidleget();
		if (!pp) {
			rt_unlock(&sched.lock);
			return;
		}
	}
	struct m *nmp = mget();
	rt_unlock(&sched.lock);
	if (!nmp) {
		nmp = m_take_spare();
		if (!nmp)
			nmp = m_alloc();
		if (!nmp) {
			m_start_failed(pp, spinning, ENOMEM);
			return;
		}
		nmp->spinning = spinning;
		nmp->nextp = pp;
		sysmon_spawn_m(nmp);
		return;
	}
	rt_assert(!nmp->spinning && !nmp->p, "m_start: idle M in a bad state");
	nmp->spinning = spinning;
	__atomic_store_n(&nmp->nextp, pp, __ATOMIC_RELEASE);
	note_wakeup(&nmp->park);
}

/* --- locked Ms (pinned threads, priority-protect owners) ---------------- */

/* mp is dedicated to mp->lockedg, which is not runnable: give the P away
 * and sleep until someone who dequeued lockedg hands us a P. Returns
 * false, without a P, if the M was released from its G instead. */
bool stoplockedm(struct m *mp)
{
	if (mp->p)
		handoffp(releasep(mp));
	m_wear_own_tls(mp);
	return m_wait_nextp(mp, true);
}

/* gp belongs to another M: hand it our P and stop. */
void startlockedm(struct m *mp, struct g *gp)
{
	struct m *lm = gp->lockedm;
	rt_assert(lm != mp && lm->lockedg == gp, "startlockedm: inconsistent lock");
	__atomic_store_n(&lm->nextp, releasep(mp), __ATOMIC_RELEASE);
	note_wakeup(&lm->park);
	stopm(mp);
}

/* Give the calling OS thread an alternate signal stack, where the fault
 * of a G that ran off its stack is handled. TLS-free. */
void m_altstack(void)
{
	size_t len = 64 * 1024;
	char *s = rt_mmap(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE);
	if (!s)
		return;	/* then such a fault kills the process silently */
	stack_t ss = {.ss_sp = s, .ss_size = len, .ss_flags = 0};
	arch_syscall2(SYS_sigaltstack, &ss, NULL);
}

bool sched_stack_overflow(uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
	struct m *mp = m_by_tid(os_gettid());
	struct g *gp = mp ? mp->curg : NULL;
	if (!gp || gp->stack.kind == STACK_NONE || gp->stack.kind == STACK_MAIN)
		return false;
	uintptr_t base = (uintptr_t)gp->stack.base;
	*lo = base + gp->stack.guard;
	*hi = *lo + gp->stack.size;
	/* in the guard, or just below the stack when it has none */
	return addr < *lo && addr + 65536 >= base;
}

/* --- fork ----------------------------------------------------------------------- */

int sched_pid;	/* the process the runtime runs */

bool sched_in_vfork_child(void)
{
	return (int)arch_syscall0(SYS_getpid) != sched_pid;
}

int sched_getpid(void)
{
	return sched_pid;
}

void sched_after_fork(struct g *gp)
{
	sched_pid = (int)arch_syscall0(SYS_getpid);
	struct m *mp = gp->m;
	/* Every lock: a thread that held one at the fork is gone. */
	sched.lock = (struct rt_mutex){0};
	sched.gflock = (struct rt_mutex){0};
	gp->lock = (struct rt_mutex){0};

	/* This M is the only one, with a new kernel tid; the G, the only
	 * thread, has the process id for its id, which glibc's fork wrote
	 * into its TCB. */
	__atomic_store_n(&mp->tid, os_gettid(), __ATOMIC_SEQ_CST);
	gp->tid = sched_pid;
	if (gp->tcb)
		tls_set_tid(gp->tcb, sched_pid);
	sched.leader = gp;
	if (mp != &m0)
		m0.tid = mp->tid;	/* sched_default_affinity asks it */
	mp->alllink = NULL;
	mp->schedlink = NULL;
	mp->spinning = false;
	mp->nextp = NULL;
	st_rel(&mp->blocked, false);
	st_rel(&sched.allm, mp);
	sched.midle = NULL;
	sched.nmidle = 0;
	spare = NULL;	/* no longer in allm */
	st_rlx(&sched.nmspinning, 0);

	/* The G keeps (or takes back) one P; a request of sysmon's may have
	 * turned its state into a system call while the fork was made. */
	struct p *own = mp->p ? mp->p : mp->oldp ? mp->oldp : sched.allp[0];
	if (g_status(gp) == G_SYSCALL)
		g_casstatus(gp, G_SYSCALL, G_RUNNING);
	mp->oldp = NULL;
	mp->p = own;
	own->m = mp;
	st_rel(&own->status, (uint32_t)P_RUNNING);

	/* Every other thread is gone: its G is dead, not to be reused (its
	 * TLS is not on glibc's lists any more), and joining it returns at
	 * once, as joining a vanished thread does under NPTL. */
	uint32_t n = g_count();
	for (uint32_t i = 0; i < n; i++) {
		struct g *g1 = g_by_index(i);
		uint32_t st = g_status(g1);
		if (g1 == gp || st == G_IDLE || st == G_DEAD)
			continue;
		g1->m = NULL;
		g1->lock = (struct rt_mutex){0};
		g1->exited = true;
		g1->detached = true;	/* nobody will free it */
		st_rel(&g1->exit_futex, 1u);
		st_rel(&g1->status, (uint32_t)G_DEAD);
	}
	sched.gfree = NULL;
	sched.ngfree = 0;

	/* Run queues, timers, caches and idle list, rebuilt empty. */
	sched.runqhead = sched.runqtail = NULL;
	st_rlx(&sched.runqsize, 0);
	sched.rtq = NULL;
	st_rlx(&sched.nrtq, 0);
	sched.pidle = NULL;
	st_rlx(&sched.npidle, 0);
	for (int i = sched.gomaxprocs - 1; i >= 0; i--) {
		struct p *pp = sched.allp[i];
		st_rlx(&pp->runqhead, 0u);
		st_rlx(&pp->runqtail, 0u);
		st_rlx(&pp->runnext, (struct g *)NULL);
		timers_after_fork(&pp->timers);
		pp->gfree = NULL;
		pp->ngfree = 0;
		pp->sfree = NULL;
		pp->nsfree = 0;
		pp->sysmon_when = pp->sysmon_sw_when = pp->sysmon_cpu_when = 0;
		pp->sysmon_kicked = false;
		pp->preempt_when = pp->preempt_sent = 0;
		if (pp != own) {
			pp->m = NULL;
			st_rel(&pp->status, (uint32_t)P_IDLE);
			pidleput(pp);
		}
	}
	st_rlx(&sched.nlive, 1);
	st_rlx(&sched.sigpoll, 0);
	sysmon_after_fork();
	g_after_fork();
	stack_after_fork();
	wq_after_fork();
	sigq_after_fork(gp);
	netpoll_after_fork();
	tls_after_fork(gp->tcb, mp->own_tp, mp == &m0);
}



void m_sched_other(int tid)
{
	struct sched_param sp = {.sched_priority = 0};
	arch_syscall3(SYS_sched_setscheduler, tid, SCHED_OTHER, &sp);
}

void *m_main(void *arg)
{
	struct m *mp = arg;

	arch_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &m_sigmask, NULL, 8);
	memcpy(&mp->kmask, &m_sigmask, sizeof mp->kmask);
	if (m_timerslack > 0)
		arch_syscall2(SYS_prctl, PR_SET_TIMERSLACK, m_timerslack);
	/* tid before cpumask, m_set_affinity writes them the other way round */
	__atomic_store_n(&mp->tid, os_gettid(), __ATOMIC_SEQ_CST);
	/* This thread's own stack is the scheduler stack: everything above
	 * this frame is abandoned once schedule() runs. */
	mp->g0_top = (void *)(((uintptr_t)arch_stack_pointer() - 256) & ~(uintptr_t)15);
	mp->fs = arch_tp();
	mp->own_tp = mp->fs;
	m_altstack();
	cpu_set_t *mask = __atomic_load_n(&mp->cpumask, __ATOMIC_SEQ_CST);
	if (mask)
		arch_syscall3(SYS_sched_setaffinity, 0, mp->cpumask_size, mask);
	/* the real-time policy of the G this thread is dedicated to, which
	 * the kernel then applies to it as to an NPTL thread */
	struct g *lg = __atomic_load_n(&mp->lockedg, __ATOMIC_ACQUIRE);
	if (lg && g_rt_policy(lg->schedpolicy)) {
		struct sched_param sp = {.sched_priority = lg->schedprio};
		arch_syscall3(SYS_sched_setscheduler, 0, lg->schedpolicy, &sp);
	} else if (g_rt_policy((int)arch_syscall1(SYS_sched_getscheduler, 0))) {
		/* an ordinary M started by a real-time thread's: not its
		 * policy (the kernel gave it the creator's) */
		m_sched_other(0);
	}
	/* A locked M gets its P in stoplockedm, from whoever dequeues its G
	 * (possibly before this thread even ran): leave nextp to it. A
	 * locked M whose G ended before it started joins the idle Ms. */
	if (__atomic_load_n(&mp->nextp, __ATOMIC_ACQUIRE) && !mp->lockedg)
		m_wait_nextp(mp, false);
	else if (!__atomic_load_n(&mp->lockedg, __ATOMIC_ACQUIRE))
		stopm(mp);
	schedule(mp);
}

int m_new_locked(struct g *gp, const cpu_set_t *mask, size_t size)
{
	struct m *mp = m_alloc();
	if (!mp)
		return EAGAIN;
	if (mask) {
		/* at least a cpu_set_t, so later masks of that size fit */
		size_t cap = size > sizeof(cpu_set_t) ? size : sizeof(cpu_set_t);
		mp->cpumask = rt_mmap(cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
		if (!mp->cpumask)
			return EAGAIN;
		mp->cpumask_size = cap;
		memcpy(mp->cpumask, mask, size);
	}
	mp->lockedg = gp;
	gp->lockedm = mp;
	/* a real-time G's OS thread has its policy before it first runs */
	int err = g_rt_policy(gp->schedpolicy)
			  ? os_thread_start_sched(m_main, mp, G0_STACK_SIZE,
						  gp->schedpolicy & ~SCHED_RESET_ON_FORK, gp->schedprio)
			  : os_thread_start(m_main, mp, G0_STACK_SIZE);
	if (err) {
		mp->lockedg = NULL;
		gp->lockedm = NULL;
		/* the struct stays on allm as an M that never ran */
		return err;
	}
	return 0;
}

int m_set_affinity(struct m *mp, const cpu_set_t *mask, size_t size)
{
	cpu_set_t *cur = mp->cpumask;
	if (!cur) {
		/* an M dedicated without a mask being pinned for the first time */
		cur = rt_mmap(sizeof(cpu_set_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
		if (!cur)
			return EAGAIN;
		mp->cpumask_size = sizeof(cpu_set_t);
	}
	size_t n = size < mp->cpumask_size ? size : mp->cpumask_size;
	memset(cur, 0, mp->cpumask_size);
	memcpy(cur, mask, n);
	__atomic_store_n(&mp->cpumask, cur, __ATOMIC_SEQ_CST);
	int tid = __atomic_load_n(&mp->tid, __ATOMIC_SEQ_CST);
	if (tid) {
		long r = arch_syscall3(SYS_sched_setaffinity, tid, mp->cpumask_size, cur);
		if (r < 0)
			return (int)-r;
	}
	return 0;
}

struct m *m_by_tid(int tid)
{
	for (struct m *mp = ld_acq(&sched.allm); mp; mp = mp->alllink)
		if (__atomic_load_n(&mp->tid, __ATOMIC_ACQUIRE) == tid)
			return mp;
	return NULL;
}

int sched_default_affinity(size_t size, cpu_set_t *set)
{
	long r = arch_syscall3(SYS_sched_getaffinity, m0.tid, size, set);
	if (r < 0)
		return (int)-r;
	if ((size_t)r < size)
		memset((char *)set + r, 0, size - (size_t)r);
	return 0;
}

int sched_os_threads(void)
{
	int n = 0;
	rt_lock(&sched.lock);
	for (struct m *mp = sched.allm; mp; mp = mp->alllink)
		if (mp->tid)
			n++;
	rt_unlock(&sched.lock);
	return n;
}

