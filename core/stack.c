/* SPDX-License-Identifier: MIT */
/*
 * core/stack.c — stack arenas and guard pages (see stack.h).
 */
#include "core/stack.h"
#include "core/os.h"
#include "core/tls.h"

#include <errno.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

#define ARENA_SLOTS 256
#define MINIMAL_REST_STACK 2048

static size_t default_size;		/* constant after stack_init */
static size_t default_guard;

/*
 * Arena state, under lock. `cur` is the arena being carved, `next` the
 * index of its next unused slot. Freed default-shape stacks whose G was
 * reused for another shape wait on `free` (linked through a spare word of
 * the TCB at their top, which is always resident).
 */
static struct rt_mutex lock;		/* leaf */
static char *cur;
static uint32_t cur_slots;		/* slots in the current arena */
static uint32_t next;
static char *freelist;			/* slot bases */
static char *rawlist;			/* slots without a TCB: bases */
static _Atomic int guard_mode;		/* 0 unknown, 1 madvise, 2 mprotect */
static uint64_t narenas, nslots;

/* Words of the (dead) TCB at a listed stack's top: the link, and for
 * deferred stacks their shape. tcbhead_t's unused_vgetcpu_cache[1] and
 * __private_tm[0..1]; tls_setup clears them when the TCB is reused. */
#define LINK_SLOT ARCH_TCB_PREEMPT_SLOT
#define SIZE_SLOT 0x50
#define GUARD_SLOT 0x58

static struct rt_mutex defer_lock;	/* leaf */
static char *deferred;			/* tops of deferred stacks */
static _Atomic int ndeferred;

static uintptr_t default_tp(char *base)
{
	return tls_tp_for_top(base + default_guard + default_size);
}

void stack_list_push(char **head, const struct gstack *s)
{
	*(char **)(default_tp(s->base) + LINK_SLOT) = *head;
	*head = s->base;
}

bool stack_list_pop(char **head, struct gstack *s)
{
	char *base = *head;
	if (!base)
		return false;
	uintptr_t tp = default_tp(base);
	*head = *(char **)(tp + LINK_SLOT);
	*(char **)(tp + LINK_SLOT) = NULL;
	s->base = base;
	s->size = default_size;
	s->guard = default_guard;
	s->kind = STACK_ARENA;
	s->tls_ready = true;
	return true;
}

void stack_init(void)
{
	struct rlimit rl;
	size_t size = 2 * 1024 * 1024;	/* glibc's ARCH_STACK_DEFAULT_SIZE */

	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		size = rl.rlim_cur;
	if (size < (size_t)PTHREAD_STACK_MIN)
		size = PTHREAD_STACK_MIN;
	size = (size + os_pagesize - 1) & ~(os_pagesize - 1);
	default_size = size;
	default_guard = os_pagesize;
}

size_t stack_default_size(void)
{
	return default_size;
}

static size_t slot_bytes(void)
{
	return default_guard + default_size;
}

/* Install a guard of len bytes at p. Returns 0 or -errno. */
static int guard_install(char *p, size_t len)
{
	if (len == 0)
		return 0;
	int mode = ld_rlx(&guard_mode);
	if (mode != 2) {
		long r = arch_syscall3(SYS_madvise, p, len, MADV_GUARD_INSTALL);
		if (r == 0) {
			st_rlx(&guard_mode, 1);
			return 0;
		}
		if (r != -EINVAL || mode == 1)
			return (int)r;
		st_rlx(&guard_mode, 2);	/* kernel without guard regions */
	}
	return (int)arch_syscall3(SYS_mprotect, p, len, PROT_NONE);
}

/* A slot whose TCB was never set up (setting it up failed for lack of
 * memory) waits on rawlist, linked through the first word above its
 * guard. */
static void raw_push(char *base)
{
	*(char **)(base + default_guard) = rawlist;
	rawlist = base;
}

