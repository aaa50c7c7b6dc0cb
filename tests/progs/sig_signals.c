/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sig_signals.c — signals and threads, as POSIX and Linux
 * define them. An ordinary pthread program.
 *
 *   sig_signals kill      pthread_kill(SIGUSR1) to each of 6 threads (2
 *                         sleeping, 2 parked in a condvar wait, 2 spinning):
 *                         the handler runs on the target (pthread_self)
 *   sig_signals sigwait   every thread blocks SIGUSR1; one sigwaits;
 *                         another thread sends kill(getpid(), SIGUSR1) 5
 *                         times: each is received, with si_pid and
 *                         si_code SI_USER (sigwaitinfo)
 *   sig_signals sigint    100 threads, SIGINT blocked in 99 of them; the
 *                         main thread waits in pthread_join; a thread
 *                         sends SIGINT to the process: the handler runs
 *                         once, on the main thread
 *   sig_signals mask      masks are per thread: a thread that blocks
 *                         SIGUSR2 gets it pending (sigpending) from
 *                         pthread_kill and raise, the others see nothing
 *                         pending; unblocking runs the handler at once
 *   sig_signals pendloop  4 threads, 20,000 times each: block SIGUSR2,
 *                         raise it (sigpending must show it), unblock
 *                         (its handler must have run once more when
 *                         pthread_sigmask returns)
 *   sig_signals suspend   sigsuspend and pause end with EINTR after the
 *                         handler of a signal sent to the thread ran
 *   sig_signals timedwait sigtimedwait: EAGAIN after its timeout, the
 *                         signal when one comes; SIGURG never arrives
 *                         while spinning threads run beside it, and is
 *                         never pending
 *   sig_signals waitpid   the main thread waits in waitpid for a child
 *                         that sleeps; another thread sends the process
 *                         SIGUSR1 (handler without SA_RESTART): waitpid
 *                         fails with EINTR after the handler ran on main
 *   sig_signals vfork     with SIGUSR1 blocked and pending for the main
 *                         thread, a vfork child sets it to SIG_DFL and
 *                         unblocks it, then execs: the child is not
 *                         killed, the parent's handler and pending signal
 *                         stay, and unblocking runs the handler
 *   sig_signals lone      a program that never makes a thread (as
 *                         coreutils' timeout): SIGCHLD blocked, a child
 *                         that exits, sigsuspend with SIGCHLD let through
 *                         ends with EINTR after the handler ran
 *   sig_signals handlerblock  a thread waits for a mutex; its SIGUSR1
 *                         handler waits 300 ms for a child process in
 *                         wait4 made with syscall(), while two threads
 *                         spin and poll the same mutex with 1 ms timed
 *                         locks: they run meanwhile, and the thread goes
 *                         back to its wait after the handler and gets
 *                         the mutex when main unlocks it
 *   sig_signals term      a thread blocks every signal (as Python's
 *                         faulthandler watchdog does); 20 times, a child
 *                         made by fork, with one thread, calls
 *                         sigprocmask without end, or waits on a
 *                         process-shared semaphore after such calls, and
 *                         gets SIGTERM at its default action: each dies
 *                         of it within 5 s
 *
 * Prints what happened and "PASS <what>", exits 0; else says what and
 * exits 1.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int fail(const char *what)
{
	printf("FAIL %s\n", what);
	return 1;
}

static void block(int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
}

static void unblock(int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

static bool is_pending(int sig)
{
	sigset_t s;
	sigpending(&s);
	return sigismember(&s, sig);
}

/* --- kill ------------------------------------------------------------------------------ */

static pthread_t targets[6];
static _Atomic(pthread_t) ran_on[6];
static atomic_int handled, stop;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void on_usr1(int sig)
{
	(void)sig;
	pthread_t me = pthread_self();
	for (int i = 0; i < 6; i++)
		if (pthread_equal(targets[i], me))
			atomic_store(&ran_on[i], me);
	atomic_fetch_add(&handled, 1);
}

static void *target(void *arg)
{
	long i = (long)arg;
	while (!atomic_load(&stop)) {
		if (i < 2) {
			struct timespec ts = {0, 2000000};
			nanosleep(&ts, NULL);
		} else if (i < 4) {
			pthread_mutex_lock(&mu);
			if (!atomic_load(&stop))
				pthread_cond_wait(&cv, &mu);
			pthread_mutex_unlock(&mu);
		} else {
			for (volatile int k = 0; k < 1000; k++)
				;
		}
	}
	return NULL;
}

static int kill_each(void)
{
	signal(SIGUSR1, on_usr1);
	for (long i = 0; i < 6; i++)
		pthread_create(&targets[i], NULL, target, (void *)i);
	sleep_ms(20);
	int bad = 0;
	for (int i = 0; i < 6; i++) {
		int before = atomic_load(&handled);
		pthread_kill(targets[i], SIGUSR1);
		for (int k = 0; k < 5000 && atomic_load(&handled) == before; k++)
			sleep_ms(1);
		bool ok = pthread_equal(atomic_load(&ran_on[i]), targets[i]);
		printf("thread %d (%s): handler %s\n", i,
		       i < 2 ? "sleeping" : i < 4 ? "in a condvar wait" : "spinning",
		       ok ? "ran on it" : "did not run on it");
		bad |= !ok;
	}
	atomic_store(&stop, 1);
	pthread_mutex_lock(&mu);
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 6; i++)
		pthread_join(targets[i], NULL);
	if (bad)
		return fail("kill");
	printf("PASS kill\n");
	return 0;
}

/* --- sigwait ----------------------------------------------------------------------------- */

static atomic_int received;

static void *waiter(void *arg)
{
	(void)arg;
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	for (int i = 0; i < 5; i++) {
		siginfo_t info;
		int sig = sigwaitinfo(&s, &info);
		if (sig != SIGUSR1 || info.si_pid != getpid() || info.si_code != SI_USER) {
			printf("sigwaitinfo: %d, si_pid %s, si_code %d\n", sig,
			       info.si_pid == getpid() ? "ours" : "wrong", info.si_code);
			return (void *)1;
		}
		atomic_fetch_add(&received, 1);
	}
	return NULL;
}

static void *busy(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		sleep_ms(1);
	return NULL;
}

static int sigwait_test(void)
{
	block(SIGUSR1);	/* before any thread: all inherit it */
	pthread_t w, b[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&b[i], NULL, busy, NULL);
	pthread_create(&w, NULL, waiter, NULL);
	sleep_ms(20);
	for (int i = 0; i < 5; i++) {
		kill(getpid(), SIGUSR1);
		for (int k = 0; k < 5000 && atomic_load(&received) == i; k++)
			sleep_ms(1);
	}
	void *r;
	pthread_join(w, &r);
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(b[i], NULL);
	printf("sigwaitinfo received %d of 5 SIGUSR1 sent with kill, si_code SI_USER\n",
	       atomic_load(&received));
	if (r || atomic_load(&received) != 5)
		return fail("sigwait");
	printf("PASS sigwait\n");
	return 0;
}

/* --- sigint ------------------------------------------------------------------------------ */

static pthread_t main_thread;
static atomic_int int_count, int_on_main;

static void on_int(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)info;
	(void)uc;
	atomic_fetch_add(&int_count, 1);
	if (pthread_equal(pthread_self(), main_thread))
		atomic_store(&int_on_main, 1);
}

