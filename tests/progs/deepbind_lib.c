/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/deepbind_lib.c — libdeepbind_lib.so, which deepbind.c opens
 * with RTLD_DEEPBIND: its references then bind to its own definitions and
 * to glibc's before anything the program or a preloaded library defines.
 * It works on the program's mutex, condvar, semaphores, rwlock and barrier
 * (struct db_shared) from the program's threads and from a thread it
 * starts itself. Its RUNPATH is its own directory, where it finds
 * libdeepbind_dep.so by name (or as $ORIGIN/libdeepbind_dep.so).
 */
#include "tests/progs/deepbind.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

/* The program defines one too: with RTLD_DEEPBIND this one is used here. */
const char *db_whoami(void)
{
	return "library";
}

const char *db_lib_whoami(void)
{
	return db_whoami();
}

void db_lib_fns(void *fns[DB_NFNS])
{
	DB_FILL_FNS(fns);
}

/* What libdeepbind_needed.so, which this library needs, binds to. */
void db_lib_needed_fns(void *fns[DB_NFNS])
{
	db_needed_fns(fns);
}

/* Read, pause, write: increments are lost unless the lock excludes. */
static void slow_increment(long *p)
{
	long v = *p;
	for (volatile int k = 0; k < 20; k++)
		;
	*p = v + 1;
}

void db_lib_add(struct db_shared *sh, int n)
{
	for (int i = 0; i < n; i++) {
		pthread_mutex_lock(&sh->mu);
		slow_increment(&sh->counter);
		pthread_mutex_unlock(&sh->mu);
	}
}

void db_lib_rw_add(struct db_shared *sh, int n)
{
	for (int i = 0; i < n; i++) {
		pthread_rwlock_wrlock(&sh->rw);
		slow_increment(&sh->rw_counter);
		pthread_rwlock_unlock(&sh->rw);
	}
}

/* The library's thread: the library's side of every exchange of deepbind.c. */
static void *lib_main(void *arg)
{
	struct db_shared *sh = arg;
	int err = 0;

	db_lib_add(sh, DB_ADDS);
	db_lib_rw_add(sh, DB_ADDS);
	/* condvar: wait for turn 1, give turn 0 back */
	for (int i = 0; i < DB_ROUNDS; i++) {
		pthread_mutex_lock(&sh->mu);
		while (sh->turn != 1)
			pthread_cond_wait(&sh->cv, &sh->mu);
		sh->turn = 0;
		pthread_cond_broadcast(&sh->cv);
		pthread_mutex_unlock(&sh->mu);
	}
	/* semaphores: take one from the program, give one back */
	for (int i = 0; i < DB_ROUNDS && !err; i++) {
		int r;
		while ((r = sem_wait(&sh->to_lib)) != 0 && errno == EINTR)
			;
		if (r != 0 || sem_post(&sh->to_prog) != 0)
			err = errno;
	}
	for (int i = 0; i < DB_ROUNDS && !err; i++) {
		int r = pthread_barrier_wait(&sh->bar);
		if (r != 0 && r != PTHREAD_BARRIER_SERIAL_THREAD)
			err = r;
	}
	sh->lib_thread_err = err;
	return NULL;
}

int db_lib_start(struct db_shared *sh)
{
	return pthread_create(&sh->lib_thread, NULL, lib_main, sh);
}

int db_lib_join(struct db_shared *sh)
{
	return pthread_join(sh->lib_thread, NULL);
}

/* Open libdeepbind_dep.so as `name` with `flags` (a bare name is found
 * through this library's RUNPATH, $ORIGIN is this library's directory),
 * report what its references bind to, close it. */
int db_lib_open_dep(const char *name, int flags, void *fns[DB_NFNS], char *err, int errlen)
{
	void *h = dlopen(name, flags);
	if (!h) {
		snprintf(err, errlen, "%s", dlerror());
		return -1;
	}
	db_fns_fn *f = (db_fns_fn *)dlsym(h, "db_dep_fns");
	if (!f) {
		snprintf(err, errlen, "%s", dlerror());
		dlclose(h);
		return -1;
	}
	f(fns);
	dlclose(h);
	return 0;
}
