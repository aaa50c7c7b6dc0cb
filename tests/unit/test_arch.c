/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of arch/x86_64: a switch keeps callee-saved registers, MXCSR
 * and the x87 control word per context; "switch, then run a callback on
 * the target stack" runs the callback on that stack with its argument,
 * after the old context is saved; fresh stacks are ABI-aligned; a call
 * injected by a preemption keeps the interrupted code's vector registers.
 */
#include "unit.h"

#include <fenv.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct gmp_ctx main_ctx, co_ctx;
static char *co_stack;
#define CO_SIZE (256 * 1024)

static char *new_stack(void)
{
	char *s = mmap(NULL, CO_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(s, MAP_FAILED);
	return s;
}

/* --- callee-saved registers survive a round trip --------------------- */

static void clobber_entry(void *arg)
{
	for (;;) {
		/* trash every callee-saved register, then go back */
		__asm__ volatile("mov $1, %%rbx; mov $2, %%r12; mov $3, %%r13; mov $4, %%r14;"
				 "mov $5, %%r15" ::: "rbx", "r12", "r13", "r14", "r15");
		gmp_ctx_swap(&co_ctx, &main_ctx, 0);
	}
}

__attribute__((used)) uint64_t arch_test_out[5];
#define out arch_test_out

Test(arch, callee_saved_registers_survive)
{
	co_stack = new_stack();
	gmp_ctx_init(&co_ctx, co_stack + CO_SIZE, clobber_entry, NULL);
	__asm__ volatile(
		"push %%rbx; push %%r12; push %%r13; push %%r14; push %%r15\n"
		"mov $0x1111, %%rbx; mov $0x2222, %%r12; mov $0x3333, %%r13\n"
		"mov $0x4444, %%r14; mov $0x5555, %%r15\n"
		"lea main_ctx(%%rip), %%rdi; lea co_ctx(%%rip), %%rsi; xor %%edx, %%edx\n"
		"call gmp_ctx_swap\n"
		"lea arch_test_out(%%rip), %%rax\n"
		"mov %%rbx, 0(%%rax); mov %%r12, 8(%%rax); mov %%r13, 16(%%rax); mov %%r14, 24(%%rax);"
		"mov %%r15, 32(%%rax)\n"
		"pop %%r15; pop %%r14; pop %%r13; pop %%r12; pop %%rbx\n"
		:
		:
		: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory", "cc");
	cr_assert_eq(out[0], 0x1111);
	cr_assert_eq(out[1], 0x2222);
	cr_assert_eq(out[2], 0x3333);
	cr_assert_eq(out[3], 0x4444);
	cr_assert_eq(out[4], 0x5555);
}

/* --- MXCSR and x87 control word are per context ---------------------- */

static volatile int co_round;
static volatile uint16_t co_cw;

static void fp_entry(void *arg)
{
	fesetround(FE_UPWARD);
	uint16_t cw;
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	cw = (uint16_t)((cw & ~0x300) | 0x200);	/* x87 precision: 53 bits */
	__asm__ volatile("fldcw %0" : : "m"(cw));
	for (;;) {
		gmp_ctx_swap(&co_ctx, &main_ctx, 0);
		co_round = fegetround();
		__asm__ volatile("fnstcw %0" : "=m"(cw));
		co_cw = cw;
	}
}

Test(arch, mxcsr_and_x87_control_word_per_context)
{
	fesetround(FE_DOWNWARD);
	uint16_t cw0;
	__asm__ volatile("fnstcw %0" : "=m"(cw0));
	co_stack = new_stack();
	gmp_ctx_init(&co_ctx, co_stack + CO_SIZE, fp_entry, NULL);
	gmp_ctx_swap(&main_ctx, &co_ctx, 0);
	cr_assert_eq(fegetround(), FE_DOWNWARD, "main's rounding mode came back");
	uint16_t cw;
	__asm__ volatile("fnstcw %0" : "=m"(cw));
	cr_assert_eq(cw, cw0, "main's x87 control word came back");
	gmp_ctx_swap(&main_ctx, &co_ctx, 0);
	cr_assert_eq(co_round, FE_UPWARD, "the other context kept its own MXCSR");
	cr_assert_eq(co_cw & 0x300, 0x200, "the other context kept its own x87 word");
	cr_assert_eq(fegetround(), FE_DOWNWARD);
	fesetround(FE_TONEAREST);
}

/* --- a new context inherits its creator's FP state --------------------- */

static void inherit_entry(void *arg)
{
	co_round = fegetround();
	gmp_ctx_swap(&co_ctx, &main_ctx, 0);
}

Test(arch, new_context_inherits_fp_environment)
{
	fesetround(FE_TOWARDZERO);
	co_stack = new_stack();
	gmp_ctx_init(&co_ctx, co_stack + CO_SIZE, inherit_entry, NULL);
	fesetround(FE_TONEAREST);
	gmp_ctx_swap(&main_ctx, &co_ctx, 0);
	cr_assert_eq(co_round, FE_TOWARDZERO);
}

/* --- mcall: the callback runs on the target stack, after the save ---- */

static struct gmp_ctx g_ctx;
static char *g0_stack;
static volatile uintptr_t cb_sp;
static volatile void *cb_arg;
static volatile int resumed;

static void on_g0(void *arg)
{
	cb_sp = (uintptr_t)__builtin_frame_address(0);
	cb_arg = arg;
	/* the saved context is complete: resume it from here */
	gmp_ctx_gogo(&g_ctx, 0);
}

static void g_entry(void *arg)
{
	int marker = 42;
	gmp_ctx_mcall(&g_ctx, g0_stack + CO_SIZE - 64, on_g0, &marker);
	resumed = marker;	/* back on our own stack, locals intact */
	gmp_ctx_swap(&co_ctx, &main_ctx, 0);
}

Test(arch, mcall_runs_callback_on_target_stack)
{
	co_stack = new_stack();
	g0_stack = new_stack();
	gmp_ctx_init(&co_ctx, co_stack + CO_SIZE, g_entry, NULL);
	gmp_ctx_swap(&main_ctx, &co_ctx, 0);
	cr_assert(cb_sp > (uintptr_t)g0_stack && cb_sp < (uintptr_t)g0_stack + CO_SIZE,
		  "callback ran at %lx, not on the target stack", (unsigned long)cb_sp);
	cr_assert(cb_arg != NULL);
	cr_assert_eq(resumed, 42);
}

/* --- fresh stacks are aligned for SSE code ---------------------------- */

static char fmt_out[128];

static void printf_entry(void *arg)
{
	/* varargs doubles and SSE moves fault on a misaligned stack */
	snprintf(fmt_out, sizeof fmt_out, "%.3f %.1e %d", 3.14159, 2.5e10, 7);
	gmp_ctx_swap(&co_ctx, &main_ctx, 0);
}

Test(arch, snprintf_with_doubles_on_fresh_stack)
{
	for (int off = 0; off < 16; off++) {
		co_stack = new_stack();
		gmp_ctx_init(&co_ctx, co_stack + CO_SIZE - off, printf_entry, NULL);
		gmp_ctx_swap(&main_ctx, &co_ctx, 0);
		cr_assert_str_eq(fmt_out, "3.142 2.5e+10 7", "stack top offset %d", off);
		munmap(co_stack, CO_SIZE);
	}
}

/* --- the thread pointer argument is written on the way in ------------- */

static volatile uintptr_t seen_tp;

static void tp_entry(void *arg)
{
	seen_tp = arch_tp_load(0);	/* word 0 of a TCB is its address */
	gmp_ctx_swap(&co_ctx, &main_ctx, (uintptr_t)arg);
}

Test(arch, thread_pointer_switch)
{
	arch_fsbase_init(true);
	uintptr_t mine = arch_tp();
	/* a fake TCB whose first word is its own address */
	static uintptr_t fake[64] __attribute__((aligned(64)));
	fake[0] = (uintptr_t)fake;
	co_stack = new_stack();
	gmp_ctx_init(&co_ctx, co_stack + CO_SIZE, tp_entry, (void *)mine);
	gmp_ctx_swap(&main_ctx, &co_ctx, (uintptr_t)fake);
	cr_assert_eq(seen_tp, (uintptr_t)fake, "the context ran with the new thread pointer");
	cr_assert_eq(arch_tp(), mine, "and ours came back");
}

/* ---- a preemption keeps the interrupted code's vector registers ---- */

static volatile int injected_calls;

static void injected(void)
{
	injected_calls++;
}

static void inject_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	arch_preempt_init();
	arch_preempt_inject(uc, injected, 0, 0);
}

/* Load ymm0-15 with a pattern, raise SIGURG (delivered before the
 * system call returns, its handler injecting a call), store them back. */
__attribute__((noinline, target("avx2"))) static void ymm_across_signal(uint64_t src[16][4],
									 uint64_t dst[16][4])
{
	long pid = getpid(), tid = gettid();
	__asm__ volatile(
		"vmovdqu 0*32(%[src]), %%ymm0\n vmovdqu 1*32(%[src]), %%ymm1\n"
		"vmovdqu 2*32(%[src]), %%ymm2\n vmovdqu 3*32(%[src]), %%ymm3\n"
		"vmovdqu 4*32(%[src]), %%ymm4\n vmovdqu 5*32(%[src]), %%ymm5\n"
		"vmovdqu 6*32(%[src]), %%ymm6\n vmovdqu 7*32(%[src]), %%ymm7\n"
		"vmovdqu 8*32(%[src]), %%ymm8\n vmovdqu 9*32(%[src]), %%ymm9\n"
		"vmovdqu 10*32(%[src]), %%ymm10\n vmovdqu 11*32(%[src]), %%ymm11\n"
		"vmovdqu 12*32(%[src]), %%ymm12\n vmovdqu 13*32(%[src]), %%ymm13\n"
		"vmovdqu 14*32(%[src]), %%ymm14\n vmovdqu 15*32(%[src]), %%ymm15\n"
		"movl %[nr], %%eax\n movq %[pid], %%rdi\n movq %[tid], %%rsi\n movl %[sig], %%edx\n"
		"syscall\n"
		"vmovdqu %%ymm0, 0*32(%[dst])\n vmovdqu %%ymm1, 1*32(%[dst])\n"
		"vmovdqu %%ymm2, 2*32(%[dst])\n vmovdqu %%ymm3, 3*32(%[dst])\n"
		"vmovdqu %%ymm4, 4*32(%[dst])\n vmovdqu %%ymm5, 5*32(%[dst])\n"
		"vmovdqu %%ymm6, 6*32(%[dst])\n vmovdqu %%ymm7, 7*32(%[dst])\n"
		"vmovdqu %%ymm8, 8*32(%[dst])\n vmovdqu %%ymm9, 9*32(%[dst])\n"
		"vmovdqu %%ymm10, 10*32(%[dst])\n vmovdqu %%ymm11, 11*32(%[dst])\n"
		"vmovdqu %%ymm12, 12*32(%[dst])\n vmovdqu %%ymm13, 13*32(%[dst])\n"
		"vmovdqu %%ymm14, 14*32(%[dst])\n vmovdqu %%ymm15, 15*32(%[dst])\n"
		"vzeroupper\n"
		:
		: [src] "r"(src), [dst] "r"(dst), [nr] "i"(SYS_tgkill), [pid] "r"(pid),
		  [tid] "r"(tid), [sig] "i"(SIGURG)
		: "rax", "rdi", "rsi", "rdx", "rcx", "r11", "memory", "xmm0", "xmm1", "xmm2",
		  "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
		  "xmm12", "xmm13", "xmm14", "xmm15");
}

static void ymm_at_depth(int k, int *bad)
{
	volatile char *pad = __builtin_alloca(16 * (size_t)k + 8);
	pad[0] = 0;
	uint64_t src[16][4], dst[16][4];
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 4; j++)
			src[i][j] = 0x9E3779B97F4A7C15ull * (uint64_t)(k * 64 + i * 4 + j + 1);
	memset(dst, 0, sizeof dst);
	ymm_across_signal(src, dst);
	if (memcmp(src, dst, sizeof src) != 0)
		(*bad)++;
}

/* The injected frame must not overlap what sigreturn reads back: a word
 * over the end of the saved vector state made the kernel restore only
 * its SSE part, zeroing the upper halves of YMM registers, at 2 of the
 * 4 stack alignments. */
Test(arch, preempt_inject_keeps_vector_registers)
{
	if (!__builtin_cpu_supports("avx2"))
		cr_skip_test("no AVX2");
	struct sigaction sa = {0};
	sa.sa_sigaction = inject_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGURG, &sa, NULL), 0);
	int bad = 0;
	for (int k = 0; k < 16; k++)
		ymm_at_depth(k, &bad);
	cr_assert_eq(injected_calls, 16, "the injected call ran %d times", injected_calls);
	cr_assert_eq(bad, 0, "YMM registers changed across %d of 16 preemptions", bad);
}
