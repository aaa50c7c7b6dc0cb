/* SPDX-License-Identifier: MIT */
/*
 * shim/futex.c — the futex system call made through syscall(3).
 *
 * Rust's std, libstdc++ (C++20 atomic wait, std::latch, the __cxa_guard of
 * function-local statics) and other libraries block with
 * syscall(SYS_futex, ...) instead of pthread objects. FUTEX_WAIT,
 * FUTEX_WAKE, their _BITSET forms, FUTEX_REQUEUE and FUTEX_CMP_REQUEUE,
 * private or not, are served by the wait table: a G parks, any other
 * thread sleeps in the kernel on its own word, and a wake reaches both.
 * A wake of a non-private futex, which another process may wait on too,
 * also goes to the kernel for what the table did not wake, and a waiter
 * on a non-private futex also looks at the word every 2 ms, in case
 * another process changed it and woke it through the kernel. The futex
 * operations libgmp does not implement (priority inheritance, WAKE_OP,
 * WAIT_MULTIPLE ...) go to glibc unchanged; so does every other system
 * call, except read, write and close of descriptors libgmp polls (see
 * shim/fdtab.h), which behave as the functions of those names, and the
 * calls that give or take a thread id (gettid, set_tid_address, tgkill,
 * tkill, sched_setaffinity, sched_getaffinity), which mean a G's id as
 * their wrappers do (preload/thread_np.c).
 *
 * Results follow the kernel: a waiter returns 0 when woken (or
 * spuriously), -1 with EAGAIN when the word did not hold the expected
 * value, ETIMEDOUT, or EINTR when a signal handler ran.
 */
#include "core/door.h"
#include "core/timer.h"
#include "core/sched.h"
#include "core/waitq.h"
#include "core/fdtab.h"
#include "core/proc.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SHARED_POLL_NS 2000000

static long fail(int e)
{
	errno = e;
	return -1;
}