static int arena_slot(struct gstack *s)
{
	rt_lock(&lock);
	if (stack_list_pop(&freelist, s)) {
		rt_unlock(&lock);
		return 0;
	}
	if (rawlist) {
		char *base = rawlist;
		rawlist = *(char **)(base + default_guard);
		rt_unlock(&lock);
		s->base = base;
		s->tls_ready = false;
		return 0;
	}
	if (next == cur_slots) {
		/* a new arena; when address space is short, a smaller one */
		char *a;
		uint32_t n = ARENA_SLOTS;
		for (;;) {
			a = rt_mmap(slot_bytes() * n, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK);
			if (a || n == 1)
				break;
			n /= 2;
		}
		if (!a) {
			rt_unlock(&lock);
			return EAGAIN;
		}
		arch_syscall3(SYS_madvise, a, slot_bytes() * n, MADV_NOHUGEPAGE);
		cur = a;
		cur_slots = n;
		next = 0;
		narenas++;
	}
	char *base = cur + (size_t)next * slot_bytes();
	if (guard_install(base, default_guard) != 0) {
		rt_unlock(&lock);
		return EAGAIN;
	}
	next++;
	nslots++;
	rt_unlock(&lock);
	s->base = base;
	s->tls_ready = false;
	return 0;
}

static int mapped_stack(struct gstack *s, size_t size, size_t guard)
{
	char *p = rt_mmap(size + guard, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK);
	if (!p)
		return EAGAIN;
	if (guard_install(p, guard) != 0) {
		rt_munmap(p, size + guard);
		return EAGAIN;
	}
	s->base = p;
	s->tls_ready = false;
	return 0;
}

int stack_alloc(struct gstack *s, size_t size, size_t guard)
{
	int err;
	if (size == default_size && guard == default_guard) {
		err = arena_slot(s);
		s->kind = STACK_ARENA;
	} else {
		err = mapped_stack(s, size, guard);
		s->kind = STACK_MAPPED;
	}
	if (err) {
		s->kind = STACK_NONE;
		return err;
	}
	s->size = size;
	s->guard = guard;
	return 0;
}

void stack_free(struct gstack *s)
{
	switch (s->kind) {
	case STACK_ARENA:
		rt_lock(&lock);
		if (s->tls_ready)
			stack_list_push(&freelist, s);
		else
			raw_push(s->base);
		rt_unlock(&lock);
		break;
	case STACK_MAPPED:
		rt_munmap(s->base, s->size + s->guard);
		break;
	default:
		break;
	}
	s->kind = STACK_NONE;
	s->base = NULL;
	s->tls_ready = false;
}

void stack_defer(const struct gstack *s)
{
	uintptr_t tp = tls_tp_for_top(stack_top(s));
	*(char **)(tp + SIZE_SLOT) = (char *)s->size;
	*(char **)(tp + GUARD_SLOT) = (char *)s->guard;
	rt_lock(&defer_lock);
	*(char **)(tp + LINK_SLOT) = deferred;
	deferred = stack_top(s);
	xadd(&ndeferred, 1);
	rt_unlock(&defer_lock);
}

void stack_reclaim(void)
{
	if (!ld_rlx(&ndeferred))
		return;
	rt_lock(&defer_lock);
	char *top = deferred;
	deferred = NULL;
	st_rlx(&ndeferred, 0);
	rt_unlock(&defer_lock);
	while (top) {
		uintptr_t tp = tls_tp_for_top(top);
		struct gstack s = {
			.size = (size_t)*(char **)(tp + SIZE_SLOT),
			.guard = (size_t)*(char **)(tp + GUARD_SLOT),
			.kind = STACK_MAPPED,
		};
		s.base = top - s.size - s.guard;
		top = *(char **)(tp + LINK_SLOT);
		tls_release(tp);
		stack_free(&s);
	}
}

void stack_stats(uint64_t *arenas, uint64_t *slots)
{
	rt_lock(&lock);
	*arenas = narenas;
	*slots = nslots;
	rt_unlock(&lock);
}

void stack_after_fork(void)
{
	lock = (struct rt_mutex){0};
	defer_lock = (struct rt_mutex){0};
	freelist = NULL;
	rawlist = NULL;
	deferred = NULL;
	st_rlx(&ndeferred, 0);
}
