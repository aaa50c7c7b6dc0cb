/* SPDX-License-Identifier: MIT */
/*
 * preload/thread_np.c — per-thread properties glibc would look up through
 * the kernel tid, which a G does not have (TLS.md P5): names, affinity,
 * scheduling parameters, the CPU-time clock, and pthread_kill's existence
 * check. For a G they are kept in the G; threads glibc made go to glibc.
 */
#include "preload/runtime.h"
#include "core/sched.h"
#include "core/sigq.h"
#include "core/proc.h"
#include "core/tls.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * A thread that has ended: glibc answers these calls with what the
 * kernel says of its id, 0 once the thread is gone and -1 once it was
 * joined. libgmp gives the same answers: ESRCH for scheduling and the
 * CPU clock, ENOENT for names (glibc's /proc file of the thread is
 * gone), and for affinity success until it was joined (glibc's call
 * with id 0 means the caller), ESRCH after.
 */
enum { LIVE, ENDED, JOINED };
static int life(struct g *gp)
{
	rt_lock(&gp->lock);
	int s = gp->joined ? JOINED : gp->exited ? ENDED : LIVE;
	rt_unlock(&gp->lock);
	return s;
}

GMP_EXPORT int pthread_setname_np(pthread_t th, const char *name)
{
	GMP_ENTRY(pthread_setname_np, th, name);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_setname_np(th, name) : r;
	if (life(gp) != LIVE)
		return ENOENT;
	size_t len = strlen(name);
	if (len >= sizeof gp->name)
		return ERANGE;
	memcpy(gp->name, name, len + 1);
	return 0;
}

GMP_EXPORT int pthread_getname_np(pthread_t th, char *buf, size_t len)
{
	GMP_ENTRY(pthread_getname_np, th, buf, len);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_getname_np(th, buf, len) : r;
	if (life(gp) != LIVE)
		return ENOENT;
	if (len < sizeof gp->name)
		return ERANGE;	/* glibc asks for room for the longest name */
	memcpy(buf, gp->name, sizeof gp->name);
	buf[sizeof gp->name - 1] = '\0';
	return 0;
}

/* prctl(PR_SET_NAME) and PR_GET_NAME name the calling thread, as
 * pthread_setname_np does (Rust's std up to 1.6x names its threads so):
 * under libgmp that is the G, not whichever OS thread it runs on. The
 * kernel cuts a name at 15 bytes without an error; so does this.
 * PR_GET_TID_ADDRESS answers the G's set_tid_address. Every other option
 * goes to the kernel. */
GMP_EXPORT int prctl(int option, ...)
{
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long);
	unsigned long a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	GMP_ENTRY(prctl, option, a2, a3, a4, a5);
	struct g *gp = getg();
	if (gp && option == PR_GET_TID_ADDRESS) {
		/* set_tid_address is the G's (shim/futex.c); by default
		 * glibc's word in its TCB, as for any thread: once a program
		 * has seen it, it too is cleared when the G ends */
		if (!gp->clear_tid_set) {
			gp->clear_tid = tls_tid_addr(gp->tcb);
			gp->clear_tid_set = true;
		}
		*(int **)a2 = gp->clear_tid;
		return 0;
	}
	if (!gp || (option != PR_SET_NAME && option != PR_GET_NAME))
		return real_prctl(option, a2, a3, a4, a5);
	char *name = (char *)a2;
	if (option == PR_SET_NAME) {
		size_t n = strnlen(name, sizeof gp->name - 1);
		memcpy(gp->name, name, n);
		gp->name[n] = '\0';
	} else {
		memcpy(name, gp->name, sizeof gp->name);
		name[sizeof gp->name - 1] = '\0';
	}
	return 0;
}

/* --- affinity ------------------------------------------------------------------ */

/*
 * A G has no CPU of its own, so a thread pinned with an affinity mask
 * (here, by an attribute, or inherited from a pinned creator) runs on an
 * OS thread dedicated to it that carries the mask in the kernel (a
 * locked M, like Go's LockOSThread). It moves there at its next scheduling: at
 * once when it pins itself.
 */
