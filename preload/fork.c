/* SPDX-License-Identifier: MIT */
/*
 * preload/fork.c — fork, its handlers, and the calls that fork inside
 * glibc (daemon, forkpty).
 *
 * glibc's fork runs on the thread pointer it finds, and in the child
 * rebuilds its thread lists around that TCB (TLS.md P6). libgmp makes the
 * fork with the thread pointer naming the M's own TCB, the OS thread's,
 * so that glibc keeps the right one; the G's TLS is worn again at once.
 * The program's pthread_atfork handlers must run on the G's TLS, so
 * libgmp keeps them itself (pthread_atfork, __register_atfork) and runs
 * them around the fork as glibc would: prepare handlers in reverse order
 * of registration, parent and child handlers in order. In the child,
 * before any child handler, the runtime is rebuilt around the forking G
 * (sched_after_fork, fd_after_fork): one M, one G, a fresh poller.
 */
#include "preload/runtime.h"
#include "core/lock.h"
#include "core/sched.h"
#include "core/tls.h"
#include "core/fdtab.h"

#include <errno.h>
#include <fcntl.h>
#include <paths.h>
#include <pty.h>
#include <stdlib.h>
#include <unistd.h>
#include <utmp.h>

struct atfork {
	void (*prepare)(void);
	void (*parent)(void);
	void (*child)(void);
	void *dso;
	struct atfork *next, *prev;
};

/* Registration order; under lock. The lock is also held from the prepare
 * handlers to the parent's (or child's) handlers: one fork at a time, and
 * no registration in the middle of one, as in glibc. */
static struct atfork *first, *last;
static struct rt_mutex lock;

GMP_EXPORT int __register_atfork(void (*prepare)(void), void (*parent)(void),
				 void (*child)(void), void *dso)
{
	gmp_init();
	struct atfork *a = malloc(sizeof *a);
	if (!a)
		return ENOMEM;
	*a = (struct atfork){prepare, parent, child, dso, NULL, NULL};
	rt_lock(&lock);
	a->prev = last;
	if (last)
		last->next = a;
	else
		first = a;
	last = a;
	rt_unlock(&lock);
	return 0;
}

GMP_EXPORT int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	return __register_atfork(prepare, parent, child, NULL);
}

/* A library being unloaded: its handlers go (glibc does it from
 * __cxa_finalize too, but inside libc, where libgmp's list is unknown). */
GMP_EXPORT void __cxa_finalize(void *dso)
{
	if (dso && ld_acq(&gmp_state) == 2) {
		rt_lock(&lock);
		struct atfork *a = first;
		while (a) {
			struct atfork *next = a->next;
			if (a->dso == dso) {
				if (a->prev)
					a->prev->next = a->next;
				else
					first = a->next;
				if (a->next)
					a->next->prev = a->prev;
				else
					last = a->prev;
				free(a);
			}
			a = next;
		}
		rt_unlock(&lock);
	}
	real___cxa_finalize(dso);
}

static pid_t gmp_fork(void)
{
	struct g *gp = getg();
	if (!gp)
		return real_fork();	/* a thread glibc made: glibc's fork */
	rt_lock(&lock);
	for (struct atfork *a = last; a; a = a->prev)
		if (a->prepare)
			a->prepare();
	gp->preemptoff++;	/* stay on this M until its TCB is worn again */
	struct m *mp = gp->m;
	__atomic_store_n(&mp->in_fork, true, __ATOMIC_RELAXED);
	arch_set_fs(mp->own_tp);
	pid_t pid = real_fork();
	int e = errno;		/* the M's errno */
	arch_set_fs(gp->tcb);
	if (pid == 0) {
		sched_after_fork(gp);
		/* the parent's robust mutexes are not the child's, as glibc
		 * empties the forking thread's list; a G on an OS thread of
		 * its own has the child's only one, whose robust list it
		 * takes (mutex.c) */
		tls_robust_forget(gp->tcb);
		if (gp->flags & G_FLAG_KTID)
			tls_robust_register(gp->tcb);
		fd_after_fork();
		gp->clear_tid_set = false;	/* the child's word is glibc's, as after a fork */
		gp->clear_tid = NULL;
	}
	__atomic_store_n(&mp->in_fork, false, __ATOMIC_RELAXED);
	gp->preemptoff--;
	if (pid == 0)
		lock = (struct rt_mutex){0};
	for (struct atfork *a = first; a; a = a->next) {
		void (*h)(void) = pid == 0 ? a->child : a->parent;
		if (h)
			h();
	}
	if (pid != 0)
		rt_unlock(&lock);
	if (pid < 0)
		errno = e;
	return pid;
}

GMP_EXPORT pid_t fork(void)
{
	GMP_ENTRY(fork);
	return gmp_fork();
}

GMP_ALIAS(__fork, fork)

/* As glibc's: fork, the parent leaves, the child makes a new session and
 * (unless asked not to) moves to / and points 0, 1, 2 at /dev/null. */
GMP_EXPORT int daemon(int nochdir, int noclose)
{
	GMP_ENTRY(daemon, nochdir, noclose);
	pid_t pid = gmp_fork();
	if (pid < 0)
		return -1;
	if (pid > 0)
		_exit(0);
	if (setsid() < 0)
		return -1;
	if (!nochdir && chdir("/") < 0)
		return -1;
	if (!noclose) {
		int fd = open(_PATH_DEVNULL, O_RDWR);
		if (fd < 0)
			return -1;
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

/* As glibc's: a pseudo-terminal pair, fork, and the child makes the
 * terminal its controlling one and its standard streams. */
GMP_EXPORT pid_t forkpty(int *amaster, char *name, const struct termios *termp,
			 const struct winsize *winp)
{
	GMP_ENTRY(forkpty, amaster, name, termp, winp);
	int master, slave;
	if (openpty(&master, &slave, name, termp, winp) < 0)
		return -1;
	pid_t pid = gmp_fork();
	if (pid < 0) {
		close(master);
		close(slave);
		return -1;
	}
	if (pid == 0) {
		close(master);
		if (login_tty(slave) < 0)
			_exit(1);
		return 0;
	}
	*amaster = master;
	close(slave);
	return pid;
}
