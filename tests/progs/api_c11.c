/* SPDX-License-Identifier: MIT */
/* C11 <threads.h> threads: thrd_create/thrd_join and the int result,
 * thrd_detach, thrd_current/thrd_equal, thrd_exit, thrd_yield and
 * thrd_sleep. (mtx_* and cnd_* are not used.) Every line is the same under
 * NPTL. */
#include "api_util.h"
#include <threads.h>

static atomic_int published, done_flag, yields;
static thrd_t child_id, main_id;

static int ret_arg(void *arg)
{
	return (int)(long)arg;
}

static int identity(void *arg)
{
	wait_flag(&published);
	int same = thrd_equal(thrd_current(), child_id);
	int other = thrd_equal(thrd_current(), main_id);
	return same && !other ? 1 : 0;
}

static __attribute__((noinline)) void deep_exit(int n)
{
	if (n == 0)
		thrd_exit(5);
	if (n > 0)
		deep_exit(n - 1);
	printf("FAIL: thrd_exit returned\n");
}

static int exiter(void *arg)
{
	deep_exit(10);
	return 99;
}

static int detached(void *arg)
{
	for (int i = 0; i < 10; i++)
		thrd_yield();
	atomic_store(&done_flag, 1);
	return 0;
}

static int yielder(void *arg)
{
	for (int i = 0; i < 1000; i++) {
		thrd_yield();
		atomic_fetch_add(&yields, 1);
	}
	return 0;
}

static int sleeper(void *arg)
{
	struct timespec d = {.tv_sec = 0, .tv_nsec = 30 * 1000000};
	int64_t t0 = clock_ns(CLOCK_REALTIME);
	int r = thrd_sleep(&d, NULL);
	int64_t el = clock_ns(CLOCK_REALTIME) - t0;
	if (r != 0)
		return 100 + r;
	return el >= 30 * 1000000 ? 0 : 1;
}

int main(void)
{
	thrd_t t;
	int res = -1;

	CHECK(thrd_create(&t, ret_arg, (void *)42) == thrd_success, "create");
	CHECK(thrd_join(t, &res) == thrd_success, "join");
	CHECK(res == 42, "res %d", res);
	CHECK(thrd_create(&t, ret_arg, (void *)-7L) == thrd_success, "create");
	CHECK(thrd_join(t, &res) == thrd_success && res == -7, "res %d", res);
	CHECK(thrd_create(&t, ret_arg, NULL) == thrd_success, "create");
	CHECK(thrd_join(t, NULL) == thrd_success, "join with NULL result");
	SAY("thrd_join gives the int the thread returned (42, -7), or nothing for NULL");

	main_id = thrd_current();
	CHECK(thrd_equal(main_id, thrd_current()), "thrd_equal(current, current)");
	CHECK(thrd_create(&child_id, identity, NULL) == thrd_success, "create");
	atomic_store(&published, 1);
	CHECK(thrd_join(child_id, &res) == thrd_success && res == 1, "res %d", res);
	SAY("thrd_current in a thread equals the id thrd_create gave, not main's");

	CHECK(thrd_create(&t, exiter, NULL) == thrd_success, "create");
	CHECK(thrd_join(t, &res) == thrd_success && res == 5, "res %d", res);
	SAY("thrd_exit(5) ten calls deep: the joiner gets 5");

	CHECK(thrd_create(&t, detached, NULL) == thrd_success, "create");
	CHECK(thrd_detach(t) == thrd_success, "detach");
	wait_flag(&done_flag);
	SAY("thrd_detach: thrd_success; the detached thread runs to its end");

	thrd_t y[4];
	for (int i = 0; i < 4; i++)
		CHECK(thrd_create(&y[i], yielder, NULL) == thrd_success, "create");
	for (int i = 0; i < 4; i++)
		CHECK(thrd_join(y[i], NULL) == thrd_success, "join");
	CHECK(yields == 4000, "yields %d", yields);
	SAY("4 threads x 1000 thrd_yield: all done");

	CHECK(thrd_create(&t, sleeper, NULL) == thrd_success, "create");
	CHECK(thrd_join(t, &res) == thrd_success, "join");
	CHECK(res == 0, "thrd_sleep in a thread: %s (%d)", res == 1 ? "woke early" : "returned",
	      res - 100);
	struct timespec d = {.tv_sec = 0, .tv_nsec = 20 * 1000000};
	int64_t t0 = clock_ns(CLOCK_REALTIME);
	CHECK(thrd_sleep(&d, NULL) == 0, "thrd_sleep in main");
	CHECK(clock_ns(CLOCK_REALTIME) - t0 >= 20 * 1000000, "thrd_sleep in main woke early");
	SAY("thrd_sleep returns 0, not early, in a thread and in main");

	/* a thousand create/join pairs with results */
	for (long i = 0; i < 1000; i++) {
		CHECK(thrd_create(&t, ret_arg, (void *)i) == thrd_success, "create %ld", i);
		CHECK(thrd_join(t, &res) == thrd_success && res == (int)i, "res %d", res);
	}
	SAY("1000 create/join pairs: every result right");
	SAY("PASS api_c11");
	return 0;
}
