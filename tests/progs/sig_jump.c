/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sig_jump.c — the signal mask where code leaves by a jump,
 * unwinds, or sets it with a raw system call. An ordinary pthread
 * program.
 *
 *   sig_jump unwind   8 threads at a time end with pthread_exit (the
 *                     unwinder blocks every signal around its lookups)
 *                     while the main thread yields and raises SIGUSR1,
 *                     300 rounds: each raise runs the handler before it
 *                     returns, as the main thread's mask lets SIGUSR1
 *                     through
 *   sig_jump siglongjmp  a handler left with siglongjmp: to a sigsetjmp
 *                     that saved the mask (SIGUSR1 unblocked again: the
 *                     next raise runs the handler), that did not (it
 *                     stays blocked, as the kernel left it), from a
 *                     handler nested in another (both left), and a
 *                     jump inside a handler, which then returns
 *   sig_jump longjmp  the same with longjmp, _longjmp and __longjmp_chk
 *                     (setjmp saves no mask: SIGUSR1 stays blocked)
 *   sig_jump context  swapcontext into a coroutine whose context blocks
 *                     SIGUSR1 (blocked there, not back in main), and a
 *                     handler left with setcontext to a getcontext made
 *                     before the raise (its mask back: the next raise
 *                     runs the handler)
 *   sig_jump raw      syscall(SYS_rt_sigprocmask): blocking SIGUSR1 shows
 *                     in sigprocmask and holds a raise across a yield
 *                     until the raw unblock runs the handler; the old
 *                     set is 8 bytes (the next word untouched); a bad
 *                     how and a set size other than 8 are EINVAL
 *   sig_jump preempt  after a handler left with siglongjmp, the main
 *                     thread computes until another thread has run (at
 *                     most 5 s): it must share its CPU
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <ucontext.h>

static volatile sig_atomic_t hits;

static void count(int sig)
{
	(void)sig;
	hits++;
}

static sigjmp_buf env;
static int jump_how;		/* 0 siglongjmp, 1 longjmp, 2 _longjmp, 3 __longjmp_chk */

void __longjmp_chk(struct __jmp_buf_tag env[1], int val) __attribute__((noreturn));

static void jump(int val)
{
	switch (jump_how) {
	case 0:
		siglongjmp(env, val);
	case 1:
		longjmp(env, val);
	case 2:
		_longjmp(env, val);
	default:
		__longjmp_chk(env, val);
	}
}

static void jump_out(int sig)
{
	(void)sig;
	hits++;
	jump(1);
}

/* SIGUSR1's handler raises SIGUSR2, whose handler jumps out of both */
static void outer(int sig)
{
	(void)sig;
	hits++;
	raise(SIGUSR2);
}

/* a jump that stays inside the handler, which then returns */
static void jump_inside(int sig)
{
	(void)sig;
	sigjmp_buf here;
	if (sigsetjmp(here, 1) == 0)
		siglongjmp(here, 1);
	hits++;
}

static int blocked(int sig)
{
	sigset_t m;
	sigprocmask(SIG_BLOCK, NULL, &m);
	return sigismember(&m, sig);
}

