/* SPDX-License-Identifier: MIT */
/*
 * shim/io.c — reading and writing: read, write, readv, writev, recv,
 * recvfrom, recvmsg, recvmmsg, send, sendto, sendmsg, sendmmsg, their
 * _FORTIFY_SOURCE forms, and pread/pwrite.
 *
 * On a polled descriptor (see fdtab.h), which keeps the program's flags
 * in the kernel, a G's call is tried without blocking (RWF_NOWAIT for
 * read, write, readv and writev; MSG_DONTWAIT for the socket calls) and,
 * on EAGAIN, the G parks on the netpoller until the descriptor is ready,
 * the socket's timeout passes (EAGAIN, as the kernel reports it) or a
 * signal comes (restarting under SA_RESTART, as the kernel does, except
 * for sockets with a timeout). A program that set O_NONBLOCK or passed
 * MSG_DONTWAIT gets EAGAIN as before. Writes in blocking mode go on until
 * everything is written, as a blocking write to a stream does; a signal
 * after part was written returns that part. On any other descriptor
 * (regular files, terminals, inherited pipes and sockets) the call is a
 * system call of the G: its P goes to other Gs if the call blocks.
 * Threads that are not Gs make the call itself. Cancellation points as in
 * glibc.
 */
#include "shim/io.h"
#include "core/timer.h"
#include "preload/runtime.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

extern _Noreturn void __chk_fail(void);

bool io_ready(int fd, int mode)
{
	struct pollfd p = {fd, mode == NP_READ ? POLLIN : POLLOUT, 0};
	return arch_syscall3(SYS_poll, &p, 1, 0) != 0;
}

int io_wait(int fd, struct fdent *e, int mode, struct iowait *w)
{
	struct g *gp = getg();
	int64_t timeo = ld_rlx(mode == NP_READ ? &e->rcvtimeo : &e->sndtimeo);
	if (timeo && !w->deadline)
		w->deadline = rt_nanotime() + timeo;
	int err, r;
	struct pdesc *pd = fd_pdesc(fd, e, &err);
	if (pd) {
		r = netpoll_wait(pd, mode, w->deadline, WAIT_NETPOLL);
	} else if (err == EBADF) {
		return err;	/* closed meanwhile */
	} else {
		/* the poller cannot watch it (EPERM: a regular file, never a
		 * socket or a pipe), or there is no poller to be had (no
		 * descriptor or memory left for it: EMFILE, ENFILE, ENOMEM,
		 * ENOSPC): wait in the kernel as a system call, as the
		 * program's own call would have */
		struct pollfd p = {fd, mode == NP_READ ? POLLIN : POLLOUT, 0};
		int n = GMP_BLOCKING(int, false, real_poll(&p, 1, timer_left_ms(w->deadline)));
		r = n > 0 ? 0 : n == 0 ? ETIMEDOUT : errno;
	}
	switch (r) {
	case 0:
		w->woken = true;
		return 0;
	case ETIMEDOUT:
		return EAGAIN;
	case EINTR: {
		door_testcancel(gp);
		bool restart;
		if (door_signals_restart(gp, &restart) && (!restart || !w->restartable || timeo))
			return EINTR;
		return 0;
	}
	default:
		return r;
	}
}

static size_t iov_total(const struct iovec *iov, int n)
{
	size_t t = 0;
	for (int i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

/* --- reads --------------------------------------------------------------- */

/* A G's read of a signalfd (e) that holds room for a record: one that
 * may wait, or one that libgmp holds signals for, is gmp_sigfd_read's
 * (*res); else (false) the kernel answers alone. */
static bool sigfd_read(struct fdent *e, void *buf, size_t n, ssize_t *res)
{
	uint32_t fl = ld_rlx(&e->flags);
	struct g *gp = getg();
	if (!(fl & FD_SIGNALFD) || !gp || !buf || n < sizeof(struct signalfd_siginfo))
		return false;
	uint64_t mask = ld_rlx(&e->sigmask);
	bool nb = fl & FD_USER_NB;
	if (nb && !(gmp_sig_held(gp) & mask))
		return false;
	ssize_t r = gmp_sigfd_read(gp, mask, nb, buf, n);
	if (r < 0) {
		errno = (int)-r;
		r = -1;
	}
	*res = r;
	return true;
}

GMP_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	GMP_ENTRY(read, fd, buf, n);
	struct fdent *e = io_polled(fd);
	ssize_t r;
	if (e && sigfd_read(e, buf, n, &r))
		return r;
	/* nothing to read: the file's own answer (0 from a pipe or socket,
	 * EINVAL from an eventfd, an inotify descriptor's wait), which a
	 * RWF_NOWAIT read of nothing does not ask for */
	if (!e || n == 0)
		return IO_SYSCALL(ssize_t, true, (io_task_file(fd), SYS_READ(fd, buf, n)));
	door_testcancel(getg());
	return IO_POLLED(fd, e, NP_READ, true, false, IO_TRY_NOWAIT, NW_READ(fd, buf, n),
			 SYS_READ(fd, buf, n));
}

GMP_EXPORT ssize_t __read_chk(int fd, void *buf, size_t n, size_t size)
{
	if (n > size)
		__chk_fail();
	return read(fd, buf, n);
}

GMP_EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
	GMP_ENTRY(readv, fd, iov, n);
	struct fdent *e = io_polled(fd);
	if (!e)
		return IO_SYSCALL(ssize_t, true, (io_task_file(fd), real_readv(fd, iov, n)));
	door_testcancel(getg());
	return IO_POLLED(fd, e, NP_READ, true, false, IO_TRY_NOWAIT, NW_READV(fd, iov, n),
			 SYS_READV(fd, iov, n));
}

