/* SPDX-License-Identifier: MIT */
/* How a process and its threads end. One mode per run (argv[1]); every
 * mode prints the same lines and ends with the same status under NPTL:
 *
 *   main-exit     pthread_exit from main while three threads run: the
 *                 process lives on until the last one returns; status 0;
 *                 main's cleanup handler and key destructor run; atexit
 *                 handlers run once, after every thread finished.
 *   last-exit     the last thread ends with pthread_exit: status 0.
 *   exit3         exit(3) from a thread while others sleep: status 3, the
 *                 atexit handler runs once.
 *   return7       main returns 7 while threads sleep: status 7.
 *   nested        pthread_exit(value) deep in nested calls: the joiner
 *                 gets value; also from a detached thread and thrd_exit.
 *   cleanup       pthread_cleanup_push/pop: handlers run in reverse order
 *                 on pthread_exit, pop(1) runs its handler, pop(0) does
 *                 not, and a normal return runs none.
 */
#include "api_util.h"
#include <pthread.h>

static atomic_int finished, atexit_runs, asleep;
static pthread_key_t key;

static void at_exit(void)
{
	atomic_fetch_add(&atexit_runs, 1);
	SAY("atexit handler: run %d, threads finished %d", atomic_load(&atexit_runs),
	    atomic_load(&finished));
}

/* --- main-exit and last-exit ------------------------------------------------- */

struct chain {
	pthread_t prev;		/* joined first, so the threads end in order */
	int id;
	bool use_pthread_exit;
};

static void *chained(void *arg)
{
	struct chain *c = arg;
	if (c->id > 0)
		EXPECT_ERR(0, pthread_join(c->prev, NULL));
	usleep(20000);
	SAY("thread %d ends%s", c->id, c->use_pthread_exit ? " with pthread_exit" : "");
	atomic_fetch_add(&finished, 1);
	if (c->use_pthread_exit)
		pthread_exit(NULL);
	return NULL;
}

static void main_cleanup(void *arg)
{
	SAY("main's cleanup handler: %s", (const char *)arg);
}

static void key_destructor(void *v)
{
	SAY("key destructor: %s", (const char *)v);
}

static int main_exit(int n, bool last_uses_pthread_exit)
{
	static struct chain c[8];
	pthread_t prev = 0;
	EXPECT_ERR(0, pthread_key_create(&key, key_destructor));
	EXPECT_ERR(0, pthread_setspecific(key, "main's value"));
	for (int i = 0; i < n; i++) {
		c[i].prev = prev;
		c[i].id = i;
		c[i].use_pthread_exit = last_uses_pthread_exit && i == n - 1;
		EXPECT_ERR(0, pthread_create(&prev, NULL, chained, &c[i]));
	}
	pthread_cleanup_push(main_cleanup, "ran");
	SAY("main calls pthread_exit");
	pthread_exit(NULL);
	pthread_cleanup_pop(0);
	SAY("FAIL: pthread_exit returned");
	return 1;
}

/* --- exit3 and return7 --------------------------------------------------------- */

static void *sleeper(void *arg)
{
	atomic_fetch_add(&asleep, 1);
	sleep(30);
	SAY("FAIL: a sleeper woke up");
	return arg;
}

static void *exiter(void *arg)
{
	wait_count(&asleep, 4);
	SAY("thread calls exit(3)");
	exit(3);
}

static int exit3(void)
{
	pthread_t t;
	for (int i = 0; i < 4; i++)
		EXPECT_ERR(0, pthread_create(&t, NULL, sleeper, NULL));
	EXPECT_ERR(0, pthread_create(&t, NULL, exiter, NULL));
	pthread_join(t, NULL);
	SAY("FAIL: main went on after exit(3)");
	return 1;
}

static int return7(void)
{
	pthread_t t;
	for (int i = 0; i < 4; i++)
		EXPECT_ERR(0, pthread_create(&t, NULL, sleeper, NULL));
	wait_count(&asleep, 4);
	SAY("main returns 7");
	return 7;
}

/* --- nested ----------------------------------------------------------------------- */

static int depth_reached;

static __attribute__((noinline)) void dive(int depth, void *value)
{
	volatile char pad[256];
	pad[0] = (char)depth;
	if (depth == 0) {
		depth_reached = 1;
		pthread_exit(value);
	}
	if (depth > 0)
		dive(depth - 1, value);
	SAY("FAIL: returned from depth %d (%d)", depth, pad[0]);
}

