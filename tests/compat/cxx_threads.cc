/* SPDX-License-Identifier: MIT */
// tests/compat/cxx_threads.cc — the C++20 thread library, with many threads.
//
// Exercises, section by section:
//   thread     std::thread: 200 threads computing into their own slots; move,
//              joinable, hardware_concurrency
//   mutex      std::mutex + std::condition_variable: a bounded queue filled by
//              64 producers and drained by 4 consumers; wait_for/wait_until
//              timeouts on the steady and the system clock; timed_mutex
//              try_lock_for/try_lock_until; recursive_mutex
//   shared     std::shared_mutex: 8 writers and 56 readers checking an
//              invariant; shared_timed_mutex timed tries while a writer holds it
//   jthread    std::jthread + std::stop_token: request_stop, stop_callback,
//              condition_variable_any::wait with a stop token, stop by the
//              jthread destructor, a shared std::stop_source
//   async      std::async with launch::async and launch::deferred, futures,
//              exceptions carried by a future, wait_for statuses
//   promise    std::promise/std::future, shared_future as a broadcast gate,
//              set_exception, set_value_at_thread_exit from detached threads,
//              notify_all_at_thread_exit
//   sync20     std::counting_semaphore, std::binary_semaphore ping-pong,
//              try_acquire_for timeout, std::latch, std::barrier with a
//              completion function and arrive_and_drop, std::atomic wait/notify
//   once       std::call_once and a function-local static whose constructor
//              is slow, from 200 threads released together
//   tls        thread_local objects with constructors and destructors (counted),
//              a thread_local constructed from another's destructor, in threads
//              started by std::async
//   iostream   std::cout from 200 threads (whole lines through std::osyncstream,
//              then under a mutex) into a pipe drained by a reader thread, then
//              checked, sorted and summarized by the main thread;
//              std::ostringstream formatting in every thread
//
// Prints one line per check with counts and sums only (nothing that depends on
// timing or interleaving), then "DONE". A failed check prints "FAIL: ..." on
// stderr and exits with status 1.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <future>
#include <iomanip>
#include <iostream>
#include <latch>
#include <mutex>
#include <semaphore>
#include <set>
#include <shared_mutex>
#include <sstream>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <syncstream>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace std::chrono_literals;

[[noreturn]] static void fail(const char *file, int line, const char *what)
{
	std::fprintf(stderr, "FAIL: %s:%d: %s\n", file, line, what);
	std::fflush(stderr);
	std::_Exit(1);
}
#define CHECK(cond) do { if (!(cond)) fail(__FILE__, __LINE__, #cond); } while (0)

static void joinall(std::vector<std::thread> &ts)
{
	for (auto &t : ts)
		t.join();
	ts.clear();
}

// ---------------------------------------------------------------- thread
static void test_thread()
{
	constexpr int N = 200;
	std::vector<long> slot(N, -1);
	std::vector<std::thread> ts;
	for (int i = 0; i < N; i++)
		ts.emplace_back([&slot, i] {
			long s = 0;
			for (int k = 0; k <= 1000 + i; k++)
				s += k;
			slot[i] = s;
		});
	int joinable = 0;
	for (auto &t : ts)
		joinable += t.joinable();
	// Moving a thread object moves the thread, not a copy of it.
	std::thread moved = std::move(ts.back());
	ts.pop_back();
	CHECK(moved.joinable());
	moved.join();
	CHECK(!moved.joinable());
	joinall(ts);
	long sum = 0;
	for (long v : slot)
		sum += v;
	CHECK(std::thread::hardware_concurrency() >= 1);
	CHECK(std::thread().get_id() == std::thread::id());
	std::cout << "thread: threads=" << N << " joinable=" << joinable << " sum=" << sum << '\n';
}

