/* SPDX-License-Identifier: MIT */
/*
 * preload/keys.c — thread-specific data (pthread_key_*, tss_*).
 *
 * Values live where glibc keeps them, in the TCB of the calling thread
 * (struct pthread's specific_1stblock and level-2 blocks, same layout), so
 * a G's values follow the G and threads glibc made work too. The key table
 * is libgmp's: a key is in use while its sequence number is odd, and a
 * stored value only counts if it carries the key's current sequence (a
 * deleted and re-created key does not see old values).
 *
 * Destructors run when a G ends, for up to PTHREAD_DESTRUCTOR_ITERATIONS
 * rounds, as glibc does for its threads.
 */
#include "preload/runtime.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define PD_SPECIFIC1 784	/* struct pthread_key_data specific_1stblock[32] */
#define PD_SPECIFIC 1296	/* struct pthread_key_data *specific[32] */
#define KEY_L2 32

struct key_data {
	uintptr_t seq;
	void *data;
};

static struct {
	_Atomic uintptr_t seq;
	void (*_Atomic destr)(void *);
} keys[PTHREAD_KEYS_MAX];

_Static_assert(PTHREAD_KEYS_MAX == KEY_L2 * KEY_L2, "two-level key blocks");

static struct key_data **level1(uintptr_t tp)
{
	return (struct key_data **)(tp + PD_SPECIFIC);
}

/* The slot of key k in the calling thread, allocating its block when
 * alloc; NULL if absent (or allocation failed). */
static struct key_data *slot(unsigned k, bool alloc)
{
	uintptr_t tp = arch_tp_load(0x10);
	if (k < KEY_L2)
		return (struct key_data *)(tp + PD_SPECIFIC1) + k;
	struct key_data **l1 = level1(tp);
	struct key_data *l2 = l1[k / KEY_L2];
	if (!l2) {
		if (!alloc)
			return NULL;
		l2 = calloc(KEY_L2, sizeof *l2);
		if (!l2)
			return NULL;
		l1[k / KEY_L2] = l2;
	}
	return &l2[k % KEY_L2];
}

GMP_EXPORT int pthread_key_create(pthread_key_t *key, void (*destr)(void *))
{
	GMP_ENTRY_EARLY(pthread_key_create, key, destr);
	for (unsigned k = 0; k < PTHREAD_KEYS_MAX; k++) {
		uintptr_t seq = ld_acq(&keys[k].seq);
		if ((seq & 1) || seq + 2 < seq)
			continue;	/* in use, or its sequence would wrap */
		if (!cas(&keys[k].seq, &seq, seq + 1))
			continue;
		st_rel(&keys[k].destr, destr);
		*key = k;
		return 0;
	}
	return EAGAIN;
}

GMP_EXPORT int pthread_key_delete(pthread_key_t key)
{
	GMP_ENTRY_EARLY(pthread_key_delete, key);
	if (key >= PTHREAD_KEYS_MAX)
		return EINVAL;
	uintptr_t seq = ld_acq(&keys[key].seq);
	if (!(seq & 1) || !cas(&keys[key].seq, &seq, seq + 1))
		return EINVAL;
	return 0;
}

GMP_EXPORT void *pthread_getspecific(pthread_key_t key)
{
	GMP_ENTRY_EARLY(pthread_getspecific, key);
	if (key >= PTHREAD_KEYS_MAX)
		return NULL;
	struct key_data *d = slot(key, false);
	if (!d || !d->data)
		return NULL;
	if (d->seq != ld_rlx(&keys[key].seq)) {
		d->data = NULL;		/* stale value of a deleted key */
		return NULL;
	}
	return d->data;
}

GMP_EXPORT int pthread_setspecific(pthread_key_t key, const void *val)
{
	GMP_ENTRY_EARLY(pthread_setspecific, key, val);
	if (key >= PTHREAD_KEYS_MAX)
		return EINVAL;
	uintptr_t seq = ld_acq(&keys[key].seq);
	if (!(seq & 1))
		return EINVAL;
	struct key_data *d = slot(key, val != NULL);
	if (!d)
		return val ? ENOMEM : 0;
	d->seq = seq;
	d->data = (void *)val;
	struct g *gp = getg();
	if (gp && val)
		gp->keys_used = true;
	return 0;
}

/* Old names some binaries and libgcc's gthreads still reference. */
GMP_EXPORT int __pthread_key_create(pthread_key_t *key, void (*destr)(void *))
{
	return pthread_key_create(key, destr);
}

GMP_EXPORT void *__pthread_getspecific(pthread_key_t key)
{
	return pthread_getspecific(key);
}

GMP_EXPORT int __pthread_setspecific(pthread_key_t key, const void *val)
{
	return pthread_setspecific(key, val);
}

void keys_run_destructors(struct g *gp)
{
	if (!gp->keys_used)
		return;
	uintptr_t tp = gp->tcb;
	struct key_data **l1 = level1(tp);
	for (int round = 0; round < PTHREAD_DESTRUCTOR_ITERATIONS; round++) {
		bool again = false;
		for (unsigned k = 0; k < PTHREAD_KEYS_MAX; k++) {
			struct key_data *d = k < KEY_L2 ? (struct key_data *)(tp + PD_SPECIFIC1) + k
						 : (l1[k / KEY_L2] ? &l1[k / KEY_L2][k % KEY_L2] : NULL);
			if (!d) {
				k = (k / KEY_L2 + 1) * KEY_L2 - 1;	/* skip the block */
				continue;
			}
			void *data = d->data;
			if (!data)
				continue;
			d->data = NULL;
			void (*destr)(void *) = ld_acq(&keys[k].destr);
			if (d->seq == ld_acq(&keys[k].seq) && destr) {
				destr(data);
				again = true;
			}
		}
		if (!again)
			break;
	}
	for (unsigned i = 1; i < KEY_L2; i++) {
		free(l1[i]);
		l1[i] = NULL;
	}
	/* values set by the last round stay unless cleared: the TCB serves
	 * the next thread (glibc clears this block too) */
	memset((void *)(tp + PD_SPECIFIC1), 0, KEY_L2 * sizeof(struct key_data));
	gp->keys_used = false;
}
