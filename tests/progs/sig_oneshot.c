/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sig_oneshot.c — one-shot signal handlers (SA_RESETHAND) and
 * SA_NODEFER, as the kernel does them. An ordinary pthread program, built
 * as a strict X/Open program (-std=c99 -D_XOPEN_SOURCE=700), where
 * <signal.h> makes `signal` System V's: __sysv_signal, whose handlers are
 * SA_RESETHAND | SA_NODEFER.
 *
 *   sig_oneshot ways     each way of installing a handler (sigaction with
 *                        SA_RESETHAND, with SA_RESETHAND | SA_NODEFER,
 *                        this program's signal, sysv_signal, bsd_signal,
 *                        ssignal, sigset, __sigaction) against each way a
 *                        signal arrives (raise; pthread_kill to a thread
 *                        sleeping, waiting on a condition variable, on a
 *                        mutex, in read(2); kill to the process while
 *                        only one thread takes it; a POSIX timer; an
 *                        interval timer's SIGALRM): one line each, with
 *                        how often the handler ran, whether on the thread
 *                        it was meant for, the action and the mask seen
 *                        inside the handler, and the action afterwards
 *   sig_oneshot second   SA_RESETHAND without SA_NODEFER: the handler
 *                        raises its signal again, which waits until the
 *                        handler returns and then ends the process
 *                        (SIGUSR1's default action)
 *   sig_oneshot nodefer  SA_RESETHAND | SA_NODEFER: a second signal
 *                        raised inside the handler ends the process at
 *                        once, before the handler goes on
 *   sig_oneshot alarm    signal(SIGALRM, h), alarm(1), sleep(5): the
 *                        handler runs, sleep returns early; a second
 *                        alarm during pause() ends the process (142)
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>

/* not declared for a strict X/Open program: glibc exports them all */
typedef void (*handler_t)(int);
extern handler_t sysv_signal(int, handler_t);
extern handler_t bsd_signal(int, handler_t);
extern handler_t ssignal(int, handler_t);
extern int __sigaction(int, const struct sigaction *, struct sigaction *);

#define CHECK(cond, what) do { \
	if (!(cond)) { \
		printf("FAIL: %s: %s (errno %d)\n", what, #cond, errno); \
		fflush(stdout); \
		exit(1); \
	} \
} while (0)

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* --- what the handler saw ----------------------------------------------------- */

static atomic_int ran;
static atomic_int dfl_inside = -1, blocked_inside = -1;
static pthread_t ran_on;

static void handler(int sig)
{
	struct sigaction now;
	sigset_t mask;
	int e = errno;
	sigaction(sig, NULL, &now);
	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	atomic_store(&dfl_inside, now.sa_handler == SIG_DFL);
	atomic_store(&blocked_inside, sigismember(&mask, sig));
	ran_on = pthread_self();
	atomic_fetch_add(&ran, 1);
	errno = e;
}

/* --- ways to install it ------------------------------------------------------- */

enum way { W_RESETHAND, W_RESETHAND_NODEFER, W_SIGNAL, W_SYSV, W_BSD, W_SSIGNAL, W_SIGSET,
	   W_UNDERSCORE, NWAYS };
static const char *way_name[NWAYS] = {
	"sigaction(SA_RESETHAND)", "sigaction(SA_RESETHAND|SA_NODEFER)", "signal (X/Open)",
	"sysv_signal", "bsd_signal", "ssignal", "sigset", "__sigaction(SA_RESETHAND)"};

static void install(enum way w, int sig)
{
	struct sigaction a;
	memset(&a, 0, sizeof a);
	a.sa_handler = handler;
	sigemptyset(&a.sa_mask);
	switch (w) {
	case W_RESETHAND:
		a.sa_flags = SA_RESETHAND | SA_RESTART;
		CHECK(sigaction(sig, &a, NULL) == 0, "sigaction");
		break;
	case W_RESETHAND_NODEFER:
		a.sa_flags = SA_RESETHAND | SA_NODEFER | SA_RESTART;
		CHECK(sigaction(sig, &a, NULL) == 0, "sigaction");
		break;
	case W_SIGNAL:
		CHECK(signal(sig, handler) != SIG_ERR, "signal");
		break;
	case W_SYSV:
		CHECK(sysv_signal(sig, handler) != SIG_ERR, "sysv_signal");
		break;
	case W_BSD:
		CHECK(bsd_signal(sig, handler) != SIG_ERR, "bsd_signal");
		break;
	case W_SSIGNAL:
		CHECK(ssignal(sig, handler) != SIG_ERR, "ssignal");
		break;
	case W_SIGSET:
		CHECK(sigset(sig, handler) != SIG_ERR, "sigset");
		break;
	case W_UNDERSCORE:
		a.sa_flags = SA_RESETHAND | SA_RESTART;
		CHECK(__sigaction(sig, &a, NULL) == 0, "__sigaction");
		break;
	default:
		break;
	}
}

/* --- ways it arrives ------------------------------------------------------------ */

enum route { R_RAISE, R_SLEEPING, R_CONDVAR, R_MUTEX, R_READ, R_PROCESS, R_TIMER, R_ITIMER,
	     NROUTES };
static const char *route_name[NROUTES] = {
	"raise", "pthread_kill to a sleeper", "pthread_kill to a condvar waiter",
	"pthread_kill to a mutex waiter", "pthread_kill to a reader", "kill to the process",
	"timer_create", "setitimer"};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int pipefd[2];
static atomic_int ready;

/* Wait (up to 5 s) until the handler has run once. */
static int await_handler(void)
{
	for (int i = 0; i < 5000 && atomic_load(&ran) == 0; i++)
		sleep_ms(1);
	return atomic_load(&ran);
}

static void *sleeper(void *arg)
{
	atomic_store(&ready, 1);
	while (atomic_load(&ran) == 0)
		sleep_ms(2);
	return NULL;
}

static void *cond_waiter(void *arg)
{
	CHECK(pthread_mutex_lock(&mu) == 0, "lock");
	atomic_store(&ready, 1);
	while (atomic_load(&ran) == 0) {
		struct timespec t;
		clock_gettime(CLOCK_REALTIME, &t);
		t.tv_nsec += 20000000;
		if (t.tv_nsec >= 1000000000) {
			t.tv_sec++;
			t.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&cv, &mu, &t);
	}
	CHECK(pthread_mutex_unlock(&mu) == 0, "unlock");
	return NULL;
}

static void *mutex_waiter(void *arg)
{
	atomic_store(&ready, 1);
	CHECK(pthread_mutex_lock(&held) == 0, "lock held");	/* main unlocks it */
	CHECK(pthread_mutex_unlock(&held) == 0, "unlock held");
	return NULL;
}

static void *reader(void *arg)
{
	char c;
	atomic_store(&ready, 1);
	for (;;) {
		ssize_t r = read(pipefd[0], &c, 1);
		if (r == 1)
			break;
		CHECK(r < 0 && errno == EINTR, "read");
	}
	return NULL;
}

/* Every thread but the taker blocks sig: a process signal goes to it. */
static void *taker(void *arg)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, *(int *)arg);
	CHECK(pthread_sigmask(SIG_UNBLOCK, &s, NULL) == 0, "unblock");
	atomic_store(&ready, 1);
	while (atomic_load(&ran) == 0)
		sleep_ms(2);
	return NULL;
}