// ---------------------------------------------------------------- mutex
static void test_mutex()
{
	constexpr int P = 64, C = 4, ITEMS = 500, CAP = 16;
	std::mutex m;
	std::condition_variable not_full, not_empty;
	std::deque<int> q;
	int producers_left = P;
	std::atomic<long> consumed_sum{0}, consumed_n{0};
	std::vector<std::thread> ts;
	for (int c = 0; c < C; c++)
		ts.emplace_back([&] {
			for (;;) {
				std::unique_lock lk(m);
				not_empty.wait(lk, [&] { return !q.empty() || producers_left == 0; });
				if (q.empty())
					return;
				int v = q.front();
				q.pop_front();
				lk.unlock();
				not_full.notify_one();
				consumed_sum += v;
				consumed_n++;
			}
		});
	for (int p = 0; p < P; p++)
		ts.emplace_back([&, p] {
			for (int k = 0; k < ITEMS; k++) {
				std::unique_lock lk(m);
				not_full.wait(lk, [&] { return q.size() < CAP; });
				q.push_back(p * ITEMS + k);
				lk.unlock();
				not_empty.notify_one();
			}
			std::lock_guard lk(m);
			if (--producers_left == 0)
				not_empty.notify_all();
		});
	joinall(ts);
	long n = long(P) * ITEMS;
	CHECK(consumed_n == n);
	CHECK(consumed_sum == n * (n - 1) / 2);
	std::cout << "mutex: queue items=" << consumed_n << " sum=" << consumed_sum << '\n';

	// Timeouts: nobody ever notifies these.
	{
		std::mutex tm;
		std::condition_variable cv;
		std::unique_lock lk(tm);
		bool a = cv.wait_for(lk, 20ms, [] { return false; });
		bool b = cv.wait_until(lk, std::chrono::steady_clock::now() + 10ms, [] { return false; });
		bool c = cv.wait_until(lk, std::chrono::system_clock::now() + 10ms, [] { return false; });
		// Without a predicate a wait may end early (a spurious wake-up): wait
		// again until the deadline has passed.
		auto deadline = std::chrono::steady_clock::now() + 5ms;
		std::cv_status s;
		do
			s = cv.wait_until(lk, deadline);
		while (s == std::cv_status::no_timeout && std::chrono::steady_clock::now() < deadline);
		std::cout << "mutex: cv timeouts steady=" << a << ',' << b << " system=" << c
			  << " deadline passed=" << (std::chrono::steady_clock::now() >= deadline) << '\n';
	}
	{
		std::timed_mutex tm;
		std::atomic<int> results{0};
		tm.lock();
		std::thread t([&] {
			auto t0 = std::chrono::steady_clock::now();
			bool a = tm.try_lock_for(20ms);
			bool b = tm.try_lock_until(std::chrono::steady_clock::now() + 10ms);
			bool c = tm.try_lock_until(std::chrono::system_clock::now() + 10ms);
			bool waited = std::chrono::steady_clock::now() - t0 >= 40ms;
			results = (a ? 1 : 0) | (b ? 2 : 0) | (c ? 4 : 0) | (waited ? 8 : 0);
		});
		t.join();
		tm.unlock();
		std::thread t2([&] {
			if (tm.try_lock_for(1s)) {
				results |= 16;
				tm.unlock();
			}
		});
		t2.join();
		std::cout << "mutex: timed_mutex held=" << (results & 7) << " waited=" << !!(results & 8)
			  << " free=" << !!(results & 16) << '\n';
	}
	{
		std::recursive_mutex rm;
		long total = 0;
		std::vector<std::thread> rts;
		std::function<void(int)> rec = [&](int depth) {
			std::lock_guard g(rm);
			total += depth;
			if (depth > 0)
				rec(depth - 1);
		};
		for (int i = 0; i < 32; i++)
			rts.emplace_back([&] { for (int k = 0; k < 100; k++) rec(5); });
		joinall(rts);
		CHECK(total == 32L * 100 * 15);
		std::cout << "mutex: recursive total=" << total << '\n';
	}
}

