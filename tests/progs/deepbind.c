/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/deepbind.c — a program that shares its synchronization
 * objects with a library it opens with RTLD_DEEPBIND (deepbind_lib.c),
 * whose references bind to glibc's definitions before anything in the
 * program's global scope.
 *
 * Usage: deepbind LIBRARY [lazy]
 * LIBRARY is the path of libdeepbind_lib.so or its bare name; a bare name
 * is found through the program's RUNPATH or RPATH ($ORIGIN/.libs), and
 * then libdeepbind_dep.so is first opened by name without RTLD_DEEPBIND.
 * "lazy": RTLD_LAZY instead of RTLD_NOW.
 *
 * Checked: counters incremented under the shared mutex and rwlock by the
 * program's threads, by library code they call and by the library's own
 * thread reach the exact total; condvar and semaphore handshakes both
 * ways and barrier rounds between the program and the library's thread
 * complete; the library's references to the synchronization functions,
 * pthread_create and dlopen bind to the same functions as the program's;
 * so do those of libdeepbind_needed.so, which it needs, and of
 * libdeepbind_dep.so when the library opens it by name
 * (through the library's RUNPATH), with and without RTLD_DEEPBIND, and
 * as $ORIGIN/..., and when the program opens it as $ORIGIN/.libs/...
 * with RTLD_DEEPBIND ($ORIGIN: the directory of the object that calls).
 */
#include "tests/progs/common.h"
#include "tests/progs/deepbind.h"

#include <errno.h>
#include <stdbool.h>

#define NT 2	/* the program's counting threads */

/* The names of the functions DB_FILL_FNS reports, in its order. */
static const char *const fn_names[DB_NFNS] = {
	"pthread_mutex_lock", "pthread_cond_wait", "pthread_cond_broadcast", "sem_wait",
	"sem_post", "pthread_barrier_wait", "pthread_rwlock_wrlock", "pthread_create", "dlopen",
};

/* The library has one too; it sees this one only without RTLD_DEEPBIND. */
const char *db_whoami(void)
{
	return "program";
}

static struct db_shared sh = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.cv = PTHREAD_COND_INITIALIZER,
	.rw = PTHREAD_RWLOCK_INITIALIZER,
};
static db_add_fn *lib_add, *lib_rw_add;

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	CHECK(p, "dlsym %s: %s", name, dlerror());
	return p;
}

static void slow_increment(long *p)
{
	long v = *p;
	for (volatile int k = 0; k < 20; k++)
		;
	*p = v + 1;
}

/* A program thread: increments with its own calls and through the library. */
static void *counting(void *arg)
{
	(void)arg;
	for (int i = 0; i < DB_ADDS; i++) {
		pthread_mutex_lock(&sh.mu);
		slow_increment(&sh.counter);
		pthread_mutex_unlock(&sh.mu);
	}
	lib_add(&sh, DB_ADDS);
	for (int i = 0; i < DB_ADDS; i++) {
		pthread_rwlock_wrlock(&sh.rw);
		slow_increment(&sh.rw_counter);
		pthread_rwlock_unlock(&sh.rw);
	}
	lib_rw_add(&sh, DB_ADDS);
	return NULL;
}

/* The program's side of the exchanges with the library's thread. */
static void exchange(void)
{
	for (int i = 0; i < DB_ROUNDS; i++) {
		pthread_mutex_lock(&sh.mu);
		while (sh.turn != 0)
			pthread_cond_wait(&sh.cv, &sh.mu);
		sh.turn = 1;
		pthread_cond_broadcast(&sh.cv);
		pthread_mutex_unlock(&sh.mu);
	}
	for (int i = 0; i < DB_ROUNDS; i++) {
		CHECK(sem_post(&sh.to_lib) == 0, "sem_post: %s", strerror(errno));
		int r;
		while ((r = sem_wait(&sh.to_prog)) != 0 && errno == EINTR)
			;
		CHECK(r == 0, "sem_wait: %s", strerror(errno));
	}
	for (int i = 0; i < DB_ROUNDS; i++) {
		int r = pthread_barrier_wait(&sh.bar);
		CHECK(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD, "pthread_barrier_wait: %d", r);
	}
}

/* Do an object's references bind to the program's functions? */
static void same_fns(const char *who, void *const fns[DB_NFNS])
{
	void *own[DB_NFNS];
	DB_FILL_FNS(own);
	for (int i = 0; i < DB_NFNS; i++)
		CHECK(fns[i] == own[i], "%s binds %s to %p, the program to %p", who, fn_names[i],
		      fns[i], own[i]);
	printf("%s: its %d synchronization, thread and dlopen references bind to the program's\n",
	       who, DB_NFNS);
}