static void *nested_start(void *arg)
{
	dive(50, arg);
	return (void *)0xbad;
}

static atomic_int detached_done;

static void *detached_start(void *arg)
{
	pthread_detach(pthread_self());
	atomic_store(&detached_done, 1);
	dive(10, arg);
	return NULL;
}

static int nested(void)
{
	pthread_t t;
	void *res = NULL;
	EXPECT_ERR(0, pthread_create(&t, NULL, nested_start, (void *)0x1234));
	EXPECT_ERR(0, pthread_join(t, &res));
	CHECK(res == (void *)0x1234 && depth_reached, "joiner got %p", res);
	SAY("pthread_exit(0x1234) from 50 calls deep: joiner gets 0x1234");
	for (long i = 0; i < 100; i++) {
		EXPECT_ERR(0, pthread_create(&t, NULL, nested_start, (void *)i));
		EXPECT_ERR(0, pthread_join(t, &res));
		CHECK(res == (void *)i, "joiner got %p, expected %ld", res, i);
	}
	SAY("100 more: each joiner gets its own value");
	EXPECT_ERR(0, pthread_create(&t, NULL, detached_start, NULL));
	wait_flag(&detached_done);
	SAY("a detached thread can pthread_exit too");
	return 0;
}

/* --- cleanup ------------------------------------------------------------------------ */

static char order[64];

static void note(void *arg)
{
	strcat(order, (const char *)arg);
}

static __attribute__((noinline)) void inner(void)
{
	pthread_cleanup_push(note, "6");
	pthread_cleanup_push(note, "7");
	pthread_exit((void *)7);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
}

static void *cleanup_thread(void *arg)
{
	pthread_cleanup_push(note, "1");
	pthread_cleanup_push(note, "2");
	pthread_cleanup_push(note, "3");
	pthread_cleanup_pop(1);		/* runs "3" */
	pthread_cleanup_push(note, "4");
	pthread_cleanup_pop(0);		/* "4" never runs */
	pthread_cleanup_push(note, "5");
	strcat(order, "|");
	inner();
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *returning_thread(void *arg)
{
	pthread_cleanup_push(note, "X");
	strcat(order, "r");
	pthread_cleanup_pop(0);
	return arg;
}

static int cleanup(void)
{
	pthread_t t;
	void *res;
	EXPECT_ERR(0, pthread_create(&t, NULL, cleanup_thread, NULL));
	EXPECT_ERR(0, pthread_join(t, &res));
	SAY("handlers ran: %s; result %p", order, res);
	CHECK(strcmp(order, "3|76521") == 0 && res == (void *)7, "order %s", order);
	order[0] = '\0';
	EXPECT_ERR(0, pthread_create(&t, NULL, returning_thread, (void *)8));
	EXPECT_ERR(0, pthread_join(t, &res));
	SAY("a thread that pops its handler with 0 and returns: \"%s\", result %p", order, res);
	CHECK(strcmp(order, "r") == 0 && res == (void *)8, "order %s", order);
	/* many times over: each thread's chain is its own */
	for (int i = 0; i < 50; i++) {
		order[0] = '\0';
		EXPECT_ERR(0, pthread_create(&t, NULL, cleanup_thread, NULL));
		EXPECT_ERR(0, pthread_join(t, &res));
		CHECK(strcmp(order, "3|76521") == 0, "round %d: order %s", i, order);
	}
	SAY("50 more threads: same order");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	atexit(at_exit);
	if (strcmp(mode, "main-exit") == 0)
		return main_exit(3, false);
	if (strcmp(mode, "last-exit") == 0)
		return main_exit(1, true);
	if (strcmp(mode, "exit3") == 0)
		return exit3();
	if (strcmp(mode, "return7") == 0)
		return return7();
	int r = -1;
	if (strcmp(mode, "nested") == 0)
		r = nested();
	if (strcmp(mode, "cleanup") == 0)
		r = cleanup();
	if (r == 0)
		SAY("PASS api_exit %s", mode);
	if (r < 0)
		SAY("FAIL: unknown mode \"%s\"", mode);
	return r == 0 ? 0 : 1;
}
