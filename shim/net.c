/*
 * shim/net.c — making, duplicating and closing descriptors, and what the
 * program sees of their flags: socket, socketpair, accept, accept4,
 * connect, pipe, pipe2, eventfd, timerfd_create, signalfd, inotify_init,
 * inotify_init1, close, dup, dup2, dup3, fcntl, ioctl(FIONBIO),
 * setsockopt/getsockopt(SO_RCVTIMEO, SO_SNDTIMEO), fdopen, fclose.
 *
 * Descriptors made here are created non-blocking in the kernel (one
 * system call, with the SOCK_NONBLOCK-style flag) and recorded as polled;
 * F_GETFL, F_SETFL and FIONBIO show and change the program's own view of
 * O_NONBLOCK. Closing, or duplicating over, a descriptor that Gs wait on
 * wakes them with EBADF. A socket's timeouts are recorded because the
 * kernel no longer applies them to a non-blocking socket.
 */
#include "shim/io.h"

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

/* --- making descriptors ------------------------------------------------- */

GMP_EXPORT int socket(int domain, int type, int proto)
{
	GMP_ENTRY(socket, domain, type, proto);
	int fd = real_socket(domain, type | SOCK_NONBLOCK, proto);
	if (fd >= 0)
		fd_created(fd, type & SOCK_NONBLOCK, true);
	return fd;
}

GMP_EXPORT int socketpair(int domain, int type, int proto, int sv[2])
{
	GMP_ENTRY(socketpair, domain, type, proto, sv);
	int r = real_socketpair(domain, type | SOCK_NONBLOCK, proto, sv);
	if (r == 0) {
		fd_created(sv[0], type & SOCK_NONBLOCK, true);
		fd_created(sv[1], type & SOCK_NONBLOCK, true);
		fd_set_peers(sv[0], sv[1]);
	}
	return r;
}

GMP_EXPORT int pipe2(int fds[2], int flags)
{
	GMP_ENTRY(pipe2, fds, flags);
	int r = real_pipe2(fds, flags | O_NONBLOCK);
	if (r == 0) {
		fd_created(fds[0], flags & O_NONBLOCK, false);
		fd_created(fds[1], flags & O_NONBLOCK, false);
		fd_set_peers(fds[0], fds[1]);
	}
	return r;
}

GMP_EXPORT int pipe(int fds[2])
{
	return pipe2(fds, 0);
}

GMP_EXPORT int eventfd(unsigned init, int flags)
{
	GMP_ENTRY(eventfd, init, flags);
	int fd = real_eventfd(init, flags | EFD_NONBLOCK);
	if (fd >= 0)
		fd_created(fd, flags & EFD_NONBLOCK, false);
	return fd;
}

GMP_EXPORT int timerfd_create(int clock, int flags)
{
	GMP_ENTRY(timerfd_create, clock, flags);
	int fd = real_timerfd_create(clock, flags | TFD_NONBLOCK);
	if (fd >= 0)
		fd_created(fd, flags & TFD_NONBLOCK, false);
	return fd;
}

GMP_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	GMP_ENTRY(signalfd, fd, mask, flags);
	if (fd != -1)	/* a new mask for an existing one */
		return real_signalfd(fd, mask, flags);
	int r = real_signalfd(-1, mask, flags | SFD_NONBLOCK);
	if (r >= 0)
		fd_created(r, flags & SFD_NONBLOCK, false);
	return r;
}

GMP_EXPORT int inotify_init1(int flags)
{
	GMP_ENTRY(inotify_init1, flags);
	int fd = real_inotify_init1(flags | IN_NONBLOCK);
	if (fd >= 0)
		fd_created(fd, flags & IN_NONBLOCK, false);
	return fd;
}

GMP_EXPORT int inotify_init(void)
{
	return inotify_init1(0);
}

