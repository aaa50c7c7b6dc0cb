/* SPDX-License-Identifier: MIT */
/* Per-thread properties of running threads: names (another thread's and
 * one's own, and what a new thread inherits), affinity, scheduling
 * parameters, and CPU-time clocks (pthread_getcpuclockid of a running
 * thread advances while it computes and stays put while it sleeps;
 * CLOCK_THREAD_CPUTIME_ID advances with the thread's own work only).
 * With argument "inherit", a new thread must start with its creator's
 * affinity. With argument "pinned", a thread pinned to one CPU with
 * pthread_setaffinity_np must then run on that CPU (sched_getcpu).
 * Every line is the same under NPTL. */
#include "api_util.h"
#include <pthread.h>

#define MS 1000000LL

static atomic_int ready, release;

static void *waiter(void *arg)
{
	atomic_store(&ready, 1);
	wait_flag(&release);
	return arg;
}

static void start_waiter(pthread_t *t)
{
	atomic_store(&ready, 0);
	atomic_store(&release, 0);
	EXPECT_ERR(0, pthread_create(t, NULL, waiter, NULL));
	wait_flag(&ready);
}

static void stop_waiter(pthread_t t)
{
	atomic_store(&release, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
}

/* --- names --------------------------------------------------------------------------- */

static char inherited[32];
static atomic_int named;

static void *self_namer(void *arg)
{
	char buf[32];
	EXPECT_ERR(0, pthread_getname_np(pthread_self(), inherited, sizeof inherited));
	EXPECT_ERR(0, pthread_setname_np(pthread_self(), "self-named"));
	EXPECT_ERR(0, pthread_getname_np(pthread_self(), buf, sizeof buf));
	CHECK(strcmp(buf, "self-named") == 0, "own name reads back as \"%s\"", buf);
	atomic_store(&named, 1);
	wait_flag(&release);
	return NULL;
}

static void names(void)
{
	pthread_t t;
	char buf[32];

	start_waiter(&t);
	EXPECT_ERR(0, pthread_getname_np(t, buf, sizeof buf));
	SAY("a new thread's name: \"%s\"", buf);
	EXPECT_ERR(0, pthread_setname_np(t, "worker-one"));
	EXPECT_ERR(0, pthread_getname_np(t, buf, sizeof buf));
	CHECK(strcmp(buf, "worker-one") == 0, "got \"%s\"", buf);
	EXPECT_ERR(0, pthread_setname_np(t, "fifteen-chars-x"));
	EXPECT_ERR(0, pthread_getname_np(t, buf, sizeof buf));
	CHECK(strcmp(buf, "fifteen-chars-x") == 0, "got \"%s\"", buf);
	stop_waiter(t);
	SAY("setname/getname of another running thread: round trip (also 15 chars)");

	atomic_store(&release, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, self_namer, NULL));
	wait_flag(&named);
	EXPECT_ERR(0, pthread_getname_np(t, buf, sizeof buf));
	CHECK(strcmp(buf, "self-named") == 0, "main reads \"%s\"", buf);
	atomic_store(&release, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
	SAY("a thread names itself: it and main read the name back");

	EXPECT_ERR(0, pthread_setname_np(pthread_self(), "main-renamed"));
	EXPECT_ERR(0, pthread_getname_np(pthread_self(), buf, sizeof buf));
	CHECK(strcmp(buf, "main-renamed") == 0, "got \"%s\"", buf);
	atomic_store(&named, 0);
	atomic_store(&release, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, self_namer, NULL));
	wait_flag(&named);
	atomic_store(&release, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
	SAY("main renames itself: reads \"%s\"; a thread it creates then starts as \"%s\"", buf,
	    inherited);
}

/* --- affinity --------------------------------------------------------------------------- */

static void affinity(void)
{
	pthread_t t;
	cpu_set_t proc, got, one;
	int first = -1;

	CHECK(sched_getaffinity(0, sizeof proc, &proc) == 0, "sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &proc))
			first = c;
	start_waiter(&t);
	EXPECT_ERR(0, pthread_getaffinity_np(t, sizeof got, &got));
	CHECK(CPU_EQUAL(&got, &proc), "default: %d CPUs, process %d", CPU_COUNT(&got),
	      CPU_COUNT(&proc));
	SAY("getaffinity of a running thread = sched_getaffinity of the process");
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	EXPECT_ERR(0, pthread_setaffinity_np(t, sizeof one, &one));
	EXPECT_ERR(0, pthread_getaffinity_np(t, sizeof got, &got));
	CHECK(CPU_EQUAL(&got, &one), "after set {first}: %d CPUs", CPU_COUNT(&got));
	EXPECT_ERR(0, pthread_setaffinity_np(t, sizeof proc, &proc));
	EXPECT_ERR(0, pthread_getaffinity_np(t, sizeof got, &got));
	CHECK(CPU_EQUAL(&got, &proc), "after set back: %d CPUs", CPU_COUNT(&got));
	stop_waiter(t);
	SAY("setaffinity {first CPU} then getaffinity: round trip; and back to all");

	EXPECT_ERR(0, pthread_setaffinity_np(pthread_self(), sizeof one, &one));
	EXPECT_ERR(0, pthread_getaffinity_np(pthread_self(), sizeof got, &got));
	CHECK(CPU_EQUAL(&got, &one), "self: %d CPUs", CPU_COUNT(&got));
	EXPECT_ERR(0, pthread_setaffinity_np(pthread_self(), sizeof proc, &proc));
	EXPECT_ERR(0, pthread_getaffinity_np(pthread_self(), sizeof got, &got));
	CHECK(CPU_EQUAL(&got, &proc), "self: %d CPUs", CPU_COUNT(&got));
	SAY("main sets its own affinity: round trip");
}

/* A new thread starts with its creator's affinity (with "inherit"). */
static void *creator(void *arg)
{
	cpu_set_t *one = arg, got;
	pthread_t t;
	EXPECT_ERR(0, pthread_setaffinity_np(pthread_self(), sizeof *one, one));
	start_waiter(&t);
	EXPECT_ERR(0, pthread_getaffinity_np(t, sizeof got, &got));
	stop_waiter(t);
	CHECK(CPU_EQUAL(&got, one), "created by a pinned thread: %d CPUs", CPU_COUNT(&got));
	return NULL;
}

static void inherit_affinity(void)
{
	pthread_t t;
	cpu_set_t proc, got, one;
	int first = -1;

	CHECK(sched_getaffinity(0, sizeof proc, &proc) == 0, "sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &proc))
			first = c;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	EXPECT_ERR(0, pthread_setaffinity_np(pthread_self(), sizeof one, &one));
	start_waiter(&t);
	EXPECT_ERR(0, pthread_getaffinity_np(t, sizeof got, &got));
	stop_waiter(t);
	CHECK(CPU_EQUAL(&got, &one), "created by pinned main: %d CPUs", CPU_COUNT(&got));
	EXPECT_ERR(0, pthread_setaffinity_np(pthread_self(), sizeof proc, &proc));
	SAY("a thread created by main pinned to {first CPU} starts with {first CPU}");
	EXPECT_ERR(0, pthread_create(&t, NULL, creator, &one));
	EXPECT_ERR(0, pthread_join(t, NULL));
	SAY("so does one created by another pinned thread");
}

/* --- scheduling parameters ------------------------------------------------------------ */

static void sched_params(void)
{
	pthread_t t;
	struct sched_param sp;
	int policy;

	start_waiter(&t);
	EXPECT_ERR(0, pthread_getschedparam(t, &policy, &sp));
	CHECK(policy == SCHED_OTHER && sp.sched_priority == 0, "default %d/%d", policy,
	      sp.sched_priority);
	sp.sched_priority = 0;
	EXPECT_ERR(0, pthread_setschedparam(t, SCHED_OTHER, &sp));
	EXPECT_ERR(0, pthread_getschedparam(t, &policy, &sp));
	CHECK(policy == SCHED_OTHER && sp.sched_priority == 0, "got %d/%d", policy,
	      sp.sched_priority);
	SAY("setschedparam OTHER/0 -> getschedparam OTHER/0");
	if (geteuid() == 0) {
		sp.sched_priority = 10;
		EXPECT_ERR(0, pthread_setschedparam(t, SCHED_FIFO, &sp));
		EXPECT_ERR(0, pthread_getschedparam(t, &policy, &sp));
		CHECK(policy == SCHED_FIFO && sp.sched_priority == 10, "got %d/%d", policy,
		      sp.sched_priority);
		EXPECT_ERR(0, pthread_setschedprio(t, 20));
		EXPECT_ERR(0, pthread_getschedparam(t, &policy, &sp));
		CHECK(policy == SCHED_FIFO && sp.sched_priority == 20, "got %d/%d", policy,
		      sp.sched_priority);
		sp.sched_priority = 0;
		EXPECT_ERR(0, pthread_setschedparam(t, SCHED_OTHER, &sp));
		EXPECT_ERR(0, pthread_getschedparam(t, &policy, &sp));
		CHECK(policy == SCHED_OTHER && sp.sched_priority == 0, "got %d/%d", policy,
		      sp.sched_priority);
		SAY("setschedparam FIFO/10 -> FIFO/10, setschedprio 20 -> FIFO/20, back to OTHER/0"
		    " (root)");
	} else {
		SAY("SCHED_FIFO round trip: skipped (not root)");
	}
	stop_waiter(t);
}

/* --- CPU-time clocks -------------------------------------------------------------------- */

static atomic_int w_started, w_stop, w_sleeping, w_woke, w_gave_up;

/* Computes (in slices, yielding between them) until told to stop, then
 * sleeps once for a long time. */
static void *worker(void *arg)
{
	int64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	atomic_store(&w_started, 1);
	while (!atomic_load(&w_stop)) {
		burn_cpu_ns(MS);
		sched_yield();
		if (clock_ns(CLOCK_THREAD_CPUTIME_ID) - start > 10000 * MS) {
			atomic_store(&w_gave_up, 1);
			break;
		}
	}
	atomic_store(&w_sleeping, 1);
	struct timespec ts = ns_ts(800 * MS);
	nanosleep(&ts, NULL);
	atomic_store(&w_woke, 1);
	return NULL;
}

static void cpu_clock_of_other(void)
{
	pthread_t t;
	clockid_t clk;

	EXPECT_ERR(0, pthread_create(&t, NULL, worker, NULL));
	wait_flag(&w_started);
	EXPECT_ERR(0, pthread_getcpuclockid(t, &clk));
	int64_t c1 = clock_ns(clk), c2;
	CHECK(c1 >= 0, "clock_gettime on the thread's clock failed: %s", strerror(errno));
	do {
		usleep(1000);
		c2 = clock_ns(clk);
		CHECK(!atomic_load(&w_gave_up), "the clock never advanced while the thread computed");
	} while (c2 <= c1);
	SAY("pthread_getcpuclockid: the clock of a computing thread advances");
	atomic_store(&w_stop, 1);
	wait_flag(&w_sleeping);
	/* Once the thread is inside its sleep the clock must stand still:
	 * two reads 20 ms apart, both while it sleeps, must agree. */
	for (;;) {
		int64_t a = clock_ns(clk);
		usleep(20000);
		int64_t b = clock_ns(clk);
		bool still_asleep = !atomic_load(&w_woke);
		CHECK(still_asleep, "the clock never stood still while the thread slept 800 ms");
		if (a == b)
			break;
	}
	EXPECT_ERR(0, pthread_join(t, NULL));
	SAY("pthread_getcpuclockid: the clock of a sleeping thread stands still");
}

static atomic_int b_stop;

static void *busy(void *arg)
{
	while (!atomic_load(&b_stop)) {
		burn_cpu_ns(MS);
		sched_yield();
	}
	return NULL;
}

static void *own_clock(void *arg)
{
	int64_t *out = arg;
	/* work: 30 ms of wall time computing */
	int64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	int64_t w0 = clock_ns(CLOCK_MONOTONIC);
	volatile uint64_t x = 1;
	while (clock_ns(CLOCK_MONOTONIC) - w0 < 30 * MS)
		for (int i = 0; i < 1000; i++)
			x = x * 3 + 1;
	int64_t c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	/* sleep 200 ms while another thread computes */
	struct timespec ts = ns_ts(200 * MS);
	nanosleep(&ts, NULL);
	int64_t c2 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	clockid_t clk;
	pthread_getcpuclockid(pthread_self(), &clk);
	int64_t c3 = clock_ns(clk);
	out[0] = c1 - c0;
	out[1] = c2 - c1;
	out[2] = c3 - c2;
	return NULL;
}

static void cpu_clock_own(void)
{
	pthread_t t, b;
	int64_t d[3];
	EXPECT_ERR(0, pthread_create(&b, NULL, busy, NULL));
	EXPECT_ERR(0, pthread_create(&t, NULL, own_clock, d));
	EXPECT_ERR(0, pthread_join(t, NULL));
	atomic_store(&b_stop, 1);
	EXPECT_ERR(0, pthread_join(b, NULL));
	CHECK(d[0] > 0, "CLOCK_THREAD_CPUTIME_ID did not advance during work (%lld ns)",
	      (long long)d[0]);
	SAY("CLOCK_THREAD_CPUTIME_ID advances while the thread computes");
	CHECK(d[1] < 100 * MS, "CLOCK_THREAD_CPUTIME_ID advanced %lld ms during a 200 ms sleep "
	      "(another thread was computing)", (long long)(d[1] / MS));
	SAY("it does not count the 200 ms the thread slept while another one computed");
	CHECK(d[2] >= 0, "its pthread_getcpuclockid clock reads %lld ns less", (long long)-d[2]);
	SAY("pthread_getcpuclockid(self) agrees with CLOCK_THREAD_CPUTIME_ID");
}

/* --- pinned (with "pinned") ------------------------------------------------------------- */

static atomic_int pin_now, off_cpu;

static void *pinned_thread(void *arg)
{
	int cpu = (int)(long)arg;
	atomic_store(&ready, 1);
	wait_flag(&pin_now);
	for (int i = 0; i < 200; i++) {
		if (sched_getcpu() != cpu)
			atomic_fetch_add(&off_cpu, 1);
		if (i % 10 == 0)
			usleep(500);
		else
			sched_yield();
	}
	return NULL;
}

static int pinned(void)
{
	cpu_set_t proc, one;
	CHECK(sched_getaffinity(0, sizeof proc, &proc) == 0, "sched_getaffinity");
	if (CPU_COUNT(&proc) < 2) {
		SAY("pinning: skipped (one CPU)");
		return 0;
	}
	/* pin main to a CPU other than the one it runs on */
	int here = sched_getcpu(), other = -1;
	for (int c = 0; c < CPU_SETSIZE && other < 0; c++)
		if (CPU_ISSET(c, &proc) && c != here)
			other = c;
	CPU_ZERO(&one);
	CPU_SET(other, &one);
	EXPECT_ERR(0, pthread_setaffinity_np(pthread_self(), sizeof one, &one));
	int now = sched_getcpu();
	SAY("main pins itself to another CPU: it now runs there: %s", now == other ? "yes" : "no");
	CHECK(now == other, "runs on CPU %d, pinned to %d", now, other);
	EXPECT_ERR(0, pthread_setaffinity_np(pthread_self(), sizeof proc, &proc));

	/* pin a running thread from outside */
	pthread_t t;
	atomic_store(&ready, 0);
	EXPECT_ERR(0, pthread_create(&t, NULL, pinned_thread, (void *)(long)other));
	wait_flag(&ready);
	EXPECT_ERR(0, pthread_setaffinity_np(t, sizeof one, &one));
	atomic_store(&pin_now, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
	SAY("a thread pinned by main: %s of 200 looks found it off its CPU",
	    off_cpu ? "some" : "none");
	CHECK(off_cpu == 0, "%d of 200 looks off CPU %d", off_cpu, other);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "inherit") == 0) {
		inherit_affinity();
		SAY("PASS api_props inherit");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "pinned") == 0) {
		pinned();
		SAY("PASS api_props pinned");
		return 0;
	}
	names();
	affinity();
	sched_params();
	cpu_clock_of_other();
	cpu_clock_own();
	SAY("PASS api_props");
	return 0;
}