// ---------------------------------------------------------------- shared
static void test_shared()
{
	constexpr int W = 8, R = 56, ITER = 2000;
	std::shared_mutex sm;
	long a = 0, b = 0;
	std::atomic<long> reads{0}, bad{0};
	std::vector<std::thread> ts;
	for (int i = 0; i < W + R; i++) {
		if (i % 8 == 0)
			ts.emplace_back([&] {
				for (int k = 0; k < ITER; k++) {
					std::unique_lock lk(sm);
					a++;
					b++;
				}
			});
		else
			ts.emplace_back([&] {
				for (int k = 0; k < ITER; k++) {
					std::shared_lock lk(sm);
					if (a != b)
						bad++;
					reads++;
				}
			});
	}
	joinall(ts);
	CHECK(bad == 0);
	CHECK(a == long(W) * ITER);
	std::cout << "shared: writes=" << a << " reads=" << reads << " torn=" << bad << '\n';

	std::shared_timed_mutex stm;
	stm.lock();
	int res = 0;
	std::thread t([&] {
		bool x = stm.try_lock_shared_for(10ms);
		bool y = stm.try_lock_shared_until(std::chrono::system_clock::now() + 10ms);
		bool z = stm.try_lock_for(10ms);
		res = x + y + z;
	});
	t.join();
	stm.unlock();
	int shared_ok = 0;
	std::vector<std::thread> rs;
	std::latch all_in(16);
	std::atomic<int> in{0};
	for (int i = 0; i < 16; i++)
		rs.emplace_back([&] {
			if (stm.try_lock_shared_for(5s)) {
				in++;
				all_in.arrive_and_wait();	// all 16 hold it shared at once
				stm.unlock_shared();
			}
		});
	joinall(rs);
	shared_ok = in;
	std::cout << "shared: timed tries while held=" << res << " shared holders together=" << shared_ok << '\n';
}

// ---------------------------------------------------------------- jthread
static void test_jthread()
{
	constexpr int N = 64;
	std::mutex m;
	std::condition_variable_any cv;
	std::atomic<int> callbacks{0}, stopped_waits{0}, started{0};
	{
		std::vector<std::jthread> js;
		for (int i = 0; i < N; i++)
			js.emplace_back([&](std::stop_token st) {
				std::atomic<bool> fired{false};
				std::stop_callback cb(st, [&] {
					callbacks++;
					fired = true;
					fired.notify_one();
				});
				std::unique_lock lk(m);
				started++;
				// Never true: only a stop request ends this wait.
				bool r = cv.wait(lk, st, [] { return false; });
				if (!r && st.stop_requested())
					stopped_waits++;
				lk.unlock();
				// The wait's own callback may run before ours: destroying ours
				// now would unregister it unrun, so wait until it has run.
				fired.wait(false);
			});
		// Half are stopped explicitly, the rest by the jthread destructor.
		for (int i = 0; i < N / 2; i++)
			CHECK(js[i].request_stop());
		for (int i = 0; i < N / 2; i++)
			js[i].join();
		CHECK(!js[0].request_stop());	// already requested
	}
	CHECK(callbacks == N && stopped_waits == N && started == N);
	std::cout << "jthread: callbacks=" << callbacks << " stopped waits=" << stopped_waits << '\n';

	// Busy workers polling their token, and workers sharing one stop_source.
	std::stop_source ss;
	std::atomic<int> loops_done{0}, shared_seen{0};
	{
		std::vector<std::jthread> js;
		for (int i = 0; i < 16; i++)
			js.emplace_back([&](std::stop_token st) {
				long spins = 0;
				while (!st.stop_requested()) {
					spins++;
					std::this_thread::yield();
				}
				loops_done++;
			});
		for (int i = 0; i < 16; i++)
			js.emplace_back([&, tok = ss.get_token()] {
				std::unique_lock lk(m);
				if (cv.wait(lk, tok, [] { return false; }) == false && tok.stop_requested())
					shared_seen++;
			});
		std::this_thread::sleep_for(10ms);
		CHECK(ss.request_stop());
		for (int i = 0; i < 16; i++)
			js[i].request_stop();
	}
	CHECK(loops_done == 16 && shared_seen == 16);
	std::stop_source stopped_src;
	stopped_src.request_stop();
	int immediate = 0;
	{
		std::stop_callback cb(stopped_src.get_token(), [&] { immediate++; });
	}
	std::cout << "jthread: pollers stopped=" << loops_done << " shared source waits=" << shared_seen
		  << " callback on stopped token=" << immediate << '\n';
}

// ---------------------------------------------------------------- async
static long square(int i) { return long(i) * i; }

