/* SPDX-License-Identifier: MIT */
/*
 * arch/x86_64/arch.h — what the rest of libgmp may know about the CPU.
 *
 * Owns: the saved-context type and the switch primitives (switch.S), the
 * thread-pointer write, raw system calls that never touch errno, and a few
 * one-instruction helpers. Nothing here calls into libc or reads TLS
 * through the compiler, so every function is safe on a scheduler stack
 * whose %fs still names another thread's TLS.
 */
#ifndef GMP_ARCH_X86_64_ARCH_H
#define GMP_ARCH_X86_64_ARCH_H

#include <stdbool.h>
#include <signal.h>
#include <ucontext.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <stddef.h>

#include "arch/x86_64/tcb.h"

/* A suspended execution context: the stack pointer of a frame laid out as
 * switch.S describes. Owned by whoever suspended it until it is resumed. */
struct gmp_ctx {
	void *sp;
};

/* Bytes gmp_ctx_init needs below the top of a stack for the first frame. */
#define GMP_CTX_FRAME_SIZE 64

/* switch.S */
void gmp_ctx_mcall(struct gmp_ctx *save, void *stack, void (*fn)(void *), void *arg);
_Noreturn void gmp_ctx_gogo(struct gmp_ctx *load, uintptr_t fs);
void gmp_ctx_swap(struct gmp_ctx *save, struct gmp_ctx *load, uintptr_t fs);

/* ctx.c */
/* Build a context that, when resumed, calls fn(arg) on the stack ending at
 * stack_top with the caller's current MXCSR and x87 control word (a new
 * kernel thread inherits them from its creator too). fn must not return. */
void gmp_ctx_init(struct gmp_ctx *c, void *stack_top, void (*fn)(void *), void *arg);
/* Choose WRFSBASE or arch_prctl for thread-pointer writes (once, at start;
 * allow false: arch_prctl even where the instruction is allowed).
 * Returns true when WRFSBASE is used. */
bool arch_fsbase_init(bool allow);
/* What arch_fsbase_init chose: non-zero for WRFSBASE. */
extern unsigned char gmp_arch_wrfsbase;
/* Write the thread pointer outside a context switch. */
void arch_set_fs(uintptr_t tp);

/* --- asynchronous preemption (preempt.S, ctx.c) ------------------------- */

/* Learn how the vector state is saved (XSAVE and its size, or FXSAVE).
 * Once, at start, before any preemption. */
void arch_preempt_init(void);
/* Stack bytes a preemption takes below the interrupted stack pointer,
 * before fn's own frames. */
size_t arch_preempt_frame_size(void);
void gmp_preempt_entry(void);

/* The kernel's struct ucontext on x86-64 (uc_flags, uc_link, uc_stack,
 * uc_mcontext, uc_sigmask): glibc's ucontext_t is larger. In the
 * signal frame the siginfo follows it. */
#define ARCH_KERNEL_UCONTEXT_SIZE 304

/*
 * In a signal handler: make the interrupted context call fn() (with every
 * register, the flags and the vector state preserved around it) before it
 * goes on. Leaves the 128-byte red zone below the interrupted %rsp, and
 * the state sigreturn reads back, alone.
 * Returns false, changing nothing, when the stack below %rsp does not
 * reach down to stack_lo + the frame size + reserve bytes for fn.
 */
static inline bool arch_preempt_inject(void *uc, void (*fn)(void), uintptr_t stack_lo,
				       size_t reserve)
{
	greg_t *r = ((ucontext_t *)uc)->uc_mcontext.gregs;
	uintptr_t sp = (uintptr_t)r[REG_RSP];
	/* Below the red zone, and below the vector state the kernel saved
	 * in this signal's frame (it lies just under the red zone, up to
	 * 63 bytes of alignment away): sigreturn reads that state back,
	 * and a word written over its end (FP_XSTATE_MAGIC2) makes the
	 * kernel restore only the SSE part, zeroing the upper halves of
	 * the interrupted code's YMM/ZMM registers. Just under it is the
	 * siginfo, which sigreturn does not read; its first 32 bytes stay
	 * for the handler that is still running. */
	uintptr_t top = sp - 128;
	uintptr_t fp = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.fpregs;
	if (fp && fp < top)
		top = fp;
	uintptr_t frame = ((top - 24) & ~(uintptr_t)15);
	if (fp && frame < (uintptr_t)uc + ARCH_KERNEL_UCONTEXT_SIZE + 32)
		return false;	/* not the kernel's usual frame layout */
	if (stack_lo && (frame < stack_lo ||
			 frame - stack_lo < arch_preempt_frame_size() + reserve))
		return false;
	uintptr_t *w = (uintptr_t *)frame;
	w[0] = (uintptr_t)r[REG_RIP];
	w[1] = sp;
	w[2] = (uintptr_t)fn;
	r[REG_RSP] = (greg_t)frame;
	r[REG_RIP] = (greg_t)(uintptr_t)gmp_preempt_entry;
	return true;
}

