/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/posix_pshared.c — process-shared objects: waits that end by
 * cancellation, a timeout or a signal, and waits across processes. An
 * ordinary pthread program; every object lives in MAP_SHARED memory.
 *
 *   posix_pshared cancel   a thread cancelled while it waits on a
 *                          process-shared condition variable (realtime
 *                          and monotonic clocks, with and without a
 *                          deadline), semaphore (sem_wait, sem_timedwait,
 *                          a named one) ends PTHREAD_CANCELED; the
 *                          condition variable's cleanup handler runs with
 *                          the mutex held, and another waiter is not
 *                          disturbed for good
 *   posix_pshared timeout  a condition variable, a semaphore, a mutex and
 *                          an rwlock held elsewhere time out with
 *                          ETIMEDOUT
 *   posix_pshared signal   a handler without SA_RESTART ends sem_wait with
 *                          EINTR; one with SA_RESTART does not (the wait
 *                          goes on and takes the post), but ends
 *                          sem_timedwait; a condition wait goes on
 *   posix_pshared procs    two processes pass a token 2,000 times through
 *                          two semaphores; 3 processes of 4 waiters each
 *                          wait on one condition variable and a broadcast
 *                          wakes all 12; a mutex counts 3 x 20,000
 *                          increments from 3 processes
 *   posix_pshared owners   objects that record their owner's thread id:
 *                          a robust mutex (plain and priority-inheritance)
 *                          whose owner ends (a process killed with its
 *                          main thread or another thread the owner, a
 *                          process that exits, a thread that ends) gives
 *                          the next locker EOWNERDEAD; a priority-
 *                          inheritance mutex counts 2 x 2 x 5,000
 *                          increments from 2 processes; a recursive and an
 *                          error-checking mutex and an rwlock, used by the
 *                          first thread each of 2 processes creates, let
 *                          one in at a time and never answer EDEADLK
 *                          (a second argument, robust, pi or one, runs
 *                          that part alone)
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/wait.h>

struct shared {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_rwlock_t rw;
	sem_t sem, ping, pong;
	atomic_int waiting, woken, ready;
	long counter;
};

static struct shared *sh;

static struct shared *map_shared(void)
{
	struct shared *p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				-1, 0);
	CHECK(p != MAP_FAILED, "mmap: %s", strerror(errno));
	return p;
}

/* The objects afresh; cond_clock: the condition variable's clock. */
static void init_objects(clockid_t cond_clock)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_rwlockattr_t ra;
	CHECK(pthread_mutexattr_init(&ma) == 0, "mutexattr_init");
	CHECK(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED) == 0, "setpshared");
	CHECK(pthread_mutex_init(&sh->mu, &ma) == 0, "mutex_init");
	CHECK(pthread_condattr_init(&ca) == 0, "condattr_init");
	CHECK(pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED) == 0, "setpshared");
	CHECK(pthread_condattr_setclock(&ca, cond_clock) == 0, "setclock");
	CHECK(pthread_cond_init(&sh->cv, &ca) == 0, "cond_init");
	CHECK(pthread_rwlockattr_init(&ra) == 0, "rwlockattr_init");
	CHECK(pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED) == 0, "setpshared");
	CHECK(pthread_rwlock_init(&sh->rw, &ra) == 0, "rwlock_init");
	CHECK(sem_init(&sh->sem, 1, 0) == 0, "sem_init");
	CHECK(sem_init(&sh->ping, 1, 0) == 0, "sem_init");
	CHECK(sem_init(&sh->pong, 1, 0) == 0, "sem_init");
	atomic_store(&sh->waiting, 0);
	atomic_store(&sh->woken, 0);
	atomic_store(&sh->ready, 0);
	sh->counter = 0;
}

static struct timespec in_ms(clockid_t clk, long ms)
{
	struct timespec t;
	clock_gettime(clk, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000;
	if (t.tv_nsec >= 1000000000) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000;
	}
	return t;
}

