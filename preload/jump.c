/* SPDX-License-Identifier: MIT */
/*
 * preload/jump.c — longjmp, _longjmp, siglongjmp and __longjmp_chk (the
 * one _FORTIFY_SOURCE builds call); setcontext and swapcontext.
 *
 * glibc's jumps put back a saved signal mask with its own internal
 * sigprocmask, which libgmp does not see: the G's mask, which its OS
 * thread's follows at every switch, stayed what it was, so a handler
 * left with siglongjmp kept its signal blocked from the next switch on.
 * And a jump out of a handler skips what its return would undo (the
 * handler runs with preemption off: the G was never preempted again).
 *
 * Here a jump first leaves the handlers whose frames lie below its
 * target (gmp_handlers_left), puts a saved mask back through libgmp's
 * sigprocmask (handlers of signals it unblocks run there, before the
 * jump, as in the kernel's sigprocmask of glibc's jump), and then jumps
 * with glibc's code, told that no mask was saved. (Cleanup buffers of
 * pthread_cleanup_push blocks a jump leaves stay registered, as glibc
 * leaves its own: POSIX leaves such a jump undefined.)
 *
 * setcontext and swapcontext set the context's mask with a system call
 * of glibc's too. The G takes that mask first (gmp_call_mask_begin: the
 * kernel's is glibc's to set, and swapcontext saves the one it finds
 * there, the G's old one); a context on the G's own stack above
 * handlers leaves them, as a jump does.
 */
#include "preload/runtime.h"
#include "core/sched.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>

/* What a jump to env does before glibc's code jumps; returns the buffer
 * to jump with: env, or copy without its saved mask once libgmp put it
 * back. (exit.c jumps into cleanup buffers, whose jmp_buf has no room
 * for a mask: only what is there is read.) */
static struct __jmp_buf_tag *prepare(struct __jmp_buf_tag *env, struct __jmp_buf_tag *copy)
{
	struct g *gp = getg();
	if (!gp || gmp_passthrough)
		return env;	/* glibc's jump, mask and all */
	gmp_handlers_left(gp, arch_jmpbuf_sp(env->__jmpbuf));
	if (!env->__mask_was_saved)
		return env;
	sigprocmask(SIG_SETMASK, &env->__saved_mask, NULL);
	memcpy(copy->__jmpbuf, env->__jmpbuf, sizeof copy->__jmpbuf);
	copy->__mask_was_saved = 0;
	return copy;
}

GMP_EXPORT _Noreturn void longjmp(struct __jmp_buf_tag env[1], int val)
{
	gmp_init();
	struct __jmp_buf_tag copy;
	real__longjmp(prepare(env, &copy), val);
	__builtin_unreachable();
}

GMP_ALIAS(_longjmp, longjmp)
GMP_ALIAS(siglongjmp, longjmp)

GMP_EXPORT _Noreturn void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
	gmp_init();
	struct __jmp_buf_tag copy;
	real___longjmp_chk(prepare(env, &copy), val);
	__builtin_unreachable();
}

/* Before glibc's code sets ucp's context on this thread. */
static void context_prepare(const ucontext_t *ucp)
{
	struct g *gp = getg();
	if (!gp || gmp_passthrough)
		return;
	gmp_handlers_left(gp, arch_uc_sp(ucp));
	gmp_call_mask_begin(gp, &ucp->uc_sigmask);
	/* the kernel's mask is about to be ucp's, whatever this M thinks */
	sched_kmask_unknown(gp);
}

GMP_EXPORT int setcontext(const ucontext_t *ucp)
{
	gmp_init();
	context_prepare(ucp);
	return real_setcontext(ucp);
}

/* A tail call, like setcontext's: the context swapcontext saves is the
 * caller's own, which may be resumed after this function's frame is
 * gone. (A context a makecontext function's return resumes through its
 * uc_link is set by glibc's code alone: libgmp does not see that mask.) */
GMP_EXPORT int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	gmp_init();
	context_prepare(ucp);
	return real_swapcontext(oucp, ucp);
}
