/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 1 — errno. 32 threads each take &errno (the pointer that
 * __errno_location() returns) once, then over and over: store a value of
 * their own in errno, switch away (yield or short sleep, so that they may
 * resume on another OS thread), and check that errno still holds the value,
 * that &errno is the same address, and that the saved pointer reads the
 * same value. Then a failing call made after the switch (close(-1),
 * open of a missing file) must set this thread's errno, seen through both
 * errno and the old pointer, and must leave every other thread's alone.
 */
#include "tls_common.h"

#include <errno.h>
#include <fcntl.h>

#define NT 32
#define NR 200

static int *errno_addr[NT + 1];

static void *worker(void *arg)
{
	long id = (long)arg;
	int *mine = &errno;
	errno_addr[id] = mine;
	for (unsigned i = 0; tls_more(i, NR); i++) {
		int want = (int)(id * 100000 + i + 1);
		errno = want;
		tls_switch(i + (unsigned)id);
		CHECK(&errno == mine, "thread %ld: &errno moved from %p to %p", id, (void *)mine,
		      (void *)&errno);
		CHECK(errno == want, "thread %ld round %u: errno %d, want %d", id, i, errno, want);
		CHECK(*mine == want, "thread %ld: old pointer reads %d, want %d", id, *mine, want);

		/* a system call failing on whatever OS thread we are on now */
		CHECK(close(-1) == -1, "close(-1) succeeded");
		CHECK(errno == EBADF && *mine == EBADF, "thread %ld: close(-1) left errno %d", id,
		      errno);
		tls_switch(i + 1);
		CHECK(errno == EBADF, "thread %ld: errno %d after switch, want EBADF", id, errno);
		CHECK(open("/nonexistent-dir/x", O_RDONLY) == -1, "open succeeded");
		CHECK(errno == ENOENT && *mine == ENOENT, "thread %ld: open left errno %d", id,
		      errno);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0, "pthread_create");
	worker((void *)(long)NT);	/* the main thread takes part too */
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	for (int i = 0; i <= NT; i++)
		for (int j = i + 1; j <= NT; j++)
			CHECK(errno_addr[i] != errno_addr[j], "threads %d and %d share &errno", i, j);
	printf("errno: %d threads x >= %d rounds: value, address and failing calls after switches\n",
	       NT + 1, NR);
	if (tls_migration_verdict())
		return 1;
	printf("PASS errno\n");
	return 0;
}