static void sleep_ms(long ms)
{
	struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/* Wait (at most 10 s) until n threads said they are about to wait, then
 * a little more: most likely they wait in the kernel by then (the
 * results are the same when not). */
static void await_waiting(int n)
{
	double end = now_sec() + 10;
	while (atomic_load(&sh->waiting) < n) {
		CHECK(now_sec() < end, "only %d of %d waiting", atomic_load(&sh->waiting), n);
		sleep_ms(1);
	}
	sleep_ms(30);
}

/* --- cancel -------------------------------------------------------------------- */

enum how { H_COND, H_COND_TIMED, H_SEM, H_SEM_TIMED, H_SEM_NAMED, NHOW };
static const char *how_name[NHOW] = {"pthread_cond_wait", "pthread_cond_timedwait", "sem_wait",
				     "sem_timedwait", "sem_wait (named)"};
static clockid_t cond_clock;
static sem_t *named;
static atomic_int cleanup_held;	/* the cleanup handler found the mutex held: 1, free: 0 */

static void cond_cleanup(void *arg)
{
	/* the cancelled waiter holds the mutex again */
	atomic_store(&cleanup_held, pthread_mutex_trylock(&sh->mu) == EBUSY);
	CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock in cleanup");
}

static void *cancel_waiter(void *arg)
{
	enum how h = (enum how)(long)arg;
	struct timespec t = in_ms(h == H_COND_TIMED ? cond_clock : CLOCK_REALTIME, 60000);
	switch (h) {
	case H_COND:
	case H_COND_TIMED:
		CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
		pthread_cleanup_push(cond_cleanup, NULL);
		atomic_fetch_add(&sh->waiting, 1);
		for (;;) {
			int r = h == H_COND ? pthread_cond_wait(&sh->cv, &sh->mu)
					    : pthread_cond_timedwait(&sh->cv, &sh->mu, &t);
			CHECK(r == 0, "cond wait: %s", strerror(r));
		}
		pthread_cleanup_pop(1);
		break;
	case H_SEM:
	case H_SEM_TIMED:
	case H_SEM_NAMED: {
		sem_t *s = h == H_SEM_NAMED ? named : &sh->sem;
		atomic_fetch_add(&sh->waiting, 1);
		for (;;) {
			int r = h == H_SEM_TIMED ? sem_timedwait(s, &t) : sem_wait(s);
			CHECK(r == 0 || errno == EINTR, "sem wait: %s", strerror(errno));
		}
		break;
	}
	default:
		break;
	}
	return NULL;
}

/* A second waiter on the condition variable, which a broadcast (if any)
 * does not end: it goes back to waiting and is then signalled. */
static void *patient(void *arg)
{
	CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
	atomic_fetch_add(&sh->waiting, 1);
	while (atomic_load(&sh->ready) == 0)
		CHECK(pthread_cond_wait(&sh->cv, &sh->mu) == 0, "cond_wait");
	atomic_fetch_add(&sh->woken, 1);
	CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock");
	return NULL;
}

static void cancel_one(enum how h, clockid_t clk)
{
	cond_clock = clk;
	init_objects(clk);
	atomic_store(&cleanup_held, -1);
	pthread_t t, p;
	bool cond = h == H_COND || h == H_COND_TIMED;
	if (cond)
		CHECK(pthread_create(&p, NULL, patient, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&t, NULL, cancel_waiter, (void *)(long)h) == 0, "pthread_create");
	await_waiting(cond ? 2 : 1);
	CHECK(pthread_cancel(t) == 0, "pthread_cancel");
	void *res;
	CHECK(pthread_join(t, &res) == 0, "pthread_join");
	printf("%s%s: %s", how_name[h],
	       cond ? (clk == CLOCK_MONOTONIC ? " (CLOCK_MONOTONIC)" : " (CLOCK_REALTIME)") : "",
	       res == PTHREAD_CANCELED ? "cancelled" : "not cancelled");
	if (cond) {
		printf(", its cleanup ran %s the mutex", atomic_load(&cleanup_held) == 1 ? "holding"
							 : atomic_load(&cleanup_held) == 0 ? "without"
											    : "never with");
		CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
		atomic_store(&sh->ready, 1);
		CHECK(pthread_cond_signal(&sh->cv) == 0, "signal");
		CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock");
		CHECK(pthread_join(p, NULL) == 0, "join");
		printf("; the other waiter woke %d time(s)", atomic_load(&sh->woken));
	}
	printf("\n");
}

static int cancel_test(void)
{
	cancel_one(H_COND, CLOCK_REALTIME);
	cancel_one(H_COND, CLOCK_MONOTONIC);
	cancel_one(H_COND_TIMED, CLOCK_REALTIME);
	cancel_one(H_COND_TIMED, CLOCK_MONOTONIC);
	cancel_one(H_SEM, CLOCK_REALTIME);
	cancel_one(H_SEM_TIMED, CLOCK_REALTIME);
	char name[64];
	snprintf(name, sizeof name, "/gmp-pshared-%d", (int)getpid());
	named = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
	CHECK(named != SEM_FAILED, "sem_open: %s", strerror(errno));
	sem_unlink(name);
	cancel_one(H_SEM_NAMED, CLOCK_REALTIME);
	sem_close(named);
	return 0;
}

/* --- timeout ------------------------------------------------------------------- */

static void *holder(void *arg)
{
	CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
	CHECK(pthread_rwlock_wrlock(&sh->rw) == 0, "wrlock");
	atomic_fetch_add(&sh->waiting, 1);
	while (!atomic_load(&sh->ready))
		sleep_ms(1);
	CHECK(pthread_rwlock_unlock(&sh->rw) == 0, "unlock");
	CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock");
	return NULL;
}

static int timeout_test(void)
{
	init_objects(CLOCK_MONOTONIC);
	struct timespec t = in_ms(CLOCK_MONOTONIC, 50);
	CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
	int r = pthread_cond_timedwait(&sh->cv, &sh->mu, &t);
	printf("pthread_cond_timedwait: %s\n", strerror(r));
	CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock");
	t = in_ms(CLOCK_REALTIME, 50);
	r = sem_timedwait(&sh->sem, &t);
	printf("sem_timedwait: %s\n", r ? strerror(errno) : "taken");
	t = in_ms(CLOCK_MONOTONIC, 50);
	r = sem_clockwait(&sh->sem, CLOCK_MONOTONIC, &t);
	printf("sem_clockwait: %s\n", r ? strerror(errno) : "taken");
	pthread_t h;
	CHECK(pthread_create(&h, NULL, holder, NULL) == 0, "pthread_create");
	await_waiting(1);
	t = in_ms(CLOCK_REALTIME, 50);
	printf("pthread_mutex_timedlock: %s\n", strerror(pthread_mutex_timedlock(&sh->mu, &t)));
	t = in_ms(CLOCK_REALTIME, 50);
	printf("pthread_rwlock_timedrdlock: %s\n", strerror(pthread_rwlock_timedrdlock(&sh->rw, &t)));
	t = in_ms(CLOCK_MONOTONIC, 50);
	printf("pthread_rwlock_clockwrlock: %s\n",
	       strerror(pthread_rwlock_clockwrlock(&sh->rw, CLOCK_MONOTONIC, &t)));
	t.tv_nsec = 1000000000;
	printf("pthread_mutex_timedlock, tv_nsec 1e9: %s\n",
	       strerror(pthread_mutex_timedlock(&sh->mu, &t)));
	printf("pthread_mutex_clocklock, CLOCK_PROCESS_CPUTIME_ID: %s\n",
	       strerror(pthread_mutex_clocklock(&sh->mu, CLOCK_PROCESS_CPUTIME_ID, &t)));
	atomic_store(&sh->ready, 1);
	CHECK(pthread_join(h, NULL) == 0, "join");
	return 0;
}

/* --- signal -------------------------------------------------------------------- */

static atomic_int handled;
static void on_usr1(int sig)
{
	atomic_fetch_add(&handled, 1);
}

static atomic_int sem_result = -2, sem_errno;

static void *sem_waiter(void *arg)
{
	bool timed = arg != NULL;
	struct timespec t = in_ms(CLOCK_REALTIME, 60000);
	atomic_fetch_add(&sh->waiting, 1);
	int r = timed ? sem_timedwait(&sh->sem, &t) : sem_wait(&sh->sem);
	atomic_store(&sem_errno, r ? errno : 0);
	atomic_store(&sem_result, r);
	return NULL;
}

static void signal_one(bool restart, bool timed)
{
	struct sigaction a;
	memset(&a, 0, sizeof a);
	a.sa_handler = on_usr1;
	a.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&a.sa_mask);
	CHECK(sigaction(SIGUSR1, &a, NULL) == 0, "sigaction");
	init_objects(CLOCK_REALTIME);
	atomic_store(&handled, 0);
	atomic_store(&sem_result, -2);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, sem_waiter, timed ? (void *)1 : NULL) == 0, "pthread_create");
	await_waiting(1);
	CHECK(pthread_kill(t, SIGUSR1) == 0, "pthread_kill");
	double end = now_sec() + 10;
	while (atomic_load(&handled) == 0) {
		CHECK(now_sec() < end, "the handler never ran");
		sleep_ms(1);
	}
	sleep_ms(30);
	int before = atomic_load(&sem_result);
	CHECK(sem_post(&sh->sem) == 0, "sem_post");
	CHECK(pthread_join(t, NULL) == 0, "join");
	printf("%s, handler %s SA_RESTART: %s after the handler%s\n", timed ? "sem_timedwait" : "sem_wait",
	       restart ? "with" : "without",
	       before == -2 ? "still waiting" : before == 0 ? "returned 0" : strerror(atomic_load(&sem_errno)),
	       before == -2 ? (atomic_load(&sem_result) == 0 ? ", then took the post" : ", then failed") : "");
	int v;
	CHECK(sem_getvalue(&sh->sem, &v) == 0, "sem_getvalue");
	if (v > 0)
		CHECK(sem_trywait(&sh->sem) == 0, "sem_trywait");
}

