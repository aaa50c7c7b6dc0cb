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
 *
 * Prints what it saw and "PASS <what>".
 */
#include "common.h"

/* the System V and BSD mask functions are what it tests */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include <errno.h>
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
	fprintf(stderr, "usage: posix_misc condcancel|semtimed|masks|sigorder\n");
	return 2;
}
