/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/posix_misc.c — smaller points of POSIX and glibc. An
 * ordinary pthread program.
 *
 *   posix_misc condcancel  a thread cancelled in pthread_cond_wait and in
 *                          pthread_cond_timedwait on a condition variable
 *                          whose clock is CLOCK_MONOTONIC: it ends
 *                          cancelled, its cleanup handler runs holding the
 *                          mutex
 *   posix_misc semtimed    sem_timedwait's answers, in glibc's order of
 *                          checks: a time already past, tv_nsec out of
 *                          range, a negative time, on a semaphore that can
 *                          and one that cannot be decremented
 *   posix_misc masks       in a thread: sighold, then raise, then yields
 *                          (the thread may move): the handler has not run,
 *                          the signal is pending, and sigwaitinfo takes
 *                          it; sigrelse, sigblock, sigsetmask, siggetmask,
 *                          sigset with SIG_HOLD and with a handler, and
 *                          sigignore act on the thread's mask and actions
 *                          as sigprocmask and sigaction show them
 *   posix_misc sigorder    with the signals blocked, a thread sends its
 *                          process and itself signals (kill, sigqueue,
 *                          pthread_kill), and another thread sends it
 *                          and the process some; sigwaitinfo then takes them in the
 *                          kernel's order: the thread's own first, then
 *                          the process's, each lowest-numbered first and
 *                          queued real-time ones first come first served,
 *                          with the sender's si_code, si_pid, si_uid and
 *                          si_value; 20 rounds
 *   posix_misc waits       the answers of calls that wait in the kernel,
 *                          when they need not wait and when they must:
 *                          flock, lockf and fcntl(F_SETLKW) on a lock a
 *                          child process holds, semop and semtimedop
 *                          (SEM_UNDO, a timeout), msgrcv (E2BIG, a
 *                          message sent later) and msgsnd, waitpid, wait4
 *                          and waitid with no child, a child that ended
 *                          and one that ends later
 *
 * Prints what it saw and "PASS <what>".
 */
#include "common.h"

/* the System V and BSD mask functions are what it tests */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* ---- cancellation in a condition wait ------------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv;
static atomic_int in_wait, cleaned, held;

static void cleanup(void *arg)
{
	(void)arg;
	atomic_store(&cleaned, 1);
	/* the mutex is the cancelled thread's again: an error-checking
	 * look is not possible on a default mutex, so try it */
	atomic_store(&held, pthread_mutex_trylock(&mu) == EBUSY);
	pthread_mutex_unlock(&mu);
}

static void *cond_waiter(void *arg)
{
	bool timed = arg != NULL;
	pthread_mutex_lock(&mu);
	pthread_cleanup_push(cleanup, NULL);
	atomic_store(&in_wait, 1);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += 30;
	for (;;) {
		if (timed)
			pthread_cond_timedwait(&cv, &mu, &ts);
		else
			pthread_cond_wait(&cv, &mu);
	}
	pthread_cleanup_pop(0);
	return NULL;
}

static int condcancel(void)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	CHECK(pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0, "pthread_condattr_setclock");
	CHECK(pthread_cond_init(&cv, &ca) == 0, "pthread_cond_init");
	for (int timed = 0; timed < 2; timed++) {
		atomic_store(&in_wait, 0);
		atomic_store(&cleaned, 0);
		atomic_store(&held, 0);
		pthread_t t;
		CHECK(pthread_create(&t, NULL, cond_waiter, timed ? (void *)1 : NULL) == 0,
		      "pthread_create");
		while (!atomic_load(&in_wait))
			sched_yield();
		/* the waiter released the mutex: it is in the wait */
		pthread_mutex_lock(&mu);
		pthread_mutex_unlock(&mu);
		CHECK(pthread_cancel(t) == 0, "pthread_cancel");
		void *r;
		CHECK(pthread_join(t, &r) == 0, "pthread_join");
		printf("%s on a CLOCK_MONOTONIC condvar: cancelled %s, cleanup ran %s, "
		       "with the mutex held %s\n", timed ? "pthread_cond_timedwait" : "pthread_cond_wait",
		       r == PTHREAD_CANCELED ? "yes" : "no", atomic_load(&cleaned) ? "yes" : "no",
		       atomic_load(&held) ? "yes" : "no");
	}
	printf("PASS condcancel\n");
	return 0;
}

