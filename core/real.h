/* SPDX-License-Identifier: MIT */
/*
 * core/real.h — glibc's own definitions of every symbol libgmp
 * interposes, for pass-through mode and for calls made on behalf of
 * threads that are not Gs.
 *
 * REAL_FUNCS lists (return type, name, parameter list, version); each
 * becomes a pointer real_<name> resolved once by real_init with dlvsym
 * (version given) or dlsym(RTLD_NEXT).
 */
#ifndef GMP_CORE_REAL_H
#define GMP_CORE_REAL_H

#include <pthread.h>
#include <setjmp.h>
#include <ucontext.h>
#include <sched.h>
#include <signal.h>
#include <threads.h>
#include <semaphore.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <time.h>
#include <netdb.h>
#include <pty.h>
#include <poll.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>

#define REAL_FUNCS(X) \
	X(int, pthread_create, (pthread_t *, const pthread_attr_t *, void *(*)(void *), void *), "GLIBC_2.34") \
	X(int, pthread_join, (pthread_t, void **), "GLIBC_2.34") \
	X(int, pthread_tryjoin_np, (pthread_t, void **), "GLIBC_2.34") \
	X(int, pthread_timedjoin_np, (pthread_t, void **, const struct timespec *), "GLIBC_2.34") \
	X(int, pthread_clockjoin_np, (pthread_t, void **, clockid_t, const struct timespec *), "GLIBC_2.34") \
	X(int, pthread_detach, (pthread_t), "GLIBC_2.34") \
	X(void, pthread_exit, (void *), "GLIBC_2.2.5") \
	X(int, sched_yield, (void), NULL) \
	X(int, pthread_attr_setscope, (pthread_attr_t *, int), "GLIBC_2.2.5") \
	X(int, pthread_attr_getscope, (const pthread_attr_t *, int *), "GLIBC_2.2.5") \
	X(int, pthread_getattr_np, (pthread_t, pthread_attr_t *), "GLIBC_2.32") \
	X(int, pthread_setattr_default_np, (const pthread_attr_t *), "GLIBC_2.34") \
	X(int, pthread_setname_np, (pthread_t, const char *), "GLIBC_2.34") \
	X(int, prctl, (int, ...), NULL) \
	X(int, pthread_getname_np, (pthread_t, char *, size_t), "GLIBC_2.34") \
	X(int, pthread_setaffinity_np, (pthread_t, size_t, const cpu_set_t *), "GLIBC_2.34") \
	X(int, pthread_getaffinity_np, (pthread_t, size_t, cpu_set_t *), "GLIBC_2.32") \
	X(int, pthread_setschedparam, (pthread_t, int, const struct sched_param *), "GLIBC_2.2.5") \
	X(int, pthread_getschedparam, (pthread_t, int *, struct sched_param *), "GLIBC_2.2.5") \
	X(int, pthread_setschedprio, (pthread_t, int), "GLIBC_2.34") \
	X(int, pthread_getcpuclockid, (pthread_t, clockid_t *), "GLIBC_2.34") \
	X(int, pthread_kill, (pthread_t, int), "GLIBC_2.34") \
	X(int, pthread_sigqueue, (pthread_t, int, const union sigval), "GLIBC_2.34") \
	X(int, pthread_cancel, (pthread_t), "GLIBC_2.34") \
	X(int, pthread_setcancelstate, (int, int *), "GLIBC_2.2.5") \
	X(int, pthread_setcanceltype, (int, int *), "GLIBC_2.2.5") \
	X(void, pthread_testcancel, (void), "GLIBC_2.34") \
	X(int, pthread_key_create, (pthread_key_t *, void (*)(void *)), "GLIBC_2.34") \
	X(int, pthread_key_delete, (pthread_key_t), "GLIBC_2.34") \
	X(void *, pthread_getspecific, (pthread_key_t), "GLIBC_2.34") \
	X(int, pthread_setspecific, (pthread_key_t, const void *), "GLIBC_2.34") \
	X(void, __pthread_register_cancel, (__pthread_unwind_buf_t *), "GLIBC_2.34") \
	X(void, __pthread_unregister_cancel, (__pthread_unwind_buf_t *), "GLIBC_2.34") \
	X(void, __pthread_register_cancel_defer, (__pthread_unwind_buf_t *), "GLIBC_2.34") \
	X(void, __pthread_unregister_cancel_restore, (__pthread_unwind_buf_t *), "GLIBC_2.34") \
	X(void, __pthread_unwind_next, (__pthread_unwind_buf_t *), "GLIBC_2.34") \
	X(int, thrd_create, (thrd_t *, thrd_start_t, void *), "GLIBC_2.34") \
	X(int, thrd_join, (thrd_t, int *), "GLIBC_2.34") \
	X(int, thrd_detach, (thrd_t), "GLIBC_2.34") \
	X(void, thrd_exit, (int), "GLIBC_2.34") \
	X(int, thrd_sleep, (const struct timespec *, struct timespec *), "GLIBC_2.28") \
	X(void, thrd_yield, (void), "GLIBC_2.28") \
	X(int, tss_create, (tss_t *, tss_dtor_t), "GLIBC_2.34") \
	X(void, tss_delete, (tss_t), "GLIBC_2.34") \
	X(void *, tss_get, (tss_t), "GLIBC_2.34") \
	X(int, tss_set, (tss_t, void *), "GLIBC_2.34") \
	X(int, nanosleep, (const struct timespec *, struct timespec *), NULL) \
	X(int, clock_nanosleep, (clockid_t, int, const struct timespec *, struct timespec *), NULL) \
	X(unsigned, sleep, (unsigned), NULL) \
	X(int, usleep, (useconds_t), NULL) \
	X(int, clock_gettime, (clockid_t, struct timespec *), NULL) \
	X(int, sigaction, (int, const struct sigaction *, struct sigaction *), NULL) \
	X(int, sched_setaffinity, (pid_t, size_t, const cpu_set_t *), NULL) \
	X(int, sched_getaffinity, (pid_t, size_t, cpu_set_t *), NULL) \
	X(pid_t, gettid, (void), "GLIBC_2.30") \
	X(int, sighold, (int), NULL) \
	X(int, sigrelse, (int), NULL) \
	X(int, sigignore, (int), NULL) \
	X(sighandler_t, sigset, (int, sighandler_t), NULL) \
	X(int, sigblock, (int), NULL) \
	X(int, sigsetmask, (int), NULL) \
	X(int, siggetmask, (void), NULL) \
	X(int, __sigpause, (int, int), NULL) \
	X(int, sigpause, (int), NULL) \
	X(int, __xpg_sigpause, (int), NULL) \
	X(FILE *, fopen, (const char *, const char *), NULL) \
	X(int, timer_create, (clockid_t, struct sigevent *, timer_t *), "GLIBC_2.34") \
	X(int, timer_delete, (timer_t), "GLIBC_2.34") \
	X(int, sched_setscheduler, (pid_t, int, const struct sched_param *), NULL) \
	X(int, sched_getscheduler, (pid_t), NULL) \
	X(int, sched_setparam, (pid_t, const struct sched_param *), NULL) \
	X(int, sched_getparam, (pid_t, struct sched_param *), NULL) \
	X(int, setpriority, (__priority_which_t, id_t, int), NULL) \
	X(int, getpriority, (__priority_which_t, id_t), NULL) \
	X(int, tgkill, (pid_t, pid_t, int), "GLIBC_2.30") \
	X(int, clock_getres, (clockid_t, struct timespec *), NULL) \
	X(int, pthread_mutex_init, (pthread_mutex_t *, const pthread_mutexattr_t *), "GLIBC_2.2.5") \
	X(int, pthread_mutex_destroy, (pthread_mutex_t *), "GLIBC_2.2.5") \
	X(int, pthread_mutex_lock, (pthread_mutex_t *), "GLIBC_2.2.5") \
	X(int, pthread_mutex_trylock, (pthread_mutex_t *), "GLIBC_2.34") \
	X(int, pthread_mutex_unlock, (pthread_mutex_t *), "GLIBC_2.2.5") \
	X(int, pthread_mutex_timedlock, (pthread_mutex_t *, const struct timespec *), "GLIBC_2.34") \
	X(int, pthread_mutex_clocklock, (pthread_mutex_t *, clockid_t, const struct timespec *), "GLIBC_2.34") \
	X(int, pthread_cond_init, (pthread_cond_t *, const pthread_condattr_t *), "GLIBC_2.3.2") \
	X(int, pthread_cond_destroy, (pthread_cond_t *), "GLIBC_2.3.2") \
	X(int, pthread_cond_wait, (pthread_cond_t *, pthread_mutex_t *), "GLIBC_2.3.2") \
	X(int, pthread_cond_timedwait, (pthread_cond_t *, pthread_mutex_t *, const struct timespec *), "GLIBC_2.3.2") \
	X(int, pthread_cond_clockwait, (pthread_cond_t *, pthread_mutex_t *, clockid_t, const struct timespec *), "GLIBC_2.34") \
	X(int, pthread_cond_signal, (pthread_cond_t *), "GLIBC_2.3.2") \
	X(int, pthread_cond_broadcast, (pthread_cond_t *), "GLIBC_2.3.2") \
	X(int, pthread_rwlock_init, (pthread_rwlock_t *, const pthread_rwlockattr_t *), "GLIBC_2.34") \
	X(int, pthread_rwlock_destroy, (pthread_rwlock_t *), "GLIBC_2.34") \
	X(int, pthread_rwlock_rdlock, (pthread_rwlock_t *), "GLIBC_2.34") \
	X(int, pthread_rwlock_wrlock, (pthread_rwlock_t *), "GLIBC_2.34") \
	X(int, pthread_rwlock_tryrdlock, (pthread_rwlock_t *), "GLIBC_2.34") \
	X(int, pthread_rwlock_trywrlock, (pthread_rwlock_t *), "GLIBC_2.34") \
	X(int, pthread_rwlock_timedrdlock, (pthread_rwlock_t *, const struct timespec *), "GLIBC_2.34") \
	X(int, pthread_rwlock_timedwrlock, (pthread_rwlock_t *, const struct timespec *), "GLIBC_2.34") \
	X(int, pthread_rwlock_clockrdlock, (pthread_rwlock_t *, clockid_t, const struct timespec *), "GLIBC_2.34") \
	X(int, pthread_rwlock_clockwrlock, (pthread_rwlock_t *, clockid_t, const struct timespec *), "GLIBC_2.34") \
	X(int, pthread_rwlock_unlock, (pthread_rwlock_t *), "GLIBC_2.34") \
	X(int, pthread_barrier_init, (pthread_barrier_t *, const pthread_barrierattr_t *, unsigned), "GLIBC_2.34") \
	X(int, pthread_barrier_destroy, (pthread_barrier_t *), "GLIBC_2.34") \
	X(int, pthread_barrier_wait, (pthread_barrier_t *), "GLIBC_2.34") \
	X(int, pthread_spin_init, (pthread_spinlock_t *, int), "GLIBC_2.34") \
	X(int, pthread_spin_destroy, (pthread_spinlock_t *), "GLIBC_2.34") \
	X(int, pthread_spin_lock, (pthread_spinlock_t *), "GLIBC_2.34") \
	X(int, pthread_spin_trylock, (pthread_spinlock_t *), "GLIBC_2.34") \
	X(int, pthread_spin_unlock, (pthread_spinlock_t *), "GLIBC_2.34") \
	X(int, pthread_once, (pthread_once_t *, void (*)(void)), "GLIBC_2.34") \
	X(int, sem_init, (sem_t *, int, unsigned), "GLIBC_2.34") \
	X(int, sem_destroy, (sem_t *), "GLIBC_2.34") \
	X(int, sem_wait, (sem_t *), "GLIBC_2.34") \
	X(int, sem_trywait, (sem_t *), "GLIBC_2.34") \
	X(int, sem_timedwait, (sem_t *, const struct timespec *), "GLIBC_2.34") \
	X(int, sem_clockwait, (sem_t *, clockid_t, const struct timespec *), "GLIBC_2.34") \
	X(int, sem_post, (sem_t *), "GLIBC_2.34") \
	X(int, sem_getvalue, (sem_t *, int *), "GLIBC_2.34") \
	X(int, mtx_init, (mtx_t *, int), "GLIBC_2.34") \
	X(void, mtx_destroy, (mtx_t *), "GLIBC_2.34") \
	X(int, mtx_lock, (mtx_t *), "GLIBC_2.34") \
	X(int, mtx_trylock, (mtx_t *), "GLIBC_2.34") \
	X(int, mtx_timedlock, (mtx_t *__restrict, const struct timespec *__restrict), "GLIBC_2.34") \
	X(int, mtx_unlock, (mtx_t *), "GLIBC_2.34") \
	X(int, cnd_init, (cnd_t *), "GLIBC_2.34") \
	X(void, cnd_destroy, (cnd_t *), "GLIBC_2.34") \
	X(int, cnd_signal, (cnd_t *), "GLIBC_2.34") \
	X(int, cnd_broadcast, (cnd_t *), "GLIBC_2.34") \
	X(int, cnd_wait, (cnd_t *, mtx_t *), "GLIBC_2.34") \
	X(int, cnd_timedwait, (cnd_t *__restrict, mtx_t *__restrict, const struct timespec *__restrict), "GLIBC_2.34") \
	X(void, call_once, (once_flag *, void (*)(void)), "GLIBC_2.34") \
	X(long, syscall, (long, long, long, long, long, long, long), NULL) \
	X(pid_t, wait, (int *), NULL) \
	X(pid_t, waitpid, (pid_t, int *, int), NULL) \
	X(pid_t, wait3, (int *, int, struct rusage *), NULL) \
	X(pid_t, wait4, (pid_t, int *, int, struct rusage *), NULL) \
	X(int, waitid, (idtype_t, id_t, siginfo_t *, int), NULL) \
	X(int, system, (const char *), NULL) \
	X(int, flock, (int, int), NULL) \
	X(int, lockf, (int, int, off_t), NULL) \
	X(int, fsync, (int), NULL) \
	X(int, fdatasync, (int), NULL) \
	X(ssize_t, msgrcv, (int, void *, size_t, long, int), NULL) \
	X(int, msgsnd, (int, const void *, size_t, int), NULL) \
	X(int, semop, (int, struct sembuf *, size_t), NULL) \
	X(int, semtimedop, (int, struct sembuf *, size_t, const struct timespec *), NULL) \
	X(void *, dlopen, (const char *, int), "GLIBC_2.34") \
	X(ssize_t, read, (int, void *, size_t), NULL) \
	X(ssize_t, write, (int, const void *, size_t), NULL) \
	X(ssize_t, readv, (int, const struct iovec *, int), NULL) \
	X(ssize_t, writev, (int, const struct iovec *, int), NULL) \
	X(ssize_t, recvfrom, (int, void *, size_t, int, struct sockaddr *, socklen_t *), NULL) \
	X(ssize_t, recvmsg, (int, struct msghdr *, int), NULL) \
	X(int, recvmmsg, (int, struct mmsghdr *, unsigned, int, struct timespec *), NULL) \
	X(ssize_t, sendto, (int, const void *, size_t, int, const struct sockaddr *, socklen_t), NULL) \
	X(ssize_t, sendmsg, (int, const struct msghdr *, int), NULL) \
	X(int, sendmmsg, (int, struct mmsghdr *, unsigned, int), NULL) \
	X(ssize_t, pread, (int, void *, size_t, off_t), NULL) \
	X(ssize_t, pwrite, (int, const void *, size_t, off_t), NULL) \
	X(ssize_t, preadv, (int, const struct iovec *, int, off_t), NULL) \
	X(ssize_t, pwritev, (int, const struct iovec *, int, off_t), NULL) \
	X(int, socket, (int, int, int), NULL) \
	X(int, socketpair, (int, int, int, int *), NULL) \
	X(int, pipe2, (int *, int), NULL) \
	X(int, eventfd, (unsigned, int), NULL) \
	X(int, timerfd_create, (int, int), NULL) \
	X(int, signalfd, (int, const sigset_t *, int), NULL) \
	X(int, inotify_init1, (int), NULL) \
	X(int, accept4, (int, struct sockaddr *, socklen_t *, int), NULL) \
	X(int, connect, (int, const struct sockaddr *, socklen_t), NULL) \
	X(int, setsockopt, (int, int, int, const void *, socklen_t), NULL) \
	X(int, getsockopt, (int, int, int, void *, socklen_t *), NULL) \
	X(int, close, (int), NULL) \
	X(int, dup, (int), NULL) \
	X(int, dup2, (int, int), NULL) \
	X(int, dup3, (int, int, int), NULL) \
	X(int, fcntl, (int, int, ...), NULL) \
	X(int, ioctl, (int, unsigned long, ...), NULL) \
	X(int, fclose, (FILE *), NULL) \
	X(int, poll, (struct pollfd *, nfds_t, int), NULL) \
	X(int, ppoll, (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *), NULL) \
	X(int, select, (int, fd_set *, fd_set *, fd_set *, struct timeval *), NULL) \
	X(int, pselect, (int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *), NULL) \
	X(int, epoll_wait, (int, struct epoll_event *, int, int), NULL) \
	X(int, epoll_pwait, (int, struct epoll_event *, int, int, const sigset_t *), NULL) \
	X(int, epoll_pwait2, (int, struct epoll_event *, int, const struct timespec *, const sigset_t *), NULL) \
	X(int, epoll_create, (int), NULL) \
	X(int, epoll_create1, (int), NULL) \
	X(int, openat, (int, const char *, int, ...), NULL) \
	X(int, __open_2, (const char *, int), NULL) \
	X(int, __openat_2, (int, const char *, int), NULL) \
	X(int, getaddrinfo, (const char *, const char *, const struct addrinfo *, struct addrinfo **), NULL) \
	X(int, getnameinfo, (const struct sockaddr *, socklen_t, char *, socklen_t, char *, socklen_t, int), NULL) \
	X(struct hostent *, gethostbyname, (const char *), NULL) \
	X(struct hostent *, gethostbyname2, (const char *, int), NULL) \
	X(struct hostent *, gethostbyaddr, (const void *, socklen_t, int), NULL) \
	X(int, gethostbyname_r, (const char *, struct hostent *, char *, size_t, struct hostent **, int *), NULL) \
	X(int, gethostbyname2_r, (const char *, int, struct hostent *, char *, size_t, struct hostent **, int *), NULL) \
	X(int, gethostbyaddr_r, (const void *, socklen_t, int, struct hostent *, char *, size_t, struct hostent **, int *), NULL) \
	X(int, sigwait, (const sigset_t *, int *), NULL) \
	X(int, pthread_sigmask, (int, const sigset_t *, sigset_t *), NULL) \
	X(int, sigprocmask, (int, const sigset_t *, sigset_t *), NULL) \
	X(int, sigpending, (sigset_t *), NULL) \
	X(int, raise, (int), NULL) \
	X(void, _longjmp, (struct __jmp_buf_tag *, int), NULL) \
	X(void, __longjmp_chk, (struct __jmp_buf_tag *, int), NULL) \
	X(int, setcontext, (const ucontext_t *), NULL) \
	X(int, swapcontext, (ucontext_t *, const ucontext_t *), NULL) \
	X(int, kill, (pid_t, int), NULL) \
	X(int, sigqueue, (pid_t, int, const union sigval), NULL) \
	X(int, sigwaitinfo, (const sigset_t *, siginfo_t *), NULL) \
	X(int, sigtimedwait, (const sigset_t *, siginfo_t *, const struct timespec *), NULL) \
	X(int, sigsuspend, (const sigset_t *), NULL) \
	X(int, pause, (void), NULL) \
	X(pid_t, fork, (void), NULL) \
	X(void, __cxa_finalize, (void *), NULL) \
	X(int, daemon, (int, int), NULL) \
	X(int, setuid, (uid_t), NULL) \
	X(int, setgid, (gid_t), NULL) \
	X(int, seteuid, (uid_t), NULL) \
	X(int, setegid, (gid_t), NULL) \
	X(int, setreuid, (uid_t, uid_t), NULL) \
	X(int, setregid, (gid_t, gid_t), NULL) \
	X(int, setresuid, (uid_t, uid_t, uid_t), NULL) \
	X(int, setresgid, (gid_t, gid_t, gid_t), NULL) \
	X(int, setgroups, (size_t, const gid_t *), NULL) \
	X(pid_t, forkpty, (int *, char *, const struct termios *, const struct winsize *), "GLIBC_2.34")

#define REAL_DECLARE(ret, name, params, ver) extern ret(*real_##name) params;
REAL_FUNCS(REAL_DECLARE)
#undef REAL_DECLARE

/* Resolve every real_* pointer. Valid TLS; idempotent. */
void real_init(void);

#endif
