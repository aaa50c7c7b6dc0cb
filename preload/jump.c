/* SPDX-License-Identifier: MIT */
/*
 * preload/jump.c — longjmp, _longjmp, siglongjmp and __longjmp_chk (the
 * one _FORTIFY_SOURCE builds call).
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
 */
#include "preload/runtime.h"
#include "core/sched.h"

#include <setjmp.h>
#include <signal.h>
#include <string.h>

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
