/* SPDX-License-Identifier: MIT */
/* Thread-specific data: pthread_key_* and C11 tss_*. Destructors run at
 * thread exit with the thread's value; a destructor that sets a new value
 * runs again, for PTHREAD_DESTRUCTOR_ITERATIONS rounds at most; values are
 * per thread; a deleted key's destructor does not run; 200 keys at once
 * (past the first block of 32). With "leftover": a thread never sees a
 * value that the last destructor round of an earlier thread left behind.
 * Every line is the same under NPTL. */
#include "api_util.h"
#include <limits.h>
#include <pthread.h>
#include <threads.h>

#define NKEYS 200

static atomic_int calls;
static void *last_value;
static pthread_key_t key, key2;

static void destr(void *v)
{
	atomic_fetch_add(&calls, 1);
	last_value = v;
}

static void *set_and_return(void *arg)
{
	CHECK(pthread_getspecific(key) == NULL, "new thread sees %p", pthread_getspecific(key));
	EXPECT_ERR(0, pthread_setspecific(key, arg));
	CHECK(pthread_getspecific(key) == arg, "getspecific");
	return NULL;
}

static void *set_and_exit(void *arg)
{
	EXPECT_ERR(0, pthread_setspecific(key, arg));
	pthread_exit(NULL);
}

static void run1(void *(*fn)(void *), void *arg)
{
	pthread_t t;
	EXPECT_ERR(0, pthread_create(&t, NULL, fn, arg));
	EXPECT_ERR(0, pthread_join(t, NULL));
}

static void basic(void)
{
	EXPECT_ERR(0, pthread_key_create(&key, destr));
	run1(set_and_return, (void *)0x11);
	CHECK(calls == 1 && last_value == (void *)0x11, "calls %d value %p", calls, last_value);
	SAY("thread returns: destructor ran once with its value");
	run1(set_and_exit, (void *)0x22);
	CHECK(calls == 2 && last_value == (void *)0x22, "calls %d value %p", calls, last_value);
	SAY("thread calls pthread_exit: destructor ran once with its value");
	run1(set_and_return, NULL);
	CHECK(calls == 2, "calls %d", calls);
	SAY("NULL value: no destructor call");
	EXPECT_ERR(0, pthread_key_delete(key));
}

/* --- a destructor that sets a value again -------------------------------------- */

static atomic_int rounds;

static void resetting(void *v)
{
	int n = atomic_fetch_add(&rounds, 1) + 1;
	CHECK(v == (void *)(long)n, "round %d got %p", n, v);
	pthread_setspecific(key, (void *)(long)(n + 1));	/* forever */
}

static void *set_once(void *arg)
{
	EXPECT_ERR(0, pthread_setspecific(key, (void *)1));
	return NULL;
}

static void *look(void *arg)
{
	*(void **)arg = pthread_getspecific(key);
	return NULL;
}

static void again(void)
{
	EXPECT_ERR(0, pthread_key_create(&key, resetting));
	run1(set_once, NULL);
	SAY("destructor that always sets a new value: called %d times (PTHREAD_DESTRUCTOR_ITERATIONS"
	    " %d)", atomic_load(&rounds), PTHREAD_DESTRUCTOR_ITERATIONS);
	CHECK(rounds == PTHREAD_DESTRUCTOR_ITERATIONS, "rounds %d", rounds);
	EXPECT_ERR(0, pthread_key_delete(key));
}

static void leftover(void)
{
	EXPECT_ERR(0, pthread_key_create(&key, resetting));
	run1(set_once, NULL);
	CHECK(rounds == PTHREAD_DESTRUCTOR_ITERATIONS, "rounds %d", rounds);
	/* what the last round left behind belongs to nobody: later threads
	 * (which may reuse the finished one's memory) start with NULL */
	for (int i = 0; i < 20; i++) {
		void *seen = (void *)1;
		run1(look, &seen);
		CHECK(seen == NULL, "thread %d starts with value %p for the key", i, seen);
	}
	SAY("20 later threads start with NULL for that key");
	EXPECT_ERR(0, pthread_key_delete(key));
}

/* --- per thread -------------------------------------------------------------------- */

#define NPER 8
static atomic_int arrived, go;

