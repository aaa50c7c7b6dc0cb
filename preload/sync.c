/* SPDX-License-Identifier: MIT */
/*
 * preload/sync.c — helpers shared by the synchronization objects.
 */
#include "preload/sync.h"
#include "core/dump.h"
#include "core/os.h"
#include "core/sched.h"

#include <errno.h>

void sync_interrupted(void)
{
	struct g *gp = getg();
	if (!gp)
		return;
	door_signals(gp);
	/* not a cancellation point, but an asynchronous cancellation acts
	 * anywhere */
	if (gp->canceltype == PTHREAD_CANCEL_ASYNCHRONOUS)
		door_testcancel(gp);
}

/* --- thread dumps -------------------------------------------------------------------- */

/* "thread N (name)" for an owner id (sync_self_id), or the OS thread. */
static int owner_words(int id, char *buf, size_t n)
{
	if (id >= (int)GMP_TID_BASE) {
		struct g *o = g_by_index((uint32_t)(id - (int)GMP_TID_BASE));
		if (o)
			return rt_snprintf(buf, n, "thread %lu (%s)", (unsigned long)o->goid,
					   o->name[0] ? o->name : "unnamed");
	}
	return rt_snprintf(buf, n, "OS thread %d", id);
}

/* dump_describe_hook: the holder of a mutex or a write-locked rwlock. */
static int describe_wait(struct g *gp, char *buf, size_t n)
{
	void *obj = gp->waitobj;
	char who[64];
	if (!obj)
		return 0;
	if (gp->waitreason == WAIT_MUTEX) {
		int id = __atomic_load_n(&((pthread_mutex_t *)obj)->__data.__owner, __ATOMIC_RELAXED);
		if (!id)
			return rt_snprintf(buf, n, "mutex %p", obj);
		owner_words(id, who, sizeof who);
		return rt_snprintf(buf, n, "mutex %p held by %s", obj, who);
	}
	if (gp->waitreason == WAIT_RWLOCK) {
		pthread_rwlock_t *rw = obj;
		int id = __atomic_load_n(&rw->__data.__cur_writer, __ATOMIC_RELAXED);
		if (!id)
			return rt_snprintf(buf, n, "rwlock %p held by readers", obj);
		owner_words(id, who, sizeof who);
		return rt_snprintf(buf, n, "rwlock %p write-locked by %s", obj, who);
	}
	return 0;
}

void sync_dump_init(void)
{
	dump_describe_hook = describe_wait;
}
