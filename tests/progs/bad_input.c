/* SPDX-License-Identifier: MIT */
/* Bad input to the thread API: every call's result is printed by name, so
 * the compat test can require the very same output under NPTL and under
 * libgmp. */
#include "common.h"
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <threads.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/futex.h>

static const char *name(int e)
{
	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case EDEADLK: return "EDEADLK";
	case ESRCH: return "ESRCH";
	case EBUSY: return "EBUSY";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ERANGE: return "ERANGE";
	case EAGAIN: return "EAGAIN";
	case EPERM: return "EPERM";
	case ENOTSUP: return "ENOTSUP";
	case EFAULT: return "EFAULT";
	case EBADF: return "EBADF";
	case EINTR: return "EINTR";
	case ECHILD: return "ECHILD";
	default: return "other";
	}
}

#define SHOW(what, expr) printf("%-40s %s\n", what, name(expr))

static volatile int stop;

static void *spin_sleep(void *arg)
{
	while (!stop)
		usleep(1000);
	return arg;
}

static void *join_self(void *arg)
{
	return (void *)(long)pthread_join(pthread_self(), NULL);
}

static int errno_of(int r)
{
	return r == 0 ? 0 : errno;
}

static void on_sig(int sig)
{
	(void)sig;
}

static volatile sig_atomic_t winches;

static long process_slack;

static void *slack_of(void *arg)
{
	long odd = 0;
	for (int k = 0; k < 10; k++) {
		usleep(500);
		odd |= prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) != process_slack;
	}
	(void)arg;
	return (void *)odd;
}

static void *default_attrs(void *arg)
{
	pthread_attr_t a;
	size_t guard = 1;
	int ds = -1;
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getguardsize(&a, &guard);
	pthread_attr_getdetachstate(&a, &ds);
	printf("%-40s guard %zu, %s\n", "thread made with the defaults", guard,
	       ds == PTHREAD_CREATE_DETACHED ? "detached" : "joinable");
	pthread_attr_destroy(&a);
	return arg;
}

static void *nap(void *arg)
{
	usleep(20000);
	return arg;
}

static void on_winch(int sig)
{
	(void)sig;
	winches++;
}

/* A thread that blocks SIGCHLD while the main thread waits: libgmp then
 * takes SIGCHLD through its own handler, though the program's action is
 * the default (ignore it). */
static sem_t chld_blocked, chld_done;

/* pthread_sigmask(how) of the one signal sig */
static void mask_one(int how, int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(how, &s, NULL);
}

static void *block_chld(void *arg)
{
	mask_one(SIG_BLOCK, SIGCHLD);
	sem_post(&chld_blocked);
	sem_wait(&chld_done);
	return arg;
}