static void *sleeper(void *arg)
{
	long i = (long)arg;
	if (i != 0)
		block(SIGINT);
	if (i == 50) {
		sleep_ms(30);
		kill(getpid(), SIGINT);
	}
	while (!atomic_load(&int_count))
		sleep_ms(1);
	return NULL;
}

static int sigint_test(void)
{
	main_thread = pthread_self();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_int;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGINT, &sa, NULL);
	pthread_t t[100];
	block(SIGINT);	/* the threads start with it blocked */
	for (long i = 0; i < 100; i++)
		pthread_create(&t[i], NULL, sleeper, (void *)i);
	unblock(SIGINT);
	/* thread 0 unblocks it too, but is asleep; main waits in join */
	for (int i = 0; i < 100; i++)
		pthread_join(t[i], NULL);
	printf("SIGINT handler ran %d time(s), %s\n", atomic_load(&int_count),
	       atomic_load(&int_on_main) ? "on the main thread" : "not on the main thread");
	if (atomic_load(&int_count) != 1)
		return fail("sigint");
	printf("PASS sigint\n");
	return 0;
}

/* --- mask -------------------------------------------------------------------------------- */

static atomic_int usr2_count;
static _Atomic(pthread_t) usr2_on;
static pthread_barrier_t bar;

static void on_usr2(int sig)
{
	(void)sig;
	atomic_store(&usr2_on, pthread_self());
	atomic_fetch_add(&usr2_count, 1);
}

