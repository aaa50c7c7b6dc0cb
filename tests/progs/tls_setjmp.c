/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 7 — setjmp/longjmp and sigsetjmp/siglongjmp across a
 * migration. glibc mangles the saved stack pointer, frame pointer and
 * return address with the pointer guard in the thread's TCB (%fs:0x30), so
 * a jmp_buf saved on one OS thread and used on another works only if the
 * thread carries one consistent TCB. 32 threads, each round: setjmp, then
 * switch away (resuming maybe on another OS thread) and longjmp back —
 * directly, from 8 nested frames down, and with value 0 (setjmp must then
 * return 1); the same with sigsetjmp/siglongjmp, saving the signal mask
 * and not. After each jump: the value setjmp returned, volatile locals,
 * the address of a local and a __thread value must be right.
 *
 * A jmp_buf may also be used by another thread than the one that saved it:
 * a coroutine (ucontext) calls setjmp and sigsetjmp, swaps back to the
 * thread that started it, is resumed by another thread, and there jumps
 * back with siglongjmp and longjmp. Twice: main thread to a thread it
 * created, and a thread to one that thread created.
 */
#include "tls_common.h"

#include <setjmp.h>
#include <ucontext.h>

#define NT 32
#define NR 40

static __thread long tl_id = -1;

static int deep(jmp_buf env, int n, int val, unsigned i)
{
	volatile char pad[64];
	pad[0] = (char)n;
	if (n < 0)
		return 0;
	if (n == 0) {
		tls_switch(i);
		longjmp(env, val);
	}
	return deep(env, n - 1, val, i) + pad[0];
}

static int sdeep(sigjmp_buf env, int n, int val, unsigned i)
{
	volatile char pad[64];
	pad[0] = (char)n;
	if (n < 0)
		return 0;
	if (n == 0) {
		tls_switch(i);
		siglongjmp(env, val);
	}
	return sdeep(env, n - 1, val, i) + pad[0];
}

static void sig_round(long id, unsigned i, int save, int want)
{
	sigjmp_buf senv;
	volatile int count = 0;
	int r = sigsetjmp(senv, save);
	count++;
	if (r == 0) {
		if (i % 2)
			sdeep(senv, 5, want, i);
		tls_switch(i + 2);
		siglongjmp(senv, want);
	}
	CHECK(r == want && count == 2, "thread %ld: siglongjmp (savemask %d) gave %d, count %d", id,
	      save, r, count);
}

static void one_round(long id, unsigned i)
{
	jmp_buf env;
	volatile int count = 0;
	volatile long marker = id * 7 + i;
	volatile long *where = &marker;
	int want = (int)(id * 100 + i % 100 + 1);

	int r = setjmp(env);
	count++;
	if (r == 0) {
		tls_switch(i + (unsigned)id);
		longjmp(env, want);
	}
	CHECK(r == want && count == 2, "thread %ld: setjmp returned %d (count %d), want %d",
	      id, r, count, want);

	count = 0;
	r = setjmp(env);
	count++;
	if (r == 0)
		deep(env, 8, want + 1, i);
	CHECK(r == want + 1 && count == 2, "thread %ld: longjmp from 8 frames down gave %d", id,
	      r);

	count = 0;
	r = setjmp(env);
	count++;
	if (r == 0 && count == 1) {
		tls_switch(i + 1);
		longjmp(env, 0);
	}
	CHECK(r == 1 && count == 2, "thread %ld: longjmp(env, 0) made setjmp return %d", id, r);

	sig_round(id, i, 0, want + 2);
	sig_round(id, i, 1, want + 3);
	CHECK(marker == id * 7 + i && where == &marker, "thread %ld: locals damaged", id);
	CHECK(tl_id == id, "thread %ld: __thread tl_id is %ld", id, tl_id);
}

/* --- a coroutine handed from one thread to another --------------------- */

static ucontext_t co_ctx, *co_back;
static char co_stack[256 * 1024] __attribute__((aligned(64)));
static int co_parked, co_ok, co_done;

static void co_yield(void)
{
	CHECK(swapcontext(&co_ctx, co_back) == 0, "swapcontext");
}

__attribute__((noinline)) static void co_body(void)
{
	jmp_buf env;
	sigjmp_buf senv;
	volatile int n1 = 0, n2 = 0, r2 = -1;
	int r1 = setjmp(env);
	n1++;
	if (r1 == 0) {
		int r = sigsetjmp(senv, 1);
		n2++;
		r2 = r;
		if (r == 0) {
			co_yield();	/* another thread resumes us */
			tls_switch(1);
			siglongjmp(senv, 5);
		}
		longjmp(env, 7);
	}
	co_ok = r1 == 7 && n1 == 2 && r2 == 5 && n2 == 2;
}

static void co_main(void)
{
	co_body();
	co_done = 1;
	co_yield();
}

/* Run the coroutine up to its yield on the calling thread. */
static void co_start(void)
{
	ucontext_t here;
	CHECK(getcontext(&co_ctx) == 0, "getcontext");
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof co_stack;
	co_ctx.uc_link = NULL;
	makecontext(&co_ctx, co_main, 0);
	co_done = co_ok = 0;
	co_back = &here;
	CHECK(swapcontext(&here, &co_ctx) == 0, "swapcontext");
	__atomic_store_n(&co_parked, 1, __ATOMIC_RELEASE);
}

/* Resume it on the calling thread: the jumps happen here. */
static void *co_finish(void *arg)
{
	ucontext_t here;
	for (unsigned i = 0; !__atomic_load_n(&co_parked, __ATOMIC_ACQUIRE); i++)
		tls_switch(i);
	co_parked = 0;
	co_back = &here;
	CHECK(swapcontext(&here, &co_ctx) == 0, "swapcontext");
	CHECK(co_done, "the coroutine did not finish");
	CHECK(co_ok, "setjmp/sigsetjmp in the coroutine returned wrong values");
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
	tl_id = id;
	for (unsigned i = 0; tls_more(i, NR); i++)
		one_round(id, i);
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
	printf("setjmp: %d threads x >= %d rounds: longjmp and siglongjmp after switches, "
	       "from nested frames, value 0\n",
	       NT, NR);

	/* main thread -> its thread, then a thread -> the thread it created */
	pthread_t f, st;
	CHECK(pthread_create(&f, NULL, co_finish, NULL) == 0, "pthread_create");
	co_start();
	CHECK(pthread_join(f, NULL) == 0, "pthread_join");
	CHECK(pthread_create(&st, NULL, co_starter, NULL) == 0, "pthread_create");
	CHECK(pthread_join(st, NULL) == 0, "pthread_join");
	printf("setjmp: jmp_bufs saved in a coroutine on one thread worked on another, twice\n");
	if (tls_migration_verdict())
		return 1;
	printf("PASS setjmp\n");
	return 0;
}
