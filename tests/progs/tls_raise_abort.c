/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 21 — raise() and abort() in a thread.
 *
 * tls_raise_abort [--expect-migration]: 16 threads and the main thread,
 * after each switch (resuming maybe on another OS thread), raise(SIGUSR1).
 * The SA_SIGINFO handler must run synchronously, inside the raise call
 * (it sees the thread's "in raise" __thread flag set) and as the raising
 * thread (its pthread_self and __thread counter), with si_code SI_TKILL
 * and si_pid our pid; raise returns 0.
 *
 * tls_raise_abort abort: 8 threads keep switching away; another thread,
 * after a few switches, prints a line and calls abort(). The process must
 * end killed by SIGABRT (the test checks the wait status), never reaching
 * its final line.
 */
#include "tls_common.h"

#include <signal.h>

#define NT 16
#define NR 40

static __thread volatile int tl_in_raise, tl_seen_in_raise, tl_runs, tl_bad_info;
static __thread pthread_t tl_hself;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	tl_runs++;
	tl_seen_in_raise = tl_in_raise;
	tl_hself = pthread_self();
	if (si->si_code != SI_TKILL || si->si_pid != getpid() || si->si_signo != SIGUSR1)
		tl_bad_info = 1;
}

static void raise_rounds(long id)
{
	for (unsigned i = 0; tls_more(i, NR); i++) {
		tls_switch(i + (unsigned)id);
		int runs = tl_runs;
		tl_seen_in_raise = 0;
		tl_in_raise = 1;
		int r = raise(SIGUSR1);
		tl_in_raise = 0;
		CHECK(r == 0, "thread %ld: raise returned %d", id, r);
		CHECK(tl_runs == runs + 1, "thread %ld: the handler ran %d times in this thread", id,
		      tl_runs - runs);
		CHECK(tl_seen_in_raise == 1, "thread %ld: the handler did not run inside raise()", id);
		CHECK(pthread_equal(tl_hself, pthread_self()), "thread %ld: handler ran as another "
		      "thread", id);
		CHECK(!tl_bad_info, "thread %ld: wrong siginfo (si_code, si_pid or si_signo)", id);
	}
}

static void *raiser(void *arg)
{
	raise_rounds((long)arg);
	return NULL;
}

static int stop;

static void *busy(void *arg)
{
	for (unsigned i = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); i++)
		tls_switch(i);
	return NULL;
}

static void *aborter(void *arg)
{
	for (unsigned i = 0; i < 20; i++)
		tls_switch(i);
	printf("abort: calling abort() in a thread while 8 others run\n");
	fflush(stdout);
	abort();
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	if (argc > 1 && strcmp(argv[1], "abort") == 0) {
		pthread_t b[8], a;
		for (long i = 0; i < 8; i++)
			CHECK(pthread_create(&b[i], NULL, busy, (void *)i) == 0, "pthread_create");
		CHECK(pthread_create(&a, NULL, aborter, NULL) == 0, "pthread_create");
		pthread_join(a, NULL);
		__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
		printf("FAIL: abort() returned or the aborting thread ended\n");
		return 1;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_usr1;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, raiser, (void *)i) == 0, "pthread_create");
	raise_rounds(NT);
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	printf("raise: %d threads and main x >= %d raise(SIGUSR1): handler ran synchronously, as the "
	       "raising thread, siginfo SI_TKILL\n",
	       NT, NR);
	if (tls_migration_verdict())
		return 1;
	printf("PASS raise\n");
	return 0;
}
