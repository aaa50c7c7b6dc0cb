/* SPDX-License-Identifier: MIT */
/*
 * core/stack.h — G stacks.
 *
 * Default-shaped stacks (the glibc default size and one guard page) are
 * carved from large arenas: one MAP_NORESERVE mapping holds 256 slots, so
 * untouched stack pages cost nothing and a million stacks need only a few
 * thousand mappings (vm.max_map_count is 65530 by default). Guard pages
 * are installed with MADV_GUARD_INSTALL, which marks page-table entries
 * instead of splitting the mapping; on kernels without it (before 6.13)
 * they fall back to mprotect(PROT_NONE), which costs two mappings per
 * stack. Other shapes get a mapping of their own, as under NPTL.
 *
 * The TCB and static TLS of a G live at the top of its stack (tls.h).
 * Dead Gs keep their stack; stacks only come here when a G needs another
 * shape, and are then reused warm.
 */
#ifndef GMP_CORE_STACK_H
#define GMP_CORE_STACK_H

#include "core/g.h"

/* Read RLIMIT_STACK as glibc does. Valid TLS, once. */
void stack_init(void);
/* glibc's default thread stack size for this process. */
size_t stack_default_size(void);

/* Give s a stack of `size` usable bytes above `guard` guard bytes (both
 * page multiples). Reuses a cached stack of that shape when there is one
 * (s->tls_ready then tells the TCB at its top is initialised). Returns 0
 * or EAGAIN. TLS-free. */
int stack_alloc(struct gstack *s, size_t size, size_t guard);
/* Give s's memory back: a default-shape stack goes to the global cache
 * (warm when its TCB is set up, else bare); a stack of its own mapping is
 * unmapped (its TCB must have been released with tls_release). TLS-free. */
void stack_free(struct gstack *s);

/*
 * Lists of default-shape stacks with a set-up TCB, linked through a word
 * of that TCB (always resident). A list is a `char *` head, protected by
 * its owner. TLS-free.
 */
void stack_list_push(char **head, const struct gstack *s);
bool stack_list_pop(char **head, struct gstack *s);

/*
 * Stacks of their own mapping whose thread has ended on g0, where their
 * TCB cannot be released (that calls free). stack_defer queues one
 * (TLS-free); stack_reclaim releases every queued one (valid TLS).
 */
void stack_defer(const struct gstack *s);
void stack_reclaim(void);
/* In the child of fork: locks free, and the free and deferred stacks
 * forgotten (their TCBs are no longer on glibc's lists; they stay mapped,
 * as a vanished thread's stack does under NPTL). */
void stack_after_fork(void);

static inline char *stack_top(const struct gstack *s)
{
	return s->base + s->guard + s->size;
}

/* For tests and stats: arenas mapped, slots carved. */
void stack_stats(uint64_t *arenas, uint64_t *slots);

#endif
