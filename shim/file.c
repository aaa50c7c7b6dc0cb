/* SPDX-License-Identifier: MIT */
/*
 * shim/file.c — opening files: open, openat, creat and their 64-bit and
 * _FORTIFY_SOURCE names. Opening a FIFO (or a device) may block until the
 * other end comes, so the open is a system call of the G (its P goes on
 * if it lasts); a cancellation point, as in glibc. The descriptor it
 * returns is an ordinary one: its number may still carry a stale polled
 * entry from a descriptor closed where libgmp could not see it, which is
 * dropped here. The files of a thread under /proc are those of the OS
 * thread it runs on (task_path).
 */
#include "core/fdtab.h"
#include "core/door.h"
#include "core/sched.h"
#include "core/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* mode is only read for O_CREAT and O_TMPFILE, as glibc does */
static bool wants_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

static int opened(int fd)
{
	if (fd >= 0)
		fd_forget(fd);
	return fd;
}

/* The mode argument of open/openat, read only when the flags use it. */
#define MODE_ARG(flags) ({ \
	mode_t m_ = 0; \
	if (wants_mode(flags)) { \
		va_list ap_; \
		va_start(ap_, flags); \
		m_ = va_arg(ap_, mode_t); \
		va_end(ap_); \
	} \
	m_; \
})

/*
 * A thread's files under /proc: /proc/thread-self/... and
 * /proc/self/task/<id>/... (or /proc/<pid>/task/<id>/...) for a G's id.
 * The kernel knows OS threads only, so the path is made to name the OS
 * thread the G runs on at the time of the open (the caller's own), or
 * ran on last, and that OS thread is first given the G's name: a thread
 * reading its own comm, stat or status finds its name and state there.
 * Listing /proc/self/task shows the OS threads, and every id it lists
 * opens that OS thread: the process id, which is the main thread's id
 * and the first OS thread's too, names the first OS thread (the main
 * thread finds itself at /proc/thread-self).
 */
static void name_task(struct g *gp, int tid, bool self)
{
	char name[sizeof gp->name];
	memcpy(name, gp->name, sizeof name);
	name[sizeof name - 1] = '\0';
	if (!name[0])
		return;
	if (self) {
		arch_syscall2(SYS_prctl, PR_SET_NAME, name);
		return;
	}
	char comm[64];
	snprintf(comm, sizeof comm, "/proc/self/task/%d/comm", tid);
	int fd = (int)arch_syscall4(SYS_openat, AT_FDCWD, comm, O_WRONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return;
	arch_syscall3(SYS_write, fd, name, strlen(name));
	arch_syscall1(SYS_close, fd);
}

/* A thread's file under /proc (NULL: path is not one): path for the
 * OS thread to open, in buf; the G and the OS thread in *task. */
struct task_file {
	struct g *g;
	int tid;
};

static const char *task_path(const char *path, char *buf, size_t len, struct task_file *task)
{
	task->g = NULL;
	if (!path || strncmp(path, "/proc/", 6) != 0)
		return path;
	struct g *me = getg(), *gp;
	const char *rest;
	if (strncmp(path + 6, "thread-self", 11) == 0 && (path[17] == '/' || !path[17])) {
		gp = me;
		rest = path + 17;
	} else {
		const char *p = path + 6;
		char *end;
		if (strncmp(p, "self/task/", 10) == 0) {
			p += 10;
		} else {
			long pid = strtol(p, &end, 10);
			if (end == p || pid != sched_getpid() || strncmp(end, "/task/", 6) != 0)
				return path;
			p = end + 6;
		}
		long id = strtol(p, &end, 10);
		if (end == p || (*end != '/' && *end) || id == sched_getpid())
			return path;	/* not a thread's, or the first OS thread's */
		gp = proc_by_tid((int)id);
		rest = end;
	}
	if (!gp)
		return path;
	bool self = gp == me;
	int tid = self ? (int)arch_syscall0(SYS_gettid) : proc_task_of(gp);
	if (!tid)
		return path;
	name_task(gp, tid, self);
	if ((size_t)snprintf(buf, len, "/proc/self/task/%d%s", tid, rest) >= len)
		return path;
	task->g = gp;
	task->tid = tid;
	return buf;
}

/* fd, the G's own file of OS thread `from`, becomes the same file of
 * OS thread `to`, where the G runs now: the same descriptor number,
 * access mode, close-on-exec flag and offset. False if it cannot. */
static bool retarget(int fd, int from, int to)
{
	char link[48], old[PATH_MAX], path[PATH_MAX], key[32];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	long n = arch_syscall4(SYS_readlinkat, AT_FDCWD, link, old, sizeof old - 1);
	if (n <= 0)
		return false;
	old[n] = '\0';
	snprintf(key, sizeof key, "/task/%d/", from);
	char *at = strstr(old, key);
	if (!at || (size_t)snprintf(path, sizeof path, "/proc/self/task/%d/%s", to,
				     at + strlen(key)) >= sizeof path)
		return false;
	long fl = arch_syscall2(SYS_fcntl, fd, F_GETFL);
	long fdfl = arch_syscall2(SYS_fcntl, fd, F_GETFD);
	long off = arch_syscall3(SYS_lseek, fd, 0, SEEK_CUR);
	if (fl < 0 || fdfl < 0)
		return false;
	/* every status flag the descriptor has (O_PATH, O_APPEND, O_NOATIME,
	 * O_DIRECT, ...): the new one must answer as the old would have */
	int nfd = (int)arch_syscall4(SYS_openat, AT_FDCWD, path,
				     (fl & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC)) | O_CLOEXEC, 0);
	if (nfd < 0)
		return false;
	if (off > 0)
		arch_syscall3(SYS_lseek, nfd, off, SEEK_SET);
	long r = arch_syscall3(SYS_dup3, nfd, fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0);
	arch_syscall1(SYS_close, nfd);
	return r == fd;
}

