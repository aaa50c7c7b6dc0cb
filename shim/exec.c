/*
 * shim/exec.c — starting programs: the exec family, posix_spawn, popen.
 *
 * A new program must find the descriptors it inherits as the program
 * left them: exec gives every polled descriptor without FD_CLOEXEC the
 * program's view of O_NONBLOCK back (and takes it again if exec fails).
 * posix_spawn and popen start a child that shares the descriptions with
 * this process, so the inheritable polled descriptors, and those named in
 * posix_spawn_file_actions_adddup2, become ordinary descriptors for good
 * (fdtab.h). The exec functions that glibc builds on execve internally
 * (execv, execvp, execvpe, execl, execlp, execle, fexecve) are each
 * interposed for that reason.
 */
#include "core/fdtab.h"
#include "core/door.h"
#include "core/sched.h"

#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern char **environ;

/* Run an exec call with the program's flags on inherited descriptors. */
#define EXEC_WITH_FLAGS(call) ({ \
	fd_exec_flags(false); \
	int r_ = (call); \
	int e_ = errno; \
	fd_exec_flags(true); \
	errno = e_; \
	r_; \
})

GMP_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	GMP_ENTRY_EXEC(execve, path, argv, envp);
	return EXEC_WITH_FLAGS(real_execve(path, argv, envp));
}

GMP_EXPORT int execv(const char *path, char *const argv[])
{
	GMP_ENTRY_EXEC(execv, path, argv);
	return EXEC_WITH_FLAGS(real_execv(path, argv));
}

GMP_EXPORT int execvp(const char *file, char *const argv[])
{
	GMP_ENTRY_EXEC(execvp, file, argv);
	return EXEC_WITH_FLAGS(real_execvp(file, argv));
}

GMP_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	GMP_ENTRY_EXEC(execvpe, file, argv, envp);
	return EXEC_WITH_FLAGS(real_execvpe(file, argv, envp));
}

GMP_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	GMP_ENTRY_EXEC(fexecve, fd, argv, envp);
	return EXEC_WITH_FLAGS(real_fexecve(fd, argv, envp));
}

enum { EXEC_L, EXEC_LP, EXEC_LE };

/* execl, execlp, execle: the list as a vector on the stack (no malloc:
 * these run in children made by vfork), then execve or execvp. */
static int exec_list(int how, const char *file, const char *arg0, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	size_t n = 1;
	while (va_arg(cp, char *))
		n++;
	va_end(cp);
	if (n > 65536) {
		errno = E2BIG;
		return -1;
	}
	char *argv[n + 1];
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);	/* the last is the NULL */
	char **envp = how == EXEC_LE ? va_arg(ap, char **) : environ;
	return how == EXEC_LP ? execvp(file, argv) : execve(file, argv, envp);
}

GMP_EXPORT int execl(const char *path, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int r = exec_list(EXEC_L, path, arg0, ap);
	va_end(ap);
	return r;
}

GMP_EXPORT int execlp(const char *file, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int r = exec_list(EXEC_LP, file, arg0, ap);
	va_end(ap);
	return r;
}

GMP_EXPORT int execle(const char *path, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int r = exec_list(EXEC_LE, path, arg0, ap);
	va_end(ap);
	return r;
}

GMP_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			   const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	GMP_ENTRY(posix_spawn, pid, path, fa, attr, argv, envp);
	fd_demote_inheritable();
	return real_posix_spawn(pid, path, fa, attr, argv, envp);
}

GMP_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	GMP_ENTRY(posix_spawnp, pid, file, fa, attr, argv, envp);
	fd_demote_inheritable();
	return real_posix_spawnp(pid, file, fa, attr, argv, envp);
}

GMP_EXPORT int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd,
						int newfd)
{
	GMP_ENTRY(posix_spawn_file_actions_adddup2, fa, fd, newfd);
	int r = real_posix_spawn_file_actions_adddup2(fa, fd, newfd);
	if (r == 0)
		fd_demote(fd);
	return r;
}

GMP_EXPORT FILE *popen(const char *cmd, const char *mode)
{
	GMP_ENTRY(popen, cmd, mode);
	fd_demote_inheritable();
	return real_popen(cmd, mode);
}
