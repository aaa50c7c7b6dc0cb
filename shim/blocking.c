/* SPDX-License-Identifier: MIT */
/*
 * shim/blocking.c — calls that may block and cannot be polled, made as
 * system calls of the G (GMP_BLOCKING: its P is handed on while it waits):
 * flock, lockf, fsync, fdatasync, System V IPC waits (msgrcv, msgsnd,
 * semop, semtimedop), and waiting for signals (sigwait, sigwaitinfo,
 * sigtimedwait, sigsuspend, pause: the signal reaches the OS thread the
 * G waits on, which libgmp's signal routing nudges). Their non-blocking forms (LOCK_NB, F_TLOCK/F_TEST,
 * IPC_NOWAIT) go straight to glibc, as do threads that are not Gs.
 * Cancellation points as in glibc: lockf(F_LOCK), fsync, fdatasync,
 * msgrcv, msgsnd and the signal waits.
 *
 * A call that has a non-blocking form tries it first; when that fails
 * because the call would wait (a lock held, no message, a semaphore at
 * 0), the P is handed to another M before the blocking form enters the
 * kernel (GMP_BLOCKING_TRY), so the threads queued behind the caller run
 * at once rather than when sysmon next looks. The System V waits end
 * with EINTR whenever a handler runs, SA_RESTART or not: one that only
 * sysmon's preemption request ended is made again (GMP_BLOCKING_AGAIN).
 *
 * A call back into libgmp from inside (a signal handler) takes the P
 * back first (door_sync).
 */
#include "core/door.h"
#include "core/sched.h"
#include "core/timer.h"

#include <errno.h>
#include <sys/file.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <signal.h>
#include <unistd.h>

/* A lock held elsewhere: the non-blocking form failed for that reason. */
#define LOCK_BUSY (r_ == -1 && (errno == EWOULDBLOCK || errno == EAGAIN || errno == EACCES))

GMP_EXPORT int flock(int fd, int op)
{
	GMP_ENTRY(flock, fd, op);
	if (op & LOCK_NB)
		return real_flock(fd, op);
	return GMP_BLOCKING_TRY(int, false, real_flock(fd, op | LOCK_NB), LOCK_BUSY,
				real_flock(fd, op));
}

GMP_EXPORT int lockf(int fd, int cmd, off_t len)
{
	GMP_ENTRY(lockf, fd, cmd, len);
	if (cmd != F_LOCK)
		return real_lockf(fd, cmd, len);
	return GMP_BLOCKING_TRY(int, true, real_lockf(fd, F_TLOCK, len), LOCK_BUSY,
				real_lockf(fd, cmd, len));
}

GMP_EXPORT int fsync(int fd)
{
	GMP_ENTRY(fsync, fd);
	return GMP_BLOCKING(int, true, real_fsync(fd));
}

GMP_EXPORT int fdatasync(int fd)
{
	GMP_ENTRY(fdatasync, fd);
	return GMP_BLOCKING(int, true, real_fdatasync(fd));
}

GMP_EXPORT ssize_t msgrcv(int id, void *msg, size_t size, long type, int flags)
{
	GMP_ENTRY(msgrcv, id, msg, size, type, flags);
	/* MSG_COPY without IPC_NOWAIT is the kernel's EINVAL: a try with
	 * IPC_NOWAIT added would take a copy */
	if (flags & (IPC_NOWAIT | MSG_COPY))
		return real_msgrcv(id, msg, size, type, flags);
	struct g *gp = getg();
	if (gp)
		door_testcancel(gp);
	int e = errno;
	ssize_t r = real_msgrcv(id, msg, size, type, flags | IPC_NOWAIT);
	if (r != -1 || errno != ENOMSG)
		return r;
	errno = e;
	return GMP_BLOCKING_AGAIN(ssize_t, true, true, (void)0,
				  real_msgrcv(id, msg, size, type, flags));
}

GMP_EXPORT int msgsnd(int id, const void *msg, size_t size, int flags)
{
	GMP_ENTRY(msgsnd, id, msg, size, flags);
	if (flags & IPC_NOWAIT)
		return real_msgsnd(id, msg, size, flags);
	struct g *gp = getg();
	if (gp)
		door_testcancel(gp);
	int e = errno;
	int r = real_msgsnd(id, msg, size, flags | IPC_NOWAIT);
	if (r != -1 || errno != EAGAIN)
		return r;
	errno = e;
	return GMP_BLOCKING_AGAIN(int, true, true, (void)0, real_msgsnd(id, msg, size, flags));
}

/* Also true where the kernel fails at once, before it looks at the
 * operations' flags: none given, or a vector it cannot read (NULL), or
 * (t) a malformed timeout, which it rejects before doing anything. */
static bool all_nowait(const struct sembuf *ops, size_t n, const struct timespec *t)
{
	const struct sembuf *volatile checked = ops;
	if (n == 0 || !checked)
		return true;
	if (t && (t->tv_sec < 0 || t->tv_nsec < 0 || t->tv_nsec >= 1000000000))
		return true;
	for (size_t i = 0; i < n; i++)
		if (!(ops[i].sem_flg & IPC_NOWAIT))
			return false;
	return true;
}

/* The operations of a semop, each with IPC_NOWAIT: the whole set then
 * fails with EAGAIN, changing nothing, where it would wait. */
#define SEMOP_TRY_MAX 32

static int semop_nowait(int id, const struct sembuf *ops, size_t n)
{
	struct sembuf nw[SEMOP_TRY_MAX];
	for (size_t i = 0; i < n; i++) {
		nw[i] = ops[i];
		nw[i].sem_flg |= IPC_NOWAIT;
	}
	return real_semop(id, nw, n);
}

GMP_EXPORT int semop(int id, struct sembuf *ops, size_t n)
{
	GMP_ENTRY(semop, id, ops, n);
	if (all_nowait(ops, n, NULL))
		return real_semop(id, ops, n);
	if (n > SEMOP_TRY_MAX)
		return GMP_BLOCKING_AGAIN(int, false, false, (void)0, real_semop(id, ops, n));
	int e = errno;
	int r = semop_nowait(id, ops, n);
	if (r != -1 || errno != EAGAIN)
		return r;
	errno = e;
	return GMP_BLOCKING_AGAIN(int, false, true, (void)0, real_semop(id, ops, n));
}

GMP_EXPORT int semtimedop(int id, struct sembuf *ops, size_t n, const struct timespec *t)
{
	GMP_ENTRY(semtimedop, id, ops, n, t);
	if (all_nowait(ops, n, t))
		return real_semtimedop(id, ops, n, t);
	/* again after a spurious EINTR with the time left */
	int64_t deadline = t && t->tv_nsec >= 0 && t->tv_nsec < 1000000000 ? timer_rel_deadline(t) : 0;
	struct timespec left, *lp = (struct timespec *)t;
	if (n > SEMOP_TRY_MAX)
		return GMP_BLOCKING_AGAIN(int, false, false, lp = timer_left_ts(deadline, &left),
					  real_semtimedop(id, ops, n, lp));
	int e = errno;
	int r = semop_nowait(id, ops, n);
	if (r != -1 || errno != EAGAIN)
		return r;
	errno = e;
	return GMP_BLOCKING_AGAIN(int, false, true, lp = timer_left_ts(deadline, &left),
				  real_semtimedop(id, ops, n, lp));
}

