/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/posix_fork.c — process-shared objects between a parent and
 * the child it forks. An ordinary pthread program.
 *
 *   posix_fork main     the main thread forks
 *   posix_fork thread   a thread the main thread made forks
 *
 * In MAP_SHARED memory the parent locks a process-shared mutex of each
 * type (normal, error-checking, recursive, robust, priority-inheriting)
 * and forks. The child is another owner: each trylock gives EBUSY, a
 * 100 ms timed lock of the error-checking one ETIMEDOUT (not EDEADLK),
 * and unlocking the parent's error-checking mutex EPERM. Then they meet
 * on a process-shared condition variable (the child signals, then
 * broadcasts while the parent waits with a timeout) and a process-shared
 * barrier, and the child destroys a condition variable nobody waits on.
 * Both print what they saw (the child's lines first) and "PASS <mode>".
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#define NM 5

struct shared {
	pthread_mutex_t m[NM];
	pthread_mutex_t cm;
	pthread_cond_t cv, spare;
	pthread_barrier_t bar;
	int stage;
};

static const char *const mnames[NM] = {"normal", "errorcheck", "recursive", "robust", "pi"};

static const char *err(int r)
{
	static char buf[16];
	switch (r) {
	case 0: return "0";
	case EBUSY: return "EBUSY";
	case EDEADLK: return "EDEADLK";
	case EPERM: return "EPERM";
	case ETIMEDOUT: return "ETIMEDOUT";
	}
	snprintf(buf, sizeof buf, "%d", r);
	return buf;
}

static struct timespec in_ms(clockid_t clk, long ms)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

static void set_stage(struct shared *s, int stage, bool broadcast)
{
	pthread_mutex_lock(&s->cm);
	s->stage = stage;
	if (broadcast)
		pthread_cond_broadcast(&s->cv);
	else
		pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->cm);
}

static int wait_stage(struct shared *s, int stage, bool timed)
{
	int r = 0;
	pthread_mutex_lock(&s->cm);
	struct timespec ts = in_ms(CLOCK_REALTIME, 10000);
	while (s->stage < stage && r == 0)
		r = timed ? pthread_cond_timedwait(&s->cv, &s->cm, &ts)
			  : pthread_cond_wait(&s->cv, &s->cm);
	pthread_mutex_unlock(&s->cm);
	return r;
}

static void child(struct shared *s)
{
	char line[256];
	int n = 0;
	for (int i = 0; i < NM; i++)
		n += snprintf(line + n, sizeof line - n, " %s=%s", mnames[i],
			      err(pthread_mutex_trylock(&s->m[i])));
	printf("child: trylock of the parent's mutexes:%s\n", line);
	struct timespec ts = in_ms(CLOCK_REALTIME, 100);
	printf("child: 100 ms timedlock of the errorcheck one: %s\n",
	       err(pthread_mutex_timedlock(&s->m[1], &ts)));
	printf("child: unlock of the parent's errorcheck one: %s\n",
	       err(pthread_mutex_unlock(&s->m[1])));
	set_stage(s, 1, false);			/* the parent waits with no timeout */
	CHECK(wait_stage(s, 2, false) == 0, "child: condition wait");
	set_stage(s, 3, true);			/* the parent waits with a timeout */
	int r = pthread_barrier_wait(&s->bar);
	printf("child: barrier %s\n", r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD ? "open" : "?");
	printf("child: destroy of an unused shared condvar: %s\n",
	       err(pthread_cond_destroy(&s->spare)));
	fflush(stdout);
	_exit(0);
}

static int run(const char *mode)
{
	struct shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				-1, 0);
	CHECK(s != MAP_FAILED, "mmap");
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	for (int i = 0; i < NM; i++) {
		pthread_mutexattr_settype(&a, i == 1 ? PTHREAD_MUTEX_ERRORCHECK
					  : i == 2 ? PTHREAD_MUTEX_RECURSIVE : PTHREAD_MUTEX_NORMAL);
		pthread_mutexattr_setrobust(&a, i == 3 ? PTHREAD_MUTEX_ROBUST : PTHREAD_MUTEX_STALLED);
		pthread_mutexattr_setprotocol(&a, i == 4 ? PTHREAD_PRIO_INHERIT : PTHREAD_PRIO_NONE);
		CHECK(pthread_mutex_init(&s->m[i], &a) == 0, "pthread_mutex_init %s", mnames[i]);
		CHECK(pthread_mutex_lock(&s->m[i]) == 0, "parent: lock %s", mnames[i]);
	}
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_STALLED);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_NONE);
	pthread_mutex_init(&s->cm, &a);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&s->cv, &ca);
	pthread_cond_init(&s->spare, &ca);
	pthread_barrierattr_t ba;
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	pthread_barrier_init(&s->bar, &ba, 2);
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0)
		child(s);
	CHECK(wait_stage(s, 1, false) == 0, "parent: condition wait");
	set_stage(s, 2, false);
	CHECK(wait_stage(s, 3, true) == 0, "parent: timed condition wait");
	int r = pthread_barrier_wait(&s->bar);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the child failed");
	printf("parent: condvar woken by the child twice, barrier %s\n",
	       r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD ? "open" : "?");
	for (int i = 0; i < NM; i++)
		CHECK(pthread_mutex_unlock(&s->m[i]) == 0, "parent: unlock %s", mnames[i]);
	printf("PASS %s\n", mode);
	return 0;
}

static void *forker(void *arg)
{
	return (void *)(intptr_t)run(arg);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "main") == 0)
		return run(mode);
	if (strcmp(mode, "thread") == 0) {
		pthread_t t;
		void *r;
		CHECK(pthread_create(&t, NULL, forker, (void *)mode) == 0, "pthread_create");
		CHECK(pthread_join(t, &r) == 0, "pthread_join");
		return (int)(intptr_t)r;
	}
	fprintf(stderr, "usage: posix_fork main|thread\n");
	return 2;
}