/* recv with MSG_WAITALL on a blocking socket waits for all n bytes; the
 * kernel does not for a non-blocking one, so loop. */
static bool sock_stream(int fd)
{
	int type = 0;
	socklen_t tl = sizeof type;
	return arch_syscall6(SYS_getsockopt, fd, SOL_SOCKET, SO_TYPE, (long)&type, (long)&tl, 0) == 0 &&
	       type == SOCK_STREAM;
}

static ssize_t recv_loop(int fd, struct fdent *e, void *buf, size_t n, int flags,
			 struct sockaddr *addr, socklen_t *alen)
{
	bool once = flags & MSG_DONTWAIT;
	bool all = (flags & MSG_WAITALL) && !once && !(ld_rlx(&e->flags) & FD_USER_NB);
	/* MSG_WAITALL means nothing to a datagram socket (one datagram per
	 * call, as the kernel gives it) */
	if (all && !sock_stream(fd))
		all = false;
	size_t done = 0;
	for (;;) {
		ssize_t r = IO_POLLED(fd, e, NP_READ, true, once, IO_TRY_FLAG,
				      SYS_RECVFROM(fd, (char *)buf + done, n - done,
						   flags | MSG_DONTWAIT, addr, alen),
				      SYS_RECVFROM(fd, (char *)buf + done, n - done, flags, addr, alen));
		if (r < 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)r;
		if (!all || r == 0 || done == n)
			return (ssize_t)done;
	}
}

GMP_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *addr,
			    socklen_t *alen)
{
	GMP_ENTRY(recvfrom, fd, buf, n, flags, addr, alen);
	struct fdent *e = io_polled(fd);
	if (!e) {
		if (flags & MSG_DONTWAIT)
			return real_recvfrom(fd, buf, n, flags, addr, alen);
		return IO_SYSCALL(ssize_t, true, real_recvfrom(fd, buf, n, flags, addr, alen));
	}
	/* nothing to read, or the error queue (never waited on): the
	 * kernel's own answer, after its own wait (SO_RCVTIMEO) if any */
	if (n == 0 || (flags & MSG_ERRQUEUE))
		return IO_SYSCALL(ssize_t, true, real_recvfrom(fd, buf, n, flags, addr, alen));
	door_testcancel(getg());
	return recv_loop(fd, e, buf, n, flags, addr, alen);
}

GMP_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	return recvfrom(fd, buf, n, flags, NULL, NULL);
}

GMP_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t n, size_t size, int flags)
{
	if (n > size)
		__chk_fail();
	return recvfrom(fd, buf, n, flags, NULL, NULL);
}

GMP_EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t n, size_t size, int flags,
				  struct sockaddr *addr, socklen_t *alen)
{
	if (n > size)
		__chk_fail();
	return recvfrom(fd, buf, n, flags, addr, alen);
}

GMP_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	GMP_ENTRY(recvmsg, fd, msg, flags);
	struct fdent *e = io_polled(fd);
	if (!e) {
		if (flags & MSG_DONTWAIT)
			return real_recvmsg(fd, msg, flags);
		return IO_SYSCALL(ssize_t, true, SYS_RECVMSG(fd, msg, flags));
	}
	/* as recvfrom: no message header, nothing to read, or the error
	 * queue get the kernel's own answer */
	struct msghdr *volatile checked = msg;
	if (!checked || (flags & MSG_ERRQUEUE) ||
	    (msg->msg_iov && iov_total(msg->msg_iov, (int)msg->msg_iovlen) == 0 &&
	     msg->msg_iovlen <= 1024))
		return IO_SYSCALL(ssize_t, true, SYS_RECVMSG(fd, msg, flags));
	door_testcancel(getg());
	return IO_POLLED(fd, e, NP_READ, true, flags & MSG_DONTWAIT, IO_TRY_FLAG,
			 SYS_RECVMSG(fd, msg, flags | MSG_DONTWAIT), SYS_RECVMSG(fd, msg, flags));
}

