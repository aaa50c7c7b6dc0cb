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
/* Give s's memory back (cache or unmap). Its TCB must already have been
 * released with tls_release unless s->tls_ready and the stack is cached.
 * TLS-free. */
void stack_free(struct gstack *s);

static inline char *stack_top(const struct gstack *s)
{
	return s->base + s->guard + s->size;
}

/* For tests and stats: arenas mapped, slots carved. */
void stack_stats(uint64_t *arenas, uint64_t *slots);

#endif