/* ---- sem_timedwait's checks ------------------------------------------------------ */

static void timed(const char *what, int value, time_t sec, long nsec)
{
	sem_t s;
	sem_init(&s, 0, (unsigned)value);
	struct timespec ts = {sec, nsec};
	errno = 0;
	int r = sem_timedwait(&s, &ts);
	int e = errno, after;
	sem_getvalue(&s, &after);
	printf("value %d, %-22s %s (value after: %d)\n", value, what,
	       r == 0 ? "0" : e == EINVAL ? "EINVAL" : e == ETIMEDOUT ? "ETIMEDOUT" : strerror(e),
	       after);
	sem_destroy(&s);
}

static int semtimed(void)
{
	for (int v = 0; v < 2; v++) {
		timed("a time already past:", v, 1, 0);
		timed("tv_nsec 1000000000:", v, 1, 1000000000);
		timed("tv_nsec -1:", v, 1, -1);
		timed("tv_sec -1:", v, -1, 0);
	}
	printf("PASS semtimed\n");
	return 0;
}

/* ---- the System V and BSD mask functions ------------------------------------------ */

/* a signal's bit in a BSD mask (what the deprecated sigmask() gives) */
#define BSD_BIT(sig) (1 << ((sig) - 1))

static volatile sig_atomic_t usr1_ran;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_ran++;
}

static int blocked(int sig)
{
	sigset_t s;
	pthread_sigmask(SIG_BLOCK, NULL, &s);
	return sigismember(&s, sig);
}

static void *mask_thread(void *arg)
{
	(void)arg;
	signal(SIGUSR1, on_usr1);
	CHECK(sighold(SIGUSR1) == 0, "sighold");
	raise(SIGUSR1);
	for (int i = 0; i < 20; i++)
		sched_yield();
	sigset_t p;
	sigpending(&p);
	printf("sighold, raise, 20 yields: handler ran %d times, pending %d, blocked %d\n",
	       (int)usr1_ran, sigismember(&p, SIGUSR1), blocked(SIGUSR1));
	sigset_t w;
	sigemptyset(&w);
	sigaddset(&w, SIGUSR1);
	siginfo_t si;
	printf("sigwaitinfo takes signal %d\n", sigwaitinfo(&w, &si));
	CHECK(sigrelse(SIGUSR1) == 0, "sigrelse");
	printf("sigrelse: blocked %d\n", blocked(SIGUSR1));
	int old = sigblock(BSD_BIT(SIGUSR2));
	printf("sigblock: old mask has SIGUSR2 %d, now blocked %d\n",
	       (old & BSD_BIT(SIGUSR2)) != 0, blocked(SIGUSR2));
	printf("siggetmask has SIGUSR2: %d\n", (siggetmask() & BSD_BIT(SIGUSR2)) != 0);
	old = sigsetmask(0);
	printf("sigsetmask(0): old mask had SIGUSR2 %d, now blocked %d\n",
	       (old & BSD_BIT(SIGUSR2)) != 0, blocked(SIGUSR2));
	sighandler_t prev = sigset(SIGUSR1, SIG_HOLD);
	printf("sigset(SIG_HOLD): previous is the handler %d, blocked %d\n", prev == on_usr1,
	       blocked(SIGUSR1));
	prev = sigset(SIGUSR1, on_usr1);
	printf("sigset(handler): previous is SIG_HOLD %d, blocked %d\n", prev == SIG_HOLD,
	       blocked(SIGUSR1));
	CHECK(sigignore(SIGUSR1) == 0, "sigignore");
	struct sigaction a;
	sigaction(SIGUSR1, NULL, &a);
	int before = usr1_ran;
	raise(SIGUSR1);
	printf("sigignore: action is SIG_IGN %d, raise ran the handler %d\n",
	       a.sa_handler == SIG_IGN, (int)usr1_ran != before);
	return NULL;
}

