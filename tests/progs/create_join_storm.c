/* SPDX-License-Identifier: MIT */
/* Create/join storm: rounds of threads created and joined in batches;
 * every result is summed and compared with the closed form. */
#include "common.h"
#include <pthread.h>

static void *work(void *arg)
{
	long i = (long)arg;
	return (void *)(i * 3 + 1);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 50;
	int batch = argc > 2 ? atoi(argv[2]) : 200;
	pthread_t *t = malloc(sizeof *t * batch);
	long long sum = 0, want = 0;

	for (int r = 0; r < rounds; r++) {
		for (long i = 0; i < batch; i++) {
			int err = pthread_create(&t[i], NULL, work, (void *)(r * (long)batch + i));
			CHECK(err == 0, "pthread_create: %d", err);
		}
		for (long i = 0; i < batch; i++) {
			void *res;
			int err = pthread_join(t[i], &res);
			CHECK(err == 0, "pthread_join: %d", err);
			sum += (long)res;
			want += (r * (long)batch + i) * 3 + 1;
		}
	}
	CHECK(sum == want, "sum %lld, want %lld", sum, want);
	printf("PASS storm threads=%d sum=%lld\n", rounds * batch, sum);
	return 0;
}