static double mono_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A child ends while the main thread waits 200 ms, SIGCHLD at its
 * default action and blocked by another thread: nothing interrupts the
 * wait (libgmp's futex wait failed with EINTR, its sleep returned early). */
static void child_ends_during(int kind)
{
	pthread_t t;
	sem_init(&chld_blocked, 0, 0);
	sem_init(&chld_done, 0, 0);
	pthread_create(&t, NULL, block_chld, NULL);
	sem_wait(&chld_blocked);
	pid_t p = fork();
	if (p == 0) {
		usleep(10000);
		_exit(0);
	}
	static int word;
	struct timespec ts = {0, 200000000};
	double t0 = mono_now();
	if (kind == 0) {
		long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
		SHOW("futex wait 200ms, a child ends", r == 0 ? 0 : errno);
	} else if (kind == 1) {
		int r = nanosleep(&ts, NULL);
		printf("%-40s %s, slept it all %d\n", "nanosleep 200ms, a child ends",
		       name(errno_of(r)), mono_now() - t0 >= 0.2);
	} else {
		/* the program's own system call: libgmp's handler for the
		 * ignored SIGCHLD ran on its OS thread and ended it */
		long r = kind == 2 ? syscall(SYS_nanosleep, &ts, NULL)
				   : syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
		printf("%-40s %s, slept it all %d\n",
		       kind == 2 ? "syscall nanosleep 200ms, child ends" : "syscall clock_nanosleep, child ends",
		       name(r == 0 ? 0 : errno), mono_now() - t0 >= 0.2);
	}
	waitpid(p, NULL, 0);
	sem_post(&chld_done);
	pthread_join(t, NULL);
	sem_destroy(&chld_blocked);
	sem_destroy(&chld_done);
}

static void *exits(void *arg)
{
	pthread_exit(arg);
}

/* A thread ends with pthread_exit, then a child ends while the main
 * thread sleeps with a system call of its own: libgmp's unwinder blocked
 * every signal for a moment, which libgmp took for the thread's doing
 * and caught SIGCHLD from then on, so the sleep failed with EINTR. */
static void child_ends_after_exit(void)
{
	pthread_t t;
	pthread_create(&t, NULL, exits, NULL);
	pthread_join(t, NULL);
	pid_t p = fork();
	if (p == 0) {
		usleep(10000);
		_exit(0);
	}
	struct timespec ts = {0, 200000000};
	long r = syscall(SYS_nanosleep, &ts, NULL);
	SHOW("syscall(nanosleep) 200ms, a child ends", r == 0 ? 0 : errno);
	waitpid(p, NULL, 0);
}

/* SIGCHLD ignored while another thread blocks it: the kernel reaps the
 * child (libgmp gave SIGCHLD its own handler, and the child waited to be
 * reaped). */
static void ignored_chld_reaps(void)
{
	pthread_t t;
	sem_init(&chld_blocked, 0, 0);
	sem_init(&chld_done, 0, 0);
	pthread_create(&t, NULL, block_chld, NULL);
	sem_wait(&chld_blocked);
	signal(SIGCHLD, SIG_IGN);
	pid_t p = fork();
	if (p == 0)
		_exit(3);
	SHOW("SIGCHLD ignored: waitpid(child)", waitpid(p, NULL, 0) == p ? 0 : errno);
	signal(SIGCHLD, SIG_DFL);
	sem_post(&chld_done);
	pthread_join(t, NULL);
	sem_destroy(&chld_blocked);
	sem_destroy(&chld_done);
}

/* glibc declares these nonnull; a program may pass NULL all the same */
static sigset_t *volatile null_set;
static struct iovec *volatile null_iov;

/* the System V and BSD signal calls are what is tested here */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Found by tests/fuzz (the descriptor and signal generators): each of
 * these answered otherwise under libgmp, or crashed it. */
/* A blocking sendmmsg on a UDP socket whose peer port is closed: the
 * first datagram goes, the second meets the refusal the first brought
 * back, and the kernel returns 1 (the error dropped). libgmp's loop sent
 * the rest again and said 3. */
static void refused_batch(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	int gone = socket(AF_INET, SOCK_DGRAM, 0), u = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(gone >= 0 && u >= 0, "socket");
	CHECK(bind(gone, (struct sockaddr *)&a, sizeof a) == 0 &&
	      getsockname(gone, (struct sockaddr *)&a, &al) == 0, "bind");
	close(gone);
	CHECK(connect(u, (struct sockaddr *)&a, sizeof a) == 0, "connect");
	char d[3] = "abc";
	struct iovec iv[3] = {{d, 1}, {d, 2}, {d, 3}};
	struct mmsghdr mv[3];
	memset(mv, 0, sizeof mv);
	for (int i = 0; i < 3; i++) {
		mv[i].msg_hdr.msg_iov = &iv[i];
		mv[i].msg_hdr.msg_iovlen = 1;
	}
	printf("%-40s %d\n", "sendmmsg(udp to a closed port, 3)", sendmmsg(u, mv, 3, 0));
	close(u);
}

static void fuzz_found(void)
{
	process_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
	int p[2];
	CHECK(pipe(p) == 0, "pipe");
	fd_set w;
	FD_ZERO(&w);
	FD_SET(p[1], &w);
	struct timespec zero = {0, 0};
	/* the kernel caps nfds at its descriptor table; libgmp said EINVAL */
	printf("%-40s %d\n", "pselect nfds=1025, one writable", pselect(1025, NULL, &w, NULL, &zero, NULL));
	/* libgmp copied the vector first: a crash, or EINVAL before EBADF */
	SHOW("writev(pipe-w, NULL, 3)", errno_of(writev(p[1], null_iov, 3)));
	SHOW("writev(pipe-r, NULL, 26)", errno_of(writev(p[0], null_iov, 26)));
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	SHOW("sendmsg(socket, NULL)", errno_of(sendmsg(sv[0], NULL, 0)));
	/* a read of nothing asks the file: an eventfd wants 8 bytes */
	int ev = eventfd(0, EFD_NONBLOCK);
	char b[8];
	SHOW("read(eventfd, 0 bytes)", errno_of(read(ev, b, 0)) ? errno : 0);
	printf("%-40s %zd\n", "read(pipe, 0 bytes)", read(p[0], b, 0));
	/* BSD's signal: the signal itself blocked in its handler */
	struct sigaction o;
	signal(SIGPWR, on_sig);
	sigaction(SIGPWR, NULL, &o);
	printf("%-40s %d\n", "signal(): sa_mask has the signal", sigismember(&o.sa_mask, SIGPWR));
	errno = 0;
	printf("%-40s %s\n", "signal(SIG_ERR)", signal(SIGPWR, SIG_ERR) == SIG_ERR ? name(errno) : "taken");
	SHOW("sighold(32)", errno_of(sighold(32)));
	SHOW("sigrelse(33)", errno_of(sigrelse(33)));
	errno = 0;
	int old = sigblock((1 << (SIGPWR - 1)) | (int)(1u << 31));
	printf("%-40s %s\n", "sigblock(PWR | bit 31): errno", name(errno));
	sigsetmask(old);
	SHOW("sigsuspend(NULL)", errno_of(sigsuspend(null_set)));
	int sig;
	errno = 0;
	int r = sigwait(null_set, &sig);
	printf("%-40s %s errno %s\n", "sigwait(NULL)", name(r), name(errno));
	SHOW("sigwaitinfo(NULL)", errno_of(sigwaitinfo(null_set, NULL)));
	SHOW("sigtimedwait(NULL)", errno_of(sigtimedwait(null_set, NULL, &zero)));
	/* a signal the thread blocks, sent to itself, ends a ppoll whose
	 * mask lets it through (libgmp held it where the kernel could not
	 * see it: ppoll waited, and the handler ran only afterwards) */
	struct sigaction wa = {0};
	wa.sa_handler = on_winch;
	sigaction(SIGWINCH, &wa, NULL);
	sigset_t block, during;
	sigemptyset(&block);
	sigaddset(&block, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &block, &during);
	pthread_kill(pthread_self(), SIGWINCH);
	struct pollfd pf = {p[0], POLLIN, 0};
	struct timespec ms = {0, 1000000};
	errno = 0;
	int pr = ppoll(&pf, 1, &ms, &during);
	printf("%-40s %d %s, handler ran %d\n", "ppoll with a pending signal let through", pr,
	       pr < 0 ? (errno == EINTR ? "EINTR" : "other") : "-", winches);
	pthread_sigmask(SIG_UNBLOCK, &block, NULL);
	/* a descriptor opened with O_PATH reads nothing, also after the
	 * thread moved between OS threads (libgmp reopened it without) */
	int op = open("/proc/thread-self/comm", O_PATH);
	for (int i = 0; i < 40; i++)
		usleep(1000);
	char c;
	SHOW("read(O_PATH /proc/thread-self/comm)", errno_of((int)read(op, &c, 1)));
	close(op);
	/* an action that ignores a signal discards its pending instances
	 * (libgmp kept the one it held, whose handler ran later) */
	signal(SIGPWR, on_winch);
	mask_one(SIG_BLOCK, SIGPWR);
	raise(SIGPWR);
	signal(SIGPWR, SIG_IGN);
	sigset_t pend;
	sigpending(&pend);
	printf("%-40s %d\n", "raised blocked, then SIG_IGN: pending", sigismember(&pend, SIGPWR));
	winches = 0;
	signal(SIGPWR, on_winch);
	mask_one(SIG_UNBLOCK, SIGPWR);
	printf("%-40s %d\n", "a handler then, unblocked: ran", winches);
	/* an ignored signal every thread blocks stays pending (a blocked
	 * signal is never ignored); an OS thread of libgmp's between threads
	 * that did not block it took it, and the kernel dropped it */
	signal(SIGPWR, SIG_IGN);
	mask_one(SIG_BLOCK, SIGPWR);
	kill(getpid(), SIGPWR);
	for (int i = 0; i < 3; i++) {
		pthread_t t;
		pthread_create(&t, NULL, nap, NULL);
		pthread_join(t, NULL);
		usleep(5000);
	}
	sigpending(&pend);
	printf("%-40s %d\n", "ignored, blocked, sent: pending", sigismember(&pend, SIGPWR));
	signal(SIGPWR, SIG_DFL);
	/* a condition wait with a robust mutex the caller does not hold
	 * (libgmp went on to wait: a deadlock), and with one it holds */
	pthread_mutexattr_t ra;
	pthread_mutexattr_init(&ra);
	pthread_mutexattr_setrobust(&ra, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_t rm;
	pthread_mutex_init(&rm, &ra);
	pthread_cond_t rc = PTHREAD_COND_INITIALIZER;
	SHOW("cond_wait(robust mutex not held)", pthread_cond_wait(&rc, &rm));
	pthread_mutex_lock(&rm);
	struct timespec soon;
	clock_gettime(CLOCK_REALTIME, &soon);
	soon.tv_nsec += 2000000;
	if (soon.tv_nsec >= 1000000000) {
		soon.tv_sec++;
		soon.tv_nsec -= 1000000000;
	}
	SHOW("cond_timedwait(robust mutex held)", pthread_cond_timedwait(&rc, &rm, &soon));
	pthread_mutex_unlock(&rm);
	/* sched_getaffinity checks its size after a sched_setaffinity too */
	cpu_set_t all;
	sched_getaffinity(0, sizeof all, &all);
	sched_setaffinity(0, sizeof all, &all);
	SHOW("sched_getaffinity(size 4)", errno_of(sched_getaffinity(0, 4, &all)));
	/* OS threads libgmp starts have the process's timer slack, not the
	 * 1 ns of the thread that starts them */
	pthread_t ts[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&ts[i], NULL, slack_of, NULL);
	long odd = 0;
	for (int i = 0; i < 4; i++) {
		void *res;
		pthread_join(ts[i], &res);
		odd += (long)res;
	}
	printf("%-40s %ld\n", "threads with another timer slack", odd);
	/* the default attributes: a guard of 0, detached */
	pthread_attr_t da, old_da;
	pthread_getattr_default_np(&old_da);
	pthread_attr_init(&da);
	pthread_attr_setguardsize(&da, 0);
	pthread_attr_setdetachstate(&da, PTHREAD_CREATE_DETACHED);
	SHOW("setattr_default(guard 0, detached)", pthread_setattr_default_np(&da));
	pthread_t dt;
	pthread_create(&dt, NULL, default_attrs, NULL);
	usleep(20000);
	SHOW("join of a thread made detached", pthread_join(dt, NULL));
	pthread_setattr_default_np(&old_da);
	/* SA_RESETHAND keeps the flags when it resets the action */
	sysv_signal(SIGWINCH, on_sig);
	raise(SIGWINCH);
	raise(SIGWINCH);
	sigaction(SIGWINCH, NULL, &o);
	printf("%-40s %s, SA_RESETHAND %d, SA_NODEFER %d\n", "sysv_signal handler after two raises",
	       o.sa_handler == SIG_DFL ? "SIG_DFL" : "other", !!(o.sa_flags & SA_RESETHAND),
	       !!(o.sa_flags & SA_NODEFER));
	child_ends_during(0);
	child_ends_during(1);
	child_ends_during(2);
	child_ends_during(3);
	child_ends_after_exit();
	ignored_chld_reaps();
	refused_batch();
}

/* Found by tests/fuzz (the signal generators, fuzz_sig.c). */
static volatile sig_atomic_t runs;

static void count_run(int sig)
{
	(void)sig;
	runs++;
}

/* sig blocked, with count_run as its handler */
static void hold(int sig)
{
	struct sigaction a = {0};
	a.sa_handler = count_run;
	sigemptyset(&a.sa_mask);
	sigaction(sig, &a, NULL);
	mask_one(SIG_BLOCK, sig);
}

static void let_go(int sig)
{
	mask_one(SIG_UNBLOCK, sig);
	signal(sig, SIG_DFL);
}

static int pending(int sig)
{
	sigset_t p;
	sigemptyset(&p);
	sigpending(&p);
	return sigismember(&p, sig);
}

/* sigsuspend with sig let through, held and pending: how often its
 * handler ran, and then once sig is unblocked */
static void suspend_for(const char *what, int sig)
{
	sigset_t m;
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	sigdelset(&m, sig);
	runs = 0;
	sigsuspend(&m);
	printf("%-40s ran %d, pending %d\n", what, (int)runs, pending(sig));
	let_go(sig);
	printf("%-40s ran %d\n", "then unblocked", (int)runs);
}

static void fuzz_found_sig(void)
{
	/* sigsuspend lets one of the instances pending run: its handler's
	 * mask, then the mask put back, hold the others (libgmp ran a
	 * handler for each) */
	int rt = SIGRTMIN + 3;
	hold(rt);
	raise(rt);
	raise(rt);
	suspend_for("sigsuspend, real-time signal raised 2x", rt);
	/* a standard signal pending for the thread and for the process */
	hold(SIGWINCH);
	raise(SIGWINCH);
	kill(getpid(), SIGWINCH);
	suspend_for("sigsuspend, raised and sent to process", SIGWINCH);
	/* the thread's own signal runs first, and its mask holds the
	 * second instance of it (libgmp took the lowest-numbered first,
	 * the process's, and ran the thread's twice) */
	hold(rt);
	hold(rt + 1);
	sigqueue(getpid(), rt, (union sigval){0});
	raise(rt + 1);
	raise(rt + 1);
	sigset_t m;
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	sigdelset(&m, rt);
	sigdelset(&m, rt + 1);
	runs = 0;
	sigsuspend(&m);
	printf("%-40s ran %d, pending %d\n", "sigsuspend, thread's signal before process's",
	       (int)runs, pending(rt + 1));
	let_go(rt + 1);
	let_go(rt);
	/* a signal the thread blocks, sent to itself, is read from a
	 * signalfd and seen by its poll (libgmp held it, the kernel had
	 * nothing to read) */
	hold(SIGWINCH);
	hold(rt);
	sigset_t sm;
	sigemptyset(&sm);
	sigaddset(&sm, SIGWINCH);
	sigaddset(&sm, rt);
	int sfd = signalfd(-1, &sm, SFD_NONBLOCK);
	raise(SIGWINCH);
	pthread_kill(pthread_self(), rt);
	struct pollfd pf = {sfd, POLLIN, 0};
	int pr = poll(&pf, 1, 0);
	struct signalfd_siginfo si[3];
	ssize_t n = read(sfd, si, sizeof si);
	printf("%-40s poll %d, read %zd: %d %d, pending %d\n", "signalfd, signals raised blocked", pr,
	       n / (ssize_t)sizeof si[0], n > 0 ? (int)si[0].ssi_signo : 0,
	       n > 128 ? (int)si[1].ssi_signo - rt : 0, pending(SIGWINCH));
	close(sfd);
	let_go(SIGWINCH);
	let_go(rt);
	/* a signal pending, blocked and ignored, which a pselect's mask
	 * lets through, is dropped and the call goes on (libgmp: EINTR) */
	hold(SIGWINCH);
	raise(SIGWINCH);
	signal(SIGWINCH, SIG_IGN);
	raise(SIGWINCH);
	pthread_sigmask(SIG_BLOCK, NULL, &m);
	sigdelset(&m, SIGWINCH);
	struct timespec ms = {0, 1000000};
	errno = 0;
	int sr = pselect(0, NULL, NULL, NULL, &ms, &m);
	printf("%-40s %d %s\n", "pselect lets an ignored one through", sr, sr < 0 ? name(errno) : "-");
	let_go(SIGWINCH);
	/* SIGCONT sent drops the stop signals pending (libgmp sent it
	 * through the kernel, which dropped its own alone), and its handler
	 * has run when kill returns */
	hold(SIGTSTP);
	raise(SIGTSTP);
	signal(SIGCONT, count_run);
	runs = 0;
	kill(getpid(), SIGCONT);
	printf("%-40s ran %d, SIGTSTP pending %d\n", "kill(self, SIGCONT) with a handler",
	       (int)runs, pending(SIGTSTP));
	signal(SIGCONT, SIG_DFL);
	let_go(SIGTSTP);
}

/* Found by tests/fuzz: glibc checks a deadline (its clock, its
 * nanoseconds) before it tries a process-shared rwlock or semaphore, so a
 * malformed one is EINVAL even when the lock or a unit is free. */
static void shared_deadlines(void)
{
	pthread_rwlockattr_t ra;
	pthread_rwlock_t rw;
	pthread_rwlockattr_init(&ra);
	pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED);
	pthread_rwlock_init(&rw, &ra);
	struct timespec ts = {0, 1000000000};
	SHOW("pshared timedrdlock nsec=1e9 (free)", pthread_rwlock_timedrdlock(&rw, &ts));
	SHOW("pshared timedwrlock nsec=1e9 (free)", pthread_rwlock_timedwrlock(&rw, &ts));
	ts.tv_nsec = 0;
	SHOW("pshared clockrdlock RAW (free)", pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC_RAW, &ts));
	pthread_rwlock_destroy(&rw);
	sem_t sm;
	int v = -1;
	sem_init(&sm, 1, 2);
	ts.tv_nsec = -1;
	SHOW("pshared sem_timedwait nsec=-1 (value 2)", errno_of(sem_timedwait(&sm, &ts)));
	ts.tv_nsec = 0;
	SHOW("pshared sem_clockwait RAW (value 2)", errno_of(sem_clockwait(&sm, CLOCK_MONOTONIC_RAW, &ts)));
	SHOW("pshared sem_clockwait 99 (value 2)", errno_of(sem_clockwait(&sm, 99, &ts)));
	sem_getvalue(&sm, &v);
	printf("%-40s %d\n", "pshared sem value", v);
	sem_destroy(&sm);
}

