/*
 * shim/io.h — what the descriptor calls share: waiting for a polled
 * descriptor, and the loop every call on one runs.
 */
#ifndef GMP_SHIM_IO_H
#define GMP_SHIM_IO_H

#include "core/door.h"
#include "core/fdtab.h"
#include "core/sched.h"

#include <errno.h>
#include <sys/syscall.h>

/* State of one call on a polled descriptor across its waits. */
struct iowait {
	int64_t deadline;	/* from SO_RCVTIMEO/SO_SNDTIMEO; 0: none yet */
	bool woken;		/* a wait ended by readiness */
	bool restartable;	/* a signal whose handler has SA_RESTART
				 * restarts the call (false: EINTR) */
};

/*
 * The call on polled descriptor fd (entry e) failed with EAGAIN and the
 * program wants blocking I/O: wait until fd is ready in `mode`. Returns 0
 * to try the call again, or the errno value the call fails with: EAGAIN
 * when the socket timeout passed, EINTR, EBADF when fd was closed.
 * Threads that are not Gs wait in the kernel (poll).
 */
int io_wait(int fd, struct fdent *e, int mode, struct iowait *w);

/* Run `call` (an expression of type ssize_t, non-blocking in the kernel)
 * on polled descriptor fd with entry e, waiting on EAGAIN as the program's
 * blocking view wants. `once` (bool): do not wait (MSG_DONTWAIT). */
#define IO_POLLED(fd, e, mode, restart, once, call) ({ \
	struct iowait iw_ = {0, false, (restart)}; \
	ssize_t r_ = -1; \
	for (;;) { \
		struct pdesc *pd_ = ld_acq(&(e)->pd); \
		if (pd_) \
			netpoll_reset(pd_, (mode)); \
		r_ = (call); \
		if (r_ >= 0 || errno != EAGAIN || (once) || \
		    (ld_rlx(&(e)->flags) & FD_USER_NB)) \
			break; \
		int w_ = io_wait((fd), (e), (mode), &iw_); \
		if (w_) { \
			errno = w_; \
			break; \
		} \
	} \
	if (r_ > 0) \
		fd_kick_peer((e), (mode)); \
	if (r_ >= 0 && iw_.woken) { \
		struct pdesc *pd_ = ld_acq(&(e)->pd); \
		if (pd_) \
			netpoll_pass(pd_, (mode)); \
	} \
	r_; \
})

/* Calls on polled descriptors are made as plain system calls: glibc's
 * wrappers would only add their cancellation handling (libgmp does its
 * own). io_ret turns the kernel's result into glibc's. */
static inline ssize_t io_ret(long r)
{
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}
#define SYS_READ(fd, buf, n) io_ret(arch_syscall3(SYS_read, (fd), (buf), (n)))
#define SYS_WRITE(fd, buf, n) io_ret(arch_syscall3(SYS_write, (fd), (buf), (n)))
#define SYS_READV(fd, iov, n) io_ret(arch_syscall3(SYS_readv, (fd), (iov), (n)))
#define SYS_WRITEV(fd, iov, n) io_ret(arch_syscall3(SYS_writev, (fd), (iov), (n)))
#define SYS_RECVFROM(fd, buf, n, fl, a, al) \
	io_ret(arch_syscall6(SYS_recvfrom, (fd), (long)(buf), (long)(n), (fl), (long)(a), (long)(al)))
#define SYS_SENDTO(fd, buf, n, fl, a, al) \
	io_ret(arch_syscall6(SYS_sendto, (fd), (long)(buf), (long)(n), (fl), (long)(a), (long)(al)))
#define SYS_RECVMSG(fd, m, fl) io_ret(arch_syscall3(SYS_recvmsg, (fd), (m), (fl)))
#define SYS_SENDMSG(fd, m, fl) io_ret(arch_syscall3(SYS_sendmsg, (fd), (m), (fl)))
#define SYS_ACCEPT4(fd, a, al, fl) io_ret(arch_syscall4(SYS_accept4, (fd), (a), (al), (fl)))

/* A call that may block on a descriptor libgmp does not poll: a system
 * call of the G (cancellation point when `cancel`). */
#define IO_SYSCALL(T, cancel, call) GMP_BLOCKING(T, cancel, call)

#endif
