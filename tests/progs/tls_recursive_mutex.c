/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 14 — glibc's owner-checking mutexes between threads that
 * migrate. glibc records a recursive or error-checking mutex's owner as the
 * thread id in the owner's TCB (the same code guards ld.so's dl_load_lock
 * and dl_load_write_lock), so threads must have distinct ids that follow
 * them to other OS threads.
 *
 * Part 1: 8 pairs of threads. The owner locks a PTHREAD_MUTEX_RECURSIVE
 * mutex three times with switches in between (resuming maybe on other OS
 * threads), and after each switch its own trylock succeeds (recursion);
 * while it holds the mutex, its partner's trylock returns EBUSY and its
 * partner's unlock EPERM. After the owner's three unlocks (maybe on another
 * OS thread again) the partner's trylock succeeds. The same with an
 * error-checking mutex: the owner's second lock after a switch returns
 * EDEADLK, the partner gets EBUSY and EPERM. The partner only ever uses
 * trylock: a blocking lock would block its whole OS thread.
 *
 * Part 2: 16 threads call dl_iterate_phdr 30 times each with switches in
 * between; the callback counts how many callbacks run at once (an atomic
 * counter, a short busy wait inside): glibc serialises them with
 * dl_load_write_lock, so the count may never exceed 1.
 */
#include "tls_common.h"

#include <errno.h>
#include <link.h>

#define NP 8
#define NR 20
#define NT 16
#define NI 30

enum { IDLE, HELD, PROBED, FREE, DONE };

struct pair {
	pthread_mutex_t m;
	int kind;
	int state;
};
static struct pair pairs[2][NP];

static void set_state(struct pair *p, int s)
{
	__atomic_store_n(&p->state, s, __ATOMIC_SEQ_CST);
}

static void wait_state(struct pair *p, int s)
{
	for (unsigned i = 0; __atomic_load_n(&p->state, __ATOMIC_SEQ_CST) != s; i++)
		tls_switch(i);
}

static void *owner(void *arg)
{
	struct pair *p = arg;
	long id = p - pairs[p->kind == PTHREAD_MUTEX_RECURSIVE ? 0 : 1];
	bool rec = p->kind == PTHREAD_MUTEX_RECURSIVE;
	for (unsigned r = 0; tls_more(r, NR); r++) {
		CHECK(pthread_mutex_lock(&p->m) == 0, "owner %ld: lock", id);
		tls_switch(r);
		if (rec) {
			for (int k = 0; k < 2; k++) {
				CHECK(pthread_mutex_lock(&p->m) == 0, "owner %ld: recursive lock", id);
				tls_switch(r + (unsigned)k);
				int e = pthread_mutex_trylock(&p->m);
				CHECK(e == 0, "owner %ld: trylock of its own recursive mutex: %d", id, e);
				CHECK(pthread_mutex_unlock(&p->m) == 0, "owner %ld: unlock", id);
			}
		} else {
			int e = pthread_mutex_lock(&p->m);
			CHECK(e == EDEADLK, "owner %ld: relock of its error-checking mutex: %d", id, e);
			e = pthread_mutex_trylock(&p->m);
			CHECK(e == EBUSY, "owner %ld: trylock of its error-checking mutex: %d", id, e);
		}
		set_state(p, HELD);
		wait_state(p, PROBED);
		tls_switch(r + 1);
		for (int k = rec ? 3 : 1; k > 0; k--) {
			CHECK(pthread_mutex_unlock(&p->m) == 0, "owner %ld: unlock", id);
			if (k > 1)
				tls_switch(r + (unsigned)k);
		}
		set_state(p, FREE);
		wait_state(p, IDLE);
	}
	set_state(p, DONE);
	return NULL;
}

static void *partner(void *arg)
{
	struct pair *p = arg;
	long id = p - pairs[p->kind == PTHREAD_MUTEX_RECURSIVE ? 0 : 1];
	for (unsigned i = 0;; i++) {
		int s = __atomic_load_n(&p->state, __ATOMIC_SEQ_CST);
		if (s == DONE)
			break;
		if (s == HELD) {
			int e = pthread_mutex_trylock(&p->m);
			CHECK(e == EBUSY, "partner %ld: trylock of a mutex its owner holds: %d (kind %d)",
			      id, e, p->kind);
			e = pthread_mutex_unlock(&p->m);
			CHECK(e == EPERM, "partner %ld: unlock of a mutex it does not own: %d (kind %d)",
			      id, e, p->kind);
			set_state(p, PROBED);
		} else if (s == FREE) {
			int e = pthread_mutex_trylock(&p->m);
			CHECK(e == 0, "partner %ld: trylock of a released mutex: %d (kind %d)", id, e,
			      p->kind);
			CHECK(pthread_mutex_unlock(&p->m) == 0, "partner %ld: unlock", id);
			set_state(p, IDLE);
		} else {
			tls_switch(i);
		}
	}
	return NULL;
}

static int in_cb, max_in_cb;
static long callbacks;

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	int n = __atomic_add_fetch(&in_cb, 1, __ATOMIC_SEQ_CST);
	int m = __atomic_load_n(&max_in_cb, __ATOMIC_SEQ_CST);
	while (n > m && !__atomic_compare_exchange_n(&max_in_cb, &m, n, false, __ATOMIC_SEQ_CST,
						     __ATOMIC_SEQ_CST))
		;
	/* stay a little while, so that an overlapping callback would be seen */
	for (volatile int k = 0; k < 2000; k++)
		if (__atomic_load_n(&in_cb, __ATOMIC_SEQ_CST) > 1)
			__atomic_store_n(&max_in_cb, 2, __ATOMIC_SEQ_CST);
	__atomic_fetch_add(&callbacks, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&in_cb, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void *iterator(void *arg)
{
	for (unsigned i = 0; tls_more(i, NI); i++) {
		tls_switch(i + (unsigned)(long)arg);
		dl_iterate_phdr(phdr_cb, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	pthread_t t[4 * NP];
	int n = 0;
	for (int kind = 0; kind < 2; kind++)
		for (int i = 0; i < NP; i++) {
			struct pair *p = &pairs[kind][i];
			pthread_mutexattr_t a;
			pthread_mutexattr_init(&a);
			p->kind = kind ? PTHREAD_MUTEX_ERRORCHECK : PTHREAD_MUTEX_RECURSIVE;
			pthread_mutexattr_settype(&a, p->kind);
			CHECK(pthread_mutex_init(&p->m, &a) == 0, "pthread_mutex_init");
			pthread_mutexattr_destroy(&a);
			CHECK(pthread_create(&t[n++], NULL, owner, p) == 0, "pthread_create");
			CHECK(pthread_create(&t[n++], NULL, partner, p) == 0, "pthread_create");
		}
	for (int i = 0; i < n; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	printf("mutex: %d recursive and %d error-checking mutexes x >= %d rounds: owner keeps them "
	       "across switches, others get EBUSY and EPERM\n",
	       NP, NP, NR);

	pthread_t it[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&it[i], NULL, iterator, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(it[i], NULL) == 0, "pthread_join");
	CHECK(max_in_cb == 1, "dl_iterate_phdr callbacks of %d threads overlapped", max_in_cb);
	CHECK(callbacks >= NT * NI, "%ld callbacks", callbacks);
	printf("dl_iterate_phdr: %d threads x >= %d calls: callbacks never overlapped\n", NT, NI);
	if (tls_migration_verdict())
		return 1;
	printf("PASS recursive mutex\n");
	return 0;
}