static void *masker(void *arg)
{
	(void)arg;
	block(SIGUSR2);
	pthread_barrier_wait(&bar);	/* 1: blocked */
	pthread_barrier_wait(&bar);	/* 2: main sent it */
	printf("blocking thread: SIGUSR2 %s, handler ran %d times\n",
	       is_pending(SIGUSR2) ? "pending" : "not pending", atomic_load(&usr2_count));
	pthread_barrier_wait(&bar);	/* 3: printed */
	pthread_barrier_wait(&bar);	/* 4: main looked at its own */
	unblock(SIGUSR2);
	printf("after unblocking: handler ran %d time(s), %s, %s pending\n",
	       atomic_load(&usr2_count),
	       pthread_equal(atomic_load(&usr2_on), pthread_self()) ? "on this thread" : "elsewhere",
	       is_pending(SIGUSR2) ? "still" : "no longer");
	block(SIGUSR2);
	raise(SIGUSR2);
	printf("raise while blocked: %s, handler ran %d time(s)\n",
	       is_pending(SIGUSR2) ? "pending" : "not pending", atomic_load(&usr2_count));
	unblock(SIGUSR2);
	printf("after unblocking: handler ran %d times\n", atomic_load(&usr2_count));
	return NULL;
}

static int mask_test(void)
{
	signal(SIGUSR2, on_usr2);
	pthread_barrier_init(&bar, NULL, 2);
	pthread_t t;
	pthread_create(&t, NULL, masker, NULL);
	pthread_barrier_wait(&bar);
	sigset_t mine;
	pthread_sigmask(SIG_BLOCK, NULL, &mine);
	printf("main: SIGUSR2 %s in its own mask\n",
	       sigismember(&mine, SIGUSR2) ? "blocked" : "not blocked");
	pthread_kill(t, SIGUSR2);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	printf("main: SIGUSR2 %s for main\n", is_pending(SIGUSR2) ? "pending" : "not pending");
	pthread_barrier_wait(&bar);
	pthread_join(t, NULL);
	if (atomic_load(&usr2_count) != 2)
		return fail("mask");
	printf("PASS mask\n");
	return 0;
}

/* --- suspend ------------------------------------------------------------------------------- */

static atomic_int suspended, usr1_count;

static void on_usr1_count(int sig)
{
	(void)sig;
	atomic_fetch_add(&usr1_count, 1);
}

static void *suspender(void *arg)
{
	(void)arg;
	block(SIGUSR1);
	sigset_t s;
	pthread_sigmask(SIG_BLOCK, NULL, &s);
	sigdelset(&s, SIGUSR1);
	atomic_store(&suspended, 1);
	errno = 0;
	int r = sigsuspend(&s);
	int e = errno;
	printf("sigsuspend: %d %s, handler ran %d time(s), SIGUSR1 blocked again: %s\n", r,
	       e == EINTR ? "EINTR" : strerror(e), atomic_load(&usr1_count),
	       (pthread_sigmask(SIG_BLOCK, NULL, &s), sigismember(&s, SIGUSR1)) ? "yes" : "no");
	unblock(SIGUSR1);
	atomic_store(&suspended, 2);
	errno = 0;
	r = pause();
	e = errno;
	printf("pause: %d %s, handler ran %d times\n", r, e == EINTR ? "EINTR" : strerror(e),
	       atomic_load(&usr1_count));
	return NULL;
}

static int suspend_test(void)
{
	signal(SIGUSR1, on_usr1_count);
	pthread_t t;
	pthread_create(&t, NULL, suspender, NULL);
	while (atomic_load(&suspended) != 1)
		sleep_ms(1);
	sleep_ms(20);
	pthread_kill(t, SIGUSR1);
	while (atomic_load(&suspended) != 2)
		sleep_ms(1);
	sleep_ms(20);
	pthread_kill(t, SIGUSR1);
	pthread_join(t, NULL);
	if (atomic_load(&usr1_count) != 2)
		return fail("suspend");
	printf("PASS suspend\n");
	return 0;
}