static void shared_objects(void *h)
{
	lib_add = (db_add_fn *)sym(h, "db_lib_add");
	lib_rw_add = (db_add_fn *)sym(h, "db_lib_rw_add");
	CHECK(sem_init(&sh.to_lib, 0, 0) == 0 && sem_init(&sh.to_prog, 0, 0) == 0, "sem_init");
	CHECK(pthread_barrier_init(&sh.bar, NULL, 2) == 0, "pthread_barrier_init");

	pthread_t t[NT];
	for (int i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, counting, NULL) == 0, "pthread_create");
	CHECK(((db_thread_fn *)sym(h, "db_lib_start"))(&sh) == 0, "the library's pthread_create");
	exchange();
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	CHECK(((db_thread_fn *)sym(h, "db_lib_join"))(&sh) == 0, "the library's pthread_join");
	CHECK(sh.lib_thread_err == 0, "the library's thread: %s", strerror(sh.lib_thread_err));

	long want = (2 * NT + 1) * (long)DB_ADDS;
	CHECK(sh.counter == want, "mutex counter %ld, expected %ld", sh.counter, want);
	CHECK(sh.rw_counter == want, "rwlock counter %ld, expected %ld", sh.rw_counter, want);
	printf("mutex: %ld increments by %d program threads, library code and the library's "
	       "thread, none lost\n", want, NT);
	printf("rwlock: %ld increments, none lost\n", want);
	printf("condvar: %d round trips between the program and the library's thread\n", DB_ROUNDS);
	printf("semaphores: %d round trips\n", DB_ROUNDS);
	printf("barrier: %d rounds\n", DB_ROUNDS);
	CHECK(sem_destroy(&sh.to_lib) == 0 && sem_destroy(&sh.to_prog) == 0, "sem_destroy");
	CHECK(pthread_barrier_destroy(&sh.bar) == 0, "pthread_barrier_destroy");
}

int main(int argc, char **argv)
{
	CHECK(argc >= 2, "usage: deepbind LIBRARY [lazy]");
	const char *lib = argv[1];
	bool by_name = !strchr(lib, '/');
	int bind = argc > 2 && strcmp(argv[2], "lazy") == 0 ? RTLD_LAZY : RTLD_NOW;
	void *fns[DB_NFNS];
	char err[512];

	if (by_name) {
		void *d = dlopen("libdeepbind_dep.so", bind);
		CHECK(d, "dlopen libdeepbind_dep.so: %s", dlerror());
		((db_fns_fn *)sym(d, "db_dep_fns"))(fns);
		same_fns("libdeepbind_dep.so, opened by name", fns);
		CHECK(dlclose(d) == 0, "dlclose: %s", dlerror());
	}
	void *h = dlopen(lib, bind | RTLD_DEEPBIND);
	CHECK(h, "dlopen %s: %s", lib, dlerror());
	printf("libdeepbind_lib.so opened by %s with RTLD_DEEPBIND|%s\n", by_name ? "name" : "path",
	       bind == RTLD_LAZY ? "RTLD_LAZY" : "RTLD_NOW");
	const char *who = ((db_whoami_fn *)sym(h, "db_lib_whoami"))();
	CHECK(strcmp(who, "library") == 0, "the library calls the %s's db_whoami", who);
	printf("the library calls its own db_whoami, not the program's\n");

	shared_objects(h);

	((db_fns_fn *)sym(h, "db_lib_fns"))(fns);
	same_fns("libdeepbind_lib.so", fns);
	((db_fns_fn *)sym(h, "db_lib_needed_fns"))(fns);
	same_fns("libdeepbind_needed.so, loaded with it", fns);
	db_open_dep_fn *open_dep = (db_open_dep_fn *)sym(h, "db_lib_open_dep");
	static const struct {
		const char *name, *what;
		int flags;
	} dep[] = {
		{"libdeepbind_dep.so", "by name", 0},
		{"libdeepbind_dep.so", "by name with RTLD_DEEPBIND", RTLD_DEEPBIND},
		{"$ORIGIN/libdeepbind_dep.so", "as $ORIGIN/... with RTLD_DEEPBIND", RTLD_DEEPBIND},
	};
	for (size_t i = 0; i < sizeof dep / sizeof dep[0]; i++) {
		char title[128];
		CHECK(open_dep(dep[i].name, bind | dep[i].flags, fns, err, sizeof err) == 0,
		      "the library's dlopen(%s): %s", dep[i].name, err);
		snprintf(title, sizeof title, "libdeepbind_dep.so, opened by the library %s", dep[i].what);
		same_fns(title, fns);
	}
	void *d = dlopen("$ORIGIN/.libs/libdeepbind_dep.so", bind | RTLD_DEEPBIND);
	CHECK(d, "dlopen $ORIGIN/.libs/libdeepbind_dep.so: %s", dlerror());
	((db_fns_fn *)sym(d, "db_dep_fns"))(fns);
	same_fns("libdeepbind_dep.so, opened as $ORIGIN/.libs/... with RTLD_DEEPBIND", fns);
	CHECK(dlclose(d) == 0, "dlclose: %s", dlerror());
	CHECK(dlclose(h) == 0, "dlclose: %s", dlerror());
	printf("PASS deepbind\n");
	return 0;
}