static void test_async()
{
	constexpr int N = 100;
	const auto main_id = std::this_thread::get_id();
	std::vector<std::future<long>> as, ds;
	std::atomic<int> on_other{0}, on_main{0};
	for (int i = 0; i < N; i++) {
		as.push_back(std::async(std::launch::async, [&, i] {
			if (std::this_thread::get_id() != main_id)
				on_other++;
			return square(i);
		}));
		ds.push_back(std::async(std::launch::deferred, [&, i] {
			if (std::this_thread::get_id() == main_id)
				on_main++;
			return square(i) + 1;
		}));
	}
	int deferred_status = 0;
	for (auto &f : ds)
		deferred_status += f.wait_for(0s) == std::future_status::deferred;
	long sa = 0, sd = 0;
	for (auto &f : as)
		sa += f.get();
	for (auto &f : ds)
		sd += f.get();
	CHECK(on_other == N && on_main == N);
	std::cout << "async: async sum=" << sa << " deferred sum=" << sd << " deferred status=" << deferred_status
		  << " ran on other=" << on_other << " ran on caller=" << on_main << '\n';

	int caught = 0;
	std::vector<std::future<int>> ex;
	for (int i = 0; i < 32; i++)
		ex.push_back(std::async(std::launch::async, [i]() -> int {
			if (i % 2)
				throw std::runtime_error("odd " + std::to_string(i));
			return i;
		}));
	long evens = 0;
	for (auto &f : ex) {
		try {
			evens += f.get();
		} catch (const std::runtime_error &e) {
			caught += std::string(e.what()).rfind("odd ", 0) == 0;
		}
	}
	std::promise<void> gate;
	auto gated = std::async(std::launch::async, [g = gate.get_future()]() mutable { g.wait(); return 7; });
	bool timed_out = gated.wait_for(10ms) == std::future_status::timeout;
	gate.set_value();
	bool ready = gated.wait_for(10s) == std::future_status::ready;
	std::cout << "async: exceptions caught=" << caught << " even sum=" << evens << " timeout=" << timed_out
		  << " ready=" << ready << " value=" << gated.get() << '\n';
}

// ---------------------------------------------------------------- promise
static std::atomic<int> atexit_tls_dtors{0};
struct ExitMark {
	std::atomic<bool> *flag = nullptr;
	~ExitMark()
	{
		if (flag) {
			flag->store(true);
			atexit_tls_dtors++;
		}
	}
};
// Function-local thread_locals are each constructed on their own first use.
static ExitMark &exit_mark()
{
	thread_local ExitMark m;
	return m;
}

static void test_promise()
{
	constexpr int N = 64;
	std::vector<std::promise<int>> ps(N);
	std::vector<std::future<int>> fs;
	for (auto &p : ps)
		fs.push_back(p.get_future());
	std::vector<std::thread> ts;
	for (int i = 0; i < N; i++)
		ts.emplace_back([&ps, i] { ps[i].set_value(i * 3); });
	long sum = 0;
	for (auto &f : fs)
		sum += f.get();
	joinall(ts);

	// One promise releases every waiter of a shared_future.
	std::promise<int> start;
	std::shared_future<int> sf = start.get_future().share();
	std::atomic<long> seen{0};
	for (int i = 0; i < N; i++)
		ts.emplace_back([sf, &seen] { seen += sf.get(); });
	start.set_value(5);
	joinall(ts);

	std::promise<int> bad;
	auto bf = bad.get_future();
	std::thread tb([&] { bad.set_exception(std::make_exception_ptr(std::logic_error("bad"))); });
	tb.join();
	bool got_exc = false;
	try {
		bf.get();
	} catch (const std::logic_error &) {
		got_exc = true;
	}
	std::promise<int> dup;
	dup.set_value(1);
	bool already = false;
	try {
		dup.set_value(2);
	} catch (const std::future_error &e) {
		already = e.code() == std::future_errc::promise_already_satisfied;
	}
	std::cout << "promise: sum=" << sum << " shared gate sum=" << seen << " exception=" << got_exc
		  << " already satisfied=" << already << '\n';

	// set_value_at_thread_exit: the future is ready only once the thread's
	// thread_local objects are destroyed.
	constexpr int D = 16;
	std::vector<std::atomic<bool>> flags(D);
	std::vector<std::future<int>> xs;
	for (int i = 0; i < D; i++) {
		std::promise<int> p;
		xs.push_back(p.get_future());
		std::thread([p = std::move(p), &flags, i]() mutable {
			p.set_value_at_thread_exit(i);
			exit_mark().flag = &flags[i];	// constructed after the registration
		}).detach();
	}
	int vals = 0, marked = 0;
	for (int i = 0; i < D; i++) {
		vals += xs[i].get();
		marked += flags[i].load();
	}
	// notify_all_at_thread_exit: the waiter wakes after the thread's end.
	std::mutex m;
	std::condition_variable cv;
	bool done = false;
	std::thread([&] {
		std::unique_lock lk(m);
		done = true;
		std::notify_all_at_thread_exit(cv, std::move(lk));
	}).detach();
	{
		std::unique_lock lk(m);
		cv.wait(lk, [&] { return done; });
	}
	std::cout << "promise: at thread exit values=" << vals << " tls destroyed first=" << marked
		  << " notify at exit=" << done << '\n';
}