/* --- timedwait ------------------------------------------------------------------------------ */

static void *spinner(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

static int timedwait_test(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGUSR1);
	sigaddset(&s, SIGURG);
	pthread_sigmask(SIG_BLOCK, &s, NULL);
	pthread_t sp[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&sp[i], NULL, spinner, NULL);
	struct timespec t0, t1, to = {0, 300000000};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	siginfo_t info;
	errno = 0;
	int r = sigtimedwait(&s, &info, &to);
	int e = errno;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("sigtimedwait for SIGUSR1 or SIGURG, 300 ms, 3 threads spinning: %d %s, %s\n", r,
	       e == EAGAIN ? "EAGAIN" : strerror(e), ms >= 299 ? "not early" : "early");
	printf("SIGURG pending: %s\n", is_pending(SIGURG) ? "yes" : "no");
	raise(SIGUSR1);
	to.tv_sec = 5;
	r = sigtimedwait(&s, &info, &to);
	printf("after raise(SIGUSR1): %d (%s), si_code %d, si_pid ours: %s\n", r,
	       r == SIGUSR1 ? "SIGUSR1" : "?", info.si_code, info.si_pid == getpid() ? "yes" : "no");
	atomic_store(&stop, 1);
	for (int i = 0; i < 3; i++)
		pthread_join(sp[i], NULL);
	if (r != SIGUSR1 || e != EAGAIN)
		return fail("timedwait");
	printf("PASS timedwait\n");
	return 0;
}

/* --- waitpid, vfork ----------------------------------------------------------------------- */

static _Atomic(pthread_t) usr1_on;

static void on_usr1_where(int sig)
{
	(void)sig;
	atomic_store(&usr1_on, pthread_self());
	atomic_fetch_add(&usr1_count, 1);
}

static void *kill_later(void *arg)
{
	(void)arg;
	sleep_ms(50);
	kill(getpid(), SIGUSR1);
	return NULL;
}

static int waitpid_test(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1_where;	/* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	block(SIGUSR1);	/* only the main thread takes it */
	pid_t pid = fork();
	if (pid == 0) {
		sleep_ms(1000);
		_exit(0);
	}
	pthread_t t;
	pthread_create(&t, NULL, kill_later, NULL);
	unblock(SIGUSR1);
	int st;
	errno = 0;
	pid_t r = waitpid(pid, &st, 0);
	int e = errno;
	printf("waitpid: %d %s, handler ran %d time(s)%s\n", r == pid ? 1 : (int)r,
	       e == EINTR ? "EINTR" : strerror(e), atomic_load(&usr1_count),
	       pthread_equal(atomic_load(&usr1_on), pthread_self()) ? ", on the main thread" : "");
	pthread_join(t, NULL);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	if (r != -1 || e != EINTR || atomic_load(&usr1_count) != 1)
		return fail("waitpid");
	printf("PASS waitpid\n");
	return 0;
}

