/* SPDX-License-Identifier: MIT */
/*
 * shim/wait.c — waiting for child processes: wait, waitpid, wait3, wait4,
 * waitid and system (whose wait is inside glibc). They cannot be polled,
 * so a G makes them as system calls that may block (g_syscall_enter/
 * exit). Each first looks with WNOHANG: a child ready is taken at once,
 * on the P; otherwise the P is handed to another M before the wait
 * enters the kernel (system's too, which always waits). Each wait (not
 * system) is a cancellation point; signals interrupt them as they would
 * under NPTL. Threads that are not Gs call
 * glibc directly.
 */
#include "core/door.h"
#include "core/sched.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

GMP_EXPORT pid_t wait(int *status)
{
	GMP_ENTRY(wait, status);
	return GMP_BLOCKING_TRY(pid_t, true, real_waitpid(-1, status, WNOHANG), r_ == 0,
				real_wait(status));
}

GMP_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	GMP_ENTRY(waitpid, pid, status, options);
	if (options & WNOHANG)
		return real_waitpid(pid, status, options);
	return GMP_BLOCKING_TRY(pid_t, true, real_waitpid(pid, status, options | WNOHANG), r_ == 0,
				real_waitpid(pid, status, options));
}

GMP_EXPORT pid_t wait3(int *status, int options, struct rusage *ru)
{
	GMP_ENTRY(wait3, status, options, ru);
	if (options & WNOHANG)
		return real_wait3(status, options, ru);
	return GMP_BLOCKING_TRY(pid_t, true, real_wait3(status, options | WNOHANG, ru), r_ == 0,
				real_wait3(status, options, ru));
}

GMP_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	GMP_ENTRY(wait4, pid, status, options, ru);
	if (options & WNOHANG)
		return real_wait4(pid, status, options, ru);
	return GMP_BLOCKING_TRY(pid_t, true, real_wait4(pid, status, options | WNOHANG, ru), r_ == 0,
				real_wait4(pid, status, options, ru));
}

GMP_EXPORT int waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	GMP_ENTRY(waitid, idtype, id, info, options);
	if (options & WNOHANG)
		return real_waitid(idtype, id, info, options);
	/* with WNOHANG, 0 and si_pid 0: no child is ready (without info,
	 * that cannot be told from a child taken) */
	if (!info)
		return GMP_BLOCKING(int, true, real_waitid(idtype, id, info, options));
	return GMP_BLOCKING_TRY(int, true, real_waitid(idtype, id, info, options | WNOHANG),
				r_ == 0 && info->si_pid == 0,
				real_waitid(idtype, id, info, options));
}

GMP_EXPORT int system(const char *cmd)
{
	GMP_ENTRY(system, cmd);
	return GMP_BLOCKING_NOW(int, false, real_system(cmd));
}