static void *cond_waiter_sig(void *arg)
{
	CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
	atomic_fetch_add(&sh->waiting, 1);
	while (!atomic_load(&sh->ready))
		CHECK(pthread_cond_wait(&sh->cv, &sh->mu) == 0, "cond_wait");
	CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock");
	return NULL;
}

static int signal_test(void)
{
	signal_one(false, false);
	signal_one(true, false);
	signal_one(true, true);
	init_objects(CLOCK_REALTIME);
	atomic_store(&handled, 0);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, cond_waiter_sig, NULL) == 0, "pthread_create");
	await_waiting(1);
	CHECK(pthread_kill(t, SIGUSR1) == 0, "pthread_kill");
	while (atomic_load(&handled) == 0)
		sleep_ms(1);
	CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
	atomic_store(&sh->ready, 1);
	CHECK(pthread_cond_broadcast(&sh->cv) == 0, "broadcast");
	CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock");
	CHECK(pthread_join(t, NULL) == 0, "join");
	printf("pthread_cond_wait: the handler ran, the wait went on until the broadcast\n");
	return 0;
}

/* --- procs --------------------------------------------------------------------- */

#define ROUNDS 2000
#define INCS 20000

static void *cv_waiter(void *arg)
{
	CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
	atomic_fetch_add(&sh->waiting, 1);
	while (!atomic_load(&sh->ready))
		CHECK(pthread_cond_wait(&sh->cv, &sh->mu) == 0, "cond_wait");
	atomic_fetch_add(&sh->woken, 1);
	CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock");
	return NULL;
}

