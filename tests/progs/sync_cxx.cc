/* SPDX-License-Identifier: MIT */
// The C++20 standard library's synchronisation across threads, with exact
// results. libstdc++ builds these on pthread mutexes and condvars and, for
// function-local statics, std::atomic wait/notify, semaphores and latches,
// on the futex system call made through syscall(). One subcommand per run
// (argv[1]); without one, all but cancel:
//   statics      64 threads reach function-local statics at once; the
//                constructor sleeps, so the others wait in
//                __cxa_guard_acquire: one construction each; a constructor
//                that throws the first time is run again by a waiter.
//   mutex        std::mutex, recursive_mutex, timed_mutex: exact totals,
//                try_lock_for timing out while another thread holds it.
//   condvar      std::condition_variable: a bounded queue, 4 producers x 4
//                consumers, checksums; wait_for times out.
//   shared       std::shared_mutex / shared_timed_mutex: writers keep two
//                fields equal, readers check; exact counts.
//   async        std::async, promise/future, shared_future with many
//                waiters.
//   latch        std::latch and std::barrier (with a completion function).
//   semaphore    std::counting_semaphore caps how many are inside at once;
//                std::binary_semaphore ping-pong.
//   atomic-wait  std::atomic<int>::wait/notify_one ping-pong, notify_all
//                to many waiters.
//   cancel       a thread cancelled in pthread_cond_wait: the destructors
//                of its stack objects and its cleanup handler run, in
//                order, and the joiner gets PTHREAD_CANCELED.
// Every line is the same under NPTL.
#include "common.h"

#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <cxxabi.h>
#include <deque>
#include <functional>
#include <future>
#include <latch>
#include <mutex>
#include <pthread.h>
#include <semaphore>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;

#define SAY(...) do { std::printf(__VA_ARGS__); std::printf("\n"); std::fflush(stdout); } while (0)

// Run fn(i) on n std::threads and join them.
static void run_threads(int n, const std::function<void(int)> &fn)
{
	std::vector<std::thread> t;
	t.reserve(n);
	for (int i = 0; i < n; i++)
		t.emplace_back(fn, i);
	for (auto &th : t)
		th.join();
}

// Spin (yielding) until flag is set: a start gate that uses nothing under test.
static void gate(const std::atomic<bool> &flag)
{
	while (!flag.load())
		std::this_thread::yield();
}

// Run body while another thread holds m through a Lock<M>.
template <template <class> class Lock, class M>
static void while_held(M &m, const std::function<void()> &body)
{
	std::atomic<bool> held{false}, release{false};
	std::thread h([&] {
		Lock<M> l(m);
		held = true;
		gate(release);
	});
	gate(held);
	body();
	release = true;
	h.join();
}

// ---- statics --------------------------------------------------------------------------------

static std::atomic<int> constructions{0}, attempts{0};

template <int N> struct Slow {
	int value;
	Slow() : value(N + 100)
	{
		constructions++;
		std::this_thread::sleep_for(20ms);
	}
};

template <int N> static int slow_value()
{
	static Slow<N> s;
	return s.value;
}

struct Throwing {
	int value = 7;
	Throwing()
	{
		if (attempts++ == 0) {
			std::this_thread::sleep_for(20ms);
			throw std::runtime_error("first construction fails");
		}
	}
};

static int throwing_value()
{
	static Throwing t;
	return t.value;
}

static void statics()
{
	const int n = 64;
	std::atomic<bool> go{false};
	std::atomic<int> bad{0}, threw{0};
	std::vector<std::thread> t;
	for (int i = 0; i < n; i++)
		t.emplace_back([&, i] {
			gate(go);
			int v = (i % 4 == 0) ? slow_value<0>() : (i % 4 == 1) ? slow_value<1>() :
				(i % 4 == 2) ? slow_value<2>() : slow_value<3>();
			if (v != 100 + i % 4)
				bad++;
			try {
				if (throwing_value() != 7)
					bad++;
			} catch (const std::runtime_error &) {
				threw++;
			}
		});
	go = true;
	for (auto &th : t)
		th.join();
	CHECK(bad == 0, "%d threads saw a wrong value", bad.load());
	SAY("function-local statics: %d threads, 4 statics whose constructors sleep: %d "
	    "constructions", n, constructions.load());
	SAY("a static whose constructor throws the first time: %d attempts, %d thread(s) got the "
	    "exception", attempts.load(), threw.load());
}

// ---- mutex -------------------------------------------------------------------------------------

