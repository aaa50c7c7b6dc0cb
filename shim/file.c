/*
 * shim/file.c — opening files: open, openat, creat and their 64-bit and
 * _FORTIFY_SOURCE names. Opening a FIFO (or a device) may block until the
 * other end comes, so the open is a system call of the G (its P goes on
 * if it lasts); a cancellation point, as in glibc. The descriptor it
 * returns is an ordinary one: its number may still carry a stale polled
 * entry from a descriptor closed where libgmp could not see it, which is
 * dropped here.
 */
#include "core/fdtab.h"
#include "core/door.h"
#include "core/sched.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

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

GMP_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = MODE_ARG(flags);
	GMP_ENTRY(openat, dirfd, path, flags, mode);
	return opened(GMP_BLOCKING(int, true, real_openat(dirfd, path, flags, mode)));
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