GMP_EXPORT int recvmmsg(int fd, struct mmsghdr *vec, unsigned n, int flags,
			struct timespec *timeout)
{
	GMP_ENTRY(recvmmsg, fd, vec, n, flags, timeout);
	struct fdent *e = io_polled(fd);
	if (!e) {
		if (flags & MSG_DONTWAIT)
			return real_recvmmsg(fd, vec, n, flags, timeout);
		return IO_SYSCALL(int, true, real_recvmmsg(fd, vec, n, flags, timeout));
	}
	door_testcancel(getg());
	/* waits for the first message; the rest are what is there */
	return (int)IO_POLLED(fd, e, NP_READ, true, flags & MSG_DONTWAIT, IO_TRY_FLAG,
			      real_recvmmsg(fd, vec, n, flags | MSG_DONTWAIT, timeout),
			      real_recvmmsg(fd, vec, n, flags, timeout));
}

/* --- writes --------------------------------------------------------------- */

GMP_EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
	GMP_ENTRY(write, fd, buf, n);
	struct fdent *e = io_polled(fd);
	if (!e)
		return IO_SYSCALL(ssize_t, true, real_write(fd, buf, n));
	door_testcancel(getg());
	size_t done = 0;
	for (;;) {
		ssize_t r = IO_POLLED(fd, e, NP_WRITE, true, false, IO_TRY_NOWAIT,
				      NW_WRITE(fd, (const char *)buf + done, n - done),
				      SYS_WRITE(fd, (const char *)buf + done, n - done));
		if (r < 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)r;
		if (done >= n || (ld_rlx(&e->flags) & FD_USER_NB))
			return (ssize_t)done;
	}
}

GMP_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
			  const struct sockaddr *addr, socklen_t alen)
{
	GMP_ENTRY(sendto, fd, buf, n, flags, addr, alen);
	struct fdent *e = io_polled(fd);
	if (!e) {
		if (flags & MSG_DONTWAIT)
			return real_sendto(fd, buf, n, flags, addr, alen);
		return IO_SYSCALL(ssize_t, true, real_sendto(fd, buf, n, flags, addr, alen));
	}
	door_testcancel(getg());
	bool once = flags & MSG_DONTWAIT;
	size_t done = 0;
	for (;;) {
		ssize_t r = IO_POLLED(fd, e, NP_WRITE, true, once, IO_TRY_FLAG,
				      SYS_SENDTO(fd, (const char *)buf + done, n - done,
						 flags | MSG_DONTWAIT, addr, alen),
				      SYS_SENDTO(fd, (const char *)buf + done, n - done, flags,
						 addr, alen));
		if (r < 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)r;
		if (done >= n || once || (ld_rlx(&e->flags) & FD_USER_NB))
			return (ssize_t)done;
	}
}

GMP_EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
	return sendto(fd, buf, n, flags, NULL, 0);
}

/* Advance a copy of an iovec array past `done` bytes. */
static int iov_advance(struct iovec *iov, int n, size_t done, int *first)
{
	int i = *first;
	while (i < n && done >= iov[i].iov_len) {
		done -= iov[i].iov_len;
		i++;
	}
	if (i < n) {
		iov[i].iov_base = (char *)iov[i].iov_base + done;
		iov[i].iov_len -= done;
	}
	*first = i;
	return n - i;
}


/*
 * writev and sendmsg on a polled descriptor in blocking mode: go on after
 * a partial write with the rest of the vector (a copy; the program's is
 * const). msg is NULL for writev.
 */
static ssize_t writev_all(int fd, struct fdent *e, const struct iovec *iov0, int n,
			  const struct msghdr *msg0, int flags)
{
	bool once = (flags & MSG_DONTWAIT) || (ld_rlx(&e->flags) & FD_USER_NB);
	struct iovec small[16], *iov = small;
	if (n < 0 || n > 1024 || (n > 0 && !iov0))
		/* the kernel's answer, in its order (a descriptor not open
		 * for writing before the vector): it fails at once */
		return msg0 ? SYS_SENDMSG(fd, msg0, flags | MSG_DONTWAIT)
			    : SYS_WRITEV(fd, iov0, n);
	if (n > 16) {
		iov = malloc((size_t)n * sizeof *iov);
		if (!iov) {
			errno = ENOMEM;
			return -1;
		}
	}
	memcpy(iov, iov0, (size_t)n * sizeof *iov);
	size_t total = iov_total(iov, n), done = 0;
	int first = 0;
	ssize_t ret;
	for (;;) {
		ssize_t r;
		if (msg0) {
			struct msghdr m = *msg0;
			m.msg_iov = iov + first;
			m.msg_iovlen = (size_t)(n - first);
			if (done) {	/* ancillary data goes with the first part only */
				m.msg_control = NULL;
				m.msg_controllen = 0;
			}
			r = IO_POLLED(fd, e, NP_WRITE, true, flags & MSG_DONTWAIT, IO_TRY_FLAG,
				      SYS_SENDMSG(fd, &m, flags | MSG_DONTWAIT),
				      SYS_SENDMSG(fd, &m, flags));
		} else {
			r = IO_POLLED(fd, e, NP_WRITE, true, false, IO_TRY_NOWAIT,
				      NW_WRITEV(fd, iov + first, n - first),
				      SYS_WRITEV(fd, iov + first, n - first));
		}
		if (r < 0) {
			ret = done ? (ssize_t)done : -1;
			break;
		}
		done += (size_t)r;
		if (done >= total || once || (ld_rlx(&e->flags) & FD_USER_NB)) {
			ret = (ssize_t)done;
			break;
		}
		iov_advance(iov, n, (size_t)r, &first);
	}
	if (iov != small) {
		int keep = errno;
		free(iov);
		errno = keep;
	}
	return ret;
}

