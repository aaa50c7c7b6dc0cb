/* SPDX-License-Identifier: MIT */
// TLS.md row 4 — C++ thread_local objects with non-trivial destructors.
// 64 threads; three of every four construct two thread_local objects
// (first a Tracker, then a Second), write a value of their own into the
// Tracker and switch away many times (resuming maybe on another OS
// thread); one of those three ends with pthread_exit instead of returning;
// the fourth never touches them. When each thread ends, its destructors
// must run exactly once, on that thread (pthread_self() inside the
// destructor is the thread's own), in reverse order of construction
// (Second before Tracker), seeing the value that thread wrote — and before
// pthread_join returns. Threads that never touched them run no destructor.
//
// With --key-order those threads also store a value under a pthread key
// that has a destructor. glibc ends a thread by running the thread_local
// destructors first and the key destructors after them (start_thread:
// __call_tls_dtors, then __nptl_deallocate_tsd), so a thread_local
// destructor still sees the thread's key value, and the key destructor
// runs after it.
#include "tls_common.h"

#include <atomic>

#define NT 64
#define NR 60

struct Result {
	std::atomic<int> tracker_dtors{0}, second_dtors{0};
	std::atomic<int> wrong_self{0}, wrong_value{0}, wrong_order{0};
	std::atomic<int> key_dtors{0}, key_gone{0}, key_first{0};
};
static Result res[NT];
static pthread_t thread_of[NT];
static int last_value[NT];
static bool key_order;
static pthread_key_t key;

static void key_destructor(void *v)
{
	Result *r = static_cast<Result *>(v);
	r->key_dtors++;
	if (r->tracker_dtors.load() == 0)
		r->key_first++;
}

struct Second {
	long id = -1;
	pthread_t owner = pthread_self();
	~Second()
	{
		if (id < 0)
			return;
		res[id].second_dtors++;
		if (!pthread_equal(pthread_self(), owner) || !pthread_equal(owner, thread_of[id]))
			res[id].wrong_self++;
	}
};

struct Tracker {
	long id = -1;
	int value = 0;
	pthread_t owner = pthread_self();
	~Tracker()
	{
		if (id < 0)
			return;
		res[id].tracker_dtors++;
		if (!pthread_equal(pthread_self(), owner) || !pthread_equal(owner, thread_of[id]))
			res[id].wrong_self++;
		if (value != last_value[id])
			res[id].wrong_value++;
		if (res[id].second_dtors.load() != 1)	// Second was constructed later
			res[id].wrong_order++;
		if (key_order && pthread_getspecific(key) != &res[id])
			res[id].key_gone++;
	}
};

static thread_local Tracker tracker;
static thread_local Second second;

static void *worker(void *arg)
{
	long id = (long)arg;
	thread_of[id] = pthread_self();
	if (id % 4 == 3) {
		for (unsigned i = 0; i < 10; i++)
			tls_switch(i);
		return nullptr;
	}
	CHECK(tracker.id == -1 && pthread_equal(tracker.owner, pthread_self()),
	      "thread %ld: fresh Tracker not constructed in this thread", id);
	tracker.id = id;
	second.id = id;
	if (key_order)
		CHECK(pthread_setspecific(key, &res[id]) == 0, "pthread_setspecific");
	for (unsigned i = 0; tls_more(i, NR); i++) {
		tracker.value = last_value[id] = (int)id * 1000 + (int)i;
		tls_switch(i + (unsigned)id);
		CHECK(tracker.id == id && tracker.value == (int)id * 1000 + (int)i,
		      "thread %ld: Tracker {%ld, %d} after a switch", id, tracker.id, tracker.value);
		CHECK(pthread_equal(tracker.owner, pthread_self()) && second.id == id,
		      "thread %ld: thread_local objects of another thread", id);
		CHECK(res[id].tracker_dtors.load() == 0, "thread %ld: destructor ran early", id);
	}
	if (id % 4 == 2)
		pthread_exit(nullptr);
	return nullptr;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--key-order"))
			key_order = true;
	if (key_order)
		CHECK(pthread_key_create(&key, key_destructor) == 0, "pthread_key_create");
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], nullptr, worker, (void *)i) == 0, "pthread_create");
	int used = 0;
	for (int i = 0; i < NT; i++) {
		CHECK(pthread_join(t[i], nullptr) == 0, "pthread_join");
		int want = i % 4 == 3 ? 0 : 1;
		used += want;
		CHECK(res[i].tracker_dtors == want && res[i].second_dtors == want,
		      "thread %d: destructors ran %d and %d times by pthread_join, want %d", i,
		      res[i].tracker_dtors.load(), res[i].second_dtors.load(), want);
		CHECK(res[i].wrong_self == 0, "thread %d: a destructor ran on another thread", i);
		CHECK(res[i].wrong_value == 0, "thread %d: the destructor saw another value", i);
		CHECK(res[i].wrong_order == 0, "thread %d: Tracker destroyed before Second", i);
		if (!key_order)
			continue;
		CHECK(res[i].key_dtors == want, "thread %d: key destructor ran %d times, want %d", i,
		      res[i].key_dtors.load(), want);
		CHECK(res[i].key_first == 0, "thread %d: the key destructor ran before the "
		      "thread_local destructors", i);
		CHECK(res[i].key_gone == 0, "thread %d: the thread_local destructor found the "
		      "thread's key value gone", i);
	}
	printf("thread_local: %d of %d threads used two objects; each destructor ran once, "
		    "on its thread, in reverse order, with the thread's value\n",
		    used, NT);
	if (key_order)
		printf("thread_local: the key destructors ran after the thread_local destructors, "
		       "which still saw the key values\n");
	if (tls_migration_verdict())
		return 1;
	printf("PASS thread_local destructors\n");
	return 0;
}
