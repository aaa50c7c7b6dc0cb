/* SPDX-License-Identifier: MIT */
/*
 * preload/cred.c — set*id and setgroups for the whole process.
 *
 * Linux keeps credentials per OS thread; POSIX wants them per process, so
 * glibc makes the system call on every thread it knows (SIGSETXID). It
 * cannot do that from a G: it knows Gs by their TCBs, which are not OS
 * threads (TLS.md P9). libgmp does it itself: the call is made on the
 * calling thread first (its error is the caller's), then every other OS
 * thread of the process, as listed in /proc/self/task (Ms, the service
 * thread, threads glibc made), is sent SIGSETXID and makes the same
 * system call in the handler, and the caller waits until all have.
 * SIGSETXID is glibc's reserved signal, which programs cannot block or
 * catch; libgmp takes it over with its own handler (glibc's is only
 * reached through the functions interposed here).
 */
#include "preload/runtime.h"
#include "core/lock.h"
#include "core/os.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SIGSETXID 33	/* __SIGRTMIN + 1, glibc's */

static struct {
	_Atomic int active;
	long nr, a[3];
	_Atomic uint32_t left;	/* threads still to make the call */
} cmd;
static struct rt_mutex setxid_lock;

/* TLS-free: runs on whatever stack and thread pointer the thread had. */
__attribute__((no_stack_protector)) static void setxid_handler(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)uc;
	if (info->si_code != SI_TKILL || info->si_pid != arch_syscall0(SYS_getpid) ||
	    !ld_acq(&cmd.active))
		return;
	arch_syscall3(cmd.nr, cmd.a[0], cmd.a[1], cmd.a[2]);
	if (xadd(&cmd.left, (uint32_t)-1) == 1)
		os_futex_wake(&cmd.left, 1);
}

static void install_once(void)
{
	static _Atomic int done;
	if (ld_acq(&done))
		return;
	rt_lock(&setxid_lock);
	if (!ld_rlx(&done)) {
		arch_sigaction(SIGSETXID, setxid_handler, 0x10000000 /* SA_RESTART */);
		st_rel(&done, 1);
	}
	rt_unlock(&setxid_lock);
}

/* Ask OS thread tid (all but the caller's) to make cmd's call too; arg
 * holds the process id and the caller's tid. */
static void signal_task(int tid, void *arg)
{
	const long *ids = arg;
	long pid = ids[0];
	if (tid == ids[1])
		return;
	xadd(&cmd.left, 1u);
	/* a thread that has just ended is not waited for */
	if (arch_syscall3(SYS_tgkill, pid, tid, SIGSETXID) != 0)
		xadd(&cmd.left, (uint32_t)-1);
}

/* Make system call nr on every OS thread of the process. Returns what
 * glibc's function would: 0, or -1 with errno. */
static int all_threads(long nr, long a0, long a1, long a2)
{
	install_once();
	rt_lock(&setxid_lock);
	long r = arch_syscall3(nr, a0, a1, a2);
	if (r < 0) {
		rt_unlock(&setxid_lock);
		errno = (int)-r;
		return -1;
	}
	cmd.nr = nr;
	cmd.a[0] = a0;
	cmd.a[1] = a1;
	cmd.a[2] = a2;
	st_rel(&cmd.left, 1u);	/* held by this thread until all are sent */
	st_rel(&cmd.active, 1);
	long ids[2] = {arch_syscall0(SYS_getpid), arch_syscall0(SYS_gettid)};
	os_each_task(signal_task, ids);
	uint32_t v = xadd(&cmd.left, (uint32_t)-1) - 1;
	while (v != 0) {
		os_futex_wait(&cmd.left, v, 1000000);
		v = ld_acq(&cmd.left);
	}
	st_rel(&cmd.active, 0);
	rt_unlock(&setxid_lock);
	return 0;
}

#define U(x) ((long)(unsigned)(x))

GMP_EXPORT int setuid(uid_t uid)
{
	GMP_ENTRY(setuid, uid);
	return all_threads(SYS_setuid, U(uid), 0, 0);
}

GMP_EXPORT int setgid(gid_t gid)
{
	GMP_ENTRY(setgid, gid);
	return all_threads(SYS_setgid, U(gid), 0, 0);
}

GMP_EXPORT int seteuid(uid_t uid)
{
	GMP_ENTRY(seteuid, uid);
	if (uid == (uid_t)-1) {
		errno = EINVAL;
		return -1;
	}
	return all_threads(SYS_setresuid, -1, U(uid), -1);
}

GMP_EXPORT int setegid(gid_t gid)
{
	GMP_ENTRY(setegid, gid);
	if (gid == (gid_t)-1) {
		errno = EINVAL;
		return -1;
	}
	return all_threads(SYS_setresgid, -1, U(gid), -1);
}

GMP_EXPORT int setreuid(uid_t r, uid_t e)
{
	GMP_ENTRY(setreuid, r, e);
	return all_threads(SYS_setreuid, U(r), U(e), 0);
}

GMP_EXPORT int setregid(gid_t r, gid_t e)
{
	GMP_ENTRY(setregid, r, e);
	return all_threads(SYS_setregid, U(r), U(e), 0);
}

GMP_EXPORT int setresuid(uid_t r, uid_t e, uid_t s)
{
	GMP_ENTRY(setresuid, r, e, s);
	return all_threads(SYS_setresuid, U(r), U(e), U(s));
}

GMP_EXPORT int setresgid(gid_t r, gid_t e, gid_t s)
{
	GMP_ENTRY(setresgid, r, e, s);
	return all_threads(SYS_setresgid, U(r), U(e), U(s));
}

GMP_EXPORT int setgroups(size_t n, const gid_t *groups)
{
	GMP_ENTRY(setgroups, n, groups);
	return all_threads(SYS_setgroups, (long)n, (long)groups, 0);
}