static int masks(void)
{
	pthread_t t;
	CHECK(pthread_create(&t, NULL, mask_thread, NULL) == 0, "pthread_create");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	printf("PASS masks\n");
	return 0;
}

/* --- sigorder --- */

static sigset_t order_set;

static const char *sig_name(int sig)
{
	static char buf[24];
	if (sig == SIGUSR1)
		return "SIGUSR1";
	if (sig == SIGUSR2)
		return "SIGUSR2";
	snprintf(buf, sizeof buf, "SIGRTMIN+%d", sig - SIGRTMIN);
	return buf;
}

static const char *code_name(int code)
{
	return code == SI_USER ? "SI_USER" : code == SI_QUEUE ? "SI_QUEUE" :
	       code == SI_TKILL ? "SI_TKILL" : "other";
}

/* Take n signals of order_set, one line each. */
static void take(int n)
{
	for (int i = 0; i < n; i++) {
		siginfo_t si;
		int sig = sigwaitinfo(&order_set, &si);
		CHECK(sig > 0, "sigwaitinfo: %s", strerror(errno));
		printf("  %s %s", sig_name(sig), code_name(si.si_code));
		if (si.si_code == SI_QUEUE)
			printf(" value %d", si.si_value.sival_int);
		printf(" pid %s uid %s\n", si.si_pid == getpid() ? "ours" : "other",
		       si.si_uid == getuid() ? "ours" : "other");
	}
	sigset_t p;
	sigpending(&p);
	for (int sig = 1; sig < NSIG; sig++)
		CHECK(!sigismember(&p, sig), "%s still pending", sig_name(sig));
}

static void queue(int sig, int v)
{
	union sigval val = {.sival_int = v};
	CHECK(sigqueue(getpid(), sig, val) == 0, "sigqueue: %s", strerror(errno));
}

static sem_t sent, go;
static pthread_t waiter_thread;

static void *order_sender(void *arg)
{
	(void)arg;
	for (int r = 0; r < 20; r++) {
		CHECK(sem_wait(&go) == 0, "sem_wait");
		CHECK(pthread_kill(waiter_thread, SIGRTMIN + 2) == 0, "pthread_kill");
		queue(SIGRTMIN + 1, 7);
		CHECK(kill(getpid(), SIGUSR2) == 0, "kill");
		queue(SIGRTMIN + 1, 8);
		CHECK(sem_post(&sent) == 0, "sem_post");
	}
	return NULL;
}

static void *order_waiter(void *arg)
{
	(void)arg;
	for (int r = 0; r < 20; r++) {
		printf("round %d: its own process, then itself\n", r);
		queue(SIGRTMIN + 1, 1);
		queue(SIGRTMIN, 2);
		queue(SIGRTMIN, 3);
		CHECK(kill(getpid(), SIGUSR2) == 0, "kill");
		CHECK(pthread_kill(pthread_self(), SIGUSR1) == 0, "pthread_kill");
		take(5);
		printf("round %d: itself, then its process\n", r);
		CHECK(pthread_kill(pthread_self(), SIGRTMIN + 2) == 0, "pthread_kill");
		CHECK(kill(getpid(), SIGUSR1) == 0, "kill");
		take(2);
		printf("round %d: another thread's\n", r);
		CHECK(sem_post(&go) == 0, "sem_post");
		CHECK(sem_wait(&sent) == 0, "sem_wait");
		take(4);
	}
	return NULL;
}

