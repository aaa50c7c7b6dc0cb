/* SPDX-License-Identifier: MIT */
// C++ and thread exit: pthread_exit unwinds the thread's stack, running
// the destructors of locals in every frame; a catch (...) that rethrows
// (and a catch of abi::__forced_unwind that rethrows) sees the unwind and
// the thread still ends with its value; thread_local destructors run at
// thread exit, before the destructors of pthread keys, as in glibc;
// pthread_cleanup_push/pop handlers in C++ run in order with the locals.
// With argument "main-exit", main itself calls pthread_exit while a thread
// runs: main's locals are destroyed and the process ends with status 0
// once the thread is done. With "dtor-order", the order of thread_local
// and key destructors is checked. Every line is the same under NPTL.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <pthread.h>
#include <string>
#include <unistd.h>

static std::string log_;	// written by one thread at a time
static std::atomic<int> tl_dtors{0};

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		std::printf("FAIL: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		std::printf(__VA_ARGS__); \
		std::printf("\n"); \
		std::fflush(stdout); \
		std::exit(1); \
	} \
} while (0)

struct Noisy {
	const char *name;
	explicit Noisy(const char *n) : name(n) {}
	~Noisy() { log_ += name; log_ += ' '; }
};

__attribute__((noinline)) static void level3(void *value)
{
	Noisy c("C");
	pthread_exit(value);
}

__attribute__((noinline)) static void level2(void *value)
{
	Noisy b("B");
	try {
		level3(value);
	} catch (...) {
		log_ += "catch(...) ";
		throw;
	}
	log_ += "FAIL-after-try ";
}

__attribute__((noinline)) static void level2_forced(void *value)
{
	Noisy b("B");
	try {
		level3(value);
	} catch (abi::__forced_unwind &) {
		log_ += "catch(forced_unwind) ";
		throw;
	}
	log_ += "FAIL-after-try ";
}

static void *unwinder(void *arg)
{
	Noisy a("A");
	level2(arg);
	log_ += "FAIL-returned ";
	return nullptr;
}

static void *unwinder_forced(void *arg)
{
	Noisy a("A");
	level2_forced(arg);
	return nullptr;
}

// pthread_cleanup_push/pop in C++ (glibc implements them with a local
// object whose destructor runs the handler) interleaved with locals.
static void handler(void *arg)
{
	log_ += static_cast<const char *>(arg);
	log_ += ' ';
}

__attribute__((noinline)) static void cleanup_inner(void *value)
{
	Noisy i("I");
	pthread_cleanup_push(handler, (void *)"h3");
	pthread_exit(value);
	pthread_cleanup_pop(0);
}

static void *cleanup_cxx(void *arg)
{
	Noisy o("O");
	pthread_cleanup_push(handler, (void *)"h1");
	pthread_cleanup_push(handler, (void *)"h2");
	pthread_cleanup_pop(1);
	cleanup_inner(arg);
	pthread_cleanup_pop(0);
	return nullptr;
}

// An ordinary exception inside a thread is thrown and caught as usual.
static void *thrower(void *arg)
{
	try {
		Noisy n("N");
		throw std::string("boom");
	} catch (const std::string &s) {
		log_ += "caught " + s + " ";
	}
	return arg;
}

struct TL {
	int touched = 0;
	~TL() {
		tl_dtors++;
		log_ += "thread_local-dtor ";
	}
};
static thread_local TL tl;
static pthread_key_t key;

static void key_dtor(void *)
{
	log_ += "key-dtor ";
}

static void *tl_returning(void *arg)
{
	tl.touched = 1;
	pthread_setspecific(key, &key);
	return arg;
}

static void *tl_exiting(void *arg)
{
	Noisy l("L");
	tl.touched = 1;
	pthread_setspecific(key, &key);
	pthread_exit(arg);
}

static const char *has(const std::string &s, const char *what)
{
	return s.find(what) != std::string::npos ? "ran" : "missing";
}

static std::string run(void *(*fn)(void *), void *arg, void **res)
{
	pthread_t t;
	log_.clear();
	CHECK(pthread_create(&t, nullptr, fn, arg) == 0, "create");
	CHECK(pthread_join(t, res) == 0, "join");
	return log_;
}

static void *late(void *)
{
	usleep(50000);
	std::printf("the other thread ends\n");
	std::fflush(stdout);
	return nullptr;
}

static void at_exit()
{
	std::printf("atexit handler\n");
}

int main(int argc, char **argv)
{
	void *res;
	std::string s;

	if (argc > 1 && std::strcmp(argv[1], "main-exit") == 0) {
		pthread_t t;
		std::atexit(at_exit);
		CHECK(pthread_create(&t, nullptr, late, nullptr) == 0, "create");
		struct Say {
			~Say() { std::printf("main's local destroyed\n"); std::fflush(stdout); }
		} say;
		std::printf("main calls pthread_exit\n");
		std::fflush(stdout);
		pthread_exit(nullptr);
	}

	CHECK(pthread_key_create(&key, key_dtor) == 0, "key");
	if (argc > 1 && std::strcmp(argv[1], "dtor-order") == 0) {
		// glibc's start_thread: __call_tls_dtors, then the key destructors
		s = run(tl_returning, nullptr, &res);
		std::printf("thread returns: %s\n", s.c_str());
		CHECK(s == "thread_local-dtor key-dtor ", "order \"%s\"", s.c_str());
		s = run(tl_exiting, nullptr, &res);
		std::printf("thread calls pthread_exit: %s\n", s.c_str());
		CHECK(s == "L thread_local-dtor key-dtor ", "order \"%s\"", s.c_str());
		std::printf("PASS api_unwind dtor-order\n");
		return 0;
	}
	s = run(unwinder, (void *)42, &res);
	std::printf("pthread_exit through catch(...): %s-> %ld\n", s.c_str(), (long)res);
	CHECK(s == "C catch(...) B A " && res == (void *)42, "log \"%s\" res %p", s.c_str(), res);

	s = run(unwinder_forced, (void *)43, &res);
	std::printf("pthread_exit through catch(forced_unwind): %s-> %ld\n", s.c_str(), (long)res);
	CHECK(s == "C catch(forced_unwind) B A " && res == (void *)43, "log \"%s\"", s.c_str());

	s = run(cleanup_cxx, (void *)47, &res);
	std::printf("pthread_cleanup_push/pop in C++ with pthread_exit: %s-> %ld\n", s.c_str(),
		    (long)res);
	CHECK(s == "h2 h3 I h1 O " && res == (void *)47, "log \"%s\"", s.c_str());

	s = run(thrower, (void *)44, &res);
	std::printf("exception inside a thread: %s-> %ld\n", s.c_str(), (long)res);
	CHECK(s == "N caught boom " && res == (void *)44, "log \"%s\"", s.c_str());

	s = run(tl_returning, (void *)45, &res);
	std::printf("thread returns: thread_local dtor %s, key dtor %s -> %ld\n",
		    has(s, "thread_local-dtor"), has(s, "key-dtor"), (long)res);
	CHECK(res == (void *)45, "res %p", res);
	CHECK(*has(s, "thread_local-dtor") == 'r' && *has(s, "key-dtor") == 'r', "%s", s.c_str());

	s = run(tl_exiting, (void *)46, &res);
	std::printf("thread calls pthread_exit: local dtor %s, thread_local dtor %s, key dtor %s"
		    " -> %ld\n", has(s, "L "), has(s, "thread_local-dtor"), has(s, "key-dtor"),
		    (long)res);
	CHECK(res == (void *)46, "res %p", res);
	CHECK(*has(s, "thread_local-dtor") == 'r' && *has(s, "key-dtor") == 'r', "%s", s.c_str());

	// many threads: one thread_local destructor each
	tl_dtors = 0;
	for (int i = 0; i < 100; i++) {
		run(i % 2 ? tl_returning : tl_exiting, nullptr, &res);
	}
	std::printf("100 threads touched the thread_local: %d destructors ran\n", tl_dtors.load());
	CHECK(tl_dtors == 100, "%d", tl_dtors.load());
	std::printf("PASS api_unwind\n");
	return 0;
}
