/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of G stacks: glibc's default size, guard pages that fault,
 * untouched stack pages that cost no memory, and warm reuse of a freed
 * stack of the default shape.
 */
#include "unit.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

static void setup(void)
{
	os_init();
	char why[160];
	cr_assert(tls_init(why, sizeof why), "%s", why);
	stack_init();
}

TestSuite(stack, .init = setup);

Test(stack, default_size_follows_rlimit_stack)
{
	struct rlimit rl;
	getrlimit(RLIMIT_STACK, &rl);
	size_t want = rl.rlim_cur == RLIM_INFINITY ? 2u << 20 : rl.rlim_cur;
	if (want < (size_t)PTHREAD_STACK_MIN)
		want = PTHREAD_STACK_MIN;
	want = (want + os_pagesize - 1) & ~(os_pagesize - 1);
	cr_assert_eq(stack_default_size(), want);
}

Test(stack, default_guard_page_faults, .signal = SIGSEGV)
{
	struct gstack s = {0};
	cr_assert_eq(stack_alloc(&s, stack_default_size(), os_pagesize), 0);
	cr_assert_eq(s.kind, STACK_ARENA);
	stack_top(&s)[-1] = 1;			/* the top is usable */
	s.base[s.guard] = 1;			/* so is the lowest stack byte */
	*(volatile char *)(s.base + s.guard - 1) = 1;	/* the guard is not */
}

Test(stack, custom_guard_faults_everywhere, .signal = SIGSEGV)
{
	struct gstack s = {0};
	size_t guard = 3 * os_pagesize;
	cr_assert_eq(stack_alloc(&s, 64 * 1024, guard), 0);
	cr_assert_eq(s.kind, STACK_MAPPED);
	s.base[guard] = 1;
	*(volatile char *)(s.base + guard / 2) = 1;
}

/* Resident pages of [p, p+len) by mincore. */
static size_t resident(char *p, size_t len)
{
	size_t n = len / os_pagesize, r = 0;
	unsigned char v[4096];
	cr_assert(n <= sizeof v);
	cr_assert_eq(mincore(p, len, v), 0);
	for (size_t i = 0; i < n; i++)
		r += v[i] & 1;
	return r;
}

Test(stack, untouched_pages_cost_nothing)
{
	struct gstack s = {0};
	cr_assert_eq(stack_alloc(&s, stack_default_size(), os_pagesize), 0);
	char *lo = s.base + s.guard;
	size_t len = 4096 * os_pagesize < s.size ? 4096 * os_pagesize : s.size;
	cr_assert_eq(resident(lo, len), 0, "a fresh stack has no resident pages");
	stack_top(&s)[-1] = 1;
	cr_assert_eq(resident(stack_top(&s) - os_pagesize, os_pagesize), 1);
}

Test(stack, freed_default_stack_is_reused)
{
	struct gstack a = {0}, b = {0};
	cr_assert_eq(stack_alloc(&a, stack_default_size(), os_pagesize), 0);
	char *base = a.base;
	/* a stack comes back to the cache only with its TCB set up */
	uintptr_t tp = tls_tp_for_top(stack_top(&a));
	memset((void *)tp, 0, tls.tcb_size);
	a.tls_ready = true;
	stack_free(&a);
	cr_assert_eq(stack_alloc(&b, stack_default_size(), os_pagesize), 0);
	cr_assert_eq(b.base, base, "the freed stack is handed out again");
	cr_assert(b.tls_ready, "and its TCB is known to be set up");
}
