/* SPDX-License-Identifier: MIT */
/*
 * arch/x86_64/ctx.c — building fresh contexts and choosing how the thread
 * pointer is written. See switch.S for the frame layout.
 */
#include "arch/x86_64/arch.h"

#include <asm/prctl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

/* Read by switch.S. Written once by arch_fsbase_init before any switch. */
__attribute__((visibility("hidden"))) unsigned char gmp_arch_wrfsbase;

void gmp_ctx_start(void);

_Static_assert(GMP_CTX_FRAME_SIZE == 8 * 8, "switch.S frame is 8 words");

void gmp_ctx_init(struct gmp_ctx *c, void *stack_top, void (*fn)(void *), void *arg)
{
	uintptr_t top = (uintptr_t)stack_top & ~(uintptr_t)15;
	uint64_t *f = (uint64_t *)(top - GMP_CTX_FRAME_SIZE);
	uint32_t mxcsr;
	uint16_t fpucw;

	__asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
	__asm__ volatile("fnstcw %0" : "=m"(fpucw));
	f[0] = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
	f[1] = 0;			/* r15 */
	f[2] = 0;			/* r14 */
	f[3] = 0;			/* r13 */
	f[4] = (uint64_t)arg;		/* r12: argument for gmp_ctx_start */
	f[5] = (uint64_t)fn;		/* rbx: entry for gmp_ctx_start */
	f[6] = 0;			/* rbp: end of the frame-pointer chain */
	f[7] = (uint64_t)gmp_ctx_start;	/* return address: rsp is `top` after it */
	c->sp = f;
}

/*
 * WRFSBASE only when the kernel says so in AT_HWCAP2. Some hypervisors let
 * the instruction execute although the kernel did not enable it, and the
 * kernel then silently restores the old base at the next context switch:
 * never probe by executing it.
 */
bool arch_fsbase_init(bool allow)
{
	gmp_arch_wrfsbase = allow && (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
	return gmp_arch_wrfsbase;
}

void arch_set_fs(uintptr_t tp)
{
	if (gmp_arch_wrfsbase)
		__asm__ volatile("wrfsbase %0" : : "r"(tp) : "memory");
	else
		arch_syscall2(SYS_arch_prctl, ARCH_SET_FS, tp);
}

/* Read by preempt.S; written once by arch_preempt_init. */
__attribute__((visibility("hidden"))) unsigned char gmp_arch_use_xsave;
__attribute__((visibility("hidden"))) uint64_t gmp_arch_xsave_mask;
/* Bytes reserved for the save area, its 64-byte alignment included. */
__attribute__((visibility("hidden"))) uint64_t gmp_arch_xsave_size = 512 + 64;

void arch_preempt_init(void)
{
	unsigned a, b, c, d;
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	/* XSAVE, and the kernel turned it on (OSXSAVE) */
	if (!(c & (1u << 26)) || !(c & (1u << 27)))
		return;
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	/* leaf 0xD: EBX is the area's size for the features XCR0 enables */
	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0xd), "c"(0));
	if (b < 576)
		return;
	gmp_arch_xsave_mask = (uint64_t)lo | ((uint64_t)hi << 32);
	gmp_arch_xsave_size = (uint64_t)b + 64;
	gmp_arch_use_xsave = 1;
}

size_t arch_preempt_frame_size(void)
{
	/* flags and 15 registers, the save area, fn's return address */
	return 128 + (size_t)gmp_arch_xsave_size + 16;
}