GMP_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *alen, int flags)
{
	GMP_ENTRY(accept4, fd, addr, alen, flags);
	struct fdent *e = fd_polled(fd);
	int r;
	if (!e) {
		r = IO_SYSCALL(int, true, real_accept4(fd, addr, alen, flags | SOCK_NONBLOCK));
	} else {
		if (getg())
			door_testcancel(getg());
		r = (int)IO_POLLED(fd, e, NP_READ, true, false,
				   SYS_ACCEPT4(fd, addr, alen, flags | SOCK_NONBLOCK));
	}
	if (r >= 0) {
		fd_created(r, flags & SOCK_NONBLOCK, true);
		struct fdent *n = fd_get(r);
		if (e && n) {	/* Linux copies the listener's timeouts */
			st_rlx(&n->rcvtimeo, ld_rlx(&e->rcvtimeo));
			st_rlx(&n->sndtimeo, ld_rlx(&e->sndtimeo));
		}
	}
	return r;
}

GMP_EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *alen)
{
	return accept4(fd, addr, alen, 0);
}

/*
 * connect on a polled socket in blocking mode: the kernel says
 * EINPROGRESS; park until the socket is writable, then the outcome is in
 * SO_ERROR. A signal leaves the connection going on in the background
 * (EINTR), as the kernel does; the send timeout gives EINPROGRESS.
 */
GMP_EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t alen)
{
	GMP_ENTRY(connect, fd, addr, alen);
	struct fdent *e = fd_polled(fd);
	if (!e)
		return IO_SYSCALL(int, true, real_connect(fd, addr, alen));
	struct g *gp = getg();
	if (gp)
		door_testcancel(gp);
	struct pdesc *pd = ld_acq(&e->pd);
	if (pd)
		netpoll_reset(pd, NP_WRITE);
	int r = real_connect(fd, addr, alen);
	if (r == 0 || errno != EINPROGRESS || (ld_rlx(&e->flags) & FD_USER_NB))
		return r;
	struct iowait w = {0, false, false};
	for (;;) {
		int err = io_wait(fd, e, NP_WRITE, &w);
		if (err) {
			errno = err == EAGAIN ? EINPROGRESS : err;
			return -1;
		}
		int soerr = 0;
		socklen_t len = sizeof soerr;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0)
			return -1;
		if (soerr && soerr != EINPROGRESS && soerr != EALREADY && soerr != EINTR) {
			errno = soerr;
			return -1;
		}
		struct sockaddr_storage peer;
		socklen_t plen = sizeof peer;
		if (getpeername(fd, (struct sockaddr *)&peer, &plen) == 0)
			return 0;
		if (errno != ENOTCONN)
			return -1;
	}
}

/* --- socket timeouts ------------------------------------------------------- */

GMP_EXPORT int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	GMP_ENTRY(setsockopt, fd, level, name, val, len);
	int r = real_setsockopt(fd, level, name, val, len);
	if (r == 0 && level == SOL_SOCKET && (name == SO_RCVTIMEO || name == SO_SNDTIMEO)) {
		struct fdent *e = fd_polled(fd);
		if (e) {
			/* read back what the kernel made of it */
			struct timeval tv;
			socklen_t l = sizeof tv;
			if (real_getsockopt(fd, level, name, &tv, &l) == 0) {
				int64_t ns = (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
				fd_set_timeo(fd, name == SO_RCVTIMEO, ns);
			}
		}
	}
	return r;
}

/* --- closing and duplicating ------------------------------------------------ */

GMP_EXPORT int close(int fd)
{
	GMP_ENTRY(close, fd);
	if (fd_internal(fd)) {
		errno = EBADF;	/* not the program's */
		return -1;
	}
	fd_forget(fd);	/* not in a vfork child: fd_forget sees to it */
	return real_close(fd);
}

GMP_EXPORT int dup(int fd)
{
	GMP_ENTRY(dup, fd);
	if (fd_internal(fd)) {
		errno = EBADF;
		return -1;
	}
	int r = real_dup(fd);
	if (r >= 0 && !sched_in_vfork_child())
		fd_dup(fd, r);
	return r;
}

/* newfd is now a duplicate of oldfd. Onto 0, 1 or 2 it is the
 * descriptor of glibc's stdin, stdout or stderr, whose reads and writes
 * libgmp never sees (a pipe or socket dup2'd onto standard output, then
 * printf): like a descriptor given to fdopen, it becomes an ordinary one
 * for good, and so does oldfd, which shares its O_NONBLOCK. */