static int vfork_test(void)
{
	signal(SIGUSR1, on_usr1_where);
	block(SIGUSR1);
	raise(SIGUSR1);
	pid_t pid = vfork();
	if (pid == 0) {
		signal(SIGUSR1, SIG_DFL);
		sigset_t s;
		sigemptyset(&s);
		sigprocmask(SIG_SETMASK, &s, NULL);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("vfork child: %s\n", WIFEXITED(st) ? "exited 0" : WIFSIGNALED(st) ? "killed by a signal" : "?");
	struct sigaction cur;
	sigaction(SIGUSR1, NULL, &cur);
	printf("parent: handler %s, SIGUSR1 %s, handler ran %d times\n",
	       cur.sa_handler == on_usr1_where ? "kept" : "lost",
	       is_pending(SIGUSR1) ? "pending" : "not pending", atomic_load(&usr1_count));
	unblock(SIGUSR1);
	printf("after unblocking: handler ran %d time(s)\n", atomic_load(&usr1_count));
	if (!WIFEXITED(st) || atomic_load(&usr1_count) != 1)
		return fail("vfork");
	printf("PASS vfork\n");
	return 0;
}

static volatile sig_atomic_t chld_seen;
static void on_chld(int sig)
{
	(void)sig;
	chld_seen = 1;
}

static int lone_test(void)
{
	signal(SIGCHLD, on_chld);
	block(SIGCHLD);
	pid_t pid = fork();
	if (pid == 0) {
		sleep_ms(50);
		_exit(3);
	}
	sigset_t none;
	sigemptyset(&none);
	int r, e;
	do {
		errno = 0;
		r = sigsuspend(&none);
		e = errno;
	} while (!chld_seen && r == -1 && e == EINTR);
	int st;
	pid_t w = waitpid(pid, &st, 0);
	printf("sigsuspend: %d %s, SIGCHLD handled %d, child exit %d\n", r,
	       e == EINTR ? "EINTR" : strerror(e), (int)chld_seen,
	       w == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (!chld_seen || w != pid)
		return fail("lone");
	printf("PASS lone\n");
	return 0;
}

/* ---- a handler that blocks, on a thread waiting for a mutex ---- */

static pthread_mutex_t hb_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_t hb_waiter;
static pid_t hb_child;
static atomic_int hb_handled, hb_on_waiter, hb_got, hb_stop, hb_child_status = -1;
static atomic_long hb_polls, hb_polls_during;

static void hb_on_usr1(int sig)
{
	(void)sig;
	/* a blocking call no thread library sees, which the kernel
	 * restarts after a handler (wait4 on a child that sleeps 300 ms) */
	long before = atomic_load(&hb_polls);
	int st;
	if (syscall(SYS_wait4, hb_child, &st, 0, NULL) == hb_child && WIFEXITED(st))
		atomic_store(&hb_child_status, WEXITSTATUS(st));
	atomic_store(&hb_polls_during, atomic_load(&hb_polls) - before);
	atomic_store(&hb_on_waiter, pthread_equal(pthread_self(), hb_waiter));
	atomic_store(&hb_handled, 1);
}

static void *hb_wait(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&hb_mu);
	atomic_store(&hb_got, 1);
	pthread_mutex_unlock(&hb_mu);
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* spin 2 ms, then try the mutex for 1 ms, until told to stop */
static void *hb_poll(void *arg)
{
	(void)arg;
	while (!atomic_load(&hb_stop)) {
		double t0 = now_ms();
		while (now_ms() - t0 < 2)
			;
		struct timespec abs;
		clock_gettime(CLOCK_REALTIME, &abs);
		abs.tv_nsec += 1000000;
		if (abs.tv_nsec >= 1000000000) {
			abs.tv_sec++;
			abs.tv_nsec -= 1000000000;
		}
		if (pthread_mutex_timedlock(&hb_mu, &abs) == 0)
			return (void *)1;	/* main holds it throughout */
		atomic_fetch_add(&hb_polls, 1);
	}
	return NULL;
}

static int handlerblock_test(void)
{
	struct sigaction sa = {.sa_handler = hb_on_usr1, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	pthread_mutex_lock(&hb_mu);
	pthread_create(&hb_waiter, NULL, hb_wait, NULL);
	sleep_ms(50);
	pthread_t pollers[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&pollers[i], NULL, hb_poll, NULL);
	sleep_ms(20);
	hb_child = fork();
	if (hb_child == 0) {
		sleep_ms(300);
		_exit(7);
	}
	pthread_kill(hb_waiter, SIGUSR1);
	for (int k = 0; k < 5000 && !atomic_load(&hb_handled); k++)
		sleep_ms(1);
	sleep_ms(100);
	atomic_store(&hb_stop, 1);
	int stolen = 0;
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(pollers[i], &r);
		stolen += r != NULL;
	}
	int got_early = atomic_load(&hb_got);
	pthread_mutex_unlock(&hb_mu);
	pthread_join(hb_waiter, NULL);
	printf("handler ran on the waiter: %d, child exit status: %d, others ran meanwhile: %d, "
	       "mutex taken while held: %d, waiter got the mutex after the unlock: %d\n",
	       atomic_load(&hb_on_waiter), atomic_load(&hb_child_status),
	       atomic_load(&hb_polls_during) > 0, stolen || got_early, atomic_load(&hb_got));
	if (!atomic_load(&hb_on_waiter) || atomic_load(&hb_child_status) != 7 ||
	    atomic_load(&hb_polls_during) == 0 || stolen || got_early || !atomic_load(&hb_got))
		return fail("handlerblock");
	printf("PASS handlerblock\n");
	return 0;
}

/* --- term ---------------------------------------------------------------- */

static void *block_all(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;)
		pause();
	return arg;
}

static int term_test(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, block_all, NULL) != 0)
		return fail("pthread_create");
	sleep_ms(20);
	sem_t *sem = mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			  -1, 0);
	if (sem == MAP_FAILED || sem_init(sem, 1, 0) != 0)
		return fail("a process-shared semaphore");
	int died = 0;
	for (int r = 0; r < 20; r++) {
		pid_t c = fork();
		if (c < 0)
			return fail("fork");
		if (c == 0) {
			sigset_t none;
			sigemptyset(&none);
			for (int n = 0;; n++) {
				sigprocmask(SIG_SETMASK, &none, NULL);
				if (r % 2 && n % 1000 == 999 && sem_trywait(sem) != 0)
					sem_wait(sem);
			}
		}
		sleep_ms(10 + r);
		kill(c, SIGTERM);
		int st = 0;
		for (int ms = 0; ms < 5000; ms++) {
			if (waitpid(c, &st, WNOHANG) == c)
				break;
			sleep_ms(1);
		}
		if (waitpid(c, &st, WNOHANG) == 0) {
			kill(c, SIGKILL);
			waitpid(c, &st, 0);
			printf("child %d lived on after SIGTERM\n", r);
		} else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) {
			died++;
		}
	}
	printf("children of one thread, SIGTERM at its default action: %d of 20 died of it\n",
	       died);
	if (died != 20)
		return 1;
	printf("PASS term\n");
	return 0;
}