static void start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	atomic_store(&ready, 0);
	CHECK(pthread_create(t, NULL, fn, arg) == 0, "pthread_create");
	while (!atomic_load(&ready))
		sleep_ms(1);
	sleep_ms(5);	/* most likely waiting by now; the result is the same if not */
}

/* One way against one route; prints what happened. */
static void one(enum way w, enum route r)
{
	int sig = r == R_ITIMER ? SIGALRM : SIGUSR1;
	pthread_t t = pthread_self(), want = pthread_self();
	sigset_t s, old;
	bool thread = false;

	atomic_store(&ran, 0);
	atomic_store(&dfl_inside, -1);
	atomic_store(&blocked_inside, -1);
	install(w, sig);
	switch (r) {
	case R_RAISE:
		CHECK(raise(sig) == 0, "raise");
		break;
	case R_SLEEPING:
	case R_CONDVAR:
	case R_READ:
		start(&t, r == R_SLEEPING ? sleeper : r == R_CONDVAR ? cond_waiter : reader, NULL);
		thread = true;
		want = t;
		CHECK(pthread_kill(t, sig) == 0, "pthread_kill");
		break;
	case R_MUTEX:
		CHECK(pthread_mutex_lock(&held) == 0, "lock held");
		start(&t, mutex_waiter, NULL);
		thread = true;
		want = t;
		CHECK(pthread_kill(t, sig) == 0, "pthread_kill");
		break;
	case R_PROCESS:
		sigemptyset(&s);
		sigaddset(&s, sig);
		CHECK(pthread_sigmask(SIG_BLOCK, &s, &old) == 0, "block");
		start(&t, taker, &sig);
		thread = true;
		want = t;
		CHECK(kill(getpid(), sig) == 0, "kill");
		break;
	case R_TIMER: {
		timer_t tm;
		struct sigevent ev;
		memset(&ev, 0, sizeof ev);
		ev.sigev_notify = SIGEV_SIGNAL;
		ev.sigev_signo = sig;
		struct itimerspec its = {{0, 0}, {0, 10000000}};
		CHECK(timer_create(CLOCK_MONOTONIC, &ev, &tm) == 0, "timer_create");
		CHECK(timer_settime(tm, 0, &its, NULL) == 0, "timer_settime");
		await_handler();
		CHECK(timer_delete(tm) == 0, "timer_delete");
		break;
	}
	case R_ITIMER: {
		struct itimerval iv = {{0, 0}, {0, 10000}};
		CHECK(setitimer(ITIMER_REAL, &iv, NULL) == 0, "setitimer");
		break;
	}
	default:
		break;
	}
	int n = await_handler();
	if (r == R_MUTEX)
		CHECK(pthread_mutex_unlock(&held) == 0, "unlock held");
	if (r == R_READ)
		CHECK(write(pipefd[1], "x", 1) == 1, "write");
	if (thread)
		CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	if (r == R_PROCESS)
		CHECK(pthread_sigmask(SIG_SETMASK, &old, NULL) == 0, "restore mask");
	struct sigaction after;
	CHECK(sigaction(sig, NULL, &after) == 0, "sigaction query");
	printf("%s, %s: ran %d%s; inside: %s, %s; after: %s\n", way_name[w], route_name[r], n,
	       n && pthread_equal(ran_on, want) ? " on its thread" : " elsewhere",
	       atomic_load(&dfl_inside) == 1 ? "SIG_DFL" : "the handler",
	       atomic_load(&blocked_inside) == 1 ? "blocked" : "not blocked",
	       after.sa_handler == SIG_DFL ? "SIG_DFL" : after.sa_handler == handler ? "the handler"
										 : "other");
	fflush(stdout);
	/* back to the default action, unblocked, for the next round */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	CHECK(sigaction(sig, &dfl, NULL) == 0, "reset");
	sigemptyset(&s);
	sigaddset(&s, sig);
	CHECK(pthread_sigmask(SIG_UNBLOCK, &s, NULL) == 0, "unblock");
}