static long futex_wait(_Atomic uint32_t *addr, int op, uint32_t val,
		       const struct timespec *ts, uint32_t bitset)
{
	int cmd = op & FUTEX_CMD_MASK;
	if (!bitset)
		return fail(EINVAL);
	int64_t deadline = 0;
	if (ts) {
		if (ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000)
			return fail(EINVAL);
		if (cmd == FUTEX_WAIT) {
			/* relative */
			int64_t rel = ts->tv_sec > INT64_MAX / 2000000000
					      ? INT64_MAX / 2
					      : (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
			deadline = rt_nanotime() + rel;
			if (deadline <= 0)
				deadline = 1;
		} else {
			clockid_t clk = (op & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC;
			timer_deadline(clk, ts, &deadline);
		}
	}
	int r;
again:
	if (op & FUTEX_PRIVATE_FLAG) {
		r = wq_futex_wait(addr, val, bitset, deadline, WAIT_FUTEX);
	} else {
		/* a shared futex: another process may wake it through the
		 * kernel, which does not know this waiter; look at the word
		 * every SHARED_POLL_NS (the waker changes it before waking) */
		for (;;) {
			int64_t poll = rt_nanotime() + SHARED_POLL_NS;
			bool last = deadline && deadline <= poll;
			r = wq_futex_wait(addr, val, bitset, last ? deadline : poll, WAIT_FUTEX);
			if (r != ETIMEDOUT || last)
				break;
			if (ld_acq(addr) != val) {
				r = 0;
				break;
			}
		}
	}
	if (r == EINTR) {
		struct g *gp = getg();
		bool restart;
		/* no handler of the program's ran (an ignored signal, one at
		 * its default action): the kernel waits on, the word looked
		 * at again, the deadline kept */
		if (gp && !door_signals_restart(gp, &restart))
			goto again;
		/* as the kernel: a wait without a timeout is restarted after
		 * SA_RESTART handlers (the word is looked at again) */
		if (gp && restart && !ts)
			goto again;
	}
	return r ? fail(r) : 0;
}

static long futex_wake(void *addr, int op, int n, uint32_t bitset)
{
	if (!bitset)
		return fail(EINVAL);
	if (n <= 0)
		return 0;
	int woken = wq_futex_wake(addr, n, bitset);
	if (woken < n && !(op & FUTEX_PRIVATE_FLAG)) {
		long k = arch_syscall6(SYS_futex, (long)addr, op, n - woken, 0, 0, bitset);
		if (k > 0)
			woken += (int)k;
	}
	return woken;
}

static long futex_requeue(_Atomic uint32_t *addr, int op, int nwake, int nmove, void *addr2,
			  bool cmp, uint32_t val3)
{
	if (nwake < 0 || nmove < 0)
		return fail(EINVAL);
	struct wq_bucket *b1, *b2;
	wq_lock2(addr, addr2, &b1, &b2);
	if (cmp && ld_acq(addr) != val3) {
		wq_unlock2(b1, b2);
		return fail(EAGAIN);
	}
	struct waiter *list = NULL, *tail = NULL;
	int woken = 0;
	while (woken < nwake) {
		struct waiter *w = wq_pop(b1, addr, WQ_BITSET_ANY);
		if (!w)
			break;
		w->next = NULL;
		if (tail)
			tail->next = w;
		else
			list = w;
		tail = w;
		woken++;
	}
	int moved = wq_requeue(b1, addr, b2, addr2, nmove);
	wq_unlock2(b1, b2);
	wq_wake_list(list);
	(void)op;
	return woken + moved;
}

/* The system call's answer, which is not its wrapper's: the number of
 * bytes of the mask written (the kernel checks the size, and says how
 * much it fills, for the caller's own OS thread as for any). */
static long getaffinity_raw(pid_t pid, size_t size, cpu_set_t *set)
{
	long n = real_syscall(SYS_sched_getaffinity, 0, (long)size, (long)set, 0, 0, 0);
	if (n < 0)
		return n;
	cpu_set_t *mask = malloc(size);
	if (!mask) {
		errno = ENOMEM;
		return -1;
	}
	if (sched_getaffinity(pid, size, mask) != 0) {
		free(mask);
		return -1;
	}
	memcpy(set, mask, (size_t)n);
	free(mask);
	return n;
}

/* ioprio_set and ioprio_get (system calls only) of 0 or a G's id: the
 * G's I/O priority, kept as preload/thread_np.c keeps its nice value. */
static long ioprio(bool set, int which, int who, int ioprio)
{
	struct g *gp = which == 1 ? proc_target(who) : NULL;	/* IOPRIO_WHO_PROCESS */
	if (!gp)
		return set ? real_syscall(SYS_ioprio_set, which, who, ioprio, 0, 0, 0)
			   : real_syscall(SYS_ioprio_get, which, who, 0, 0, 0, 0);
	if (!set) {
		if (gp->ioprio_set)
			return gp->ioprio;
		/* never set: the kernel's default for a thread */
		return real_syscall(SYS_ioprio_get, which, 0, 0, 0, 0, 0);
	}
	/* the kernel checks the value and the privilege it needs: on this
	 * OS thread, which then gets its own back */
	long old = arch_syscall2(SYS_ioprio_get, which, 0);
	long r = arch_syscall3(SYS_ioprio_set, which, 0, ioprio);
	if (old >= 0)
		arch_syscall3(SYS_ioprio_set, which, 0, old);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	int tid = proc_os_thread(gp);
	if (tid)
		arch_syscall3(SYS_ioprio_set, which, tid, ioprio);
	gp->ioprio = ioprio;
	gp->ioprio_set = true;
	return 0;
}

/* The system calls that take or give a thread id mean the G's
 * (preload/thread_np.c); glibc's wrappers do what the kernel does. True,
 * with the answer in *ret, when nr is one of them for a G. */
static bool tid_call(long nr, long a1, long a2, long a3, long *ret)
{
	switch (nr) {
	case SYS_set_tid_address: {
		struct g *gp = getg();
		if (!gp)
			return false;
		/* the G's word, not its OS thread's (which other threads
		 * share, and which outlives it) */
		gp->clear_tid = (int *)a1;
		gp->clear_tid_set = true;
		*ret = gettid();
		return true;
	}
	case SYS_gettid:
		*ret = gettid();
		return true;
	case SYS_tgkill:
		*ret = tgkill((pid_t)a1, (pid_t)a2, (int)a3);
		return true;
	case SYS_tkill:
		if (!proc_by_tid((pid_t)a1))
			return false;
		*ret = tgkill(sched_getpid(), (pid_t)a1, (int)a2);
		return true;
	case SYS_sched_setaffinity:
		*ret = sched_setaffinity((pid_t)a1, (size_t)a2, (const cpu_set_t *)a3);
		return true;
	case SYS_sched_getaffinity:
		if (!proc_target((pid_t)a1))
			return false;
		*ret = getaffinity_raw((pid_t)a1, (size_t)a2, (cpu_set_t *)a3);
		return true;
	case SYS_sched_setscheduler:
		*ret = sched_setscheduler((pid_t)a1, (int)a2, (const struct sched_param *)a3);
		return true;
	case SYS_sched_getscheduler:
		*ret = sched_getscheduler((pid_t)a1);
		return true;
	case SYS_sched_setparam:
		*ret = sched_setparam((pid_t)a1, (const struct sched_param *)a2);
		return true;
	case SYS_sched_getparam:
		*ret = sched_getparam((pid_t)a1, (struct sched_param *)a2);
		return true;
	case SYS_setpriority:
		*ret = setpriority((int)a1, (id_t)a2, (int)a3);
		return true;
	case SYS_getpriority: {
		/* the system call's answer is 20 - nice (1..40) */
		int e = errno;
		errno = 0;
		int n = getpriority((int)a1, (id_t)a2);
		if (n == -1 && errno) {
			*ret = -1;
			return true;
		}
		errno = e;
		*ret = 20 - n;
		return true;
	}
	case SYS_ioprio_set:
		*ret = ioprio(true, (int)a1, (int)a2, (int)a3);
		return true;
	case SYS_ioprio_get:
		*ret = ioprio(false, (int)a1, (int)a2, 0);
		return true;
	default:
		return false;
	}
}

/* syscall(SYS_rt_sigprocmask) as sigprocmask. The kernel checks the call
 * (how, the pointers: its EINVAL, EFAULT) and makes it; libgmp's record
 * then follows, and old gets the record's mask (the kernel never blocks
 * SCHED_SIG), 8 bytes as the kernel writes. */
static long raw_sigprocmask(struct g *gp, int how, const void *set, void *old)
{
	sigset_t prev;
	sigprocmask(SIG_BLOCK, NULL, &prev);
	long r = real_syscall(SYS_rt_sigprocmask, how, (long)set, (long)old, 8, 0, 0);
	if (r != 0)
		return r;
	if (old)
		memcpy(old, &prev, 8);
	if (!set)
		return 0;
	/* the kernel's mask is not what the M thinks any more */
	sched_kmask_unknown(gp);
	sigset_t s;
	sigemptyset(&s);
	memcpy(&s, set, 8);
	return sigprocmask(how, &s, NULL);
}

/* The program's own system call, other than futex, behind an entry door:
 * a loop of them shares its processor like any other. Reads, writes and
 * closes of descriptors libgmp made non-blocking go where read/write/close
 * would, so that the program sees them block as it asked. Everything
 * else goes to the kernel unseen (sysmon notices an M blocked there). */
static long own_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	struct g *gp = getg();
	if (gp) {
		door_hold(gp);	/* a P back, if sysmon took it */
		door_unhold(gp);
		door_check(gp);
	}
	/* Sleeps are libgmp's: Linux ends one with EINTR whenever a handler
	 * runs on the thread, and on an M that may be libgmp's own (sysmon's
	 * request, or its handler for a signal whose action ignores it while
	 * some thread blocks it), where the program's thread would have
	 * slept on. */
	if (nr == SYS_nanosleep)
		return nanosleep((const struct timespec *)a1, (struct timespec *)a2);
	if (nr == SYS_clock_nanosleep) {
		int e = clock_nanosleep((clockid_t)a1, (int)a2, (const struct timespec *)a3,
					(struct timespec *)a4);
		if (e) {
			errno = e;
			return -1;
		}
		return 0;
	}
	/* The thread's mask is libgmp's record (the OS thread's follows it
	 * at every switch): a change the kernel alone saw would not last.
	 * The kernel's set is 8 bytes (any other size: its EINVAL). */
	if (nr == SYS_rt_sigprocmask && a4 == 8 && gp && !sched_in_vfork_child())
		return raw_sigprocmask(gp, (int)a1, (const void *)a2, (void *)a3);
	if ((nr == SYS_read || nr == SYS_write || nr == SYS_close) && fd_polled((int)a1)) {
		if (nr == SYS_read)
			return read((int)a1, (void *)a2, (size_t)a3);
		if (nr == SYS_write)
			return write((int)a1, (const void *)a2, (size_t)a3);
		return close((int)a1);
	}
	return real_syscall(nr, a1, a2, a3, a4, a5, a6);
}

GMP_EXPORT long syscall(long nr, ...)
{
	va_list ap;
	va_start(ap, nr);
	long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long);
	long a4 = va_arg(ap, long), a5 = va_arg(ap, long), a6 = va_arg(ap, long);
	va_end(ap);
	gmp_init();
	if (gmp_passthrough)
		return real_syscall(nr, a1, a2, a3, a4, a5, a6);
	long ret;
	if (tid_call(nr, a1, a2, a3, &ret))
		return ret;
	if (nr != SYS_futex)
		return own_syscall(nr, a1, a2, a3, a4, a5, a6);
	/* the rest is libgmp's (GMP_ENTRY); a call above is the program's
	 * own system call, which sysmon may retake */
	GMP_LIB_SCOPE;

	void *addr = (void *)a1;
	int op = (int)a2;
	switch (op & FUTEX_CMD_MASK) {
	case FUTEX_WAIT:
		return futex_wait(addr, op, (uint32_t)a3, (const struct timespec *)a4,
				  FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return futex_wait(addr, op, (uint32_t)a3, (const struct timespec *)a4,
				  (uint32_t)a6);
	case FUTEX_WAKE:
		return futex_wake(addr, op, (int)a3, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAKE_BITSET:
		return futex_wake(addr, op, (int)a3, (uint32_t)a6);
	case FUTEX_REQUEUE:
		return futex_requeue(addr, op, (int)a3, (int)a4, (void *)a5, false, 0);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(addr, op, (int)a3, (int)a4, (void *)a5, true, (uint32_t)a6);
	default:
		return real_syscall(nr, a1, a2, a3, a4, a5, a6);
	}
}
