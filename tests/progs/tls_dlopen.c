/* SPDX-License-Identifier: MIT */
/*
 * TLS.md rows 3 and 3b — __thread variables of a library opened with
 * dlopen while threads exist. Usage: tls_dlopen LIBRARY [--expect-migration]
 * with LIBRARY the absolute path of libtls_gd.so (row 3: global-dynamic
 * model, the DTV of older threads grows lazily) or libtls_ie.so (row 3b:
 * initial-exec model, dlopen must copy the init image into the static TLS
 * of every thread that already exists).
 *
 * 24 threads are created and running before the library is opened; the
 * dlopen itself is done by another thread. Then each of those threads, 24
 * threads created after the dlopen, and the main thread check that the
 * library's variables start with their initial values (42 and "library
 * image"), that the address the library computes equals what dlsym returns
 * for the variable in that thread, and, after writing their own values and
 * switching away (resuming maybe on another OS thread) many times, that
 * values and addresses stayed theirs. Then the main thread unloads the
 * library (dlclose) while the 24 older threads are alive, another thread
 * loads it again, and the older threads and main check the same again:
 * the variables start at their initial values once more.
 */
#include "tls_common.h"

#include <dlfcn.h>

#define NB 24	/* threads created before the dlopen */
#define NA 24	/* threads created after it */
#define NR 100

static const char *libpath;
static void *lib;
static const char *(*lib_model)(void);
static int *(*lib_addr)(void);
static int (*lib_get)(void);
static void (*lib_set)(int);
static char *(*lib_bufp)(void);
static int started, opened, used;

static void *sym(const char *name)
{
	void *p = dlsym(lib, name);
	CHECK(p, "dlsym %s: %s", name, dlerror());
	return p;
}

static void *opener(void *arg)
{
	tls_switch(1);
	lib = dlopen(libpath, RTLD_NOW);
	CHECK(lib, "dlopen %s: %s", libpath, dlerror());
	lib_model = (const char *(*)(void))sym("tls_lib_model");
	lib_addr = (int *(*)(void))sym("tls_lib_addr");
	lib_get = (int (*)(void))sym("tls_lib_get");
	lib_set = (void (*)(int))sym("tls_lib_set");
	lib_bufp = (char *(*)(void))sym("tls_lib_bufp");
	/* the opening thread's own copy */
	CHECK(lib_get() == 42, "opener: tls_lib_var %d, want 42", lib_get());
	__atomic_fetch_add(&opened, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The checks every thread makes, id < NB + NA, NB + NA for main. */
static void use_lib(long id)
{
	int *a = lib_addr();
	CHECK(*a == 42 && lib_get() == 42, "thread %ld: tls_lib_var starts as %d, want 42", id, *a);
	CHECK(strcmp(lib_bufp(), "library image") == 0, "thread %ld: tls_lib_buf starts as \"%.31s\"",
	      id, lib_bufp());
	CHECK(dlsym(lib, "tls_lib_var") == a, "thread %ld: dlsym gives %p, the library %p", id,
	      dlsym(lib, "tls_lib_var"), (void *)a);
	for (unsigned i = 0; tls_more(i, NR); i++) {
		int v = (int)(id * 1000 + i);
		lib_set(v);
		snprintf(lib_bufp(), 32, "t%ld r%u", id, i);
		tls_switch(i + (unsigned)id);
		char want[32];
		snprintf(want, sizeof want, "t%ld r%u", id, i);
		CHECK(lib_addr() == a, "thread %ld: the variable moved from %p to %p", id, (void *)a,
		      (void *)lib_addr());
		CHECK(lib_get() == v && *a == v, "thread %ld round %u: tls_lib_var %d, want %d", id, i,
		      lib_get(), v);
		CHECK(strcmp(lib_bufp(), want) == 0, "thread %ld: tls_lib_buf \"%.31s\", want \"%s\"",
		      id, lib_bufp(), want);
		if (i % 10 == 0)
			CHECK(dlsym(lib, "tls_lib_var") == a, "thread %ld: dlsym address changed", id);
	}
}

static void wait_opened(int n)
{
	for (unsigned i = 0; __atomic_load_n(&opened, __ATOMIC_ACQUIRE) < n; i++)
		tls_switch(i);
}

static void *early(void *arg)
{
	long id = (long)arg;
	__atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
	wait_opened(1);
	use_lib(id);
	/* the library is closed and opened again: fresh variables */
	__atomic_fetch_add(&used, 1, __ATOMIC_SEQ_CST);
	wait_opened(2);
	use_lib(id);
	return NULL;
}

static void *late(void *arg)
{
	use_lib((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	CHECK(argc >= 2 && argv[1][0] == '/', "usage: tls_dlopen /path/of/libtls_XX.so");
	libpath = argv[1];
	pthread_t t[NB + NA], op;
	for (long i = 0; i < NB; i++)
		CHECK(pthread_create(&t[i], NULL, early, (void *)i) == 0, "pthread_create");
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < NB)
		sched_yield();
	CHECK(pthread_create(&op, NULL, opener, NULL) == 0, "pthread_create");
	CHECK(pthread_join(op, NULL) == 0, "pthread_join");
	for (long i = NB; i < NB + NA; i++)
		CHECK(pthread_create(&t[i], NULL, late, (void *)i) == 0, "pthread_create");
	use_lib(NB + NA);
	for (int i = NB; i < NB + NA; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	printf("dlopen %s: %d threads created before the dlopen, %d after, and main: "
	       "initial 42, dlsym address, values after switches\n",
	       lib_model(), NB, NA);

	/* unload it while the early threads live, and load it again */
	while (__atomic_load_n(&used, __ATOMIC_SEQ_CST) < NB)
		sched_yield();
	CHECK(dlclose(lib) == 0, "dlclose: %s", dlerror());
	CHECK(dlopen(libpath, RTLD_NOW | RTLD_NOLOAD) == NULL, "dlclose did not unload %s", libpath);
	CHECK(pthread_create(&op, NULL, opener, NULL) == 0, "pthread_create");
	CHECK(pthread_join(op, NULL) == 0, "pthread_join");
	for (int i = 0; i < NB; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	use_lib(NB + NA);
	printf("dlopen %s: unloaded and loaded again: the %d older threads and main see fresh "
	       "variables\n",
	       lib_model(), NB);
	if (tls_migration_verdict())
		return 1;
	printf("PASS dlopen %s\n", lib_model());
	return 0;
}