static int sigorder(void)
{
	sigemptyset(&order_set);
	sigaddset(&order_set, SIGUSR1);
	sigaddset(&order_set, SIGUSR2);
	for (int i = 0; i <= 2; i++)
		sigaddset(&order_set, SIGRTMIN + i);
	CHECK(pthread_sigmask(SIG_BLOCK, &order_set, NULL) == 0, "pthread_sigmask");
	sem_init(&sent, 0, 0);
	sem_init(&go, 0, 0);
	pthread_t s;
	CHECK(pthread_create(&waiter_thread, NULL, order_waiter, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&s, NULL, order_sender, NULL) == 0, "pthread_create");
	CHECK(pthread_join(waiter_thread, NULL) == 0, "pthread_join");
	CHECK(pthread_join(s, NULL) == 0, "pthread_join");
	printf("PASS sigorder\n");
	return 0;
}

/* --- waits --- */

static int lock_fd;
static int release_pipe[2];

/* In a child: take the file's lock (kind 0: flock, else a POSIX record
 * lock), say so, and let it go when the parent writes. */
static void hold_lock(int kind)
{
	if (kind == 0)
		CHECK(flock(lock_fd, LOCK_EX) == 0, "flock");
	else
		CHECK(lockf(lock_fd, F_LOCK, 0) == 0, "lockf");
	char c = 'h';
	CHECK(write(release_pipe[1], &c, 1) == 1, "write");
	CHECK(read(release_pipe[0], &c, 1) >= 0, "read");
}

static void *let_go_later(void *arg)
{
	int fd = (int)(intptr_t)arg;
	struct timespec ts = {0, 20000000};
	nanosleep(&ts, NULL);
	char c = 'g';
	CHECK(write(fd, &c, 1) == 1, "write");
	return NULL;
}

static void lock_held_elsewhere(int kind, const char *name)
{
	char path[] = "/tmp/posix_misc_lockXXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	unlink(path);
	CHECK(write(fd, "x", 1) == 1, "write");
	lock_fd = fd;
	int to_child[2], from_child[2];
	CHECK(pipe(to_child) == 0 && pipe(from_child) == 0, "pipe");
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		/* its own open for flock, which locks open files */
		char self[64];
		snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
		if (kind == 0)
			lock_fd = open(self, O_RDWR);
		release_pipe[0] = to_child[0];
		release_pipe[1] = from_child[1];
		hold_lock(kind);
		_exit(0);
	}
	char c;
	CHECK(read(from_child[0], &c, 1) == 1, "read");
	/* free: the non-blocking forms fail as the blocking ones would wait */
	errno = 0;
	int busy = kind == 0 ? flock(fd, LOCK_EX | LOCK_NB) : lockf(fd, F_TLOCK, 0);
	printf("%s: held by the child, non-blocking: %d %s\n", name, busy,
	       busy ? (errno == EAGAIN || errno == EACCES ? "busy" : strerror(errno)) : "");
	pthread_t t;
	CHECK(pthread_create(&t, NULL, let_go_later, (void *)(intptr_t)to_child[1]) == 0, "create");
	int r;
	if (kind == 0)
		r = flock(fd, LOCK_EX);
	else if (kind == 1)
		r = lockf(fd, F_LOCK, 0);
	else {
		struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		r = fcntl(fd, F_SETLKW, &fl);
	}
	printf("%s: waited for the child: %d\n", name, r);
	CHECK(pthread_join(t, NULL) == 0, "join");
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child");
	close(fd);
	close(to_child[0]);
	close(to_child[1]);
	close(from_child[0]);
	close(from_child[1]);
}

static int semid, msqid;

static void *post_later(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 20000000};
	nanosleep(&ts, NULL);
	struct sembuf up = {0, 2, 0};
	CHECK(semop(semid, &up, 1) == 0, "semop up");
	struct {
		long type;
		char text[16];
	} m = {7, "later"};
	CHECK(msgsnd(msqid, &m, 6, 0) == 0, "msgsnd");
	return NULL;
}