template <class M> static long count_under(M &m, int threads, int iters, bool twice)
{
	long counter = 0;
	run_threads(threads, [&](int id) {
		for (int i = 0; i < iters; i++) {
			std::unique_lock<M> l(m);
			if constexpr (std::is_same_v<M, std::recursive_mutex>)
				if (twice) {
					std::lock_guard<M> again(m);
				}
			long v = counter;
			if ((id + i) % 8 == 0)
				std::this_thread::yield();
			counter = v + 1;
		}
	});
	return counter;
}

static void mutexes()
{
	std::mutex m;
	std::recursive_mutex rm;
	std::timed_mutex tm;
	SAY("std::mutex: 64 threads x 300 = %ld", count_under(m, 64, 300, false));
	SAY("std::recursive_mutex, locked twice: 64 threads x 300 = %ld",
	    count_under(rm, 64, 300, true));
	SAY("std::timed_mutex: 64 threads x 300 = %ld", count_under(tm, 64, 300, false));
	bool got = true, got2 = true, got3 = true;
	while_held<std::lock_guard>(tm, [&] {
		got = tm.try_lock_for(20ms);
		got2 = tm.try_lock_until(std::chrono::steady_clock::now() - 1s);
		got3 = tm.try_lock();
	});
	SAY("std::timed_mutex held elsewhere: try_lock_for(20ms) %d, try_lock_until(past) %d, "
	    "try_lock %d", got, got2, got3);
}

// ---- condvar ----------------------------------------------------------------------------------------

static void condvars()
{
	std::mutex m;
	std::condition_variable not_full, not_empty;
	std::deque<long> q;
	const int np = 4, nc = 4, per = 2000;
	const size_t cap = 8;
	unsigned long sum = 0, x = 0;
	long taken = 0;
	auto put = [&](long v) {
		std::unique_lock<std::mutex> l(m);
		not_full.wait(l, [&] { return q.size() < cap; });
		q.push_back(v);
		not_empty.notify_one();
	};
	auto consume = [&] {
		unsigned long s = 0, xx = 0;
		long n = 0;
		for (;;) {
			std::unique_lock<std::mutex> l(m);
			not_empty.wait(l, [&] { return !q.empty(); });
			long v = q.front();
			q.pop_front();
			not_full.notify_one();
			if (v == 0)	// the end
				break;
			s += v;
			xx ^= (unsigned long)v * 0x9e3779b97f4a7c15ul;
			n++;
		}
		std::lock_guard<std::mutex> l(m);
		sum += s;
		x ^= xx;
		taken += n;
	};
	std::vector<std::thread> consumers;
	for (int i = 0; i < nc; i++)
		consumers.emplace_back(consume);
	run_threads(np, [&](int id) {
		for (int i = 0; i < per; i++)
			put((long)id * per + i + 1);
	});
	for (int i = 0; i < nc; i++)
		put(0);
	for (auto &th : consumers)
		th.join();
	unsigned long want_sum = 0, want_x = 0;
	for (long v = 1; v <= (long)np * per; v++) {
		want_sum += v;
		want_x ^= (unsigned long)v * 0x9e3779b97f4a7c15ul;
	}
	CHECK(sum == want_sum && x == want_x && taken == (long)np * per,
	      "taken %ld sum %lu xor %lx, expected %ld %lu %lx", taken, sum, x, (long)np * per,
	      want_sum, want_x);
	SAY("std::condition_variable queue, %dx%d, capacity %zu: %ld items, checksums match", np,
	    nc, cap, taken);
	std::unique_lock<std::mutex> l(m);
	bool timed_out = not_empty.wait_for(l, 20ms) == std::cv_status::timeout;
	bool pred = not_empty.wait_for(l, 20ms, [] { return false; });
	SAY("wait_for(20ms) with nobody notifying: timeout %d, with a false predicate: %d",
	    timed_out, pred);
}

// ---- shared ----------------------------------------------------------------------------------------

template <class M> static void readers_writers(const char *name)
{
	M m;
	long a = 0, b = 0;
	std::atomic<long> reads{0}, bad{0};
	const int nw = 8, nr = 24, iters = 300;
	run_threads(nw + nr, [&](int id) {
		for (int i = 0; i < iters; i++) {
			if (id < nw) {
				std::unique_lock<M> l(m);
				a++;
				if (i % 4 == 0)
					std::this_thread::yield();
				b++;
			} else {
				std::shared_lock<M> l(m);
				long seen = a;
				if (i % 4 == 0)
					std::this_thread::yield();
				if (seen != b)
					bad++;
				reads++;
			}
		}
	});
	CHECK(bad == 0 && a == nw * iters && b == a && reads == nr * iters,
	      "bad %ld a %ld b %ld reads %ld", bad.load(), a, b, reads.load());
	SAY("%s: %d writers x %d = %ld, %d readers x %d = %ld, fields always equal", name, nw,
	    iters, a, nr, iters, reads.load());
}