/* The kernel makes a /proc file's text when it is read, not when it is
 * opened: the OS thread must bear the G's name at the read too, which
 * another G running there since the open may have changed. */
_Atomic bool io_task_files;

void io_task_file_slow(int fd)
{
	struct fdent *e = fd_get(fd);
	if (likely(!e) || likely(!(ld_rlx(&e->flags) & FD_TASKFILE)))
		return;
	struct g *gp = ld_acq(&e->task_g), *me = getg();
	int tid = ld_rlx(&e->task_tid);
	if (!gp)
		return;
	if (gp != me) {
		name_task(gp, tid, false);
		return;
	}
	/* its own: the G may run on another OS thread than at the open */
	int cur = (int)arch_syscall0(SYS_gettid);
	if (cur != tid) {
		if (!retarget(fd, tid, cur))
			return;
		st_rel(&e->task_tid, cur);
	}
	name_task(gp, cur, true);
}

/* fd is a thread's file under /proc (task) */
static int task_opened(int fd, const struct task_file *task)
{
	if (fd < 0 || !task->g)
		return fd;
	struct fdent *e = fd_entry(fd);
	if (e) {
		st_rlx(&io_task_files, true);
		st_rel(&e->task_g, task->g);
		st_rel(&e->task_tid, task->tid);
		atomic_fetch_or(&e->flags, FD_TASKFILE);
	}
	return fd;
}

GMP_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = MODE_ARG(flags);
	GMP_ENTRY(openat, dirfd, path, flags, mode);
	char buf[PATH_MAX];
	struct task_file task;
	path = task_path(path, buf, sizeof buf, &task);
	return task_opened(opened(GMP_BLOCKING(int, true, real_openat(dirfd, path, flags, mode))),
			   &task);
}
GMP_ALIAS(openat64, openat)

GMP_EXPORT int open(const char *path, int flags, ...)
{
	return openat(AT_FDCWD, path, flags, MODE_ARG(flags));
}
GMP_ALIAS(open64, open)

GMP_EXPORT int creat(const char *path, mode_t mode)
{
	return openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}
GMP_ALIAS(creat64, creat)

GMP_EXPORT int __open_2(const char *path, int flags)
{
	if (wants_mode(flags))
		return real___open_2(path, flags);	/* glibc's abort message */
	return openat(AT_FDCWD, path, flags);
}
GMP_ALIAS(__open64_2, __open_2)

GMP_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	if (wants_mode(flags))
		return real___openat_2(dirfd, path, flags);
	return openat(dirfd, path, flags);
}
GMP_ALIAS(__openat64_2, __openat_2)

GMP_EXPORT FILE *fopen(const char *path, const char *mode)
{
	GMP_ENTRY(fopen, path, mode);
	char buf[PATH_MAX];
	struct task_file task;
	FILE *f = real_fopen(task_path(path, buf, sizeof buf, &task), mode);
	if (f && task.g && mode[0] == 'r' && !strchr(mode, '+')) {
		/* stdio reads with glibc's own system calls, which libgmp
		 * does not see: its first buffer is filled here, while the
		 * OS thread bears the G's name */
		int e = errno;
		int c = getc(f);
		if (c != EOF)
			ungetc(c, f);
		else
			clearerr(f);
		errno = e;
	}
	return f;
}
GMP_ALIAS(fopen64, fopen)
