/* SPDX-License-Identifier: MIT */
/* Signals and sleeps: a handler interrupts a sleep with EINTR and the time
 * left; a process-directed signal interrupts the main thread's sleep and
 * runs its handler there; pthread_kill interrupts that thread's sleep and
 * nobody else's; joins are not interrupted; sigaction reports the
 * program's own actions. Output is compared with NPTL's. */
#include "common.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/time.h>

static pthread_t main_thread;
static atomic_int hits, hits_off_target;
static _Atomic(pthread_t) expect_on;
static atomic_int stop_sending;

static void on_sig(int sig)
{
	int e = errno;
	atomic_fetch_add(&hits, 1);
	if (!pthread_equal(pthread_self(), atomic_load(&expect_on)))
		atomic_fetch_add(&hits_off_target, 1);
	errno = e;
}

static void h1(int sig) {}
static void h2(int sig) {}

/* Keeps signalling (process, or one thread) until told to stop: one of
 * the signals lands while the target sleeps, whatever the timing. */
static pthread_t send_to;
static void *sender(void *arg)
{
	int process = arg != NULL;
	while (!atomic_load(&stop_sending)) {
		if (process)
			kill(getpid(), SIGUSR1);
		else
			pthread_kill(send_to, SIGUSR1);
		usleep(10000);
	}
	return NULL;
}

static void alarm_sleeps(void)
{
	struct itimerval it = {{0, 0}, {0, 200000}};
	setitimer(ITIMER_REAL, &it, NULL);
	unsigned left = sleep(3);
	printf("sleep(3) interrupted at 0.2 s: returns %s\n", left >= 1 && left < 3 ? "1 or 2" : "other");
	setitimer(ITIMER_REAL, &it, NULL);
	struct timespec req = {2, 0}, rem = {0, 0};
	int r = nanosleep(&req, &rem);
	printf("nanosleep: %d %s, time left between 0 and 2 s: %s\n", r, errno == EINTR ? "EINTR" : "?",
	       (rem.tv_sec > 0 || rem.tv_nsec > 0) && rem.tv_sec < 2 ? "yes" : "no");
	setitimer(ITIMER_REAL, &it, NULL);
	r = usleep(2000000);
	printf("usleep: %d %s\n", r, errno == EINTR ? "EINTR" : "?");
	setitimer(ITIMER_REAL, &it, NULL);
	rem.tv_sec = rem.tv_nsec = 0;
	r = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem);
	printf("clock_nanosleep: %s, time left: %s\n", r == EINTR ? "EINTR" : "?",
	       (rem.tv_sec > 0 || rem.tv_nsec > 0) ? "yes" : "no");
	setitimer(ITIMER_REAL, &it, NULL);
	struct timespec abs;
	clock_gettime(CLOCK_REALTIME, &abs);
	abs.tv_sec += 2;
	r = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &abs, NULL);
	printf("clock_nanosleep absolute: %s\n", r == EINTR ? "EINTR" : "?");
}

static atomic_int sleeper_result = -1, sleeper_ready;
static void *quiet_sleeper(void *arg)
{
	atomic_store(&sleeper_ready, 1);
	struct timespec req = {0, 300000000};
	atomic_store(&sleeper_result, nanosleep(&req, NULL));
	return NULL;
}

static void *target_sleeper(void *arg)
{
	struct timespec req = {10, 0};
	int r = nanosleep(&req, NULL);
	return (void *)(long)(r == -1 && errno == EINTR);
}

static void *slow(void *arg)
{
	usleep(300000);
	return (void *)7L;
}

int main(void)
{
	main_thread = pthread_self();
	struct sigaction sa = {0}, old;
	sa.sa_handler = on_sig;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	atomic_store(&expect_on, main_thread);

	alarm_sleeps();

	/* a process signal interrupts main's sleep, not the other sleeper's */
	pthread_t q, s;
	pthread_create(&q, NULL, quiet_sleeper, NULL);
	while (!atomic_load(&sleeper_ready))
		usleep(1000);
	atomic_store(&stop_sending, 0);
	pthread_create(&s, NULL, sender, (void *)1);
	struct timespec req = {10, 0};
	int r = nanosleep(&req, NULL);
	int e = errno;
	atomic_store(&stop_sending, 1);
	pthread_join(s, NULL);
	pthread_join(q, NULL);
	printf("process signal: main's nanosleep %d %s; handler off main: %d\n", r,
	       e == EINTR ? "EINTR" : "?", atomic_load(&hits_off_target));
	printf("other thread's sleep completed: %d\n", atomic_load(&sleeper_result));

	/* pthread_kill interrupts exactly that thread's sleep */
	pthread_t t;
	pthread_create(&t, NULL, target_sleeper, NULL);
	atomic_store(&expect_on, t);
	atomic_store(&hits_off_target, 0);
	send_to = t;
	atomic_store(&stop_sending, 0);
	pthread_create(&s, NULL, sender, NULL);
	void *res;
	pthread_join(t, &res);
	atomic_store(&stop_sending, 1);
	pthread_join(s, NULL);
	printf("pthread_kill: target's nanosleep EINTR: %ld; handler off target: %d\n", (long)res,
	       atomic_load(&hits_off_target));

	/* a join is not interrupted */
	atomic_store(&expect_on, main_thread);
	pthread_create(&t, NULL, slow, NULL);
	atomic_store(&stop_sending, 0);
	pthread_create(&s, NULL, sender, (void *)1);
	r = pthread_join(t, &res);
	atomic_store(&stop_sending, 1);
	pthread_join(s, NULL);
	printf("join during signals: %d, value %ld\n", r, (long)res);

	/* the program's own actions come back */
	sa.sa_handler = h1;
	sigaction(SIGUSR2, &sa, NULL);
	sa.sa_handler = h2;
	sigaction(SIGUSR2, &sa, &old);
	printf("old action is h1: %d\n", old.sa_handler == h1);
	printf("signal() returns h2: %d\n", signal(SIGUSR2, SIG_IGN) == h2);
	sigaction(SIGUSR2, NULL, &old);
	printf("now ignored: %d\n", old.sa_handler == SIG_IGN);
	sa.sa_handler = h1;
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);
	sigaction(SIGUSR2, NULL, &old);
	printf("SA_RESETHAND: default after one delivery: %d\n", old.sa_handler == SIG_DFL);
	printf("sigaction(0): %d\n", sigaction(0, &sa, NULL) == -1 && errno == EINVAL);
	printf("DONE\n");
	return 0;
}
