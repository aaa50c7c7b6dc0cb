/* SPDX-License-Identifier: MIT */
// std::thread create/join, with results passed back through futures of
// plain data, and a thread_local object whose destructor must run once per
// thread that touched it.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

static std::atomic<int> constructed{0}, destroyed{0};

struct Tracked {
	int value = 0;
	Tracked() { constructed++; }
	~Tracked() { destroyed++; }
};
static thread_local Tracked tl;

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 500;
	std::vector<long> results(n);
	std::vector<std::thread> threads;
	for (int i = 0; i < n; i++)
		threads.emplace_back([i, &results] {
			tl.value = i;
			std::this_thread::yield();
			results[i] = (long)tl.value * 2;
		});
	for (auto &t : threads)
		t.join();
	long sum = 0;
	for (long r : results)
		sum += r;
	long want = (long)n * (n - 1);
	if (sum != want || constructed != n || destroyed != n) {
		std::printf("FAIL: sum %ld want %ld, constructed %d destroyed %d (want %d)\n", sum,
			    want, constructed.load(), destroyed.load(), n);
		return 1;
	}
	std::printf("PASS stdthread n=%d\n", n);
	return 0;
}