/* Found by tests/fuzz: a priority-inheritance mutex checks its owner at
 * unlock whatever its type (EPERM), and the kernel, which glibc hands a
 * waiting lock's deadline, refuses a negative one (EINVAL). */
static void pi_owner(void)
{
	pthread_mutexattr_t ma;
	pthread_mutex_t pm;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&pm, &ma);
	SHOW("PI unlock, not held", pthread_mutex_unlock(&pm));
	SHOW("PI lock", pthread_mutex_lock(&pm));
	struct timespec ts = {-1, 0};
	SHOW("PI timedlock held, sec=-1", pthread_mutex_timedlock(&pm, &ts));
	SHOW("PI clocklock held, sec=-1", pthread_mutex_clocklock(&pm, CLOCK_MONOTONIC, &ts));
	SHOW("PI unlock", pthread_mutex_unlock(&pm));
	pthread_mutex_destroy(&pm);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&pm, &ma);
	SHOW("PI errorcheck lock", pthread_mutex_lock(&pm));
	SHOW("PI errorcheck trylock held", pthread_mutex_trylock(&pm));
	SHOW("PI errorcheck unlock", pthread_mutex_unlock(&pm));
	pthread_mutex_destroy(&pm);
	/* found by tests/fuzz: the main thread's id stays the process id
	 * after it locks a mutex whose owner glibc records for the kernel
	 * (libgmp gives the thread an OS thread of its own for those) */
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_PROTECT);
	pthread_mutex_init(&pm, &ma);
	SHOW("PP lock", pthread_mutex_lock(&pm));
	SHOW("gettid() is the process id", gettid() == getpid() ? 0 : EINVAL);
	SHOW("PP unlock", pthread_mutex_unlock(&pm));
	SHOW("gettid() still the process id", gettid() == getpid() ? 0 : EINVAL);
	pthread_mutex_destroy(&pm);
}

