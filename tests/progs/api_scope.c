/* SPDX-License-Identifier: MIT */
/* Contention scope. The default attr's scope is printed (NPTL: SYSTEM,
 * libgmp: PROCESS); with --default-only, that is all. Then K threads
 * created with PTHREAD_SCOPE_SYSTEM set explicitly (as CPython and
 * sysbench create every thread) each spin (sched_yield) until released;
 * pthread_getattr_np must report their scope. With --expect-shared (libgmp
 * on one processor): they share OS threads, so the process's Threads
 * count in /proc/self/status grows by less than K while they live. */
#include "api_util.h"
#include <pthread.h>

#define K 3

static atomic_int started, release, moved, badscope;
static atomic_int tids[K];

static void *spinner(void *arg)
{
	int i = (int)(long)arg;
	int tid = os_tid();
	pthread_attr_t a;
	int scope = -1;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		pthread_attr_getscope(&a, &scope);
		pthread_attr_destroy(&a);
	}
	if (scope != PTHREAD_SCOPE_SYSTEM)
		atomic_store(&badscope, 1);
	atomic_store(&tids[i], tid);
	atomic_fetch_add(&started, 1);
	long turns = 0;
	while (!atomic_load(&release)) {
		sched_yield();
		if (os_tid() != tid)
			atomic_store(&moved, 1);
		turns++;
	}
	/* a few more turns after the release, while the others still run */
	for (int j = 0; j < 100; j++) {
		sched_yield();
		if (os_tid() != tid)
			atomic_store(&moved, 1);
	}
	return (void *)turns;
}

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	bool expect_shared = argc > 1 && strcmp(argv[1], "--expect-shared") == 0;
	bool default_only = argc > 1 && strcmp(argv[1], "--default-only") == 0;
	pthread_attr_t a;
	pthread_t t[K];
	int scope;

	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_getscope(&a, &scope));
	SAY("default attr scope: %s", scope == PTHREAD_SCOPE_SYSTEM ? "SYSTEM"
				      : scope == PTHREAD_SCOPE_PROCESS ? "PROCESS" : "?");
	pthread_attr_destroy(&a);
	if (default_only) {
		SAY("PASS api_scope");
		return 0;
	}

	/* let the runtime start whatever threads of its own it needs */
	pthread_t t0;
	EXPECT_ERR(0, pthread_create(&t0, NULL, nothing, NULL));
	EXPECT_ERR(0, pthread_join(t0, NULL));
	long before = status_field("Threads");

	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_setscope(&a, PTHREAD_SCOPE_SYSTEM));
	EXPECT_ERR(0, pthread_attr_getscope(&a, &scope));
	CHECK(scope == PTHREAD_SCOPE_SYSTEM, "scope %d", scope);
	SAY("attr scope SYSTEM: stored and returned");
	for (long i = 0; i < K; i++)
		EXPECT_ERR(0, pthread_create(&t[i], &a, spinner, (void *)i));
	pthread_attr_destroy(&a);
	while (atomic_load(&started) < K)
		sched_yield();
	long during = status_field("Threads");
	atomic_store(&release, 1);
	long total = 0;
	for (int i = 0; i < K; i++) {
		void *turns;
		EXPECT_ERR(0, pthread_join(t[i], &turns));
		total += (long)turns;
	}
	CHECK(!atomic_load(&badscope), "pthread_getattr_np lost a thread's SYSTEM scope");
	SAY("pthread_getattr_np: SYSTEM");
	if (expect_shared) {
		CHECK(during - before < K, "Threads %ld before, %ld while %d SCOPE_SYSTEM threads run",
		      before, during, K);
		SAY("%d SCOPE_SYSTEM threads: they share OS threads", K);
	}
	SAY("PASS api_scope");
	return 0;
}