static int procs_test(void)
{
	init_objects(CLOCK_REALTIME);
	fflush(stdout);
	pid_t c = fork();
	CHECK(c >= 0, "fork");
	if (c == 0) {
		for (int i = 0; i < ROUNDS; i++) {
			CHECK(sem_wait(&sh->ping) == 0, "sem_wait");
			CHECK(sem_post(&sh->pong) == 0, "sem_post");
		}
		_exit(0);
	}
	for (int i = 0; i < ROUNDS; i++) {
		CHECK(sem_post(&sh->ping) == 0, "sem_post");
		CHECK(sem_wait(&sh->pong) == 0, "sem_wait");
	}
	int st;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child");
	printf("semaphore ping-pong between 2 processes: %d round trips\n", ROUNDS);

	pid_t kids[3];
	for (int k = 0; k < 3; k++) {
		kids[k] = fork();
		CHECK(kids[k] >= 0, "fork");
		if (kids[k] == 0) {
			pthread_t t[4];
			for (int i = 0; i < 4; i++)
				CHECK(pthread_create(&t[i], NULL, cv_waiter, NULL) == 0, "pthread_create");
			for (int i = 0; i < 4; i++)
				CHECK(pthread_join(t[i], NULL) == 0, "join");
			for (int i = 0; i < INCS; i++) {
				CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
				sh->counter++;
				CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock");
			}
			_exit(0);
		}
	}
	await_waiting(12);
	CHECK(pthread_mutex_lock(&sh->mu) == 0, "lock");
	atomic_store(&sh->ready, 1);
	CHECK(pthread_cond_broadcast(&sh->cv) == 0, "broadcast");
	CHECK(pthread_mutex_unlock(&sh->mu) == 0, "unlock");
	for (int k = 0; k < 3; k++)
		CHECK(waitpid(kids[k], &st, 0) == kids[k] && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "child %d", k);
	printf("a broadcast to 12 waiters in 3 processes woke %d\n", atomic_load(&sh->woken));
	printf("a mutex shared by 3 processes counted %ld increments\n", sh->counter);
	return 0;
}

