/* SPDX-License-Identifier: MIT */
/* Sleeps: nanosleep, usleep, sleep, clock_nanosleep (relative and
 * TIMER_ABSTIME, on CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME and
 * CLOCK_TAI) and thrd_sleep, in main (before any thread exists, and while
 * another thread sleeps) and in a thread. Each returns 0 and never wakes
 * before the time asked (measured on the clock asked for); zero-length
 * sleeps and deadlines in the past return 0; 1,000 threads sleeping at
 * once all wake, none early. Nothing here checks how late a sleep is.
 * Every line is the same under NPTL. */
#include "api_util.h"
#include <pthread.h>
#include <threads.h>

#define MS 1000000LL

static atomic_int early, bad_ret;

/* Record an early wake-up or a wrong result (to print where it happened). */
static const char *verdict(int ret, int64_t elapsed, int64_t asked)
{
	if (ret != 0) {
		atomic_fetch_add(&bad_ret, 1);
		return "bad return";
	}
	if (elapsed < asked) {
		atomic_fetch_add(&early, 1);
		return "EARLY";
	}
	return "ok";
}

/* Lines of one round, printed by main once the round is over (two rounds
 * run at once and their lines must not interleave). */
#define OUT(...) do { fprintf(out, __VA_ARGS__); fputc('\n', out); } while (0)

static void one_round(const char *who, FILE *out)
{
	struct timespec ts, now;
	int64_t t0, el;
	int r;

	ts = ns_ts(15 * MS);
	t0 = clock_ns(CLOCK_MONOTONIC);
	r = nanosleep(&ts, NULL);
	el = clock_ns(CLOCK_MONOTONIC) - t0;
	OUT("%s: nanosleep 15 ms: %s", who, verdict(r, el, 15 * MS));

	t0 = clock_ns(CLOCK_MONOTONIC);
	r = usleep(15000);
	el = clock_ns(CLOCK_MONOTONIC) - t0;
	OUT("%s: usleep 15000: %s", who, verdict(r, el, 15 * MS));

	static const struct {
		clockid_t clk;
		const char *name;
	} clocks[] = {{CLOCK_MONOTONIC, "MONOTONIC"}, {CLOCK_REALTIME, "REALTIME"},
		      {CLOCK_BOOTTIME, "BOOTTIME"}, {CLOCK_TAI, "TAI"}};
	for (int i = 0; i < 4; i++) {
		clockid_t clk = clocks[i].clk;
		ts = ns_ts(15 * MS);
		t0 = clock_ns(clk);
		r = clock_nanosleep(clk, 0, &ts, NULL);
		el = clock_ns(clk) - t0;
		OUT("%s: clock_nanosleep %s relative 15 ms: %s", who, clocks[i].name,
		    verdict(r, el, 15 * MS));

		clock_gettime(clk, &now);
		int64_t deadline = ts_ns(&now) + 15 * MS;
		ts = ns_ts(deadline);
		r = clock_nanosleep(clk, TIMER_ABSTIME, &ts, NULL);
		el = clock_ns(clk) - deadline;	/* >= 0: not before the deadline */
		OUT("%s: clock_nanosleep %s TIMER_ABSTIME now+15 ms: %s", who, clocks[i].name,
		    verdict(r, el, 0));

		clock_gettime(clk, &now);
		ts = ns_ts(ts_ns(&now) - 50 * MS);
		r = clock_nanosleep(clk, TIMER_ABSTIME, &ts, NULL);
		OUT("%s: clock_nanosleep %s TIMER_ABSTIME in the past: %s", who, clocks[i].name,
		    verdict(r, 0, 0));
	}

	ts = ns_ts(15 * MS);
	t0 = clock_ns(CLOCK_REALTIME);
	r = thrd_sleep(&ts, NULL);
	el = clock_ns(CLOCK_REALTIME) - t0;
	OUT("%s: thrd_sleep 15 ms: %s", who, verdict(r, el, 15 * MS));

	ts = ns_ts(0);
	OUT("%s: nanosleep 0: %s", who, verdict(nanosleep(&ts, NULL), 0, 0));
	OUT("%s: clock_nanosleep 0: %s", who, verdict(clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL),
						      0, 0));
	OUT("%s: usleep 0: %s", who, verdict(usleep(0), 0, 0));
	OUT("%s: sleep 0: %s", who, verdict((int)sleep(0), 0, 0));
	OUT("%s: thrd_sleep 0: %s", who, verdict(thrd_sleep(&ts, NULL), 0, 0));
}

struct round {
	char *text;
	size_t len;
	bool with_sleep1;
};

static void *round_thread(void *arg)
{
	struct round *r = arg;
	FILE *out = open_memstream(&r->text, &r->len);
	one_round("thread", out);
	if (r->with_sleep1) {
		int64_t t0 = clock_ns(CLOCK_MONOTONIC);
		unsigned left = sleep(1);
		int64_t el = clock_ns(CLOCK_MONOTONIC) - t0;
		OUT("thread: sleep 1: %s", verdict((int)left, el, 1000 * MS));
	}
	fclose(out);
	return NULL;
}

static void print_round(struct round *r)
{
	fputs(r->text, stdout);
	fflush(stdout);
	free(r->text);
}

/* --- a thousand sleepers -------------------------------------------------------- */

#define NSLEEP 1000
static atomic_int woke;

static void *sleeper(void *arg)
{
	long i = (long)arg;
	int64_t asked = (20 + i % 30) * MS;	/* 20..49 ms, spread */
	struct timespec ts = ns_ts(asked);
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	int r = nanosleep(&ts, NULL);
	verdict(r, clock_ns(CLOCK_MONOTONIC) - t0, asked);
	atomic_fetch_add(&woke, 1);
	return NULL;
}

int main(void)
{
	pthread_t t;
	struct round r = {0};

	/* main first, while the program has no other thread */
	one_round("main", stdout);
	fflush(stdout);
	EXPECT_ERR(0, pthread_create(&t, NULL, round_thread, &r));
	EXPECT_ERR(0, pthread_join(t, NULL));
	print_round(&r);

	/* main sleeps while another thread sleeps too */
	r.with_sleep1 = true;
	EXPECT_ERR(0, pthread_create(&t, NULL, round_thread, &r));
	int64_t t0 = clock_ns(CLOCK_MONOTONIC);
	unsigned left = sleep(1);
	int64_t el = clock_ns(CLOCK_MONOTONIC) - t0;
	EXPECT_ERR(0, pthread_join(t, NULL));
	print_round(&r);
	SAY("main: sleep 1: %s", verdict((int)left, el, 1000 * MS));

	static pthread_t ts[NSLEEP];
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (long i = 0; i < NSLEEP; i++)
		EXPECT_ERR(0, pthread_create(&ts[i], &a, sleeper, (void *)i));
	pthread_attr_destroy(&a);
	for (int i = 0; i < NSLEEP; i++)
		EXPECT_ERR(0, pthread_join(ts[i], NULL));
	SAY("%d threads slept at once: %d woke", NSLEEP, atomic_load(&woke));
	CHECK(woke == NSLEEP, "woke %d", woke);

	CHECK(early == 0 && bad_ret == 0, "%d sleeps woke early, %d returned non-zero", early,
	      bad_ret);
	SAY("PASS api_sleep");
	return 0;
}