static int ways(void)
{
	CHECK(pipe(pipefd) == 0, "pipe");
	for (int w = 0; w < NWAYS; w++)
		for (int r = 0; r < NROUTES; r++)
			one((enum way)w, (enum route)r);
	return 0;
}

/* --- a second signal in the handler ------------------------------------------ */

static void raise_again(int sig)
{
	static const char in[] = "in the handler: raising it again\n";
	static const char out[] = "the handler returns\n";
	if (write(1, in, sizeof in - 1) < 0)
		_exit(3);
	raise(sig);
	if (write(1, out, sizeof out - 1) < 0)
		_exit(3);
}

static void *second_thread(void *arg)
{
	struct sigaction a;
	memset(&a, 0, sizeof a);
	a.sa_handler = raise_again;
	a.sa_flags = *(int *)arg;
	sigemptyset(&a.sa_mask);
	CHECK(sigaction(SIGUSR1, &a, NULL) == 0, "sigaction");
	CHECK(raise(SIGUSR1) == 0, "raise");
	printf("FAIL: the second SIGUSR1 did not end the process\n");
	fflush(stdout);
	exit(1);
}

/* In a thread, so that it is not the main thread's own signal. */
static int second(int flags)
{
	pthread_t t;
	CHECK(pthread_create(&t, NULL, second_thread, &flags) == 0, "pthread_create");
	pthread_join(t, NULL);
	return 1;
}

/* --- alarm, sleep and pause --------------------------------------------------- */

static void on_alarm(int sig)
{
	static const char msg[] = "the alarm handler ran\n";
	if (write(1, msg, sizeof msg - 1) < 0)
		_exit(3);
}

static void *idle_thread(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

static int alarm_test(void)
{
	pthread_t t;
	CHECK(pthread_create(&t, NULL, idle_thread, NULL) == 0, "pthread_create");
	CHECK(signal(SIGALRM, on_alarm) != SIG_ERR, "signal");
	alarm(1);
	unsigned left = sleep(5);
	printf("sleep ended early: %s\n", left >= 3 ? "yes" : "no");
	struct sigaction now;
	CHECK(sigaction(SIGALRM, NULL, &now) == 0, "sigaction query");
	printf("SIGALRM's action now: %s\n", now.sa_handler == SIG_DFL ? "SIG_DFL" : "the handler");
	fflush(stdout);
	alarm(1);
	pause();
	printf("FAIL: the second alarm did not end the process\n");
	return 1;
}

int main(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";
	int rc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(sub, "ways") == 0)
		rc = ways();
	else if (strcmp(sub, "second") == 0)
		rc = second(SA_RESETHAND);
	else if (strcmp(sub, "nodefer") == 0)
		rc = second(SA_RESETHAND | SA_NODEFER);
	else if (strcmp(sub, "alarm") == 0)
		rc = alarm_test();
	else {
		fprintf(stderr, "usage: sig_oneshot ways|second|nodefer|alarm\n");
		return 2;
	}
	if (rc == 0)
		printf("PASS %s\n", sub);
	return rc;
}