static void dup_done(int oldfd, int newfd)
{
	if (newfd <= STDERR_FILENO)
		fd_demote(oldfd);	/* newfd was forgotten before the dup */
	else
		fd_dup(oldfd, newfd);
}

GMP_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	GMP_ENTRY(dup3, oldfd, newfd, flags);
	if (fd_internal(oldfd) || fd_internal(newfd)) {
		errno = EBADF;
		return -1;
	}
	if (sched_in_vfork_child())
		return real_dup3(oldfd, newfd, flags);	/* the table is the parent's */
	if (oldfd != newfd)
		fd_forget(newfd);
	int r = real_dup3(oldfd, newfd, flags);
	if (r >= 0)
		dup_done(oldfd, r);
	return r;
}

GMP_EXPORT int dup2(int oldfd, int newfd)
{
	GMP_ENTRY(dup2, oldfd, newfd);
	if (fd_internal(oldfd) || fd_internal(newfd)) {
		errno = EBADF;
		return -1;
	}
	if (oldfd == newfd || sched_in_vfork_child())
		return real_dup2(oldfd, newfd);	/* in a vfork child the table is the parent's */
	fd_forget(newfd);
	int r = real_dup2(oldfd, newfd);
	if (r >= 0)
		dup_done(oldfd, r);
	return r;
}

/* --- flags --------------------------------------------------------------------- */

static int fcntl_impl(int fd, int cmd, void *arg)
{
	struct fdent *e;
	switch (cmd) {
	case F_GETFL: {
		int r = real_fcntl(fd, cmd);
		if (r >= 0 && (e = fd_polled(fd)))
			r = (r & ~O_NONBLOCK) | (ld_rlx(&e->flags) & FD_USER_NB ? O_NONBLOCK : 0);
		return r;
	}
	case F_SETFL: {
		int v = (int)(intptr_t)arg;
		e = fd_polled(fd);
		if (!e || sched_in_vfork_child())
			return real_fcntl(fd, cmd, v);
		int r = real_fcntl(fd, cmd, v | O_NONBLOCK);
		if (r == 0)
			fd_set_user_nb(fd, v & O_NONBLOCK);
		return r;
	}
	case F_DUPFD:
	case F_DUPFD_CLOEXEC: {
		if (fd_internal(fd)) {
			errno = EBADF;
			return -1;
		}
		int r = real_fcntl(fd, cmd, (int)(intptr_t)arg);
		if (r >= 0 && !sched_in_vfork_child())
			fd_dup(fd, r);
		return r;
	}
	case F_SETLKW:
	case F_OFD_SETLKW:
		return GMP_BLOCKING(int, cmd == F_SETLKW, real_fcntl(fd, cmd, arg));
	default:
		return real_fcntl(fd, cmd, arg);
	}
}

GMP_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	GMP_ENTRY(fcntl, fd, cmd, arg);
	return fcntl_impl(fd, cmd, arg);
}
GMP_ALIAS(fcntl64, fcntl)
GMP_ALIAS(__fcntl, fcntl)

GMP_EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	GMP_ENTRY(ioctl, fd, req, arg);
	if (req == FIONBIO) {
		struct fdent *e = fd_polled(fd);
		if (e) {
			if (!arg) {
				errno = EFAULT;
				return -1;
			}
			fd_set_user_nb(fd, *(int *)arg != 0);
			return 0;
		}
	}
	return real_ioctl(fd, req, arg);
}

/* --- stdio: glibc reads and writes a FILE's descriptor itself -------------- */

GMP_EXPORT FILE *fdopen(int fd, const char *mode)
{
	GMP_ENTRY(fdopen, fd, mode);
	/* stdio's own reads would see EAGAIN: make it an ordinary
	 * descriptor for good */
	fd_demote(fd);
	return real_fdopen(fd, mode);
}

GMP_EXPORT int fclose(FILE *f)
{
	GMP_ENTRY(fclose, f);
	if (f) {
		int fd = fileno(f);
		if (fd >= 0)
			fd_forget(fd);
	}
	return real_fclose(f);
}
