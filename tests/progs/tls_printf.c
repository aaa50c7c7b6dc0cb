/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 6 — stdio from many threads that migrate. 64 threads each
 * write 200 (or, see tls_more, more) numbered lines to stdout
 * (full-buffered: it is a pipe in the test) with printf, fputs and fwrite
 * in turn, switching away every few lines, and 50 lines to one shared FILE
 * with fprintf. Each call writes a whole line, so no line may be torn and
 * each thread's lines must appear in the order it wrote them. The program
 * checks the shared FILE itself; the test reads stdout ("p ID N
 * abc...xyz ID*1000+N" lines) and checks it.
 */
#include "tls_common.h"

#define NT 64
#define NL 200
#define NF 50

static FILE *shared;
static long stdout_lines;

static void *printer(void *arg)
{
	long id = (long)arg;
	char line[128];
	int i;
	for (i = 0; tls_more((unsigned)i, NL); i++) {
		switch (i % 3) {
		case 0:
			printf("p %ld %d abcdefghijklmnopqrstuvwxyz %ld\n", id, i, id * 1000 + i);
			break;
		case 1:
			snprintf(line, sizeof line, "p %ld %d abcdefghijklmnopqrstuvwxyz %ld\n", id, i,
				 id * 1000 + i);
			fputs(line, stdout);
			break;
		default: {
			int n = snprintf(line, sizeof line, "p %ld %d abcdefghijklmnopqrstuvwxyz %ld\n",
					 id, i, id * 1000 + i);
			CHECK(fwrite(line, 1, (size_t)n, stdout) == (size_t)n, "fwrite");
		}
		}
		if (i % 5 == 4)
			tls_switch((unsigned)(i + id));
	}
	__atomic_fetch_add(&stdout_lines, i, __ATOMIC_RELAXED);
	for (int k = 0; k < NF; k++) {
		fprintf(shared, "f %ld %d %ld\n", id, k, id * 7 + k);
		if (k % 7 == 6)
			tls_switch((unsigned)k);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	shared = tmpfile();
	CHECK(shared, "tmpfile");
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, printer, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	rewind(shared);
	static int next[NT];
	char line[256];
	int n = 0;
	while (fgets(line, sizeof line, shared)) {
		long id, v;
		int i;
		CHECK(sscanf(line, "f %ld %d %ld", &id, &i, &v) == 3 && id >= 0 && id < NT &&
			      v == id * 7 + i,
		      "torn line in the shared FILE: %s", line);
		CHECK(i == next[id], "thread %ld's line %d came where %d was due", id, i, next[id]);
		next[id]++;
		n++;
	}
	CHECK(n == NT * NF, "%d lines in the shared FILE, want %d", n, NT * NF);
	fclose(shared);
	if (tls_migration_verdict())
		return 1;
	printf("PASS printf: %ld lines on stdout, %d in a shared FILE\n", stdout_lines, NT * NF);
	return 0;
}