static void shared()
{
	readers_writers<std::shared_mutex>("std::shared_mutex");
	readers_writers<std::shared_timed_mutex>("std::shared_timed_mutex");
	std::shared_timed_mutex m;
	bool s = true, x = true;
	while_held<std::unique_lock>(m, [&] {
		s = m.try_lock_shared_for(20ms);
		x = m.try_lock_for(20ms);
	});
	SAY("std::shared_timed_mutex held elsewhere: try_lock_shared_for(20ms) %d, "
	    "try_lock_for(20ms) %d", s, x);
}

// ---- async ------------------------------------------------------------------------------------------

static void async_futures()
{
	std::vector<std::future<long>> f;
	for (long k = 0; k < 100; k++)
		f.push_back(std::async(std::launch::async, [k] {
			long s = 0;
			for (long i = 1; i <= k; i++)
				s += i;
			std::this_thread::yield();
			return s;
		}));
	long total = 0;
	for (auto &x : f)
		total += x.get();
	SAY("100 std::async tasks, results through futures: %ld", total);

	std::promise<int> p;
	std::shared_future<int> sf = p.get_future().share();
	std::atomic<long> seen{0};
	std::vector<std::thread> t;
	for (int i = 0; i < 32; i++)
		t.emplace_back([&] { seen += sf.get(); });
	std::this_thread::sleep_for(20ms);
	p.set_value(5);
	for (auto &th : t)
		th.join();
	std::promise<void> broken_p;
	std::future<void> broken = broken_p.get_future();
	std::thread([pp = std::move(broken_p)]() mutable { pp.set_exception(
		std::make_exception_ptr(std::runtime_error("from a thread"))); }).join();
	std::string what;
	try {
		broken.get();
	} catch (const std::runtime_error &e) {
		what = e.what();
	}
	SAY("a shared_future 32 threads wait on: sum of what they got %ld; an exception set in "
	    "another thread: \"%s\"", seen.load(), what.c_str());
}

// ---- latch and barrier -------------------------------------------------------------------------------

static void latches()
{
	const int n = 32, rounds = 50;
	std::latch start(n), done(n);
	std::atomic<int> arrived{0}, early{0};
	run_threads(n, [&](int) {
		arrived++;
		start.arrive_and_wait();
		if (arrived.load() != n)
			early++;
		done.count_down();
	});
	done.wait();
	SAY("std::latch: %d threads, none passed before all arrived: %d early", n, early.load());

	int phase = 0;
	std::vector<int> slot(n);
	std::atomic<int> bad{0};
	std::barrier bar(n, [&]() noexcept { phase++; });
	run_threads(n, [&](int id) {
		for (int r = 0; r < rounds; r++) {
			slot[id] = r;
			bar.arrive_and_wait();
			for (int j = 0; j < n; j++)
				if (slot[j] != r)
					bad++;
			bar.arrive_and_wait();
		}
	});
	CHECK(bad == 0, "%d stale slots seen", bad.load());
	SAY("std::barrier: %d threads x %d rounds, completion ran %d times, every slot seen", n,
	    rounds, phase);
}

// ---- semaphores ------------------------------------------------------------------------------------------

static void semaphores()
{
	std::counting_semaphore<4> sem(4);
	std::atomic<int> inside{0}, most{0};
	std::atomic<long> total{0};
	run_threads(32, [&](int) {
		for (int i = 0; i < 100; i++) {
			sem.acquire();
			int now = ++inside;
			int m = most.load();
			while (now > m && !most.compare_exchange_weak(m, now))
				;
			if (i % 10 == 0)
				std::this_thread::yield();
			total++;
			inside--;
			sem.release();
		}
	});
	CHECK(most.load() <= 4, "%d threads inside at once", most.load());
	SAY("std::counting_semaphore<4>: 32 threads x 100 = %ld entries, never more than 4 inside",
	    total.load());
	bool got = sem.try_acquire_for(20ms);
	for (int i = 0; i < 3; i++)
		sem.acquire();
	bool more = sem.try_acquire_for(20ms);
	SAY("try_acquire_for(20ms) with units left: %d; with none left: %d", got, more);

	std::binary_semaphore ping(0), pong(0);
	long hits = 0;
	std::thread t([&] {
		for (int i = 0; i < 1000; i++) {
			ping.acquire();
			hits++;
			pong.release();
		}
	});
	for (int i = 0; i < 1000; i++) {
		ping.release();
		pong.acquire();
	}
	t.join();
	SAY("std::binary_semaphore ping-pong: %ld round trips", hits);
}