static void unblock_all(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* raise SIGUSR1 with handler h installed, the landing point saving the
 * mask or not (save < 0: setjmp, no mask); print what it left */
static void round_of(const char *what, void (*h)(int), int save)
{
	signal(SIGUSR1, h);
	signal(SIGUSR2, jump_out);
	unblock_all();
	hits = 0;
	volatile int landed = 0;
	if ((save < 0 ? setjmp(env) : sigsetjmp(env, save)) == 0)
		raise(SIGUSR1);
	else
		landed = 1;
	int after = blocked(SIGUSR1), after2 = blocked(SIGUSR2);
	/* the next raise: runs now unless SIGUSR1 is blocked */
	signal(SIGUSR1, count);
	int before = hits;
	raise(SIGUSR1);
	printf("%s: jumped=%d handlers=%d usr1-blocked=%d usr2-blocked=%d next-raise-ran=%d\n", what,
	       landed, before, after, after2, hits - before);
	unblock_all();
}

static int jumps(int how)
{
	jump_how = how;
	if (how == 0) {
		round_of("saved mask", jump_out, 1);
		round_of("no saved mask", jump_out, 0);
		round_of("nested, saved mask", outer, 1);
	} else {
		round_of("setjmp", jump_out, -1);
		round_of("nested, setjmp", outer, -1);
	}
	round_of("inside the handler", jump_inside, 1);
	printf("PASS %s\n", how == 0 ? "siglongjmp" : "longjmp");
	return 0;
}

static ucontext_t main_uc, co_uc, back_uc;
static char co_stack[65536];
static volatile int came_back;

static void coroutine(void)
{
	printf("in the coroutine: usr1-blocked=%d\n", blocked(SIGUSR1));
	swapcontext(&co_uc, &main_uc);
	printf("the coroutine again: usr1-blocked=%d\n", blocked(SIGUSR1));
	swapcontext(&co_uc, &main_uc);
}

static void set_out(int sig)
{
	(void)sig;
	hits++;
	setcontext(&back_uc);
}

static int context(void)
{
	unblock_all();
	getcontext(&co_uc);
	co_uc.uc_stack.ss_sp = co_stack;
	co_uc.uc_stack.ss_size = sizeof co_stack;
	co_uc.uc_link = NULL;
	sigaddset(&co_uc.uc_sigmask, SIGUSR1);
	makecontext(&co_uc, coroutine, 0);
	swapcontext(&main_uc, &co_uc);
	printf("back in main: usr1-blocked=%d\n", blocked(SIGUSR1));
	sched_yield();
	swapcontext(&main_uc, &co_uc);
	printf("back in main again: usr1-blocked=%d\n", blocked(SIGUSR1));
	signal(SIGUSR1, set_out);
	hits = 0;
	getcontext(&back_uc);
	if (!came_back) {
		came_back = 1;
		raise(SIGUSR1);
		printf("raise returned without a setcontext\n");
	}
	int after = blocked(SIGUSR1);
	signal(SIGUSR1, count);
	int before = hits;
	raise(SIGUSR1);
	printf("setcontext out of the handler: handlers=%d usr1-blocked=%d next-raise-ran=%d\n", before,
	       after, hits - before);
	printf("PASS context\n");
	return 0;
}

static int raw(void)
{
	signal(SIGUSR1, count);
	unblock_all();
	unsigned long m = 1ul << (SIGUSR1 - 1);
	unsigned long old[2] = {0, 0x5a5a5a5a5a5a5a5aul};
	long r = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &m, old, 8);
	printf("raw block: %ld old=%lx next-word-kept=%d usr1-blocked=%d\n", r, old[0],
	       old[1] == 0x5a5a5a5a5a5a5a5aul, blocked(SIGUSR1));
	hits = 0;
	sched_yield();
	raise(SIGUSR1);
	sched_yield();
	printf("raise while blocked: handlers=%d\n", hits);
	r = syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &m, NULL, 8);
	printf("raw unblock: %ld handlers=%d usr1-blocked=%d\n", r, hits, blocked(SIGUSR1));
	errno = 0;
	r = syscall(SYS_rt_sigprocmask, 7, &m, NULL, 8);
	printf("how 7: %ld %s\n", r, r ? strerror(errno) : "");
	errno = 0;
	r = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &m, NULL, 16);
	printf("set size 16: %ld %s usr1-blocked=%d\n", r, r ? strerror(errno) : "", blocked(SIGUSR1));
	printf("PASS raw\n");
	return 0;
}

static atomic_int other_ran;

static void *mark(void *arg)
{
	atomic_store(&other_ran, 1);
	return arg;
}

static int preempt(void)
{
	jump_how = 0;
	signal(SIGUSR1, jump_out);
	if (sigsetjmp(env, 1) == 0)
		raise(SIGUSR1);
	pthread_t t;
	if (pthread_create(&t, NULL, mark, NULL) != 0)
		return 1;
	double t0 = now_sec();
	while (!atomic_load(&other_ran) && now_sec() - t0 < 5)
		;
	printf("another thread ran while this one computed: %s\n", atomic_load(&other_ran) ? "yes" : "no");
	pthread_join(t, NULL);
	if (!atomic_load(&other_ran))
		return 1;
	printf("PASS preempt\n");
	return 0;
}

static void *leave(void *arg)
{
	pthread_exit(arg);
}

static int unwind(void)
{
	signal(SIGUSR1, count);
	for (int r = 0; r < 300; r++) {
		pthread_t t[8];
		for (int i = 0; i < 8; i++)
			if (pthread_create(&t[i], NULL, leave, NULL) != 0) {
				printf("pthread_create failed\n");
				return 1;
			}
		for (int i = 0; i < 8; i++) {
			sched_yield();
			int before = hits;
			raise(SIGUSR1);
			if (hits != before + 1) {
				printf("round %d: raise returned before the handler ran\n", r);
				return 1;
			}
		}
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	}
	printf("2400 raises, each handled before raise returned\n");
	printf("PASS unwind\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	const char *sub = argc > 1 ? argv[1] : "";
	if (strcmp(sub, "unwind") == 0)
		return unwind();
	if (strcmp(sub, "siglongjmp") == 0)
		return jumps(0);
	if (strcmp(sub, "longjmp") == 0) {
		jumps(1);
		jumps(2);
		return jumps(3);
	}
	if (strcmp(sub, "preempt") == 0)
		return preempt();
	if (strcmp(sub, "context") == 0)
		return context();
	if (strcmp(sub, "raw") == 0)
		return raw();
	fprintf(stderr, "usage: sig_jump unwind|siglongjmp|longjmp|context|raw|preempt\n");
	return 2;
}
