/* Contention scope. The default attr's scope is printed (NPTL: SYSTEM,
 * libgmp: PROCESS); with --default-only, that is all. Then K threads
 * created with PTHREAD_SCOPE_SYSTEM set explicitly each spin (sched_yield)
 * until released, looking at the OS thread id they run on at every turn.
 * With --expect-os-threads: each must keep one OS thread, the K ids must
 * differ, and the process's Threads count in /proc/self/status must have
 * grown by at least K while they live. */
#include "api_util.h"
#include <pthread.h>

#define K 3

static atomic_int started, release, moved;
static atomic_int tids[K];

static void *spinner(void *arg)
{
	int i = (int)(long)arg;
	int tid = os_tid();
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
	bool expect_os = argc > 1 && strcmp(argv[1], "--expect-os-threads") == 0;
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
	if (expect_os) {
		for (int i = 0; i < K; i++)
			for (int j = 0; j < i; j++)
				CHECK(tids[i] != tids[j], "threads %d and %d share OS thread %d", i, j,
				      tids[i]);
		CHECK(!atomic_load(&moved), "a SCOPE_SYSTEM thread changed OS threads");
		CHECK(during - before >= K, "Threads %ld before, %ld while %d SCOPE_SYSTEM threads run",
		      before, during, K);
		SAY("%d SCOPE_SYSTEM threads: %d distinct OS threads, none moved, Threads grew by >= %d",
		    K, K, K);
	}
	SAY("PASS api_scope");
	return 0;
}