static int pin(struct g *gp, size_t size, const cpu_set_t *set)
{
	cpu_set_t allowed, inter;
	int err = sched_default_affinity(sizeof allowed, &allowed);
	if (err)
		return err;
	/* the kernel's rule: at least one CPU of the set must be usable */
	size_t n = size < sizeof allowed ? size : sizeof allowed;
	CPU_ZERO(&inter);
	memcpy(&inter, set, n);
	CPU_AND(&inter, &inter, &allowed);
	if (CPU_COUNT(&inter) == 0)
		return EINVAL;
	cpu_set_t *copy = malloc(size);
	if (!copy)
		return ENOMEM;
	memcpy(copy, set, size);

	rt_lock(&gp->lock);
	if (gp->exited) {
		rt_unlock(&gp->lock);
		free(copy);
		return 0;
	}
	cpu_set_t *old = gp->affinity;
	gp->affinity = copy;
	gp->affinity_size = size;
	bool moved = gp->lockedm == NULL;
	err = gp->lockedm ? m_set_affinity(gp->lockedm, set, size) : m_new_locked(gp, set, size);
	rt_unlock(&gp->lock);
	free(old);
	if (!err && moved && gp == getg())
		g_yield();	/* off to the dedicated OS thread */
	return err;
}

GMP_EXPORT int pthread_setaffinity_np(pthread_t th, size_t size, const cpu_set_t *set)
{
	GMP_ENTRY(pthread_setaffinity_np, th, size, set);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_setaffinity_np(th, size, set) : r;
	int l = life(gp);
	if (l != LIVE)
		return l == JOINED ? ESRCH : 0;
	return pin(gp, size, set);
}

static int get_affinity(struct g *gp, size_t size, cpu_set_t *set)
{
	/* the kernel's checks of the size (a whole number of longs, room
	 * for every CPU it knows), which it makes for any thread */
	if (size % sizeof(long))
		return EINVAL;
	if (size < 1024) {
		unsigned long probe[1024 / sizeof(long)];
		if (arch_syscall3(SYS_sched_getaffinity, 0, (long)size, (long)probe) < 0)
			return EINVAL;
	}
	rt_lock(&gp->lock);
	if (gp->affinity) {
		size_t have = gp->affinity_size;
		/* bits set beyond the caller's buffer cannot be reported */
		for (size_t i = size; i < have; i++)
			if (((unsigned char *)gp->affinity)[i]) {
				rt_unlock(&gp->lock);
				return EINVAL;
			}
		memset(set, 0, size);
		memcpy(set, gp->affinity, size < have ? size : have);
		rt_unlock(&gp->lock);
		return 0;
	}
	rt_unlock(&gp->lock);
	return sched_default_affinity(size, set);
}

GMP_EXPORT int pthread_getaffinity_np(pthread_t th, size_t size, cpu_set_t *set)
{
	GMP_ENTRY(pthread_getaffinity_np, th, size, set);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_getaffinity_np(th, size, set) : r;
	if (life(gp) == JOINED)
		return ESRCH;
	return get_affinity(gp, size, set);
}

GMP_EXPORT int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	GMP_ENTRY(sched_setaffinity, pid, size, set);
	struct g *gp = proc_target(pid);
	if (!gp)
		return real_sched_setaffinity(pid, size, set);
	int err = pin(gp, size, set);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

