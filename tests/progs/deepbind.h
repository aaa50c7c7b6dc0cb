/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/deepbind.h — what deepbind.c and the libraries it opens with
 * RTLD_DEEPBIND (deepbind_lib.c, deepbind_dep.c) share: the objects the
 * program owns and both sides use, and the functions they look up with
 * dlsym.
 */
#ifndef GMP_TESTS_PROGS_DEEPBIND_H
#define GMP_TESTS_PROGS_DEEPBIND_H

#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>

#define DB_ADDS 20000	/* counter increments per thread */
#define DB_ROUNDS 2000	/* round trips of each handshake */

/* The synchronization objects of the program that the library uses too. */
struct db_shared {
	pthread_mutex_t mu;	/* counter, turn */
	pthread_cond_t cv;	/* turn changes */
	long counter;		/* incremented under mu, non-atomically */
	int turn;		/* condvar handshake: 0 the program's, 1 the library's */
	sem_t to_lib, to_prog;	/* semaphore handshake */
	pthread_rwlock_t rw;	/* rw_counter */
	long rw_counter;	/* incremented under the write lock */
	pthread_barrier_t bar;	/* 2: the library's thread and one of the program's */
	pthread_t lib_thread;	/* created by the library */
	int lib_thread_err;	/* what its checks found, 0 if nothing */
};

/* The addresses the calling object's references to these functions bind
 * to (their names are in deepbind.c, in the same order). */
#define DB_NFNS 9
#define DB_FILL_FNS(f) do { \
	(f)[0] = (void *)pthread_mutex_lock; (f)[1] = (void *)pthread_cond_wait; \
	(f)[2] = (void *)pthread_cond_broadcast; (f)[3] = (void *)sem_wait; \
	(f)[4] = (void *)sem_post; (f)[5] = (void *)pthread_barrier_wait; \
	(f)[6] = (void *)pthread_rwlock_wrlock; (f)[7] = (void *)pthread_create; \
	(f)[8] = (void *)dlopen; \
} while (0)

/* deepbind_dep.c, built as libdeepbind_needed.so */
void db_needed_fns(void *fns[DB_NFNS]);

/* deepbind_lib.c */
typedef const char *db_whoami_fn(void);
typedef void db_fns_fn(void *fns[DB_NFNS]);	/* also deepbind_dep.c */
typedef void db_add_fn(struct db_shared *sh, int n);
typedef int db_thread_fn(struct db_shared *sh);
typedef int db_open_dep_fn(const char *name, int flags, void *fns[DB_NFNS], char *err, int errlen);

#endif