static void *per_thread(void *arg)
{
	EXPECT_ERR(0, pthread_setspecific(key, arg));
	atomic_fetch_add(&arrived, 1);
	wait_flag(&go);
	for (int i = 0; i < 100; i++) {
		CHECK(pthread_getspecific(key) == arg, "saw %p, set %p", pthread_getspecific(key),
		      arg);
		sched_yield();
	}
	return NULL;
}

static void per_thread_values(void)
{
	pthread_t t[NPER];
	EXPECT_ERR(0, pthread_key_create(&key, NULL));
	EXPECT_ERR(0, pthread_setspecific(key, (void *)0x1000));
	for (long i = 0; i < NPER; i++)
		EXPECT_ERR(0, pthread_create(&t[i], NULL, per_thread, (void *)(i + 1)));
	wait_count(&arrived, NPER);
	atomic_store(&go, 1);
	for (int i = 0; i < NPER; i++)
		EXPECT_ERR(0, pthread_join(t[i], NULL));
	CHECK(pthread_getspecific(key) == (void *)0x1000, "main sees %p", pthread_getspecific(key));
	SAY("%d threads and main: each sees only its own value", NPER);
	EXPECT_ERR(0, pthread_key_delete(key));
}

/* --- deleted key --------------------------------------------------------------------- */

static atomic_int value_set, deleted;

static void *set_then_wait(void *arg)
{
	EXPECT_ERR(0, pthread_setspecific(key, arg));
	atomic_store(&value_set, 1);
	wait_flag(&deleted);
	return NULL;
}

