/* SPDX-License-Identifier: MIT */
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
#include <sys/uio.h>

/* State of one call on a polled descriptor across its waits. */
struct iowait {
	int64_t deadline;	/* from SO_RCVTIMEO/SO_SNDTIMEO; 0: none yet */
	bool woken;		/* a wait ended by readiness */
	bool restartable;	/* a signal whose handler has SA_RESTART
				 * restarts the call (false: EINTR) */
};

/* If fd is a thread's file under /proc, its OS thread is given the G's
 * name again, right before the read (shim/file.c). A program that never
 * opened one pays a load: io_task_files stays false. */
extern _Atomic bool io_task_files;
void io_task_file_slow(int fd);
static inline void io_task_file(int fd)
{
	if (unlikely(ld_rlx(&io_task_files)))
		io_task_file_slow(fd);
}

/* fd's entry when the calling thread is a G and fd is polled: its calls
 * then try without blocking and park. NULL: make the call as a system
 * call (a thread that is not a G blocks in the kernel, as under NPTL). */
static inline struct fdent *io_polled(int fd)
{
	struct fdent *e = fd_polled(fd);
	return e && getg() ? e : NULL;
}

/*
 * The call on polled descriptor fd (entry e) found it not ready and the
 * program wants blocking I/O: park the G until fd is ready in `mode`.
 * Returns 0 to try the call again, or the errno value the call fails
 * with: EAGAIN when the socket timeout passed, EINTR, EBADF when fd was
 * closed. Only for Gs.
 */
int io_wait(int fd, struct fdent *e, int mode, struct iowait *w);

/* Is fd ready in `mode` now? (poll with no timeout; an error or a hang-up
 * counts as ready: the call reports it.) */
bool io_ready(int fd, int mode);

/* How a call on a polled descriptor is tried without blocking. */
enum {
	IO_TRY_FLAG,	/* its own flag (MSG_DONTWAIT): always honoured */
	IO_TRY_NOWAIT,	/* preadv2/pwritev2 with RWF_NOWAIT; a descriptor
			 * that refuses it is polled first from then on */
	IO_TRY_POLL,	/* no per-call form (accept): poll first */
};

/*
 * Run a call on polled descriptor fd (entry e) in `mode` as the program's
 * blocking or non-blocking view wants: `nbcall` (an expression of type
 * ssize_t) is the call with its per-call non-blocking form, `call` the
 * plain call. When the descriptor is not ready the G parks on the
 * netpoller and tries again, unless the program asked for O_NONBLOCK or
 * `once` (bool: MSG_DONTWAIT). When the call has no non-blocking form
 * that this descriptor honours, readiness is polled first and the plain
 * call made as a system call of the G: if another thread or process took
 * the data in between, it blocks its OS thread, as an unseen call would,
 * and the P goes on to other Gs.
 */
#define IO_POLLED(fd, e, mode, restart, once, how, nbcall, call) ({ \
	struct iowait iw_ = {0, false, (restart)}; \
	uint32_t pf_ = (mode) == NP_READ ? FD_POLLFIRST_R : FD_POLLFIRST_W; \
	ssize_t ior_ = -1; \
	for (;;) { \
		struct pdesc *pd_ = ld_acq(&(e)->pd); \
		if (pd_) \
			netpoll_reset(pd_, (mode)); \
		uint32_t f_ = ld_rlx(&(e)->flags); \
		if ((how) != IO_TRY_POLL && !(f_ & pf_)) { \
			ior_ = (nbcall); \
			if ((how) == IO_TRY_NOWAIT && ior_ < 0 && errno == EOPNOTSUPP) { \
				fd_refuse_nowait((fd), (mode)); \
				continue; \
			} \
		} else if (f_ & FD_USER_NB) { \
			ior_ = (call);	/* non-blocking in the kernel */ \
		} else if (io_ready((fd), (mode))) { \
			ior_ = GMP_BLOCKING(ssize_t, false, (call)); \
		} else { \
			ior_ = -1; \
			errno = EAGAIN; \
		} \
		if (ior_ >= 0 || errno != EAGAIN || (once) || \
		    (ld_rlx(&(e)->flags) & FD_USER_NB)) \
			break; \
		int w_ = io_wait((fd), (e), (mode), &iw_); \
		if (w_) { \
			errno = w_; \
			break; \
		} \
	} \
	if (ior_ > 0) \
		fd_kick_peer((e), (mode)); \
	if (ior_ >= 0 && iw_.woken) { \
		struct pdesc *pd_ = ld_acq(&(e)->pd); \
		if (pd_) \
			netpoll_pass(pd_, (mode)); \
	} \
	ior_; \
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

/* The RWF_NOWAIT forms, at the descriptor's own position (-1). Linux
 * honours RWF_NOWAIT on pipes, sockets, eventfd reads, timerfd and
 * signalfd, and refuses it (EOPNOTSUPP, before any I/O) where it would
 * not. A single buffer is cut to what one read or write moves. */
#define IO_MAX_RW 0x7ffff000ul
#define NW_READV(fd, iov, n) \
	io_ret(arch_syscall6(SYS_preadv2, (fd), (long)(iov), (n), -1L, 0, RWF_NOWAIT))
#define NW_WRITEV(fd, iov, n) \
	io_ret(arch_syscall6(SYS_pwritev2, (fd), (long)(iov), (n), -1L, 0, RWF_NOWAIT))
#define NW_READ(fd, buf, n) ({ \
	struct iovec v_ = {(buf), (n) < IO_MAX_RW ? (n) : IO_MAX_RW}; \
	NW_READV((fd), &v_, 1); \
})
#define NW_WRITE(fd, buf, n) ({ \
	struct iovec v_ = {(void *)(buf), (n) < IO_MAX_RW ? (n) : IO_MAX_RW}; \
	NW_WRITEV((fd), &v_, 1); \
})

/* A call that may block on a descriptor libgmp does not poll: a system
 * call of the G (cancellation point when `cancel`). */
#define IO_SYSCALL(T, cancel, call) GMP_BLOCKING(T, cancel, call)

#endif
