/*
 * tests/progs/tids.c — every thread has an id of its own, and the calls
 * that take one act on that thread. An ordinary pthread program.
 *
 *   tids ids        1,000 threads each read gettid() and
 *                   syscall(SYS_gettid), then yield 100 times (threads
 *                   move between processors) and read both again: every
 *                   id is constant, the two agree, no two live threads
 *                   share one, none is the process id but main's, which
 *                   is; set_tid_address gives the same id back
 *   tids tgkill     50 threads, half parked in pause() and half running
 *                   a loop that calls nothing: each is sent SIGUSR1 by
 *                   tgkill(getpid(), tid), syscall(SYS_tgkill) or
 *                   syscall(SYS_tkill) from main, and the handler runs on
 *                   that thread (pthread_self() in the handler); the id
 *                   of a thread that ended and was joined gives ESRCH
 *   tids affinity   main pins another thread to the last CPU with
 *                   sched_setaffinity(its tid): that thread then runs
 *                   only there (sched_getcpu), and sched_getaffinity and
 *                   syscall(SYS_sched_getaffinity) of its tid from main
 *                   give that mask; an id no thread has gives ESRCH
 *
 * Prints "PASS <what>" and exits 0, or says what went wrong and exits 1.
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/prctl.h>

/* ---- ids ---------------------------------------------------------------------- */

#define NIDS 1000
#define MOVES 100

static pthread_barrier_t all_read;
static int first_id[NIDS], last_id[NIDS];

