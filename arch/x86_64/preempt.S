/* SPDX-License-Identifier: MIT */
/*
 * arch/x86_64/preempt.S — the entry an asynchronously preempted context
 * resumes at (see arch_preempt_inject in arch.h).
 *
 * The signal handler has left the interrupted context intact except for
 * %rsp and %rip: %rsp points at a 16-aligned three-word frame below the
 * interrupted code's red zone and below the vector state of the signal's
 * frame (arch_preempt_inject),
 *
 *    +0   interrupted %rip
 *    +8   interrupted %rsp
 *   +16   fn, the C function to call
 *
 * This code saves every general register, the flags and the full vector
 * and x87 state (XSAVE with every feature the kernel enabled, or FXSAVE
 * where there is no XSAVE), calls fn() with the C ABI (it may switch
 * stacks and resume on another OS thread), restores everything, and jumps
 * back. The last jump needs a place to keep the target that is neither a
 * register nor memory below the interrupted %rsp (the red zone): it is the
 * word ARCH_TCB_PREEMPT_SLOT of the thread pointer, which belongs to the
 * thread being preempted; the handler never preempts code in this file,
 * so the word is not reused before the jump.
 */
#include "arch/x86_64/tcb.h"

	.text
	.globl	gmp_preempt_entry
	.hidden	gmp_preempt_entry
	.type	gmp_preempt_entry, @function
gmp_preempt_entry:
	pushfq
	pushq	%rax
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%rbp
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	/* 16 words pushed: %rsp = frame - 128, still 16-aligned */
	movq	%rsp, %rbx
	subq	gmp_arch_xsave_size(%rip), %rsp
	andq	$-64, %rsp
	cld
	cmpb	$0, gmp_arch_use_xsave(%rip)
	jz	1f
	/* XSAVE writes only XSTATE_BV of the header; XRSTOR faults on
	 * non-zero reserved bytes, so the header starts zeroed */
	xorl	%eax, %eax
	movq	%rax, 512(%rsp)
	movq	%rax, 520(%rsp)
	movq	%rax, 528(%rsp)
	movq	%rax, 536(%rsp)
	movq	%rax, 544(%rsp)
	movq	%rax, 552(%rsp)
	movq	%rax, 560(%rsp)
	movq	%rax, 568(%rsp)
	movl	gmp_arch_xsave_mask(%rip), %eax
	movl	gmp_arch_xsave_mask+4(%rip), %edx
	xsave64	(%rsp)
	jmp	2f
1:	fxsave64 (%rsp)
2:	call	*144(%rbx)
	cmpb	$0, gmp_arch_use_xsave(%rip)
	jz	3f
	movl	gmp_arch_xsave_mask(%rip), %eax
	movl	gmp_arch_xsave_mask+4(%rip), %edx
	xrstor64 (%rsp)
	jmp	4f
3:	fxrstor64 (%rsp)
4:	movq	%rbx, %rsp
	movq	128(%rsp), %rax
	movq	%rax, %fs:ARCH_TCB_PREEMPT_SLOT
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rbp
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
	popq	%rax
	popfq
	movq	8(%rsp), %rsp
	jmp	*%fs:ARCH_TCB_PREEMPT_SLOT
	.size	gmp_preempt_entry, .-gmp_preempt_entry

	.section .note.GNU-stack,"",@progbits