/* --- owners --------------------------------------------------------------------- */

struct owned {
	pthread_mutex_t robust, pirobust, pi, rec, err;
	pthread_rwlock_t rw;
	atomic_int locked, inside[3], most, bad;
	long count;
};
static struct owned *ow;

static void init_mutex(pthread_mutex_t *m, int type, int protocol, int robust)
{
	pthread_mutexattr_t ma;
	CHECK(pthread_mutexattr_init(&ma) == 0, "mutexattr_init");
	CHECK(pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED) == 0, "setpshared");
	CHECK(pthread_mutexattr_settype(&ma, type) == 0, "settype");
	CHECK(pthread_mutexattr_setprotocol(&ma, protocol) == 0, "setprotocol");
	CHECK(pthread_mutexattr_setrobust(&ma, robust) == 0, "setrobust");
	CHECK(pthread_mutex_init(m, &ma) == 0, "mutex_init");
}

/* Locks the mutex, says so, and holds it until the process ends. */
static void *hold_forever(void *arg)
{
	CHECK(pthread_mutex_lock(arg) == 0, "lock");
	atomic_store(&ow->locked, 1);
	for (;;)
		pause();
	return NULL;
}

static void *hold_and_end(void *arg)
{
	CHECK(pthread_mutex_lock(arg) == 0, "lock");
	return NULL;
}

enum death { D_KILL_MAIN, D_KILL_THREAD, D_EXIT_THREAD, D_THREAD_ENDS, NDEATH };
static const char *death_name[NDEATH] = {
	"its process killed, the main thread the owner",
	"its process killed, another thread the owner",
	"its process exits, another thread the owner",
	"the owning thread ends",
};

/* The owner of m, in a child process (or a thread here), ends as `d`
 * says; the next lock here gets EOWNERDEAD, makes m consistent and
 * unlocks it. */
static void owner_dies(pthread_mutex_t *m, const char *what, enum death d)
{
	pthread_t t;
	if (d == D_THREAD_ENDS) {
		CHECK(pthread_create(&t, NULL, hold_and_end, m) == 0, "pthread_create");
		CHECK(pthread_join(t, NULL) == 0, "join");
	} else {
		atomic_store(&ow->locked, 0);
		fflush(stdout);
		pid_t c = fork();
		CHECK(c >= 0, "fork");
		if (c == 0) {
			if (d == D_KILL_MAIN) {
				CHECK(pthread_mutex_lock(m) == 0, "lock");
				raise(SIGKILL);
			}
			CHECK(pthread_create(&t, NULL, hold_forever, m) == 0, "pthread_create");
			while (!atomic_load(&ow->locked))
				sleep_ms(1);
			if (d == D_KILL_THREAD)
				raise(SIGKILL);
			exit(0);
		}
		int st;
		CHECK(waitpid(c, &st, 0) == c, "waitpid");
		CHECK(d == D_EXIT_THREAD ? WIFEXITED(st) && WEXITSTATUS(st) == 0
					 : WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
		      "child status %#x", st);
	}
	int r = pthread_mutex_lock(m);
	CHECK(r == EOWNERDEAD, "%s, %s: lock gave %s", what, death_name[d], strerror(r));
	CHECK(pthread_mutex_consistent(m) == 0, "consistent");
	CHECK(pthread_mutex_unlock(m) == 0, "unlock");
	printf("%s, %s: EOWNERDEAD, made consistent\n", what, death_name[d]);
}

static void *pi_counter(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5000; i++) {
		CHECK(pthread_mutex_lock(&ow->pi) == 0, "lock");
		ow->count++;
		if (i % 500 == 0)
			sleep_ms(1);	/* others queue in FUTEX_LOCK_PI */
		CHECK(pthread_mutex_unlock(&ow->pi) == 0, "unlock");
	}
	return NULL;
}

/* Inside object k's critical section for a moment. */
static void enter(int k)
{
	int n = atomic_fetch_add(&ow->inside[k], 1) + 1;
	int m = atomic_load(&ow->most);
	while (n > m && !atomic_compare_exchange_weak(&ow->most, &m, n))
		;
	struct timespec t = {0, 20000};
	nanosleep(&t, NULL);
	atomic_fetch_sub(&ow->inside[k], 1);
}

