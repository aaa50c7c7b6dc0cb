/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 16 — a real glibc thread created from a thread. The program
 * looks up glibc's own pthread_create and pthread_join in libc.so.6 (dlopen
 * + dlsym on that handle, so a library that replaces the pthread functions
 * is bypassed, as it is for threads glibc starts itself). 16 threads each,
 * 5 times, after switching away (resuming maybe on another OS thread),
 * create a thread with glibc's pthread_create and join it with glibc's
 * pthread_join. The new thread must run on an OS thread of its own, see
 * fresh __thread values and its own errno, get a right sched_getcpu()
 * (whether or not it inherited an rseq registration), and its return value
 * must come back through the join.
 */
#include "tls_common.h"

#include <dlfcn.h>
#include <errno.h>

#define NT 16
#define NR 5

static int (*libc_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int (*libc_join)(pthread_t, void **);
static __thread long tl_value = 31;
static long ran, created;

struct job {
	long in;
	int creator_tid;
	pthread_t creator;
};

static void *real_thread(void *arg)
{
	struct job *j = arg;
	CHECK(tl_value == 31, "glibc thread: __thread starts as %ld", tl_value);
	CHECK(os_tid() != j->creator_tid, "glibc thread runs on its creator's OS thread");
	CHECK(!pthread_equal(pthread_self(), j->creator), "glibc thread has its creator's id");
	errno = 0;
	CHECK(close(-1) == -1 && errno == EBADF, "glibc thread: errno %d", errno);
	unsigned before = 0, after = 0;
	syscall(SYS_getcpu, &before, NULL, NULL);
	int cpu = sched_getcpu();
	syscall(SYS_getcpu, &after, NULL, NULL);
	CHECK(cpu == (int)before || cpu == (int)after, "glibc thread: sched_getcpu() %d between "
	      "getcpu %u and %u", cpu, before, after);
	tl_value = j->in;
	__atomic_fetch_add(&ran, 1, __ATOMIC_RELAXED);
	return (void *)(j->in * 2 + 1);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	tl_value = -id;
	for (unsigned i = 0; tls_more(i, NR); i++) {
		for (unsigned k = 0; k < 8; k++)
			tls_switch(i + k + (unsigned)id);
		struct job j = {id * 100 + i, os_tid(), pthread_self()};
		pthread_t t;
		int e = libc_create(&t, NULL, real_thread, &j);
		CHECK(e == 0, "thread %ld: glibc's pthread_create: %s", id, strerror(e));
		__atomic_fetch_add(&created, 1, __ATOMIC_RELAXED);
		void *res = NULL;
		e = libc_join(t, &res);
		CHECK(e == 0, "thread %ld: glibc's pthread_join: %s", id, strerror(e));
		CHECK((long)res == j.in * 2 + 1, "thread %ld: joined value %ld, want %ld", id, (long)res,
		      j.in * 2 + 1);
		CHECK(tl_value == -id, "thread %ld: __thread value %ld", id, tl_value);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	void *libc = dlopen("libc.so.6", RTLD_NOW);
	CHECK(libc, "dlopen libc.so.6: %s", dlerror());
	libc_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(
		libc, "pthread_create");
	libc_join = (int (*)(pthread_t, void **))dlsym(libc, "pthread_join");
	CHECK(libc_create && libc_join, "dlsym: %s", dlerror());
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	CHECK(ran == created && created >= NT * NR, "%ld glibc threads ran, %ld created", ran,
	      created);
	printf("real threads: %d threads x >= %d glibc pthread_create + pthread_join: ran on their own "
	       "OS thread with fresh TLS, value returned\n",
	       NT, NR);
	if (tls_migration_verdict())
		return 1;
	printf("PASS real thread\n");
	return 0;
}
