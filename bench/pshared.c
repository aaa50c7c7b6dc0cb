/* SPDX-License-Identifier: MIT */
/*
 * bench/pshared.c — process-shared objects across processes. All objects
 * live in one MAP_SHARED mapping made before fork, so every process (each
 * with its own libgmp, when preloaded) uses the same words.
 *
 *   pshared pingpong [N]      two processes pass a token N times (default
 *                             20,000) through two process-shared
 *                             semaphores: round trips per second, and the
 *                             p99 of one round trip
 *   pshared broadcast [R [P [T]]]
 *                             P processes (default 4) of T threads each
 *                             (default 16) wait on one process-shared
 *                             condition variable; R times (default 500)
 *                             the parent advances a generation under the
 *                             mutex and broadcasts, and waits until every
 *                             waiter has seen it (each posts a process-
 *                             shared semaphore): rounds per second, and
 *                             the p99 of one round. The rounds start once
 *                             every waiter waits (each posts the
 *                             semaphore once first, holding the mutex,
 *                             which its wait then lets go of); the time
 *                             from the first fork until then is reported
 *                             apart (startup_ms)
 *
 * Each checks its counts and exits non-zero when they are wrong.
 */
#include "bench.h"

#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>

struct shared {
	sem_t ping, pong, ack;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	long gen, seen;
	int stop;
};

static struct shared *sh;

static void init_shared(void)
{
	sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("pshared: mmap");
		exit(1);
	}
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	must(pthread_mutex_init(&sh->mu, &ma), "pthread_mutex_init");
	must(pthread_cond_init(&sh->cv, &ca), "pthread_cond_init");
	if (sem_init(&sh->ping, 1, 0) || sem_init(&sh->pong, 1, 0) || sem_init(&sh->ack, 1, 0)) {
		perror("pshared: sem_init");
		exit(1);
	}
}

static void sem_must(int r, const char *what)
{
	if (r != 0) {
		perror(what);
		exit(1);
	}
}

/* The p99 of v[0..n) (sorted in place), in microseconds. */
static double p99_us(double *v, long n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n ? v[(n * 99 + 99) / 100 - 1] * 1e6 : 0;
}

static int child_status(pid_t c)
{
	int st;
	if (waitpid(c, &st, 0) != c || !WIFEXITED(st))
		return 1;
	return WEXITSTATUS(st);
}

static int pingpong(long n)
{
	double *lat = malloc((size_t)n * sizeof *lat);
	if (!lat)
		return 1;
	pid_t c = fork();
	if (c < 0) {
		perror("pshared: fork");
		return 1;
	}
	if (c == 0) {
		for (long i = 0; i < n; i++) {
			sem_must(sem_wait(&sh->ping), "sem_wait");
			sem_must(sem_post(&sh->pong), "sem_post");
		}
		_exit(0);
	}
	double t0 = now_sec();
	for (long i = 0; i < n; i++) {
		double a = now_sec();
		sem_must(sem_post(&sh->ping), "sem_post");
		sem_must(sem_wait(&sh->pong), "sem_wait");
		lat[i] = now_sec() - a;
	}
	double secs = now_sec() - t0;
	if (child_status(c)) {
		fprintf(stderr, "pshared: the ping-pong child failed\n");
		return 1;
	}
	printf("RESULT name=pshared mode=pingpong n=%ld seconds=%.6f round_trips_per_sec=%.0f p99_us=%.1f "
	       "peak_os_threads=%ld rss_kib=%ld\n",
	       n, secs, n / secs, p99_us(lat, n), status_field("Threads"), status_field("VmHWM"));
	free(lat);
	return 0;
}

static void *bwaiter(void *arg)
{
	long seen = 0;
	must(pthread_mutex_lock(&sh->mu), "pthread_mutex_lock");
	/* ready: the parent's first round takes the mutex only after this
	 * thread's wait let go of it */
	sem_must(sem_post(&sh->ack), "sem_post");
	for (;;) {
		while (sh->gen == seen && !sh->stop)
			must(pthread_cond_wait(&sh->cv, &sh->mu), "pthread_cond_wait");
		if (sh->stop)
			break;
		seen = sh->gen;
		sh->seen++;
		must(pthread_mutex_unlock(&sh->mu), "pthread_mutex_unlock");
		sem_must(sem_post(&sh->ack), "sem_post");
		must(pthread_mutex_lock(&sh->mu), "pthread_mutex_lock");
	}
	must(pthread_mutex_unlock(&sh->mu), "pthread_mutex_unlock");
	return NULL;
}

static int broadcast(long rounds, long procs, long threads)
{
	double *lat = malloc((size_t)rounds * sizeof *lat);
	pid_t *kids = calloc((size_t)procs, sizeof *kids);
	if (!lat || !kids)
		return 1;
	double start = now_sec();
	for (long k = 0; k < procs; k++) {
		kids[k] = fork();
		if (kids[k] < 0) {
			perror("pshared: fork");
			return 1;
		}
		if (kids[k] == 0) {
			pthread_t *t = calloc((size_t)threads, sizeof *t);
			for (long i = 0; i < threads; i++)
				spawn(&t[i], bwaiter, NULL);
			for (long i = 0; i < threads; i++)
				reap(t[i]);
			_exit(0);
		}
	}
	long waiters = procs * threads;
	for (long i = 0; i < waiters; i++)
		sem_must(sem_wait(&sh->ack), "sem_wait");
	double t0 = now_sec();
	double startup = t0 - start;
	for (long r = 0; r < rounds; r++) {
		double a = now_sec();
		must(pthread_mutex_lock(&sh->mu), "pthread_mutex_lock");
		sh->gen++;
		must(pthread_cond_broadcast(&sh->cv), "pthread_cond_broadcast");
		must(pthread_mutex_unlock(&sh->mu), "pthread_mutex_unlock");
		for (long i = 0; i < waiters; i++)
			sem_must(sem_wait(&sh->ack), "sem_wait");
		lat[r] = now_sec() - a;
	}
	double secs = now_sec() - t0;
	must(pthread_mutex_lock(&sh->mu), "pthread_mutex_lock");
	sh->stop = 1;
	must(pthread_cond_broadcast(&sh->cv), "pthread_cond_broadcast");
	long seen = sh->seen;
	must(pthread_mutex_unlock(&sh->mu), "pthread_mutex_unlock");
	int bad = 0;
	for (long k = 0; k < procs; k++)
		bad |= child_status(kids[k]);
	if (bad || seen != rounds * waiters) {
		fprintf(stderr, "pshared: %ld wake-ups seen, want %ld%s\n", seen, rounds * waiters,
			bad ? "; a child failed" : "");
		return 1;
	}
	printf("RESULT name=pshared mode=broadcast rounds=%ld procs=%ld threads=%ld seconds=%.6f "
	       "rounds_per_sec=%.1f p99_us=%.1f startup_ms=%.2f\n",
	       rounds, procs, threads, secs, rounds / secs, p99_us(lat, rounds), startup * 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	init_shared();
	if (strcmp(mode, "pingpong") == 0)
		return pingpong(arg_long(argc, argv, 2, 20000));
	if (strcmp(mode, "broadcast") == 0)
		return broadcast(arg_long(argc, argv, 2, 500), arg_long(argc, argv, 3, 4),
				 arg_long(argc, argv, 4, 16));
	fprintf(stderr, "usage: pshared pingpong [N] | broadcast [ROUNDS [PROCS [THREADS]]]\n");
	return 2;
}
