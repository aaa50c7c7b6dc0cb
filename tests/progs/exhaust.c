/* SPDX-License-Identifier: MIT */
/* Out of address space: with RLIMIT_AS lowered (argv[1] MiB), create
 * sleeping threads until pthread_create fails. It must fail with EAGAIN,
 * not crash; then every created thread is released and joined. Then
 * argv[2] rounds (default 10) each create half as many again, which must
 * all succeed as under NPTL (the joined threads' stacks are free again),
 * and release and join them. */
#include "common.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/resource.h>

static atomic_int release;

static void *waiter(void *arg)
{
	while (!atomic_load(&release))
		usleep(2000);
	return arg;
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 1024;
	struct rlimit rl = {(rlim_t)mib << 20, (rlim_t)mib << 20};
	CHECK(setrlimit(RLIMIT_AS, &rl) == 0, "setrlimit");
	int cap = 1 << 20, n = 0, err = 0;
	pthread_t *t = malloc(sizeof *t * (size_t)cap);
	CHECK(t, "malloc");
	while (n < cap) {
		err = pthread_create(&t[n], NULL, waiter, NULL);
		if (err)
			break;
		n++;
	}
	printf("created %d threads, then pthread_create returned %s\n", n,
	       err == EAGAIN ? "EAGAIN" : err ? strerror(err) : "nothing");
	CHECK(err == EAGAIN, "expected EAGAIN, got %d", err);
	CHECK(n > 0, "no thread at all");
	atomic_store(&release, 1);
	for (int i = 0; i < n; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "join %d", i);
	int rounds = argc > 2 ? atoi(argv[2]) : 10;
	for (int r = 0; r < rounds; r++) {
		atomic_store(&release, 0);
		int k = 0;
		while (k < n / 2) {
			err = pthread_create(&t[k], NULL, waiter, NULL);
			if (err)
				break;
			k++;
		}
		atomic_store(&release, 1);
		for (int i = 0; i < k; i++)
			CHECK(pthread_join(t[i], NULL) == 0, "join %d of round %d", i, r);
		CHECK(k == n / 2, "round %d: %d of %d threads, then %s", r, k, n / 2, strerror(err));
	}
	printf("PASS exhaust joined=%d rounds=%d of %d threads\n", n, rounds, n / 2);
	return 0;
}
