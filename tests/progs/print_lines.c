/* SPDX-License-Identifier: MIT */
/* 100 threads each print 200 numbered lines to stdout (full-buffered when
 * it is a pipe) and 50 to a shared FILE with fprintf; afterwards every
 * line must be intact and every (thread, line) present exactly once. */
#include "common.h"
#include <pthread.h>

#define NT 100
#define NL 200
#define NF 50

static FILE *shared;

static void *printer(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < NL; i++) {
		printf("line %ld %d abcdefghijklmnopqrstuvwxyz %ld\n", id, i, id * 1000 + i);
		if (i % 16 == 0)
			sched_yield();
	}
	for (int i = 0; i < NF; i++)
		fprintf(shared, "f %ld %d %ld\n", id, i, id * 7 + i);
	return NULL;
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/gmp-print-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp");
	shared = fdopen(fd, "w+");
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, printer, (void *)i) == 0, "create");
	for (int i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	fflush(shared);
	rewind(shared);
	static unsigned char seen[NT][NF];
	char line[256];
	int n = 0;
	while (fgets(line, sizeof line, shared)) {
		long id, v;
		int i;
		CHECK(sscanf(line, "f %ld %d %ld", &id, &i, &v) == 3 && id >= 0 && id < NT &&
			      i >= 0 && i < NF && v == id * 7 + i && !seen[id][i],
		      "bad shared line: %s", line);
		seen[id][i] = 1;
		n++;
	}
	CHECK(n == NT * NF, "%d shared lines, want %d", n, NT * NF);
	fclose(shared);
	unlink(path);
	/* the checker reads stdout; this summary line comes last */
	printf("PASS printed=%d\n", NT * NL);
	return 0;
}