GMP_EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
	GMP_ENTRY(writev, fd, iov, n);
	struct fdent *e = io_polled(fd);
	if (!e)
		return IO_SYSCALL(ssize_t, true, real_writev(fd, iov, n));
	door_testcancel(getg());
	return writev_all(fd, e, iov, n, NULL, 0);
}

GMP_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	GMP_ENTRY(sendmsg, fd, msg, flags);
	struct fdent *e = io_polled(fd);
	if (!e) {
		if (flags & MSG_DONTWAIT)
			return real_sendmsg(fd, msg, flags);
		return IO_SYSCALL(ssize_t, true, real_sendmsg(fd, msg, flags));
	}
	door_testcancel(getg());
	if (!msg || msg->msg_iovlen > 1024)
		/* the kernel's EFAULT or EMSGSIZE, after its look at fd */
		return SYS_SENDMSG(fd, msg, flags | MSG_DONTWAIT);
	return writev_all(fd, e, msg->msg_iov, (int)msg->msg_iovlen, msg, flags);
}

GMP_EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned n, int flags)
{
	GMP_ENTRY(sendmmsg, fd, vec, n, flags);
	struct fdent *e = io_polled(fd);
	if (!e) {
		if (flags & MSG_DONTWAIT)
			return real_sendmmsg(fd, vec, n, flags);
		return IO_SYSCALL(int, true, real_sendmmsg(fd, vec, n, flags));
	}
	if (n == 0)
		return real_sendmmsg(fd, vec, n, flags);	/* the kernel's answer */
	door_testcancel(getg());
	bool once = (flags & MSG_DONTWAIT) || (ld_rlx(&e->flags) & FD_USER_NB);
	unsigned done = 0;
	while (done < n) {
		int r = (int)IO_POLLED(fd, e, NP_WRITE, true, once, IO_TRY_FLAG,
				       real_sendmmsg(fd, vec + done, n - done, flags | MSG_DONTWAIT),
				       real_sendmmsg(fd, vec + done, n - done, flags));
		if (r < 0)
			return done ? (int)done : -1;
		done += (unsigned)r;
		if (once)
			break;
		/* A datagram socket's batch that stopped short while there
		 * is room to write stopped at an error (an earlier datagram
		 * refused): the kernel's blocking call returns the count sent
		 * and the error is gone, so a second try would send the rest
		 * where the kernel sent none of it. */
		if (done < n && !sock_stream(fd) && io_ready(fd, NP_WRITE))
			break;
	}
	return (int)done;
}

/* --- positioned I/O: never polled ----------------------------------------- */

GMP_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	GMP_ENTRY(pread, fd, buf, n, off);
	return IO_SYSCALL(ssize_t, true, (io_task_file(fd), real_pread(fd, buf, n, off)));
}
GMP_ALIAS(pread64, pread)

GMP_EXPORT ssize_t __pread_chk(int fd, void *buf, size_t n, off_t off, size_t size)
{
	if (n > size)
		__chk_fail();
	return pread(fd, buf, n, off);
}
GMP_ALIAS(__pread64_chk, __pread_chk)

GMP_EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	GMP_ENTRY(pwrite, fd, buf, n, off);
	return IO_SYSCALL(ssize_t, true, real_pwrite(fd, buf, n, off));
}
GMP_ALIAS(pwrite64, pwrite)

GMP_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
	GMP_ENTRY(preadv, fd, iov, n, off);
	return IO_SYSCALL(ssize_t, true, (io_task_file(fd), real_preadv(fd, iov, n, off)));
}
GMP_ALIAS(preadv64, preadv)

GMP_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
	GMP_ENTRY(pwritev, fd, iov, n, off);
	return IO_SYSCALL(ssize_t, true, real_pwritev(fd, iov, n, off));
}
GMP_ALIAS(pwritev64, pwritev)