static void *id_reader(void *arg)
{
	long k = (long)arg;
	int id = gettid();
	CHECK(syscall(SYS_gettid) == id, "thread %ld: syscall(SYS_gettid) %ld, gettid() %d", k,
	      syscall(SYS_gettid), id);
	first_id[k] = id;
	for (int i = 0; i < MOVES; i++) {
		sched_yield();
		CHECK(gettid() == id, "thread %ld: id %d became %d", k, id, gettid());
	}
	last_id[k] = (int)syscall(SYS_gettid);
	int *addr = NULL;
	CHECK(prctl(PR_GET_TID_ADDRESS, &addr) == 0, "PR_GET_TID_ADDRESS: %s", strerror(errno));
	long r = syscall(SYS_set_tid_address, addr);
	CHECK(r == id, "thread %ld: set_tid_address gave %ld, gettid() %d", k, r, id);
	/* all stay alive until every id is read: the ids of live threads */
	pthread_barrier_wait(&all_read);
	return NULL;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int ids(void)
{
	CHECK(gettid() == getpid(), "main's id %d is not the process id %d", gettid(), getpid());
	CHECK(syscall(SYS_gettid) == getpid(), "main's syscall(SYS_gettid) is not the process id");
	CHECK(pthread_barrier_init(&all_read, NULL, NIDS + 1) == 0, "pthread_barrier_init");
	static pthread_t th[NIDS];
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (long k = 0; k < NIDS; k++)
		CHECK(pthread_create(&th[k], &a, id_reader, (void *)k) == 0, "pthread_create %ld", k);
	pthread_barrier_wait(&all_read);
	for (int k = 0; k < NIDS; k++)
		CHECK(pthread_join(th[k], NULL) == 0, "pthread_join");
	static int sorted[NIDS + 1];
	for (int k = 0; k < NIDS; k++) {
		CHECK(first_id[k] == last_id[k], "thread %d: id %d, then %d", k, first_id[k],
		      last_id[k]);
		CHECK(first_id[k] > 0 && first_id[k] != getpid(), "thread %d has id %d", k,
		      first_id[k]);
		sorted[k] = first_id[k];
	}
	sorted[NIDS] = getpid();
	qsort(sorted, NIDS + 1, sizeof sorted[0], cmp_int);
	for (int k = 1; k <= NIDS; k++)
		CHECK(sorted[k] != sorted[k - 1], "two live threads have id %d", sorted[k]);
	printf("%d threads: ids distinct, constant over %d yields, gettid() = "
	       "syscall(SYS_gettid) = set_tid_address; main's is the process id\n", NIDS, MOVES);
	printf("PASS ids\n");
	return 0;
}

/* ---- tgkill -------------------------------------------------------------------- */

#define NKILL 50

static pthread_t kill_th[NKILL];
static _Atomic int kill_tid[NKILL];
static atomic_int kill_ready, handled, wrong = -1;
static _Atomic pthread_t expect;
static atomic_int stop;

static void on_usr1(int sig)
{
	(void)sig;
	if (!pthread_equal(pthread_self(), atomic_load(&expect)))
		atomic_store(&wrong, atomic_load(&handled));
	atomic_fetch_add(&handled, 1);
}

static void *kill_parked(void *arg)
{
	long k = (long)arg;
	atomic_store(&kill_tid[k], gettid());
	atomic_fetch_add(&kill_ready, 1);
	while (!atomic_load(&stop))
		pause();
	return NULL;
}

static void *kill_running(void *arg)
{
	long k = (long)arg;
	atomic_store(&kill_tid[k], gettid());
	atomic_fetch_add(&kill_ready, 1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

static long send_to(int how, int tid, int sig)
{
	if (how == 0)
		return tgkill(getpid(), tid, sig);
	if (how == 1)
		return syscall(SYS_tgkill, getpid(), tid, sig);
	return syscall(SYS_tkill, tid, sig);
}

static int tgkill_test(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	for (long k = 0; k < NKILL; k++)
		CHECK(pthread_create(&kill_th[k], NULL, k % 2 ? kill_running : kill_parked,
				     (void *)k) == 0, "pthread_create");
	while (atomic_load(&kill_ready) < NKILL)
		sched_yield();
	for (int k = 0; k < NKILL; k++) {
		int before = atomic_load(&handled);
		atomic_store(&expect, kill_th[k]);
		CHECK(send_to(k % 3, atomic_load(&kill_tid[k]), SIGUSR1) == 0,
		      "signal %d to thread %d: %s", k % 3, k, strerror(errno));
		double end = now_sec() + 10;
		while (atomic_load(&handled) == before && now_sec() < end)
			sched_yield();
		CHECK(atomic_load(&handled) == before + 1, "thread %d (%s): %d handlers ran", k,
		      k % 2 ? "running" : "parked", atomic_load(&handled) - before);
		CHECK(atomic_load(&wrong) < 0, "the signal for thread %d ran on another thread", k);
	}
	/* an existence check, then the id of a thread that is gone */
	CHECK(tgkill(getpid(), atomic_load(&kill_tid[0]), 0) == 0, "tgkill(sig 0): %s",
	      strerror(errno));
	atomic_store(&stop, 1);
	for (int k = 0; k < NKILL; k++) {
		if (k % 2 == 0)
			pthread_kill(kill_th[k], SIGUSR1);	/* out of pause() */
		CHECK(pthread_join(kill_th[k], NULL) == 0, "pthread_join");
	}
	errno = 0;
	CHECK(tgkill(getpid(), atomic_load(&kill_tid[1]), SIGUSR1) == -1 && errno == ESRCH,
	      "tgkill to an ended thread: errno %d", errno);
	printf("%d threads, parked and running, each ran its handler for tgkill, "
	       "SYS_tgkill and SYS_tkill to its id; an ended thread's id gives ESRCH\n", NKILL);
	printf("PASS tgkill\n");
	return 0;
}

/* ---- affinity ---------------------------------------------------------------------- */

static atomic_int pin_tid, pinned, pin_bad = -1;
static int pin_cpu;

static void *pin_me(void *arg)
{
	(void)arg;
	atomic_store(&pin_tid, gettid());
	while (!atomic_load(&pinned))
		sched_yield();
	/* moved at its next scheduling point, at the latest */
	sched_yield();
	for (int i = 0; i < 200; i++) {
		int cpu = sched_getcpu();
		if (cpu != pin_cpu)
			atomic_store(&pin_bad, cpu);
		sched_yield();
	}
	return NULL;
}

static int affinity(void)
{
	cpu_set_t all;
	CHECK(sched_getaffinity(0, sizeof all, &all) == 0, "sched_getaffinity: %s", strerror(errno));
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all))
			pin_cpu = c;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, pin_me, NULL) == 0, "pthread_create");
	while (!atomic_load(&pin_tid))
		sched_yield();
	int tid = atomic_load(&pin_tid);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(pin_cpu, &one);
	CHECK(sched_setaffinity(tid, sizeof one, &one) == 0, "sched_setaffinity(%d): %s", tid,
	      strerror(errno));
	cpu_set_t got;
	CHECK(sched_getaffinity(tid, sizeof got, &got) == 0, "sched_getaffinity(%d): %s", tid,
	      strerror(errno));
	CHECK(CPU_EQUAL(&got, &one), "sched_getaffinity(%d) is not the mask set", tid);
	CPU_ZERO(&got);
	long n = syscall(SYS_sched_getaffinity, tid, sizeof got, &got);
	CHECK(n > 0 && n <= (long)sizeof got, "syscall(SYS_sched_getaffinity) gave %ld: %s", n,
	      strerror(errno));
	CHECK(CPU_EQUAL(&got, &one), "syscall(SYS_sched_getaffinity, %d) is not the mask set", tid);
	/* main itself is not pinned */
	CHECK(sched_getaffinity(0, sizeof got, &got) == 0 && CPU_EQUAL(&got, &all),
	      "main's mask changed");
	atomic_store(&pinned, 1);
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	CHECK(atomic_load(&pin_bad) < 0, "the pinned thread ran on CPU %d, not %d",
	      atomic_load(&pin_bad), pin_cpu);
	errno = 0;
	CHECK(sched_setaffinity(0x7ffffff0, sizeof one, &one) == -1 && errno == ESRCH,
	      "sched_setaffinity of no thread: errno %d", errno);
	errno = 0;
	CHECK(sched_getaffinity(0x7ffffff0, sizeof got, &got) == -1 && errno == ESRCH,
	      "sched_getaffinity of no thread: errno %d", errno);
	printf("sched_setaffinity(tid) from main pinned that thread to the last CPU; "
	       "sched_getaffinity(tid) and its system call agree; no thread: ESRCH\n");
	printf("PASS affinity\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "ids") == 0)
		return ids();
	if (strcmp(what, "tgkill") == 0)
		return tgkill_test();
	if (strcmp(what, "affinity") == 0)
		return affinity();
	fprintf(stderr, "usage: tids ids|tgkill|affinity\n");
	return 2;
}
