/* SPDX-License-Identifier: MIT */
/*
 * preload/exit.c — pthread_exit and the cleanup handlers it runs.
 *
 * pthread_exit unwinds the calling G's stack with a forced unwind, as
 * glibc does: C++ destructors and catch (...) blocks that rethrow run on
 * the way, and cleanup handlers pushed with pthread_cleanup_push from C
 * code without exceptions (which registers a jump buffer with
 * __pthread_register_cancel) are entered by jumping to their buffer when
 * the unwind passes their frame; they continue the unwind with
 * __pthread_unwind_next. When the unwinder reaches the G's entry frame
 * (or the end of the main thread's stack) the G finishes.
 */
#include "preload/runtime.h"

#include <setjmp.h>
#include <stdlib.h>
#include <unwind.h>

struct gmp_cleanup {
	__pthread_unwind_buf_t buf;	/* what the program registered */
};

/* glibc's view of the private part of __pthread_unwind_buf_t. */
struct unwind_priv {
	__pthread_unwind_buf_t *prev;
	void *cleanup;
	int canceltype;
};

static struct unwind_priv *priv_of(__pthread_unwind_buf_t *b)
{
	return (struct unwind_priv *)&b->__pad;
}

/* The stack pointer saved in a cleanup buffer's jmp_buf. */
static uintptr_t jmpbuf_sp(__pthread_unwind_buf_t *b)
{
	return arch_jmpbuf_sp(b->__cancel_jmp_buf[0].__cancel_jmp_buf);
}

static void exc_cleanup(_Unwind_Reason_Code code, struct _Unwind_Exception *exc)
{
	/* A catch (...) swallowed the unwind instead of rethrowing it. */
	rt_printf(2, "FATAL: exception not rethrown\n");
	abort();
}

static _Unwind_Reason_Code unwind_stop(int version, _Unwind_Action actions,
				       _Unwind_Exception_Class cls,
				       struct _Unwind_Exception *exc,
				       struct _Unwind_Context *ctx, void *param)
{
	struct g *gp = param;
	__pthread_unwind_buf_t *b = (__pthread_unwind_buf_t *)gp->cleanup;
	bool end = (actions & _UA_END_OF_STACK) != 0;

	if (b && (end || jmpbuf_sp(b) < _Unwind_GetCFA(ctx))) {
		/* the frame holding the handler is being unwound: run it;
		 * it continues with __pthread_unwind_next. The buffer is the
		 * prefix of a jmp_buf that longjmp reads (no saved mask). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
		longjmp((struct __jmp_buf_tag *)(void *)b->__cancel_jmp_buf, 1);
#pragma GCC diagnostic pop
	}
	if (end)
		thread_finish(gp, gp->result);
	return _URC_NO_REASON;
}

_Static_assert(sizeof(struct _Unwind_Exception) <= sizeof(((struct g *)0)->unwind_exc),
	       "g->unwind_exc is too small");

static _Noreturn void unwind(struct g *gp)
{
	struct _Unwind_Exception *exc = (struct _Unwind_Exception *)gp->unwind_exc;

	exc->exception_class = 0;
	exc->exception_cleanup = exc_cleanup;
	_Unwind_ForcedUnwind(exc, unwind_stop, gp);
	/* no unwind information: run what is registered, then finish */
	thread_finish(gp, gp->result);
}

_Noreturn void thread_exit_unwind(struct g *gp, void *r)
{
	gp->result = r;
	unwind(gp);
}

GMP_EXPORT void pthread_exit(void *r)
{
	gmp_init();
	struct g *gp = getg();
	if (gmp_passthrough || !gp)
		real_pthread_exit(r);
	thread_exit_unwind(gp, r);
}

GMP_EXPORT void __pthread_register_cancel(__pthread_unwind_buf_t *b)
{
	struct g *gp = getg();
	if (!gp) {
		gmp_init();
		real___pthread_register_cancel(b);
		return;
	}
	priv_of(b)->prev = (__pthread_unwind_buf_t *)gp->cleanup;
	priv_of(b)->cleanup = NULL;
	gp->cleanup = (struct gmp_cleanup *)b;
}

GMP_EXPORT void __pthread_unregister_cancel(__pthread_unwind_buf_t *b)
{
	struct g *gp = getg();
	if (!gp) {
		gmp_init();
		real___pthread_unregister_cancel(b);
		return;
	}
	gp->cleanup = (struct gmp_cleanup *)priv_of(b)->prev;
}

GMP_EXPORT void __pthread_register_cancel_defer(__pthread_unwind_buf_t *b)
{
	struct g *gp = getg();
	if (!gp) {
		gmp_init();
		real___pthread_register_cancel_defer(b);
		return;
	}
	__pthread_register_cancel(b);
	priv_of(b)->canceltype = gp->canceltype;
	gp->canceltype = PTHREAD_CANCEL_DEFERRED;
}

GMP_EXPORT void __pthread_unregister_cancel_restore(__pthread_unwind_buf_t *b)
{
	struct g *gp = getg();
	if (!gp) {
		gmp_init();
		real___pthread_unregister_cancel_restore(b);
		return;
	}
	__pthread_unregister_cancel(b);
	gp->canceltype = priv_of(b)->canceltype;
}

GMP_EXPORT void __pthread_unwind_next(__pthread_unwind_buf_t *b)
{
	struct g *gp = getg();
	if (!gp) {
		gmp_init();
		real___pthread_unwind_next(b);
		__builtin_unreachable();
	}
	gp->cleanup = (struct gmp_cleanup *)priv_of(b)->prev;
	unwind(gp);
}
