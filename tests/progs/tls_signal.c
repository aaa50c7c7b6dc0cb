/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 13 — a signal handler runs as the thread it interrupted. The
 * SIGUSR1 handler records, in __thread variables, that it ran, its
 * pthread_self() and its OS thread, and sets errno to 4242. The
 * interrupted thread then checks its own __thread record and that errno
 * holds the handler's 4242 (the handler's errno is the thread's errno).
 *
 * Part 1, raise: 16 threads, after each switch (resuming maybe on another
 * OS thread), set errno to 0 and raise(SIGUSR1).
 *
 * Part 2, a signal from another thread (skipped with --raise-only, which
 * one processor needs): 4 threads in turn run 25 rounds each; a round
 * switches away, then publishes the thread's id (gettid) and spins
 * without calling anything until its handler has run. The main thread
 * claims the published id (so the spinner keeps spinning) and sends
 * SIGUSR1 to exactly that thread with tgkill. The handler must have run
 * as the spinning thread, with its id. A spinner whose id nobody claims
 * for a while withdraws it, switches away and publishes again.
 */
#include "tls_common.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>

#define NT 16
#define NR 50
#define NSPIN 4
#define NSPINR 25
#define MAGIC 4242
#define CLAIMED (1L << 62)

static __thread volatile sig_atomic_t tl_hits;
static __thread pthread_t tl_hself;
static __thread volatile int tl_htid, tl_hgid;

static void on_usr1(int sig)
{
	tl_hits++;
	tl_hself = pthread_self();
	tl_htid = os_tid();
	tl_hgid = gettid();
	errno = MAGIC;
}

static void *raiser(void *arg)
{
	long id = (long)arg;
	for (unsigned i = 0; tls_more(i, NR); i++) {
		tls_switch(i + (unsigned)id);
		int before = (int)tl_hits;
		errno = 0;
		CHECK(raise(SIGUSR1) == 0, "raise");
		int e = errno;
		CHECK(tl_hits == before + 1, "thread %ld: the handler did not run in this thread "
		      "before raise returned (%d runs)", id, (int)tl_hits - before);
		CHECK(e == MAGIC, "thread %ld: errno %d after the handler, want %d", id, e, MAGIC);
		CHECK(pthread_equal(tl_hself, pthread_self()), "thread %ld: pthread_self() in the "
		      "handler is another thread", id);
		CHECK(tl_htid == os_tid(), "thread %ld: raise ran the handler on OS thread %d, not %d",
		      id, tl_htid, os_tid());
	}
	return NULL;
}

static _Atomic long published;	/* round << 32 | thread id, | CLAIMED */
static _Atomic int rounds_done;
static long withdrawn;

static void *spinner(void *arg)
{
	long id = (long)arg;
	for (int r = 0; r < NSPINR; r++) {
		int round = (int)id * NSPINR + r + 1;
		for (unsigned k = 0;; k++) {
			tls_switch((unsigned)r + k);
			int hits = (int)tl_hits;
			errno = 0;
			int tid = gettid();
			long mine = (long)round << 32 | tid;
			published = mine;
			long spins = 0;
			while (tl_hits == hits) {
				if (++spins == (1L << 22)) {
					long expect = mine;
					if (atomic_compare_exchange_strong(&published, &expect, 0))
						break;	/* nobody claimed it: withdraw */
				}
			}
			if (tl_hits == hits) {
				__atomic_fetch_add(&withdrawn, 1, __ATOMIC_RELAXED);
				continue;
			}
			int e = errno;
			CHECK(tl_hits == hits + 1, "spinner %ld: %d handler runs", id, (int)tl_hits - hits);
			CHECK(e == MAGIC, "spinner %ld: errno %d after the handler, want %d", id, e, MAGIC);
			CHECK(pthread_equal(tl_hself, pthread_self()),
			      "spinner %ld: pthread_self() in the handler is another thread", id);
			CHECK(tl_hgid == tid, "spinner %ld: handler ran with id %d, signal sent to %d", id,
			      tl_hgid, tid);
			CHECK(gettid() == tid, "spinner %ld: its id changed while spinning", id);
			published = 0;
			rounds_done = round;
			break;
		}
	}
	return NULL;
}

static void send_rounds(long id)
{
	for (int r = 0; r < NSPINR; r++) {
		long round = id * NSPINR + r + 1;
		for (unsigned i = 0;; i++) {
			long v = published;
			if (v && !(v & CLAIMED) && v >> 32 == round &&
			    atomic_compare_exchange_strong(&published, &v, v | CLAIMED)) {
				int tid = (int)(v & 0xffffffff);
				CHECK(syscall(SYS_tgkill, getpid(), tid, SIGUSR1) == 0,
				      "tgkill to thread %d: %s", tid, strerror(errno));
				break;
			}
			sched_yield();
		}
		while (rounds_done != round)
			sched_yield();
	}
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	bool raise_only = argc > 1 && strcmp(argv[argc - 1], "--raise-only") == 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");

	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, raiser, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	printf("signals: %d threads x >= %d raise(SIGUSR1): handler ran as the raising thread, "
	       "its errno landed in the thread's errno\n",
	       NT, NR);

	if (!raise_only) {
		for (long s = 0; s < NSPIN; s++) {
			pthread_t sp;
			CHECK(pthread_create(&sp, NULL, spinner, (void *)s) == 0, "pthread_create");
			send_rounds(s);
			CHECK(pthread_join(sp, NULL) == 0, "pthread_join");
		}
		fprintf(stderr, "spinner ids withdrawn unclaimed: %ld\n", withdrawn);
		printf("signals: %d spinning threads x %d tgkill(SIGUSR1) to their id: "
		       "handler ran as the spinning thread, its errno landed in the thread's errno\n",
		       NSPIN, NSPINR);
	}
	if (tls_migration_verdict())
		return 1;
	printf("PASS signals\n");
	return 0;
}
