/*
 * core/netpoll.c — futex-based blocking wait for the idle M (see
 * netpoll.h). `pending` is set by netpoll_break and consumed by netpoll;
 * setting it only on a 0 -> 1 change means a burst of breaks costs one
 * futex wake.
 */
#include "core/netpoll.h"
#include "core/os.h"
#include "core/rt.h"

static _Atomic uint32_t pending;

void netpoll_break(void)
{
	if (cas_val(&pending, 0u, 1u))
		os_futex_wake(&pending, 1);
}

void netpoll(int64_t delay)
{
	if (xchg(&pending, 0u) != 0 || delay == 0)
		return;
	os_futex_wait(&pending, 0, delay);
	xchg(&pending, 0u);
}
