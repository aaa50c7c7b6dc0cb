/* SPDX-License-Identifier: MIT */
/*
 * shim/net.c — making, duplicating and closing descriptors, and keeping
 * the record of their flags: socket, socketpair, accept, accept4,
 * connect, pipe, pipe2, eventfd, timerfd_create, signalfd, inotify_init,
 * inotify_init1, close, dup, dup2, dup3, fcntl, ioctl(FIONBIO),
 * setsockopt/getsockopt(SO_RCVTIMEO, SO_SNDTIMEO), fclose.
 *
 * Descriptors made here keep the flags the program asked for, in the
 * kernel, and are recorded as polled (fdtab.h); F_SETFL and FIONBIO keep
 * the record of O_NONBLOCK in step. Closing, or duplicating over, a
 * descriptor that Gs wait on wakes them with EBADF. A socket's timeouts
 * are recorded because the kernel applies them only to calls that block
 * in it, and libgmp's park instead.
 */
#include "shim/io.h"
#include "core/proc.h"
#include "core/sched.h"
#include "core/sigq.h"

#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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
	int fd = real_socket(domain, type, proto);
	if (fd >= 0)
		fd_created(fd, type & SOCK_NONBLOCK, true);
	return fd;
}

GMP_EXPORT int socketpair(int domain, int type, int proto, int sv[2])
{
	GMP_ENTRY(socketpair, domain, type, proto, sv);
	int r = real_socketpair(domain, type, proto, sv);
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
	int r = real_pipe2(fds, flags);
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
	int fd = real_eventfd(init, flags);
	if (fd >= 0)
		fd_created(fd, flags & EFD_NONBLOCK, false);
	return fd;
}

GMP_EXPORT int timerfd_create(int clock, int flags)
{
	GMP_ENTRY(timerfd_create, clock, flags);
	int fd = real_timerfd_create(clock, flags);
	if (fd >= 0)
		fd_created(fd, flags & TFD_NONBLOCK, false);
	return fd;
}

/* A signalfd's mask is recorded: a G's read or poll of it also finds
 * the signals libgmp holds (preload/sigwait.c, gmp_sigfd_read). */
GMP_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	GMP_ENTRY(signalfd, fd, mask, flags);
	int r = real_signalfd(fd, mask, flags);
	if (r < 0)
		return r;
	if (fd == -1)
		fd_created(r, flags & SFD_NONBLOCK, false);
	/* else a new mask for an existing one. The kernel's leaves out
	 * what it never queues for a signalfd. */
	uint64_t m;
	memcpy(&m, mask, sizeof m);
	fd_set_sigmask(r, m & ~(sigq_bit(SIGKILL) | sigq_bit(SIGSTOP)));
	return r;
}

GMP_EXPORT int inotify_init1(int flags)
{
	GMP_ENTRY(inotify_init1, flags);
	int fd = real_inotify_init1(flags);
	if (fd >= 0)
		fd_created(fd, flags & IN_NONBLOCK, false);
	return fd;
}

GMP_EXPORT int inotify_init(void)
{
	return inotify_init1(0);
}

/* Would accept4 on fd wait (rather than fail at once): flags it knows,
 * a socket that listens. A listener's answer is kept (FD_LISTENS): a
 * socket that listens does so until it is closed. */
static bool listening(int fd, struct fdent *e, int flags)
{
	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
		return false;
	if (ld_rlx(&e->flags) & FD_LISTENS)
		return true;
	int v = 0;
	socklen_t l = sizeof v;
	if (arch_syscall6(SYS_getsockopt, fd, SOL_SOCKET, SO_ACCEPTCONN, (long)&v, (long)&l, 0) != 0 || !v)
		return false;
	atomic_fetch_or(&e->flags, FD_LISTENS);
	return true;
}

GMP_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *alen, int flags)
{
	GMP_ENTRY(accept4, fd, addr, alen, flags);
	struct fdent *e = io_polled(fd);
	int r;
	if (!e) {
		r = IO_SYSCALL(int, true, real_accept4(fd, addr, alen, flags));
	} else if (!listening(fd, e, flags)) {
		/* the kernel's error at once (EINVAL, EOPNOTSUPP, ...):
		 * nothing to wait for */
		r = SYS_ACCEPT4(fd, addr, alen, flags);
	} else {
		door_testcancel(getg());
		/* accept has no per-call non-blocking form: poll first */
		r = (int)IO_POLLED(fd, e, NP_READ, true, false, IO_TRY_POLL,
				   SYS_ACCEPT4(fd, addr, alen, flags),
				   SYS_ACCEPT4(fd, addr, alen, flags));
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
 * A blocking connect the kernel sleeps in ends with EINTR when a handler
 * runs on its OS thread, and the connection goes on without the caller.
 * When no handler of the program's ran (the signal was libgmp's own: a
 * nudge whose record another path took first), the caller waits for the
 * outcome as the uninterrupted call would have.
 */
static int connect_finish(int fd)
{
	struct pollfd p = {fd, POLLOUT, 0};
	if (poll(&p, 1, -1) < 0)
		return -1;	/* a handler of the program's ran: EINTR */
	int err = 0;
	socklen_t l = sizeof err;
	if (real_getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) != 0)
		return -1;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/*
 * connect has no per-call non-blocking form either, and a connection is
 * made once: on a blocking socket it is a system call of the G, whose P
 * goes to other Gs while the handshake lasts; on a non-blocking one the
 * kernel answers EINPROGRESS at once.
 */
GMP_EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t alen)
{
	GMP_ENTRY(connect, fd, addr, alen);
	struct g *gp = getg();
	uint32_t handled = gp ? gp->nhandled : 0;
	int r = IO_SYSCALL(int, true, real_connect(fd, addr, alen));
	if (r == 0 || errno != EINTR || !gp || !door_eintr_spurious(gp, handled))
		return r;
	return connect_finish(fd);
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
		fd_dup(oldfd, r);
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
		fd_dup(oldfd, r);
	return r;
}

