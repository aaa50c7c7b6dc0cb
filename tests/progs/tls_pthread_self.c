/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 10 — pthread_self and pthread_equal across migrations. 48
 * threads, each after every switch (resuming maybe on another OS thread)
 * checks that pthread_self() is still the pthread_t pthread_create gave
 * its creator, that glibc's own pthread_self (looked up in libc.so.6 with
 * dlopen + dlsym, which reads the thread pointer's self field: the
 * thread's descriptor) still returns what it returned when the thread
 * started, that no two live threads share a descriptor, and that
 * pthread_equal says it differs from every other thread. The main thread
 * checks its own pthread_self the same way. (Under NPTL pthread_t is the
 * descriptor; libgmp names a thread by its G, so the two may differ, but
 * each must be the thread's own and stable.)
 */
#include "tls_common.h"

#include <dlfcn.h>

#define NT 48
#define NR 60

static pthread_t tids[NT + 1];
static pthread_t descr[NT + 1];
static int created, started;
static pthread_t (*libc_self)(void);
static int (*libc_equal)(pthread_t, pthread_t);

static void check_self(long id)
{
	pthread_t me = pthread_self();
	CHECK(pthread_equal(me, tids[id]), "thread %ld: pthread_self() %#lx, created as %#lx", id,
	      (unsigned long)me, (unsigned long)tids[id]);
	CHECK(libc_self() == descr[id], "thread %ld: glibc's pthread_self() %#lx, was %#lx", id,
	      (unsigned long)libc_self(), (unsigned long)descr[id]);
	CHECK(libc_equal(libc_self(), descr[id]), "thread %ld: glibc's pthread_equal", id);
}

static void run(long id)
{
	descr[id] = libc_self();
	__atomic_fetch_add(&started, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&started, __ATOMIC_ACQUIRE) < NT + 1)
		sched_yield();
	/* all threads live: no two have one descriptor */
	for (int j = 0; j <= NT; j++)
		CHECK(j == id || descr[j] != descr[id], "threads %ld and %d share a descriptor", id, j);
	check_self(id);
	for (unsigned i = 0; tls_more(i, NR); i++) {
		tls_switch(i + (unsigned)id);
		check_self(id);
		long other = (id + 1 + i) % (NT + 1);
		if (other != id)
			CHECK(!pthread_equal(pthread_self(), tids[other]),
			      "thread %ld equals thread %ld", id, other);
	}
}

static void *worker(void *arg)
{
	while (!__atomic_load_n(&created, __ATOMIC_ACQUIRE))
		sched_yield();
	run((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	void *libc = dlopen("libc.so.6", RTLD_NOW);
	CHECK(libc, "dlopen libc.so.6: %s", dlerror());
	libc_self = (pthread_t(*)(void))dlsym(libc, "pthread_self");
	libc_equal = (int (*)(pthread_t, pthread_t))dlsym(libc, "pthread_equal");
	CHECK(libc_self && libc_equal, "dlsym: %s", dlerror());
	tids[NT] = pthread_self();
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++) {
		tids[i] = t[i];
		for (int j = 0; j < i; j++)
			CHECK(!pthread_equal(t[i], t[j]), "threads %d and %d have one pthread_t", i, j);
	}
	__atomic_store_n(&created, 1, __ATOMIC_RELEASE);
	run(NT);
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	printf("pthread_self: %d threads and main x >= %d rounds: stable, glibc's descriptor stable, distinct\n",
	       NT, NR);
	if (tls_migration_verdict())
		return 1;
	printf("PASS pthread_self\n");
	return 0;
}
