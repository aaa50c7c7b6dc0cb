/*
 * preload/sync.c — helpers shared by the synchronization objects.
 */
#include "preload/sync.h"
#include "core/os.h"
#include "core/sched.h"

#include <errno.h>

int sync_self_id(void)
{
	struct g *gp = getg();
	return gp ? g_tid(gp) : os_gettid();
}

int sync_deadline(clockid_t clk, const struct timespec *abs, int64_t *deadline)
{
	if (abs->tv_nsec < 0 || abs->tv_nsec >= 1000000000)
		return EINVAL;
	if (abs->tv_sec < 0) {
		*deadline = 1;		/* long past */
		return 0;
	}
	int64_t now = rt_nanotime();
	int64_t t;
	if (abs->tv_sec > INT64_MAX / 2000000000) {
		t = INT64_MAX / 2;	/* effectively never */
	} else {
		t = (int64_t)abs->tv_sec * 1000000000 + abs->tv_nsec;
		if (clk != CLOCK_MONOTONIC) {
			struct timespec cur;
			real_clock_gettime(clk, &cur);
			t = now + (t - ((int64_t)cur.tv_sec * 1000000000 + cur.tv_nsec));
		}
	}
	*deadline = t > 0 ? t : 1;
	return 0;
}

void sync_interrupted(void)
{
	struct g *gp = getg();
	if (!gp)
		return;
	gmp_sig_deliver(gp);
	/* not a cancellation point, but an asynchronous cancellation acts
	 * anywhere */
	if (gp->canceltype == PTHREAD_CANCEL_ASYNCHRONOUS)
		gmp_testcancel(gp);
}
