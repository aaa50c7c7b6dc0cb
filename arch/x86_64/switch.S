/* SPDX-License-Identifier: MIT */
/*
 * arch/x86_64/switch.S — the only code that moves a CPU between stacks.
 *
 * A saved context is one word, the stack pointer. Everything else lives on
 * the stack it points to, in this frame (offsets from the saved sp):
 *
 *    +0   MXCSR (4 bytes), x87 control word (2 bytes), 2 bytes pad
 *    +8   r15
 *   +16   r14
 *   +24   r13
 *   +32   r12
 *   +40   rbx
 *   +48   rbp
 *   +56   return address (where the context resumes)
 *
 * Only callee-saved state is kept: every switch is a function call from the
 * compiler's point of view, so caller-saved registers are already dead.
 * arch/x86_64/ctx.c builds the same frame for a context that never ran
 * (GMP_CTX_FRAME_SIZE there must match the 64 bytes above).
 *
 * The thread pointer (%fs base) is switched by gmp_ctx_gogo/gmp_ctx_swap when
 * the caller passes a non-zero value: WRFSBASE when the kernel allows it
 * (gmp_arch_wrfsbase != 0), else arch_prctl(ARCH_SET_FS). Between that write
 * and the stack switch, %fs already names the next thread's TLS while the
 * CPU is still on the old stack: nothing in that window may touch TLS, which
 * is why it is all here, in a few instructions of assembly.
 */
	.text

/* Save the callee-saved frame described above on the current stack and
 * store the resulting stack pointer in *(%rdi). Clobbers nothing else. */
.macro SAVE_FRAME
	pushq	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbp, 0
	pushq	%rbx
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset rbx, 0
	pushq	%r12
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r12, 0
	pushq	%r13
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r13, 0
	pushq	%r14
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r14, 0
	pushq	%r15
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset r15, 0
	subq	$8, %rsp
	.cfi_adjust_cfa_offset 8
	stmxcsr	(%rsp)
	fnstcw	4(%rsp)
	movq	%rsp, (%rdi)
.endm

/* Write the thread pointer held in %rsi when it is non-zero.
 * Clobbers rax, rcx, r11 (syscall) and rdi; preserves rdx. */
.macro SET_FS
	testq	%rsi, %rsi
	jz	2f
	cmpb	$0, gmp_arch_wrfsbase(%rip)
	jz	1f
	wrfsbase %rsi
	jmp	2f
1:	movl	$158, %eax		/* SYS_arch_prctl */
	movl	$0x1002, %edi		/* ARCH_SET_FS */
	syscall
2:
.endm

/* Load the frame at %rdx into the CPU and return into it. */
.macro LOAD_FRAME_AND_RETURN
	movq	%rdx, %rsp
	ldmxcsr	(%rsp)
	fldcw	4(%rsp)
	addq	$8, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
.endm

/*
 * void gmp_ctx_mcall(struct gmp_ctx *save, void *stack, void (*fn)(void *), void *arg)
 *
 * Save the current context in *save, switch to `stack` (16-byte aligned top
 * of a scheduler stack) and call fn(arg) there. fn must never return: it
 * ends by resuming some context with gmp_ctx_gogo. This is "switch, then run
 * a callback on the target stack": when fn runs, nothing uses the old stack
 * any more, so fn may publish the saved context for another CPU to resume.
 */
	.globl	gmp_ctx_mcall
	.hidden	gmp_ctx_mcall
	.type	gmp_ctx_mcall, @function
gmp_ctx_mcall:
	.cfi_startproc
	SAVE_FRAME
	movq	%rsi, %rsp
	.cfi_undefined rip		/* on the new stack: no caller to unwind to */
	movq	%rcx, %rdi
	call	*%rdx
	ud2				/* fn returned: a runtime bug */
	.cfi_endproc
	.size	gmp_ctx_mcall, .-gmp_ctx_mcall

/*
 * void gmp_ctx_gogo(struct gmp_ctx *load, uintptr_t fs)   (never returns)
 *
 * Resume the context saved in *load, first writing the thread pointer `fs`
 * unless it is 0.
 */
	.globl	gmp_ctx_gogo
	.hidden	gmp_ctx_gogo
	.type	gmp_ctx_gogo, @function
gmp_ctx_gogo:
	.cfi_startproc
	movq	(%rdi), %rdx
	SET_FS
	LOAD_FRAME_AND_RETURN
	.cfi_endproc
	.size	gmp_ctx_gogo, .-gmp_ctx_gogo

/*
 * void gmp_ctx_swap(struct gmp_ctx *save, struct gmp_ctx *load, uintptr_t fs)
 *
 * Save the current context in *save and resume *load (writing `fs` first
 * unless it is 0). Returns when somebody resumes *save.
 */
	.globl	gmp_ctx_swap
	.hidden	gmp_ctx_swap
	.type	gmp_ctx_swap, @function
gmp_ctx_swap:
	.cfi_startproc
	movq	(%rsi), %r8		/* the context to resume */
	movq	%rdx, %r9		/* its thread pointer */
	SAVE_FRAME
	movq	%r9, %rsi
	movq	%r8, %rdx
	SET_FS
	LOAD_FRAME_AND_RETURN
	.cfi_endproc
	.size	gmp_ctx_swap, .-gmp_ctx_swap

/*
 * gmp_ctx_start: first instruction of a context built by gmp_ctx_init.
 * The frame it was built with leaves the entry function in rbx and its
 * argument in r12; the stack pointer is 16-byte aligned here. The unwinder
 * stops at this frame: a G's stack has nothing above its entry function.
 */
	.globl	gmp_ctx_start
	.hidden	gmp_ctx_start
	.type	gmp_ctx_start, @function
gmp_ctx_start:
	.cfi_startproc
	.cfi_undefined rip
	movq	%r12, %rdi
	call	*%rbx
	ud2				/* entry functions never return */
	.cfi_endproc
	.size	gmp_ctx_start, .-gmp_ctx_start

/*
 * gmp_sigreturn — the restorer of the signal handlers libgmp installs
 * with the raw system call (arch_sigaction). Its bytes are exactly those
 * of glibc's __restore_rt (mov $15, %rax; syscall): libgcc's unwinder
 * recognises a signal frame by them, so a cancellation can unwind from a
 * handler into the interrupted code.
 */
	.globl	gmp_sigreturn
	.hidden	gmp_sigreturn
	.type	gmp_sigreturn, @function
	nop
gmp_sigreturn:
	movq	$15, %rax
	syscall
	.size	gmp_sigreturn, .-gmp_sigreturn

	.section .note.GNU-stack,"",@progbits