/* One of 2 processes' first threads: each object 1,000 times. */
static void *one_at_a_time(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		int r1 = pthread_mutex_lock(&ow->rec), r2 = pthread_mutex_lock(&ow->rec);
		if (r1 || r2)
			atomic_fetch_add(&ow->bad, 1);
		enter(0);
		pthread_mutex_unlock(&ow->rec);
		pthread_mutex_unlock(&ow->rec);
		if (pthread_mutex_lock(&ow->err) != 0)
			atomic_fetch_add(&ow->bad, 1);
		enter(1);
		if (pthread_mutex_unlock(&ow->err) != 0)
			atomic_fetch_add(&ow->bad, 1);
		if (pthread_rwlock_wrlock(&ow->rw) != 0)
			atomic_fetch_add(&ow->bad, 1);
		enter(2);
		if (pthread_rwlock_unlock(&ow->rw) != 0 || pthread_rwlock_rdlock(&ow->rw) != 0 ||
		    pthread_rwlock_unlock(&ow->rw) != 0)
			atomic_fetch_add(&ow->bad, 1);
	}
	return NULL;
}

/* Runs fn in 2 processes (this one and a child), `threads` threads each. */
static void in_two_processes(void *(*fn)(void *), int threads)
{
	fflush(stdout);
	pid_t c = fork();
	CHECK(c >= 0, "fork");
	pthread_t t[4];
	for (int i = 0; i < threads; i++)
		CHECK(pthread_create(&t[i], NULL, fn, NULL) == 0, "pthread_create");
	for (int i = 0; i < threads; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "join");
	if (c == 0)
		_exit(0);
	int st;
	CHECK(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %#x", st);
}

/* part: NULL for all, or robust, pi, one */
static int owners_test(const char *part)
{
	ow = mmap(NULL, sizeof *ow, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(ow != MAP_FAILED, "mmap: %s", strerror(errno));
	init_mutex(&ow->robust, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_NONE, PTHREAD_MUTEX_ROBUST);
	init_mutex(&ow->pirobust, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT, PTHREAD_MUTEX_ROBUST);
	init_mutex(&ow->pi, PTHREAD_MUTEX_NORMAL, PTHREAD_PRIO_INHERIT, PTHREAD_MUTEX_STALLED);
	init_mutex(&ow->rec, PTHREAD_MUTEX_RECURSIVE, PTHREAD_PRIO_NONE, PTHREAD_MUTEX_STALLED);
	init_mutex(&ow->err, PTHREAD_MUTEX_ERRORCHECK, PTHREAD_PRIO_NONE, PTHREAD_MUTEX_STALLED);
	pthread_rwlockattr_t ra;
	CHECK(pthread_rwlockattr_init(&ra) == 0, "rwlockattr_init");
	CHECK(pthread_rwlockattr_setpshared(&ra, PTHREAD_PROCESS_SHARED) == 0, "setpshared");
	CHECK(pthread_rwlock_init(&ow->rw, &ra) == 0, "rwlock_init");

	if (!part || strcmp(part, "robust") == 0) {
		for (int d = 0; d < NDEATH; d++)
			owner_dies(&ow->robust, "robust mutex", d);
		owner_dies(&ow->pirobust, "robust priority-inheritance mutex", D_KILL_THREAD);
		owner_dies(&ow->pirobust, "robust priority-inheritance mutex", D_THREAD_ENDS);
	}
	if (!part || strcmp(part, "pi") == 0) {
		in_two_processes(pi_counter, 2);
		printf("a priority-inheritance mutex shared by 2 processes of 2 threads counted "
		       "%ld increments\n", ow->count);
	}
	if (part && strcmp(part, "one") != 0)
		return 0;
	in_two_processes(one_at_a_time, 1);
	printf("recursive and error-checking mutexes and an rwlock, one thread in each of 2 "
	       "processes: at most %d inside at once, %d errors\n",
	       atomic_load(&ow->most), atomic_load(&ow->bad));
	return 0;
}

int main(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = map_shared();
	int rc;
	if (strcmp(sub, "cancel") == 0)
		rc = cancel_test();
	else if (strcmp(sub, "timeout") == 0)
		rc = timeout_test();
	else if (strcmp(sub, "signal") == 0)
		rc = signal_test();
	else if (strcmp(sub, "procs") == 0)
		rc = procs_test();
	else if (strcmp(sub, "owners") == 0)
		rc = owners_test(argc > 2 ? argv[2] : NULL);
	else {
		fprintf(stderr, "usage: posix_pshared cancel|timeout|signal|procs|owners\n");
		return 2;
	}
	if (rc == 0)
		printf("PASS %s\n", sub);
	return rc;
}
