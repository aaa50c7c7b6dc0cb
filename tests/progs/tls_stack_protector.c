/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 8 — the stack protector across a migration. Built with
 * -fstack-protector-all: every function stores the canary from %fs:0x28 in
 * its frame on entry and compares it on return, aborting with "stack
 * smashing detected" on a mismatch. 32 threads run protected functions
 * that switch away in the middle of their body (resuming maybe on another
 * OS thread, under another thread pointer if each thread has its own TCB)
 * and then return normally — also 6 such frames nested, each switching
 * before and after the call below it. The canary read through %fs:0x28
 * before and after each switch must be the same value, and it must be the
 * main thread's value in every thread (glibc copies it to each new thread).
 *
 * A protected frame may also be left under another thread's TCB: a
 * coroutine (ucontext) started by one thread and resumed by another. Twice
 * — main thread to a thread it created, and a thread to one that thread
 * created — a coroutine runs a protected function that swaps back to its
 * starter in mid-body; the other thread resumes it, and the function
 * returns normally there.
 *
 * Success is that the program gets to its PASS line instead of dying with
 * SIGABRT ("stack smashing detected").
 */
#include "tls_common.h"

#include <ucontext.h>

#define NT 32
#define NR 40

static long straddled;	/* protected frames entered and left on different OS threads */

static unsigned long canary(void)
{
	unsigned long c;
	__asm__ volatile("mov %%fs:0x28, %0" : "=r"(c));
	return c;
}

static int protected_frame(long id, int depth, unsigned i)
{
	char buf[64];
	int entry_tid = os_tid();
	unsigned long c0 = canary();
	snprintf(buf, sizeof buf, "thread %ld depth %d round %u", id, depth, i);
	tls_switch(i + (unsigned)depth);
	CHECK(canary() == c0, "thread %ld: the canary changed across a switch", id);
	int sum = depth > 0 ? protected_frame(id, depth - 1, i + 1) : 0;
	tls_switch(i + 2);
	CHECK(canary() == c0, "thread %ld: the canary changed across a switch", id);
	char want[64];
	snprintf(want, sizeof want, "thread %ld depth %d round %u", id, depth, i);
	CHECK(strcmp(buf, want) == 0, "thread %ld: local buffer \"%s\"", id, buf);
	if (os_tid() != entry_tid)
		__atomic_fetch_add(&straddled, 1, __ATOMIC_RELAXED);
	return sum + (int)strlen(buf);
}

static unsigned long main_canary;

/* --- a coroutine handed from one thread to another --------------------- */

static ucontext_t co_ctx, *co_back;
static char co_stack[256 * 1024] __attribute__((aligned(64)));
static int co_parked, co_result, co_done;

static void co_yield(void)
{
	CHECK(swapcontext(&co_ctx, co_back) == 0, "swapcontext");
}

__attribute__((noinline)) static int co_protected(void)
{
	char buf[64];
	snprintf(buf, sizeof buf, "started by OS thread %d", os_tid());
	co_yield();	/* the starter's thread leaves; another thread resumes us */
	tls_switch(1);
	return (int)strlen(buf) + 1;
}

static void co_main(void)
{
	co_result = co_protected();
	co_done = 1;
	co_yield();
}

/* Run the coroutine up to its first yield on the calling thread. */
static void co_start(void)
{
	ucontext_t here;
	CHECK(getcontext(&co_ctx) == 0, "getcontext");
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof co_stack;
	co_ctx.uc_link = NULL;
	makecontext(&co_ctx, co_main, 0);
	co_done = 0;
	co_back = &here;
	CHECK(swapcontext(&here, &co_ctx) == 0, "swapcontext");
	__atomic_store_n(&co_parked, 1, __ATOMIC_RELEASE);
}

/* Resume it on the calling thread: the protected function returns here. */
static void *co_finish(void *arg)
{
	ucontext_t here;
	for (unsigned i = 0; !__atomic_load_n(&co_parked, __ATOMIC_ACQUIRE); i++)
		tls_switch(i);
	co_parked = 0;
	co_back = &here;
	CHECK(swapcontext(&here, &co_ctx) == 0, "swapcontext");
	CHECK(co_done && co_result > 0, "the coroutine did not finish");
	return NULL;
}

static void *co_starter(void *arg)
{
	pthread_t t;
	CHECK(pthread_create(&t, NULL, co_finish, NULL) == 0, "pthread_create");
	co_start();
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	return NULL;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	CHECK(canary() == main_canary, "thread %ld's canary differs from the main thread's", id);
	for (unsigned i = 0; tls_more(i, NR); i++) {
		int depth = i % 4 == 0 ? 6 : 0;
		int r = protected_frame(id, depth, i);
		CHECK(r > 0, "thread %ld: bad result %d", id, r);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	main_canary = canary();
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	CHECK(canary() == main_canary, "main's canary changed");

	/* main thread -> its thread, then a thread -> the thread it created */
	pthread_t f, s;
	CHECK(pthread_create(&f, NULL, co_finish, NULL) == 0, "pthread_create");
	co_start();
	CHECK(pthread_join(f, NULL) == 0, "pthread_join");
	CHECK(pthread_create(&s, NULL, co_starter, NULL) == 0, "pthread_create");
	CHECK(pthread_join(s, NULL) == 0, "pthread_join");
	fprintf(stderr, "protected frames entered and left on different OS threads: %ld\n",
		straddled);
	printf("stack protector: %d threads x >= %d rounds, protected frames (up to 7 nested) "
	       "switching mid-body returned normally; every thread has main's canary\n",
	       NT, NR);
	printf("stack protector: protected frames in coroutines handed to another thread "
	       "returned normally there, twice\n");
	if (tls_migration_verdict())
		return 1;
	if (tls_expect_migration && straddled == 0) {
		printf("FAIL: no protected frame was left on another OS thread than it was entered\n");
		return 1;
	}
	printf("PASS stack protector\n");
	return 0;
}
