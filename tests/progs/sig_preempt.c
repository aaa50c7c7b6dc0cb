/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sig_preempt.c — threads that spin in their own code and
 * never call the C library, which only preemption can interrupt. An
 * ordinary pthread program.
 *
 *   sig_preempt fair    8 spinning threads for 1 s: each gets at least a
 *                       third of an equal share of the iterations
 *   sig_preempt wake    2 spinning threads and one that sleeps 10 ms 20
 *                       times: the median wake-up comes at most 20 ms
 *                       late, every one less than 60 ms late (prints the
 *                       median and the worst)
 *   sig_preempt regs    3 threads loop in assembly checking that every
 *                       general register, xmm0-15, the flags and the
 *                       128 bytes below the stack pointer (the red zone)
 *                       keep their values; 1 s
 *   sig_preempt unseen  a thread blocks in syscall(SYS_read) on a pipe (a
 *                       call libgmp does not see), then, once a byte comes,
 *                       spins; another thread spins all along. Prints the
 *                       process's CPU time over 600 ms of wall time while
 *                       both spin, in tenths (how many CPUs they used):
 *                       under libgmp with GMPMAXPROCS=1 the thread whose
 *                       processor was taken while it was blocked must give
 *                       its OS thread back, so this stays near 1
 *   sig_preempt pingpong  2 threads hand a turn to each other with two
 *                       semaphores, spinning 1 ms in each turn, for at
 *                       most 3 s; the main thread yields once
 *                       (sched_yield) and must run again and stop them
 *                       well before their 3 s are up
 *
 * Prints "PASS <what>" and exits 0, or says what went wrong and exits 1.
 */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	nanosleep(&ts, NULL);
}

/* A loop of the program's own code: no call, no system call. */
static void *spin(void *arg)
{
	unsigned long *count = arg, n = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		n++;
	*count = n;
	return NULL;
}

static int fair(void)
{
	enum { N = 8 };
	pthread_t t[N];
	unsigned long count[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, spin, &count[i]);
	sleep_ms(1000);
	atomic_store(&stop, 1);
	unsigned long sum = 0, min = ~0ul;
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		sum += count[i];
		if (count[i] < min)
			min = count[i];
	}
	if (min * 3 * N < sum) {
		printf("FAIL fair: the slowest thread did %lu iterations, the mean is %lu\n", min,
		       sum / N);
		return 1;
	}
	printf("PASS fair\n");
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int wake(void)
{
	enum { SPINNERS = 2, SLEEPS = 20 };
	pthread_t t[SPINNERS];
	unsigned long count[SPINNERS];
	for (int i = 0; i < SPINNERS; i++)
		pthread_create(&t[i], NULL, spin, &count[i]);
	sleep_ms(50);
	double late[SLEEPS];
	for (int i = 0; i < SLEEPS; i++) {
		double t0 = now();
		sleep_ms(10);
		late[i] = (now() - t0) * 1000 - 10;
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < SPINNERS; i++)
		pthread_join(t[i], NULL);
	qsort(late, SLEEPS, sizeof late[0], cmp_double);
	fprintf(stderr, "wake-up lateness: median %.1f ms, worst %.1f ms\n", late[SLEEPS / 2],
		late[SLEEPS - 1]);
	if (late[SLEEPS - 1] >= 60 || late[SLEEPS / 2] > 20) {
		printf("FAIL wake: 10 ms sleeps came back %.1f ms late at the median, %.1f ms "
		       "at worst\n", late[SLEEPS / 2], late[SLEEPS - 1]);
		return 1;
	}
	printf("PASS wake\n");
	return 0;
}

/*
 * long regs_loop(long iterations): fills the red zone, every general
 * register but %rsp/%rax/%rdi and xmm0-15 with patterns, sets the carry
 * flag, then checks all of them on every iteration. Returns 0, or the
 * iteration count left when something changed.
 */