// ---------------------------------------------------------------- sync20
static void test_sync20()
{
	// At most 4 of 100 threads inside at once.
	std::counting_semaphore<4> sem(4);
	std::atomic<int> inside{0}, maxin{0}, passes{0};
	std::vector<std::thread> ts;
	for (int i = 0; i < 100; i++)
		ts.emplace_back([&] {
			for (int k = 0; k < 5; k++) {
				sem.acquire();
				int now = ++inside;
				int m = maxin.load();
				while (now > m && !maxin.compare_exchange_weak(m, now))
					;
				std::this_thread::sleep_for(100us);
				passes++;
				--inside;
				sem.release();
			}
		});
	joinall(ts);
	CHECK(maxin >= 1 && maxin <= 4);
	std::counting_semaphore<1> empty(0);
	bool got = empty.try_acquire_for(10ms);
	bool got2 = empty.try_acquire();
	std::cout << "sync20: semaphore passes=" << passes << " bounded=" << (maxin <= 4)
		  << " empty try_acquire_for=" << got << " try_acquire=" << got2 << '\n';

	// Ping-pong through two binary semaphores.
	std::binary_semaphore ping(0), pong(0);
	int rally = 0;
	std::thread other([&] {
		for (int k = 0; k < 2000; k++) {
			ping.acquire();
			rally++;
			pong.release();
		}
	});
	for (int k = 0; k < 2000; k++) {
		ping.release();
		pong.acquire();
	}
	other.join();
	std::cout << "sync20: ping-pong rallies=" << rally << '\n';

	// latch: every thread counts down, then waits for all.
	constexpr int L = 150;
	std::latch done(L);
	std::atomic<int> before{0}, after_ok{0};
	for (int i = 0; i < L; i++)
		ts.emplace_back([&] {
			before++;
			done.arrive_and_wait();
			if (before == L)
				after_ok++;
		});
	done.wait();
	joinall(ts);
	CHECK(after_ok == L);
	std::cout << "sync20: latch arrivals=" << before << " saw all=" << after_ok << " try_wait=" << done.try_wait() << '\n';

	// barrier: 64 threads, 100 phases; threads 48..63 drop out at phase 50.
	constexpr int B = 64, PH = 100, DROP_AT = 50, KEEP = 48;
	std::atomic<int> in_phase{0};
	std::vector<int> per_phase;
	auto on_completion = [&]() noexcept {
		per_phase.push_back(in_phase.exchange(0));
	};
	std::barrier bar(B, on_completion);
	for (int i = 0; i < B; i++)
		ts.emplace_back([&, i] {
			for (int ph = 0; ph < PH; ph++) {
				in_phase++;
				if (i >= KEEP && ph == DROP_AT) {
					bar.arrive_and_drop();
					return;
				}
				bar.arrive_and_wait();
			}
		});
	joinall(ts);
	long total = 0;
	for (int v : per_phase)
		total += v;
	CHECK(int(per_phase.size()) == PH);
	CHECK(per_phase[DROP_AT] == B && per_phase[DROP_AT + 1] == KEEP);
	std::cout << "sync20: barrier phases=" << per_phase.size() << " first=" << per_phase.front()
		  << " last=" << per_phase.back() << " total=" << total << '\n';

	// atomic wait/notify.
	std::atomic<int> word{0};
	std::atomic<int> woke{0};
	for (int i = 0; i < 64; i++)
		ts.emplace_back([&] {
			word.wait(0);
			woke++;
		});
	std::this_thread::sleep_for(5ms);
	word = 1;
	word.notify_all();
	joinall(ts);
	std::atomic<long> counter{0};
	std::thread waiter([&] {
		for (long expect = 0; expect < 1000; expect += 2) {
			while (counter.load() == expect)
				counter.wait(expect);
			counter++;	// odd -> even
			counter.notify_one();
		}
	});
	for (long v = 0; v < 1000; v += 2) {
		counter++;	// even -> odd
		counter.notify_one();
		while (counter.load() == v + 1)
			counter.wait(v + 1);
	}
	waiter.join();
	std::cout << "sync20: atomic wait woke=" << woke << " counter=" << counter << '\n';
}