// ---- atomic wait -----------------------------------------------------------------------------------------

static void atomic_waits()
{
	std::atomic<int> turn{0};
	const int rounds = 1000;
	std::thread t([&] {
		for (int i = 0; i < rounds; i++) {
			turn.wait(0);
			turn.store(0);
			turn.notify_one();
		}
	});
	for (int i = 0; i < rounds; i++) {
		turn.store(1);
		turn.notify_one();
		turn.wait(1);
	}
	t.join();
	SAY("std::atomic<int>::wait/notify_one ping-pong: %d rounds", rounds);

	std::atomic<int> flag{0};
	std::atomic<int> woke{0};
	std::vector<std::thread> w;
	for (int i = 0; i < 32; i++)
		w.emplace_back([&] {
			flag.wait(0);
			woke++;
		});
	std::this_thread::sleep_for(20ms);
	flag.store(1);
	flag.notify_all();
	for (auto &th : w)
		th.join();
	SAY("std::atomic<int>::notify_all: %d of 32 waiters woke", woke.load());
}

// ---- cancel ----------------------------------------------------------------------------------------------

static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cc = PTHREAD_COND_INITIALIZER;
static std::atomic<bool> waiting{false};

struct Noisy {
	const char *name;
	explicit Noisy(const char *n) : name(n) {}
	~Noisy() { SAY("destructor: %s", name); }
};

static void unlock_cm(void *)
{
	// runs with the mutex held again, as pthread_cond_wait leaves it
	SAY("cleanup handler: unlock the mutex: %d", pthread_mutex_unlock(&cm));
}

static void wait_forever()
{
	Noisy inner("inner frame's local");
	pthread_mutex_lock(&cm);
	pthread_cleanup_push(unlock_cm, nullptr);
	waiting = true;
	for (int i = 0; i < 1000; i++)
		pthread_cond_wait(&cc, &cm);
	pthread_cleanup_pop(1);
	SAY("FAIL: the wait was not cancelled");
}

static void *cancelled_thread(void *)
{
	Noisy outer("outer frame's local");
	try {
		wait_forever();
	} catch (abi::__forced_unwind &) {
		SAY("catch (abi::__forced_unwind &): rethrow");
		throw;
	}
	return nullptr;
}

static void cancel()
{
	pthread_t t;
	void *res = nullptr;
	CHECK(pthread_create(&t, nullptr, cancelled_thread, nullptr) == 0, "pthread_create");
	while (!waiting.load())
		std::this_thread::sleep_for(1ms);
	std::this_thread::sleep_for(20ms);
	// the waiter is inside pthread_cond_wait (it released the mutex)
	pthread_mutex_lock(&cm);
	pthread_mutex_unlock(&cm);
	int c = pthread_cancel(t);
	int j = pthread_join(t, &res);
	SAY("pthread_cancel: %d, pthread_join: %d", c, j);
	SAY("result: %s", res == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "not cancelled");
	SAY("the mutex is free: trylock %d", pthread_mutex_trylock(&cm));
	pthread_mutex_unlock(&cm);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)();
	} cmds[] = {
		{"statics", statics}, {"mutex", mutexes}, {"condvar", condvars},
		{"shared", shared}, {"async", async_futures}, {"latch", latches},
		{"semaphore", semaphores}, {"atomic-wait", atomic_waits}, {"cancel", cancel},
	};
	setvbuf(stdout, nullptr, _IOLBF, 0);
	for (auto &c : cmds)
		if (argc > 1 ? strcmp(argv[1], c.name) == 0 :
			       strcmp(c.name, "cancel") != 0) {
			c.fn();
			if (argc > 1) {
				SAY("PASS sync_cxx %s", c.name);
				return 0;
			}
		}
	if (argc > 1) {
		SAY("FAIL: sync_cxx: unknown subcommand %s", argv[1]);
		return 1;
	}
	SAY("PASS sync_cxx");
	return 0;
}