int main(int argc, char **argv)
{
	pthread_attr_t a;
	pthread_t t, d;
	void *res;
	struct timespec ts;

	SHOW("join self (main)", pthread_join(pthread_self(), NULL));
	pthread_create(&t, NULL, join_self, NULL);
	pthread_join(t, &res);
	SHOW("join self (thread)", (int)(long)res);

	pthread_attr_init(&a);
	SHOW("attr_setstacksize(MIN-1)", pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN - 1));
	SHOW("attr_setstacksize(MIN)", pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN));
	SHOW("attr_setdetachstate(99)", pthread_attr_setdetachstate(&a, 99));
	SHOW("attr_setscope(99)", pthread_attr_setscope(&a, 99));
	SHOW("attr_setscope(SYSTEM)", pthread_attr_setscope(&a, PTHREAD_SCOPE_SYSTEM));
	SHOW("attr_setinheritsched(99)", pthread_attr_setinheritsched(&a, 99));
	SHOW("attr_setschedpolicy(99)", pthread_attr_setschedpolicy(&a, 99));
	static char small[4096];
	SHOW("attr_setstack(4096 bytes)", pthread_attr_setstack(&a, small, sizeof small));
	pthread_attr_destroy(&a);

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	SHOW("create detached", pthread_create(&d, &a, spin_sleep, NULL));
	pthread_attr_destroy(&a);
	SHOW("join detached", pthread_join(d, NULL));
	SHOW("detach detached", pthread_detach(d));

	SHOW("create joinable", pthread_create(&t, NULL, spin_sleep, NULL));
	SHOW("tryjoin running", pthread_tryjoin_np(t, NULL));
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec -= 1;
	SHOW("timedjoin past deadline", pthread_timedjoin_np(t, NULL, &ts));
	if (argc > 1 && strcmp(argv[1], "--beyond-glibc") == 0) {
		/* glibc 2.36 never returns here (it retries the futex wait
		 * forever); libgmp says EINVAL */
		ts.tv_nsec = 1000000000;
		SHOW("timedjoin nsec=1e9", pthread_timedjoin_np(t, NULL, &ts));
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec = (ts.tv_nsec + 20000000) % 1000000000;
	ts.tv_sec += 0;
	SHOW("clockjoin CPUTIME clock", pthread_clockjoin_np(t, NULL, CLOCK_PROCESS_CPUTIME_ID, &ts));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 20000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	SHOW("clockjoin MONOTONIC +20ms", pthread_clockjoin_np(t, NULL, CLOCK_MONOTONIC, &ts));
	SHOW("kill(t, 0)", pthread_kill(t, 0));
	SHOW("kill(t, 9999)", pthread_kill(t, 9999));
	SHOW("setname 16 chars", pthread_setname_np(t, "0123456789abcdef"));
	SHOW("setname 15 chars", pthread_setname_np(t, "0123456789abcde"));
	char nb[32];
	SHOW("getname buf 15", pthread_getname_np(t, nb, 15));
	SHOW("getname buf 16", pthread_getname_np(t, nb, 16));
	printf("%-40s %s\n", "name", nb);
	struct sched_param sp = {.sched_priority = 5};
	SHOW("setschedparam OTHER prio 5", pthread_setschedparam(t, SCHED_OTHER, &sp));
	sp.sched_priority = 0;
	SHOW("setschedparam OTHER prio 0", pthread_setschedparam(t, SCHED_OTHER, &sp));
	SHOW("setschedprio 3 (OTHER)", pthread_setschedprio(t, 3));
	cpu_set_t cs;
	CPU_ZERO(&cs);
	SHOW("setaffinity empty", pthread_setaffinity_np(t, sizeof cs, &cs));
	CPU_SET(0, &cs);
	SHOW("setaffinity {0}", pthread_setaffinity_np(t, sizeof cs, &cs));
	CPU_ZERO(&cs);
	SHOW("getaffinity", pthread_getaffinity_np(t, sizeof cs, &cs));
	printf("%-40s %d\n", "affinity count", CPU_COUNT(&cs));
	clockid_t clk;
	SHOW("getcpuclockid", pthread_getcpuclockid(t, &clk));
	SHOW("clock_gettime(thread clock)", errno_of(clock_gettime(clk, &ts)));
	stop = 1;
	SHOW("join", pthread_join(t, &res));

	pthread_key_t k;
	SHOW("key_delete(1023) unused", pthread_key_delete(1023));
	SHOW("key_delete(5000)", pthread_key_delete(5000));
	SHOW("key_create", pthread_key_create(&k, NULL));
	SHOW("setspecific", pthread_setspecific(k, &k));
	SHOW("getspecific is value", pthread_getspecific(k) == &k ? 0 : EINVAL);
	SHOW("key_delete", pthread_key_delete(k));
	SHOW("key_delete again", pthread_key_delete(k));
	SHOW("setspecific deleted", pthread_setspecific(k, &k));

	ts.tv_sec = 0;
	ts.tv_nsec = 1000000000;
	SHOW("nanosleep nsec=1e9", errno_of(nanosleep(&ts, NULL)));
	ts.tv_sec = -1;
	ts.tv_nsec = 0;
	SHOW("nanosleep sec=-1", errno_of(nanosleep(&ts, NULL)));
	ts.tv_sec = 0;
	ts.tv_nsec = -5;
	SHOW("clock_nanosleep nsec=-5", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL));
	ts.tv_nsec = 1000;
	SHOW("clock_nanosleep THREAD_CPUTIME", clock_nanosleep(CLOCK_THREAD_CPUTIME_ID, 0, &ts, NULL));
	SHOW("clock_nanosleep MONOTONIC 1us", clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL));
	ts.tv_nsec = 2000000000;
	printf("%-40s %d\n", "thrd_sleep nsec=2e9", thrd_sleep(&ts, NULL));
	SHOW("usleep(0)", errno_of(usleep(0)));
	printf("%-40s %u\n", "sleep(0)", sleep(0));
	shared_deadlines();
	pi_owner();
	fuzz_found();
	fuzz_found_sig();
	printf("DONE\n");
	return 0;
}
