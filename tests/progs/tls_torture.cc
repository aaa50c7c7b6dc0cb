/* SPDX-License-Identifier: MIT */
// TLS torture: many threads switch away (yield, short sleeps) over and
// over; after every switch each checks that errno, the address of errno,
// __thread scalars and arrays, a C++ thread_local object and pthread_self
// are still its own. With --expect-migration it also requires that some
// thread resumed on a different OS thread than it left (which is what
// libgmp does with GMPMAXPROCS >= 2, and never happens under NPTL).
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>
#include <sched.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

/* The OS thread the caller runs on, as the kernel says (an inline system
 * call: gettid() is the thread's own id, which does not move). */
static long os_thread_id()
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_gettid) : "rcx", "r11", "memory");
	return r;
}

static __thread int tl_int = 7;
static __thread char tl_buf[64] = "init";
static thread_local std::string tl_str = "fresh";
static std::atomic<long> migrations{0}, checks{0};
static std::atomic<int> failures{0};

static void fail(long id, const char *what)
{
	std::printf("FAIL: thread %ld: %s\n", id, what);
	failures++;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int *my_errno = &errno;
	pthread_t self = pthread_self();
	if (tl_int != 7 || std::strcmp(tl_buf, "init") || tl_str != "fresh")
		fail(id, "initial TLS values");
	for (int i = 0; i < 200; i++) {
		int want = (int)(id * 1000 + i);
		errno = want;
		tl_int = want;
		std::snprintf(tl_buf, sizeof tl_buf, "t%ld-%d", id, i);
		tl_str = std::string(tl_buf) + "-s";
		long before = os_thread_id();
		if (i % 3 == 0)
			usleep(50 + (i % 7) * 10);
		else
			sched_yield();
		if (os_thread_id() != before)
			migrations++;
		char exp[64];
		std::snprintf(exp, sizeof exp, "t%ld-%d", id, i);
		if (errno != want)
			fail(id, "errno");
		if (&errno != my_errno)
			fail(id, "&errno moved");
		if (tl_int != want || std::strcmp(tl_buf, exp) || tl_str != std::string(exp) + "-s")
			fail(id, "__thread/thread_local value");
		if (!pthread_equal(pthread_self(), self))
			fail(id, "pthread_self");
		checks++;
		if (failures)
			return nullptr;
	}
	return nullptr;
}

int main(int argc, char **argv)
{
	bool expect_migration = argc > 1 && !std::strcmp(argv[1], "--expect-migration");
	const int n = 64;
	pthread_t t[n];
	for (long i = 0; i < n; i++)
		pthread_create(&t[i], nullptr, worker, (void *)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], nullptr);
	if (failures)
		return 1;
	std::printf("checks=%ld migrations=%ld\n", checks.load(), migrations.load());
	if (checks != n * 200L) {
		std::printf("FAIL: %ld checks\n", checks.load());
		return 1;
	}
	if (expect_migration && migrations == 0) {
		std::printf("FAIL: no thread ever changed OS thread\n");
		return 1;
	}
	std::printf("PASS tls torture\n");
	return 0;
}