static void sysv_waits(void)
{
	semid = semget(IPC_PRIVATE, 1, 0600);
	msqid = msgget(IPC_PRIVATE, 0600);
	CHECK(semid >= 0 && msqid >= 0, "semget/msgget: %s", strerror(errno));
	struct sembuf down = {0, -1, SEM_UNDO};
	struct timespec short_wait = {0, 10000000};
	errno = 0;
	int r = semtimedop(semid, &down, 1, &short_wait);
	printf("semtimedop at 0 for 10 ms: %d %s\n", r, r ? strerror(errno) : "");
	struct {
		long type;
		char text[16];
	} m = {3, "first message"}, in;
	CHECK(msgsnd(msqid, &m, sizeof m.text, 0) == 0, "msgsnd");
	errno = 0;
	ssize_t n = msgrcv(msqid, &in, 4, 0, 0);
	printf("msgrcv too small a buffer: %zd %s\n", n, n < 0 ? strerror(errno) : "");
	n = msgrcv(msqid, &in, sizeof in.text, 0, 0);
	printf("msgrcv queued: %zd type %ld %s\n", n, in.type, in.text);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, post_later, NULL) == 0, "create");
	r = semop(semid, &down, 1);
	printf("semop waited: %d value %d\n", r, semctl(semid, 0, GETVAL));
	n = msgrcv(msqid, &in, sizeof in.text, 7, 0);
	printf("msgrcv waited: %zd type %ld %s\n", n, in.type, in.text);
	CHECK(pthread_join(t, NULL) == 0, "join");
	semctl(semid, 0, IPC_RMID);
	msgctl(msqid, IPC_RMID, NULL);
}

static void child_waits(void)
{
	int st;
	errno = 0;
	pid_t r = waitpid(-1, &st, 0);
	printf("waitpid, no child: %d %s\n", (int)r, strerror(errno));
	siginfo_t si;
	errno = 0;
	int w = waitid(P_ALL, 0, &si, WEXITED);
	printf("waitid, no child: %d %s\n", w, strerror(errno));
	pid_t quick = fork();
	CHECK(quick >= 0, "fork");
	if (quick == 0)
		_exit(3);
	/* it has ended (or ends) before the wait asks: taken either way */
	r = waitpid(quick, &st, 0);
	printf("waitpid, a child: %s status %d\n", r == quick ? "its pid" : "wrong",
	       WEXITSTATUS(st));
	pid_t slow = fork();
	CHECK(slow >= 0, "fork");
	if (slow == 0) {
		struct timespec ts = {0, 20000000};
		nanosleep(&ts, NULL);
		_exit(5);
	}
	struct rusage ru;
	r = wait4(slow, &st, 0, &ru);
	printf("wait4, a child that ends later: %s status %d\n", r == slow ? "its pid" : "wrong",
	       WEXITSTATUS(st));
	pid_t third = fork();
	CHECK(third >= 0, "fork");
	if (third == 0) {
		struct timespec ts = {0, 20000000};
		nanosleep(&ts, NULL);
		_exit(6);
	}
	memset(&si, 0, sizeof si);
	w = waitid(P_PID, third, &si, WEXITED);
	printf("waitid, a child that ends later: %d %s status %d\n", w,
	       si.si_pid == third ? "its pid" : "wrong", si.si_status);
}

static int waits(void)
{
	lock_held_elsewhere(0, "flock");
	lock_held_elsewhere(1, "lockf");
	lock_held_elsewhere(2, "fcntl F_SETLKW");
	sysv_waits();
	child_waits();
	printf("PASS waits\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "condcancel") == 0)
		return condcancel();
	if (strcmp(what, "semtimed") == 0)
		return semtimed();
	if (strcmp(what, "masks") == 0)
		return masks();
	if (strcmp(what, "sigorder") == 0)
		return sigorder();
	if (strcmp(what, "waits") == 0)
		return waits();
	fprintf(stderr, "usage: posix_misc condcancel|semtimed|masks|sigorder|waits\n");
	return 2;
}