static void deleted_key(void)
{
	pthread_t t;
	calls = 0;
	EXPECT_ERR(0, pthread_key_create(&key, destr));
	EXPECT_ERR(0, pthread_create(&t, NULL, set_then_wait, (void *)0x33));
	wait_flag(&value_set);
	EXPECT_ERR(0, pthread_key_delete(key));
	atomic_store(&deleted, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
	CHECK(calls == 0, "destructor of a deleted key ran %d times", calls);
	SAY("key deleted while a thread holds a value: its destructor does not run");

	/* a new key (maybe the same slot) does not see the old key's values */
	EXPECT_ERR(0, pthread_key_create(&key, destr));
	EXPECT_ERR(0, pthread_setspecific(key, (void *)0x44));
	EXPECT_ERR(0, pthread_key_delete(key));
	EXPECT_ERR(0, pthread_key_create(&key2, destr));
	CHECK(pthread_getspecific(key2) == NULL, "new key sees %p", pthread_getspecific(key2));
	SAY("a key created after a delete starts with NULL");
	EXPECT_ERR(0, pthread_key_delete(key2));
}

/* --- many keys ------------------------------------------------------------------------- */

static pthread_key_t many[NKEYS];
static unsigned char seen[NKEYS];
static atomic_int bad_value;

static void many_destr(void *v)
{
	long i = (long)v - 1;
	if (i < 0 || i >= NKEYS || seen[i]++)
		atomic_store(&bad_value, 1);
	atomic_fetch_add(&calls, 1);
}

static void *use_many(void *arg)
{
	for (long i = 0; i < NKEYS; i++)
		EXPECT_ERR(0, pthread_setspecific(many[i], (void *)(i + 1)));
	for (long i = 0; i < NKEYS; i++)
		CHECK(pthread_getspecific(many[i]) == (void *)(i + 1), "key %ld", i);
	return NULL;
}

static void *look_many(void *arg)
{
	for (long i = 0; i < NKEYS; i++)
		if (pthread_getspecific(many[i]) != NULL)
			atomic_store(&bad_value, 1);
	return NULL;
}

static void many_keys(void)
{
	calls = 0;
	for (int i = 0; i < NKEYS; i++)
		EXPECT_ERR(0, pthread_key_create(&many[i], many_destr));
	run1(use_many, NULL);
	CHECK(calls == NKEYS && !bad_value, "destructor calls %d, bad %d", calls, bad_value);
	for (int i = 0; i < NKEYS; i++)
		CHECK(pthread_getspecific(many[i]) == NULL, "main sees key %d", i);
	SAY("%d keys: a thread sets and reads all, each destructor runs once with its value",
	    NKEYS);
	for (int i = 0; i < 10; i++)
		run1(look_many, NULL);
	CHECK(!bad_value, "a later thread saw a value");
	SAY("later threads see none of them");
	for (int i = 0; i < NKEYS; i++)
		EXPECT_ERR(0, pthread_key_delete(many[i]));
}

/* --- tss ------------------------------------------------------------------------------------ */

static tss_t tk;
static tss_t tmany[NKEYS];

static int tss_user(void *arg)
{
	CHECK(tss_get(tk) == NULL, "fresh thread sees %p", tss_get(tk));
	CHECK(tss_set(tk, arg) == thrd_success, "tss_set");
	CHECK(tss_get(tk) == arg, "tss_get");
	if ((long)arg == 0x66)
		thrd_exit(6);
	return 5;
}

static int tss_many_user(void *arg)
{
	for (long i = 0; i < NKEYS; i++)
		CHECK(tss_set(tmany[i], (void *)(i + 1)) == thrd_success, "tss_set %ld", i);
	for (long i = 0; i < NKEYS; i++)
		CHECK(tss_get(tmany[i]) == (void *)(i + 1), "tss_get %ld", i);
	return 0;
}

static int tss_holder(void *arg)
{
	CHECK(tss_set(tk, arg) == thrd_success, "tss_set");
	atomic_store(&value_set, 1);
	wait_flag(&deleted);
	return 0;
}

static void tss(void)
{
	thrd_t t;
	int res;
	calls = 0;
	CHECK(tss_create(&tk, destr) == thrd_success, "tss_create");
	CHECK(thrd_create(&t, tss_user, (void *)0x55) == thrd_success, "thrd_create");
	CHECK(thrd_join(t, &res) == thrd_success && res == 5, "join res %d", res);
	CHECK(calls == 1 && last_value == (void *)0x55, "calls %d value %p", calls, last_value);
	SAY("tss: destructor runs once with the value when the thread returns");
	CHECK(thrd_create(&t, tss_user, (void *)0x66) == thrd_success, "thrd_create");
	CHECK(thrd_join(t, &res) == thrd_success && res == 6, "join res %d", res);
	CHECK(calls == 2 && last_value == (void *)0x66, "calls %d value %p", calls, last_value);
	SAY("tss: and when it calls thrd_exit");

	calls = 0;
	atomic_store(&value_set, 0);
	atomic_store(&deleted, 0);
	CHECK(thrd_create(&t, tss_holder, (void *)0x77) == thrd_success, "thrd_create");
	wait_flag(&value_set);
	tss_delete(tk);
	atomic_store(&deleted, 1);
	CHECK(thrd_join(t, &res) == thrd_success, "join");
	CHECK(calls == 0, "destructor of a deleted tss ran %d times", calls);
	SAY("tss: deleted while a thread holds a value: no destructor call");

	calls = 0;
	memset(seen, 0, sizeof seen);
	for (int i = 0; i < NKEYS; i++)
		CHECK(tss_create(&tmany[i], many_destr) == thrd_success, "tss_create %d", i);
	CHECK(thrd_create(&t, tss_many_user, NULL) == thrd_success, "thrd_create");
	CHECK(thrd_join(t, &res) == thrd_success, "join");
	CHECK(calls == NKEYS && !bad_value, "calls %d bad %d", calls, bad_value);
	SAY("tss: %d at once, each destructor runs once with its value", NKEYS);
	for (int i = 0; i < NKEYS; i++)
		tss_delete(tmany[i]);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "leftover") == 0) {
		leftover();
		SAY("PASS api_keys leftover");
		return 0;
	}
	basic();
	again();
	per_thread_values();
	deleted_key();
	many_keys();
	tss();
	/* every key: PTHREAD_KEYS_MAX of them, then EAGAIN */
	static pthread_key_t all[PTHREAD_KEYS_MAX + 1];
	int n = 0, r;
	while (n <= PTHREAD_KEYS_MAX && (r = pthread_key_create(&all[n], NULL)) == 0)
		n++;
	SAY("keys created until failure: %d, then %s", n, errname(r));
	CHECK(n == PTHREAD_KEYS_MAX && r == EAGAIN, "%d keys, then %s", n, errname(r));
	EXPECT_ERR(0, pthread_key_delete(all[n / 2]));
	EXPECT_ERR(0, pthread_key_create(&all[n / 2], NULL));
	SAY("after deleting one, one more can be created");
	for (int i = 0; i < n; i++)
		EXPECT_ERR(0, pthread_key_delete(all[i]));
	SAY("PASS api_keys");
	return 0;
}