__asm__(
	".text\n"
	".type regs_loop, @function\n"
	"regs_loop:\n"
	"	pushq %rbx; pushq %rbp; pushq %r12; pushq %r13; pushq %r14; pushq %r15\n"
	"	movabsq $0x0123456789abcdef, %rax\n"
	"	movq %rax, %rbx; incq %rbx\n"
	"	leaq 2(%rax), %rcx; leaq 3(%rax), %rdx; leaq 4(%rax), %rsi; leaq 5(%rax), %rbp\n"
	"	leaq 6(%rax), %r8; leaq 7(%rax), %r9; leaq 8(%rax), %r10; leaq 9(%rax), %r11\n"
	"	leaq 10(%rax), %r12; leaq 11(%rax), %r13; leaq 12(%rax), %r14; leaq 13(%rax), %r15\n"
	"	.irp n, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"
	"	leaq \\n*100(%rax), %rax; movq %rax, -\\n*8(%rsp)\n"
	"	.endr\n"
	"	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"	movq -(\\n+1)*8(%rsp), %xmm\\n; pinsrq $1, %rbx, %xmm\\n\n"
	"	.endr\n"
	"	stc\n"
	"1:\n"
	"	jnc 8f\n"
	"	movabsq $0x0123456789abcdef, %rax\n"
	"	cmpq %rax, %rax\n"	/* clears carry: set it again below */
	"	leaq 1(%rax), %rax; cmpq %rax, %rbx; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %rcx; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %rdx; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %rsi; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %rbp; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %r8; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %r9; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %r10; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %r11; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %r12; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %r13; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %r14; jne 9f\n"
	"	leaq 1(%rax), %rax; cmpq %rax, %r15; jne 9f\n"
	"	movabsq $0x0123456789abcdef, %rax\n"
	"	.irp n, 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16\n"
	"	leaq \\n*100(%rax), %rax; cmpq %rax, -\\n*8(%rsp); jne 9f\n"
	"	.endr\n"
	"	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"	movq %xmm\\n, %rax; cmpq %rax, -(\\n+1)*8(%rsp); jne 9f\n"
	"	pextrq $1, %xmm\\n, %rax; cmpq %rax, %rbx; jne 9f\n"
	"	.endr\n"
	"	stc\n"
	"	decq %rdi\n"	/* leaves carry alone */
	"	jnz 1b\n"
	"	xorl %eax, %eax\n"
	"	jmp 10f\n"
	"8:	movq $-1, %rax\n"	/* the carry flag was lost */
	"	jmp 10f\n"
	"9:	movq %rdi, %rax\n"
	"10:	popq %r15; popq %r14; popq %r13; popq %r12; popq %rbp; popq %rbx\n"
	"	ret\n"
	".size regs_loop, .-regs_loop\n");
long regs_loop(long iterations);

static void *regs_thread(void *arg)
{
	long *bad = arg;
	*bad = 0;
	while (!atomic_load_explicit(&stop, memory_order_relaxed) && !*bad)
		*bad = regs_loop(2000000);
	return NULL;
}

static int regs(void)
{
	enum { N = 3 };
	pthread_t t[N];
	long bad[N];
	for (int i = 0; i < N; i++)
		pthread_create(&t[i], NULL, regs_thread, &bad[i]);
	sleep_ms(1000);
	atomic_store(&stop, 1);
	int fails = 0;
	for (int i = 0; i < N; i++) {
		pthread_join(t[i], NULL);
		if (bad[i]) {
			printf("FAIL regs: thread %d found a register or the red zone changed "
			       "(%ld)\n", i, bad[i]);
			fails++;
		}
	}
	if (fails)
		return 1;
	printf("PASS regs\n");
	return 0;
}

static int pfd[2];

/* The system call instruction itself: no libc function a library could
 * see, on a pipe made the same way. */
static long raw3(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static void *reader_then_spin(void *arg)
{
	char c;
	if (raw3(SYS_read, pfd[0], (long)&c, 1) != 1)
		return (void *)1;
	return spin(arg);
}

static double cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int unseen(void)
{
	if (raw3(SYS_pipe2, (long)pfd, 0, 0) != 0)
		return 1;
	pthread_t r, s;
	unsigned long c1, c2;
	pthread_create(&r, NULL, reader_then_spin, &c1);
	sleep_ms(50);	/* the reader is blocked in the kernel */
	pthread_create(&s, NULL, spin, &c2);
	sleep_ms(50);
	if (raw3(SYS_write, pfd[1], (long)"x", 1) != 1)
		return 1;
	sleep_ms(100);	/* both spin now */
	double w0 = now(), c0 = cpu_seconds();
	sleep_ms(600);
	double cpus = (cpu_seconds() - c0) / (now() - w0);
	atomic_store(&stop, 1);
	void *res;
	pthread_join(r, &res);
	pthread_join(s, NULL);
	printf("CPUs used while both spin: %.1f\n", cpus);
	if (res)
		return 1;
	printf("PASS unseen\n");
	return 0;
}

/* Two threads that wake each other in turn, spinning 1 ms in each turn,
 * until stopped or 3 s are over. */
static sem_t turn[2];

static void *take_turns(void *arg)
{
	int me = (int)(long)arg;
	double end = now() + 3;
	for (;;) {
		sem_wait(&turn[me]);
		if (atomic_load(&stop) || now() > end) {
			atomic_store(&stop, 1);
			sem_post(&turn[!me]);
			return now() > end ? (void *)1 : NULL;
		}
		double t0 = now();
		while (now() - t0 < 0.001)
			;
		sem_post(&turn[!me]);
	}
}

static int pingpong(void)
{
	pthread_t t[2];
	sem_init(&turn[0], 0, 1);
	sem_init(&turn[1], 0, 0);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, take_turns, (void *)(long)i);
	sleep_ms(10);
	sched_yield();
	atomic_store(&stop, 1);
	int late = 0;
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(t[i], &r);
		late += r != NULL;
	}
	printf("the turns ran out their 3 s before main stopped them: %s\n", late ? "yes" : "no");
	if (late)
		return 1;
	printf("PASS pingpong\n");
	return 0;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "fair") == 0)
		return fair();
	if (strcmp(what, "wake") == 0)
		return wake();
	if (strcmp(what, "regs") == 0)
		return regs();
	if (strcmp(what, "unseen") == 0)
		return unseen();
	if (strcmp(what, "pingpong") == 0)
		return pingpong();
	fprintf(stderr, "usage: sig_preempt fair|wake|regs|unseen|pingpong\n");
	return 2;
}