// ---------------------------------------------------------------- once
static std::atomic<int> singleton_ctors{0};
struct Singleton {
	long value;
	Singleton()
	{
		singleton_ctors++;
		std::this_thread::sleep_for(30ms);	// the other threads wait on the guard
		value = 4242;
	}
};
static Singleton &singleton()
{
	static Singleton s;
	return s;
}

static void test_once()
{
	constexpr int N = 200;
	std::once_flag flag;
	std::atomic<int> once_calls{0};
	int once_value = 0;
	std::atomic<long> seen_once{0}, seen_static{0};
	std::latch go(N);
	std::vector<std::thread> ts;
	for (int i = 0; i < N; i++)
		ts.emplace_back([&] {
			go.arrive_and_wait();
			std::call_once(flag, [&] {
				once_calls++;
				std::this_thread::sleep_for(10ms);
				once_value = 17;
			});
			seen_once += once_value;
			seen_static += singleton().value;
		});
	joinall(ts);
	CHECK(once_calls == 1 && singleton_ctors == 1);
	CHECK(seen_once == 17L * N && seen_static == 4242L * N);
	std::cout << "once: call_once runs=" << once_calls << " static ctors=" << singleton_ctors
		  << " values=" << seen_once << "," << seen_static << '\n';
}

// ---------------------------------------------------------------- tls
static std::atomic<int> tl_ctors{0}, tl_dtors{0}, late_ctors{0}, late_dtors{0};
static std::atomic<long> tl_sum{0};

struct Late {
	Late() { late_ctors++; }
	~Late() { late_dtors++; }
};
static Late &late()
{
	thread_local Late l;
	return l;
}

struct Counted {
	long v = 0;
	std::string label;
	std::vector<int> data;
	Counted()
	{
		tl_ctors++;
		data.resize(100, 1);
	}
	~Counted();
};
static Counted &counted()
{
	thread_local Counted c;
	return c;
}

Counted::~Counted()
{
	tl_sum += v + long(data.size()) + long(label.size());
	tl_dtors++;
	// Odd threads touch another thread_local for the first time from here:
	// it is constructed, and destroyed too, before the thread is done.
	if (v % 2)
		late();
}

static void test_tls()
{
	constexpr int N = 150;
	std::vector<std::thread> ts;
	for (int i = 0; i < N; i++)
		ts.emplace_back([i] {
			counted().v = i;
			counted().label = "thread-" + std::to_string(i);
		});
	joinall(ts);
	CHECK(tl_ctors == N && tl_dtors == N);
	CHECK(late_ctors == N / 2 && late_dtors == N / 2);
	std::cout << "tls: ctors=" << tl_ctors << " dtors=" << tl_dtors << " late ctors=" << late_ctors
		  << " late dtors=" << late_dtors << " sum=" << tl_sum << '\n';

	// Threads started by std::async: destroyed once their futures are gone.
	int before = tl_dtors;
	{
		std::vector<std::future<int>> fs;
		for (int i = 0; i < 40; i++)
			fs.push_back(std::async(std::launch::async, [i] {
				counted().v = 2 * i;	// even: no Late
				return int(counted().data.size());
			}));
		long s = 0;
		for (auto &f : fs)
			s += f.get();
		CHECK(s == 40L * 100);
	}
	int async_dtors = tl_dtors - before;
	// A deferred task runs on this thread: its thread_local lives on until main ends.
	auto d = std::async(std::launch::deferred, [] { return counted().data.size(); });
	size_t ds = d.get();
	std::cout << "tls: async thread dtors=" << async_dtors << " deferred size=" << ds
		  << " ctors now=" << tl_ctors << " dtors now=" << tl_dtors << '\n';
}