#define PEND_THREADS 4
#define PEND_ROUNDS 20000
static _Thread_local volatile sig_atomic_t pend_hits;

static void on_pend(int sig)
{
	(void)sig;
	pend_hits++;
}

static void *pend_loop(void *arg)
{
	long *bad = arg;
	sigset_t b;
	sigemptyset(&b);
	sigaddset(&b, SIGUSR2);
	for (int i = 0; i < PEND_ROUNDS; i++) {
		pthread_sigmask(SIG_BLOCK, &b, NULL);
		int before = pend_hits;
		raise(SIGUSR2);
		if (!is_pending(SIGUSR2))
			bad[0]++;
		pthread_sigmask(SIG_UNBLOCK, &b, NULL);
		if (pend_hits != before + 1)
			bad[1]++;
	}
	return NULL;
}

static int pendloop_test(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_pend;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL) != 0)
		return fail("pendloop");
	pthread_t t[PEND_THREADS];
	long bad[PEND_THREADS][2] = {{0}};
	for (int i = 0; i < PEND_THREADS; i++)
		if (pthread_create(&t[i], NULL, pend_loop, bad[i]) != 0)
			return fail("pendloop");
	long notpending = 0, notrun = 0;
	for (int i = 0; i < PEND_THREADS; i++) {
		if (pthread_join(t[i], NULL) != 0)
			return fail("pendloop");
		notpending += bad[i][0];
		notrun += bad[i][1];
	}
	printf("%d threads x %d raise while blocked: not pending %ld times, "
	       "handler not run at the unblock %ld times\n",
	       PEND_THREADS, PEND_ROUNDS, notpending, notrun);
	if (notpending || notrun)
		return fail("pendloop");
	printf("PASS pendloop\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(what, "kill") == 0)
		return kill_each();
	if (strcmp(what, "sigwait") == 0)
		return sigwait_test();
	if (strcmp(what, "sigint") == 0)
		return sigint_test();
	if (strcmp(what, "mask") == 0)
		return mask_test();
	if (strcmp(what, "pendloop") == 0)
		return pendloop_test();
	if (strcmp(what, "suspend") == 0)
		return suspend_test();
	if (strcmp(what, "timedwait") == 0)
		return timedwait_test();
	if (strcmp(what, "waitpid") == 0)
		return waitpid_test();
	if (strcmp(what, "vfork") == 0)
		return vfork_test();
	if (strcmp(what, "lone") == 0)
		return lone_test();
	if (strcmp(what, "handlerblock") == 0)
		return handlerblock_test();
	if (strcmp(what, "term") == 0)
		return term_test();
	fprintf(stderr, "usage: sig_signals kill|sigwait|sigint|mask|pendloop|suspend|timedwait|waitpid|vfork|lone|"
		"handlerblock|term\n");
	return 2;
}