/* --- thread pointer ---------------------------------------------------- */

/* The %fs base: word 0 of every glibc TCB holds its own address. */
static inline uintptr_t arch_tp(void)
{
	uintptr_t tp;
	__asm__ volatile("movq %%fs:0, %0" : "=r"(tp));
	return tp;
}

/* The stack pointer a glibc jmp_buf (its __jmpbuf words) returns to:
 * word 6, which setjmp stores mangled as glibc's PTR_MANGLE does (xor
 * with the TCB's pointer guard at %fs:0x30, then rotate left 17). */
static inline uintptr_t arch_jmpbuf_sp(const long *jb)
{
	uintptr_t v = (uintptr_t)jb[6], guard;
	__asm__("movq %%fs:0x30, %0" : "=r"(guard));
	return ((v >> 17) | (v << 47)) ^ guard;
}

/* Load/store one word at a constant offset from the thread pointer.
 * Volatile, so that a load is never moved across the store that sets the
 * word (or across a switch of the thread pointer). */
#define arch_tp_load(off) ({ \
	uintptr_t v__; \
	__asm__ volatile("movq %%fs:%c1, %0" : "=r"(v__) : "i"(off) : "memory"); \
	v__; })
#define arch_tp_store(off, val) \
	__asm__ volatile("movq %0, %%fs:%c1" : : "r"((uintptr_t)(val)), "i"(off) : "memory")

/* --- raw system calls: return -errno, never touch errno ------------------ */

static inline long arch_syscall6(long n, long a, long b, long c, long d, long e, long f)
{
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#define arch_syscall0(n) arch_syscall6((n), 0, 0, 0, 0, 0, 0)
#define arch_syscall1(n, a) arch_syscall6((n), (long)(a), 0, 0, 0, 0, 0)
#define arch_syscall2(n, a, b) arch_syscall6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define arch_syscall3(n, a, b, c) arch_syscall6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define arch_syscall4(n, a, b, c, d) \
	arch_syscall6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* --- small helpers ------------------------------------------------------ */

/* Install handler h for signal sig with the raw system call (for the
 * signals glibc's sigaction refuses: its own SIGCANCEL), with SA_SIGINFO,
 * SA_RESTORER (gmp_sigreturn) and the given extra flags, nothing masked.
 * Returns 0 or -errno. */
void gmp_sigreturn(void);
static inline long arch_sigaction(int sig, void (*h)(int, siginfo_t *, void *), unsigned long flags)
{
	struct {
		void *handler;
		unsigned long flags;
		void (*restorer)(void);
		uint64_t mask;
	} ksa = {(void *)h, flags | 0x4 /* SA_SIGINFO */ | 0x04000000 /* SA_RESTORER */,
		 gmp_sigreturn, 0};
	return arch_syscall4(SYS_rt_sigaction, sig, &ksa, 0, 8);
}

/* Fetch the cache line of p for writing (a no-op on CPUs without it). */
static inline void arch_prefetchw(const void *p)
{
	__asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
}

/* The interrupted program counter in a signal handler's ucontext. */
static inline uintptr_t arch_uc_pc(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
}

/* The interrupted stack pointer in a signal handler's ucontext. */
static inline uintptr_t arch_uc_sp(const void *uc)
{
	return (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
}

/* Is the instruction at pc a system call (the kernel rewinds an
 * interrupted, restarted call to it)? */
static inline bool arch_at_syscall(uintptr_t pc)
{
	const unsigned char *c = (const unsigned char *)pc;
	return c[0] == 0x0f && c[1] == 0x05;
}

/* The interrupted code is a wait on a shared futex (FUTEX_WAIT or
 * FUTEX_WAIT_BITSET without FUTEX_PRIVATE_FLAG) that the kernel is about
 * to restart (an SA_RESTART handler ran: it moved rip back onto the
 * system call instruction and put the call's number back in rax), or
 * one about to be made: make it return -EINTR instead, as if a handler
 * without SA_RESTART had interrupted it. True if it did. */
static inline bool arch_uc_futex_wait_eintr(void *uc)
{
	greg_t *r = ((ucontext_t *)uc)->uc_mcontext.gregs;
	uintptr_t pc = (uintptr_t)r[REG_RIP];
	if (r[REG_RAX] != SYS_futex || !arch_at_syscall(pc))
		return false;
	long op = (long)r[REG_RSI];
	if (op & 128)	/* FUTEX_PRIVATE_FLAG: not a shared object's */
		return false;
	op &= ~256L;	/* FUTEX_CLOCK_REALTIME */
	if (op != 0 && op != 9)	/* FUTEX_WAIT, FUTEX_WAIT_BITSET */
		return false;
	r[REG_RAX] = -4;	/* -EINTR */
	r[REG_RIP] = (greg_t)(pc + 2);
	return true;
}

static inline void arch_cpu_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline void *arch_stack_pointer(void)
{
	void *sp;
	__asm__ volatile("movq %%rsp, %0" : "=r"(sp));
	return sp;
}

#endif