GMP_EXPORT int sched_getaffinity(pid_t pid, size_t size, cpu_set_t *set)
{
	GMP_ENTRY(sched_getaffinity, pid, size, set);
	struct g *gp = proc_target(pid);
	if (!gp)
		return real_sched_getaffinity(pid, size, set);
	int err = get_affinity(gp, size, set);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* --- scheduling parameters ----------------------------------------------------- */

/*
 * A G's scheduling policy and priority, nice value and I/O priority are
 * kept in the G: pthread_setschedparam and the calls that take a thread
 * id (sched_setscheduler & co., setpriority and getpriority with
 * PRIO_PROCESS, ioprio_set and ioprio_get), given 0 or a G's id, set and
 * read them there, and check them as the kernel checks an OS thread's.
 * They act in the kernel only where a G has an OS thread to itself (a
 * pinned G, a real-time one, or one that locked a priority-protect
 * mutex), and, for the main thread, while it is the only thread (a
 * program that changes its priority first thing: the OS threads
 * started later inherit it). A G given a real-time policy gets such an
 * OS thread (proc_os_thread, g_rt_policy).
 */

static bool cap_sys_nice(void)
{
	struct { uint32_t version; int pid; } hdr = {0x20080522, 0};	/* _V3 */
	struct { uint32_t effective, permitted, inheritable; } data[2];
	if (arch_syscall2(SYS_capget, &hdr, data) != 0)
		return false;
	return data[0].effective & (1u << 23);	/* CAP_SYS_NICE */
}

static long rlimit_cur(int res)
{
	struct rlimit rl;
	if (getrlimit(res, &rl) != 0)
		return 0;
	return rl.rlim_cur == RLIM_INFINITY ? LONG_MAX : (long)rl.rlim_cur;
}

bool gmp_rt_permitted(int prio)
{
	return prio <= rlimit_cur(RLIMIT_RTPRIO) || cap_sys_nice();
}

/* sched_get_priority_min or _max of a policy (-1: not one), each a
 * system call asked once: the kernel's answers never change. */
static int prio_bound(int pol, bool max)
{
	static _Atomic int cache[8][2];	/* the bound + 2; 0: not asked yet */
	if (pol < 0 || pol >= 8)
		return max ? sched_get_priority_max(pol) : sched_get_priority_min(pol);
	int v = ld_rlx(&cache[pol][max]);
	if (v == 0) {
		v = (max ? sched_get_priority_max(pol) : sched_get_priority_min(pol)) + 2;
		st_rlx(&cache[pol][max], v);
	}
	return v - 2;
}

static int sched_change(struct g *gp, int policy, int prio)
{
	int pol = policy & ~SCHED_RESET_ON_FORK;
	int lo = prio_bound(pol, false);
	int hi = prio_bound(pol, true);
	if (lo < 0 || hi < 0 || prio < lo || prio > hi)
		return EINVAL;
	/* real-time: privilege, or within RLIMIT_RTPRIO (the kernel checks
	 * it itself where the thread has an OS thread of its own to ask) */
	int tid = proc_os_thread(gp);
	if (!(tid && gp->lockedm) && g_rt_policy(pol) && prio > gp->schedprio &&
	    !gmp_rt_permitted(prio))
		return EPERM;
	int oldpolicy = gp->schedpolicy, oldprio = gp->schedprio;
	gp->schedpolicy = policy;
	gp->schedprio = prio;
	if (g_rt_policy(policy) && !gp->lockedm) {
		/* an OS thread of its own, which takes the policy as it
		 * starts; the thread moves there at its next scheduling, at
		 * once when it changed its own policy */
		rt_lock(&gp->lock);
		int err = gp->exited || gp->lockedm ? 0 : m_new_locked(gp, gp->affinity, gp->affinity_size);
		rt_unlock(&gp->lock);
		if (err) {
			gp->schedpolicy = oldpolicy;
			gp->schedprio = oldprio;
			return err;
		}
		if (gp == getg())
			g_yield();
		else
			sched_move_to_lockedm(gp);
		return 0;
	}
	if (tid) {
		struct sched_param sp = {.sched_priority = prio};
		long r = arch_syscall3(SYS_sched_setscheduler, tid, policy, &sp);
		if (r < 0) {
			gp->schedpolicy = oldpolicy;
			gp->schedprio = oldprio;
			return (int)-r;
		}
	}
	return 0;
}

/* Change gp's policy and priority. A failure is left in errno too, as
 * glibc's functions leave their system call's. */
static int set_sched(struct g *gp, int policy, int prio)
{
	int err = sched_change(gp, policy, prio);
	if (err)
		errno = err;
	return err;
}

GMP_EXPORT int pthread_setschedparam(pthread_t th, int policy, const struct sched_param *sp)
{
	GMP_ENTRY(pthread_setschedparam, th, policy, sp);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_setschedparam(th, policy, sp) : r;
	if (life(gp) != LIVE)
		return ESRCH;
	return set_sched(gp, policy, sp->sched_priority);
}

GMP_EXPORT int pthread_getschedparam(pthread_t th, int *policy, struct sched_param *sp)
{
	GMP_ENTRY(pthread_getschedparam, th, policy, sp);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_getschedparam(th, policy, sp) : r;
	if (life(gp) != LIVE)
		return ESRCH;
	*policy = gp->schedpolicy;
	memset(sp, 0, sizeof *sp);
	sp->sched_priority = gp->schedprio;
	return 0;
}

GMP_EXPORT int pthread_setschedprio(pthread_t th, int prio)
{
	GMP_ENTRY(pthread_setschedprio, th, prio);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_setschedprio(th, prio) : r;
	if (life(gp) != LIVE)
		return ESRCH;
	return set_sched(gp, gp->schedpolicy, prio);
}

static int fail(int err)
{
	errno = err;
	return -1;
}

GMP_EXPORT int sched_setscheduler(pid_t pid, int policy, const struct sched_param *sp)
{
	GMP_ENTRY(sched_setscheduler, pid, policy, sp);
	struct g *gp = proc_target(pid);
	if (!gp)
		return real_sched_setscheduler(pid, policy, sp);
	if (!sp)
		return fail(EINVAL);
	int err = set_sched(gp, policy, sp->sched_priority);
	return err ? fail(err) : 0;
}

GMP_EXPORT int sched_getscheduler(pid_t pid)
{
	GMP_ENTRY(sched_getscheduler, pid);
	struct g *gp = proc_target(pid);
	if (!gp)
		return real_sched_getscheduler(pid);
	return gp->schedpolicy;
}

GMP_EXPORT int sched_setparam(pid_t pid, const struct sched_param *sp)
{
	GMP_ENTRY(sched_setparam, pid, sp);
	struct g *gp = proc_target(pid);
	if (!gp)
		return real_sched_setparam(pid, sp);
	if (!sp)
		return fail(EINVAL);
	int err = set_sched(gp, gp->schedpolicy, sp->sched_priority);
	return err ? fail(err) : 0;
}

GMP_EXPORT int sched_getparam(pid_t pid, struct sched_param *sp)
{
	GMP_ENTRY(sched_getparam, pid, sp);
	struct g *gp = proc_target(pid);
	if (!gp)
		return real_sched_getparam(pid, sp);
	if (!sp)
		return fail(EINVAL);
	memset(sp, 0, sizeof *sp);
	sp->sched_priority = gp->schedprio;
	return 0;
}

/* setpriority's rules for one thread: the value is clamped to -20..19;
 * lowering it takes privilege or RLIMIT_NICE. */
static int set_nice(struct g *gp, int nice)
{
	if (nice < -20)
		nice = -20;
	if (nice > 19)
		nice = 19;
	if (nice < gp->nice && 20 - nice > rlimit_cur(RLIMIT_NICE) && !cap_sys_nice())
		return EACCES;
	int tid = proc_os_thread(gp);
	if (tid) {
		long r = arch_syscall3(SYS_setpriority, PRIO_PROCESS, tid, nice);
		if (r < 0)
			return (int)-r;
	}
	gp->nice = nice;
	return 0;
}

GMP_EXPORT int setpriority(__priority_which_t which, id_t who, int prio)
{
	GMP_ENTRY(setpriority, which, who, prio);
	struct g *gp = which == PRIO_PROCESS ? proc_target((pid_t)who) : NULL;
	if (!gp)
		return real_setpriority(which, who, prio);
	int err = set_nice(gp, prio);
	return err ? fail(err) : 0;
}

GMP_EXPORT int getpriority(__priority_which_t which, id_t who)
{
	GMP_ENTRY(getpriority, which, who);
	struct g *gp = which == PRIO_PROCESS ? proc_target((pid_t)who) : NULL;
	if (!gp)
		return real_getpriority(which, who);
	return gp->nice;
}

/* --- CPU-time clock --------------------------------------------------------------- */

/* The kernel's encoding of a per-thread CPU clock (CPUCLOCK_SCHED). With a
 * fake tid the kernel rejects it; shim/clock.c answers it instead. */
GMP_EXPORT int pthread_getcpuclockid(pthread_t th, clockid_t *clk)
{
	GMP_ENTRY(pthread_getcpuclockid, th, clk);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_getcpuclockid(th, clk) : r;
	if (life(gp) != LIVE)
		return ESRCH;
	*clk = (clockid_t)((~(unsigned)g_tid(gp) << 3) | 6);
	return 0;
}

/* --- thread ids ------------------------------------------------------------------------ */

/*
 * gettid() is the calling thread's id as glibc keeps it in the TCB: the
 * G's (core/proc.h), or an OS thread's own for a thread that is not a G.
 * A G given an OS thread of its own for glibc's sake (sync_own_os_thread)
 * has that thread's id in its TCB, for the kernel and other processes,
 * and keeps its own here: the main thread's stays the process id.
 * syscall(SYS_gettid) comes here too (shim/futex.c); only an inline
 * system call instruction still sees the OS thread.
 */
GMP_EXPORT pid_t gettid(void)
{
	GMP_ENTRY_LIGHT(gettid);
	struct g *gp = getg();
	if (gp && unlikely(gp->flags & G_FLAG_KTID))
		return g_tid(gp);
	return tls_tid(arch_tp());
}

static int kill_g(struct g *gp, int sig, int code, const union sigval *val);

/* tgkill to a G's id signals that G, wherever it runs; any other id is
 * the kernel's. */
GMP_EXPORT int tgkill(pid_t tgid, pid_t tid, int sig)
{
	GMP_ENTRY(tgkill, tgid, tid, sig);
	struct g *gp = tgid == sched_getpid() ? proc_by_tid(tid) : NULL;
	if (!gp)
		return real_tgkill(tgid, tid, sig);
	int err = kill_g(gp, sig, SI_TKILL, NULL);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* --- existence check ------------------------------------------------------------------ */

/*
 * pthread_kill(th, 0) tells whether th still exists; other signals go to
 * th through the signal queue (signal.c): its handler runs on th, at once
 * when th is the caller or is running, and interrupts a sleep of th.
 */
int gmp_kill_g(struct g *gp, int sig, const union sigval *val)
{
	return kill_g(gp, sig, val ? SI_QUEUE : 0, val);
}

/* code 0: pthread_kill's */
static int kill_g(struct g *gp, int sig, int code, const union sigval *val)
{
	if (sig < 0 || sig >= NSIG)
		return EINVAL;
	if (g_exited(gp))
		return ESRCH;
	if (sig == 0)
		return 0;
	siginfo_t si = {0};
	si.si_signo = sig;
	si.si_code = code ? code : SI_TKILL;
	si.si_pid = getpid();
	si.si_uid = getuid();
	if (val)
		si.si_value = *val;
	return gmp_signal_g(gp, &si);
}

GMP_EXPORT int pthread_kill(pthread_t th, int sig)
{
	GMP_ENTRY(pthread_kill, th, sig);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_kill(th, sig) : r;
	if (g_exited(gp))
		return 0;	/* as glibc 2.34+: an ended, unjoined thread */
	return gmp_kill_g(gp, sig, NULL);
}

GMP_EXPORT int pthread_sigqueue(pthread_t th, int sig, const union sigval val)
{
	GMP_ENTRY(pthread_sigqueue, th, sig, val);
	struct g *gp;
	int r = g_lookup(th, &gp);
	if (r)
		return r < 0 ? real_pthread_sigqueue(th, sig, val) : r;
	return gmp_kill_g(gp, sig, &val);
}