/* --- flags --------------------------------------------------------------------- */

/*
 * The owner of a descriptor's signals (O_ASYNC, leases) set to a thread
 * by its id, F_SETOWN_EX with F_OWNER_TID: for a G's id the kernel's
 * owner is libgmp's service thread, which hands each signal to the G
 * (core/fdtab.h, sig_owner); the kernel's F_SETSIG is then SIGIO rather
 * than 0, so that the signal names its descriptor. F_GETOWN_EX,
 * F_GETOWN and F_GETSIG answer what the program set.
 */
static int set_owner_g(int fd, struct f_owner_ex *o)
{
	int catcher = sysmon_thread_id();
	struct fdent *e = catcher ? fd_entry(fd) : NULL;
	if (!e) {
		errno = EAGAIN;
		return -1;
	}
	struct f_owner_ex k = {F_OWNER_TID, catcher};
	int was = ld_acq(&e->sig_owner);
	int user = was ? ld_rlx(&e->sig_user) : real_fcntl(fd, F_GETSIG);
	if (user < 0)
		return -1;
	if (real_fcntl(fd, F_SETOWN_EX, &k) != 0)
		return -1;
	if (!user && real_fcntl(fd, F_SETSIG, SIGIO) != 0)
		return -1;
	st_rel(&e->sig_user, user);
	st_rel(&e->sig_owner, o->pid);
	return 0;
}

/* The owner is no longer a G's id: the kernel's F_SETSIG is the
 * program's again. */
static void clear_owner_g(int fd)
{
	struct fdent *e = fd_get(fd);
	if (e && ld_acq(&e->sig_owner)) {
		real_fcntl(fd, F_SETSIG, ld_rlx(&e->sig_user));
		st_rel(&e->sig_owner, 0);
	}
}

static int owner_fcntl(int fd, int cmd, void *arg)
{
	struct fdent *e = fd_get(fd);
	int owner = e ? ld_acq(&e->sig_owner) : 0;
	switch (cmd) {
	case F_SETOWN_EX: {
		struct f_owner_ex *o = arg;
		if (o && o->type == F_OWNER_TID && proc_by_tid(o->pid))
			return set_owner_g(fd, o);
		int r = real_fcntl(fd, cmd, arg);
		if (r == 0)
			clear_owner_g(fd);
		return r;
	}
	case F_SETOWN: {
		int r = real_fcntl(fd, cmd, (int)(intptr_t)arg);
		if (r == 0)
			clear_owner_g(fd);
		return r;
	}
	case F_GETOWN_EX:
		if (!owner)
			return real_fcntl(fd, cmd, arg);
		if (real_fcntl(fd, F_GETFD) < 0)
			return -1;
		*(struct f_owner_ex *)arg = (struct f_owner_ex){F_OWNER_TID, owner};
		return 0;
	case F_GETOWN:
		return owner ? owner : real_fcntl(fd, cmd);
	case F_SETSIG: {
		int sig = (int)(intptr_t)arg;
		if (!owner)
			return real_fcntl(fd, cmd, sig);
		if (real_fcntl(fd, cmd, sig ? sig : SIGIO) != 0)
			return -1;
		st_rel(&e->sig_user, sig);
		return 0;
	}
	default:	/* F_GETSIG */
		return owner ? ld_rlx(&e->sig_user) : real_fcntl(fd, cmd);
	}
}

static int fcntl_impl(int fd, int cmd, void *arg)
{
	switch (cmd) {
	case F_SETOWN_EX:
	case F_SETOWN:
	case F_GETOWN_EX:
	case F_GETOWN:
	case F_SETSIG:
	case F_GETSIG:
		return owner_fcntl(fd, cmd, arg);
	case F_SETFL: {
		int v = (int)(intptr_t)arg;
		int r = real_fcntl(fd, cmd, v);
		if (r == 0 && fd_polled(fd) && !sched_in_vfork_child())
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
		/* F_SETLK first: a lock held elsewhere hands the P on before
		 * the wait */
		return GMP_BLOCKING_TRY(int, cmd == F_SETLKW,
					real_fcntl(fd, cmd == F_SETLKW ? F_SETLK : F_OFD_SETLK, arg),
					r_ == -1 && (errno == EAGAIN || errno == EACCES),
					real_fcntl(fd, cmd, arg));
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
	int r = real_ioctl(fd, req, arg);
	if (r == 0 && req == FIONBIO && fd_polled(fd) && !sched_in_vfork_child())
		fd_set_user_nb(fd, *(int *)arg != 0);
	return r;
}

/* --- stdio: glibc reads and writes a FILE's descriptor itself -------------- */

GMP_EXPORT int fclose(FILE *f)
{
	GMP_ENTRY(fclose, f);
	/* glibc 2.41's headers declare f nonnull; a program may still pass
	 * NULL, and glibc's own fclose is the one to answer it */
	FILE *volatile checked = f;
	if (checked) {
		int fd = fileno(f);
		if (fd >= 0)
			fd_forget(fd);
	}
	return real_fclose(f);
}
