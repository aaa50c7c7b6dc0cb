/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 12 — dlerror() is per thread. 24 threads. The odd ones make a
 * dl call fail each round (dlopen of a missing file, or dlsym of a missing
 * symbol, both named after the thread), then switch away three times
 * (resuming maybe on other OS threads) before calling dlerror(): it must
 * return their own message (naming their file or symbol), and a second
 * dlerror() must return NULL. The even ones make successful dlsym calls
 * and, after each switch, dlerror() must return NULL for them although
 * other threads have errors pending at the same time. Then 24 threads end
 * with a message nobody fetched, and 24 threads started after them must
 * see NULL from dlerror().
 */
#include "tls_common.h"

#include <dlfcn.h>

#define NT 24
#define NR 30

static void *worker(void *arg)
{
	long id = (long)arg;
	for (unsigned i = 0; tls_more(i, NR); i++) {
		if (id % 2 == 0) {
			CHECK(dlsym(RTLD_DEFAULT, "printf") != NULL, "dlsym printf failed");
			tls_switch(i + (unsigned)id);
			const char *e = dlerror();
			CHECK(e == NULL, "thread %ld: dlerror() = \"%s\", want NULL", id, e);
			continue;
		}
		char name[64];
		if (i % 2 == 0) {
			snprintf(name, sizeof name, "/nonexistent-dir/libgmp-test-%ld.so", id);
			CHECK(dlopen(name, RTLD_NOW) == NULL, "dlopen %s succeeded", name);
		} else {
			snprintf(name, sizeof name, "gmp_test_no_such_symbol_%ld", id);
			CHECK(dlsym(RTLD_DEFAULT, name) == NULL, "dlsym %s succeeded", name);
		}
		for (unsigned k = 0; k < 3; k++)
			tls_switch(i + k + (unsigned)id);
		const char *e = dlerror();
		CHECK(e != NULL, "thread %ld: its dlerror() message is gone", id);
		CHECK(strstr(e, name) != NULL, "thread %ld: dlerror() = \"%s\", want one naming %s", id,
		      e, name);
		e = dlerror();
		CHECK(e == NULL, "thread %ld: second dlerror() = \"%s\"", id, e);
	}
	return NULL;
}

/* Ends with a dlerror() message nobody asked for. */
static void *leave_error(void *arg)
{
	CHECK(dlopen("/nonexistent-dir/libgmp-left-behind.so", RTLD_NOW) == NULL, "dlopen");
	tls_switch((unsigned)(long)arg);
	return NULL;
}

/* Started after those ended (and may reuse what they left): no message. */
static void *fresh(void *arg)
{
	const char *e = dlerror();
	CHECK(e == NULL, "new thread %ld: dlerror() = \"%s\", want NULL", (long)arg, e);
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	CHECK(dlerror() == NULL, "main thread sees a dlerror() message");
	for (int wave = 0; wave < 2; wave++) {
		for (long i = 0; i < NT; i++)
			CHECK(pthread_create(&t[i], NULL, wave ? fresh : leave_error, (void *)i) == 0,
			      "pthread_create");
		for (int i = 0; i < NT; i++)
			CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	}
	printf("dlerror: %d threads x >= %d rounds: messages stay with their thread, others see NULL, "
	       "new threads see none\n",
	       NT, NR);
	if (tls_migration_verdict())
		return 1;
	printf("PASS dlerror\n");
	return 0;
}