// ---------------------------------------------------------------- iostream
static void test_iostream()
{
	constexpr int N = 200, LINES = 60;
	std::cout.flush();
	std::fflush(stdout);
	int pfd[2];
	CHECK(pipe(pfd) == 0);
	int saved = dup(1);
	CHECK(saved >= 0);
	CHECK(dup2(pfd[1], 1) == 1);

	// The reader drains the pipe while the writers fill it; the output is
	// several times the pipe's capacity, so writers block in write().
	std::string captured;
	std::thread reader([&] {
		char buf[4096];
		for (;;) {
			ssize_t n = read(pfd[0], buf, sizeof buf);
			if (n <= 0)
				break;
			captured.append(buf, size_t(n));
		}
	});
	// First half of the lines through std::osyncstream, then (once every
	// thread is done with it) the second half under a mutex: a mutex does not
	// keep other threads' osyncstream lines out of the middle of a chain.
	std::mutex out;
	std::barrier halfway(N);
	std::vector<std::string> formatted(N);
	std::vector<std::thread> ts;
	for (int i = 0; i < N; i++)
		ts.emplace_back([&, i] {
			for (int k = 0; k < LINES / 2; k++)
				std::osyncstream(std::cout) << "line " << std::setw(3) << i << ' ' << std::setw(2) << k
							    << " sync " << long(i) * 1000 + k << '\n';
			halfway.arrive_and_wait();
			for (int k = LINES / 2; k < LINES; k++) {
				std::lock_guard g(out);
				std::cout << "line " << std::setw(3) << i << ' ' << std::setw(2) << k << " lock "
					  << long(i) * 1000 + k << '\n';
			}
			std::ostringstream os;
			os << std::fixed << std::setprecision(3) << (i / 8.0) << '|' << std::hex << (i * 255)
			   << '|' << std::scientific << std::setprecision(2) << (i * 1e5);
			formatted[i] = os.str();
		});
	joinall(ts);
	std::cout.flush();
	std::fflush(stdout);
	// A failed write would have set the stream's error flags (and lost lines).
	bool cout_ok = std::cout.good();
	bool stdio_ok = !std::ferror(stdout);
	CHECK(dup2(saved, 1) == 1);
	close(saved);
	close(pfd[1]);
	reader.join();
	close(pfd[0]);

	// Every line must be whole and appear once.
	std::vector<std::string> lines;
	std::istringstream in(captured);
	std::string ln;
	int intact = 0, sync_n = 0, lock_n = 0;
	std::set<long> keys;
	while (std::getline(in, ln)) {
		lines.push_back(ln);
		std::istringstream ls(ln);
		std::string word, how;
		long i = -1, k = -1, check = -1;
		if (ls >> word >> i >> k >> how >> check && word == "line" && check == i * 1000 + k &&
		    (how == "sync" || how == "lock") && ls.eof()) {
			intact++;
			keys.insert(check);
			(how == "sync" ? sync_n : lock_n)++;
		}
	}
	std::sort(lines.begin(), lines.end());
	if (!cout_ok || !stdio_ok || int(lines.size()) != N * LINES || intact != N * LINES) {
		std::cout.clear();
		std::clearerr(stdout);
		std::fprintf(stderr, "iostream: cout good=%d stdout error=%d, got %zu bytes, %zu lines, %d intact; expected %d\n",
			     cout_ok, !stdio_ok, captured.size(), lines.size(), intact, N * LINES);
	}
	CHECK(cout_ok && stdio_ok);
	CHECK(int(lines.size()) == N * LINES && intact == N * LINES && int(keys.size()) == N * LINES);
	unsigned long h = 5381;
	for (auto &l : lines)
		for (char c : l)
			h = h * 33 + (unsigned char)c;
	std::cout << "iostream: lines=" << lines.size() << " intact=" << intact << " distinct=" << keys.size()
		  << " sync=" << sync_n << " lock=" << lock_n << " bytes=" << captured.size() << " hash=" << h << '\n';
	std::cout << "iostream: first=\"" << lines.front() << "\" last=\"" << lines.back() << "\"\n";
	std::cout << "iostream: formatted[7]=" << formatted[7] << " formatted[199]=" << formatted[199] << '\n';
}

int main()
{
	std::ios::sync_with_stdio(true);
	test_thread();
	test_mutex();
	test_shared();
	test_jthread();
	test_async();
	test_promise();
	test_sync20();
	test_once();
	test_tls();
	test_iostream();
	std::cout << "DONE" << std::endl;
	return 0;
}
