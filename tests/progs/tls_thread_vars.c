/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 2 — __thread variables of the main program: an int, a char
 * array and a struct with initial values (the TLS init image), and a
 * zero-initialised array (.tbss). Every new thread must start with the
 * init image — not with the values the main thread has written meanwhile,
 * and not with what an earlier, finished thread left (a second wave of
 * threads runs after the first has ended). Then each thread writes values
 * of its own, switches away (and may resume on another OS thread), and
 * checks that the values and the variables' addresses are unchanged. The
 * addresses of threads alive at the same time must all differ.
 */
#include "tls_common.h"

#define NT 48
#define NR 120

struct rec {
	long a;
	double d;
	char s[16];
};

static __thread int tv = 12345;
static __thread char tb[40] = "initial image";
static __thread struct rec ts = {-5, 2.5, "struct"};
static __thread long tz[64];

static int started;
static void *addr[2][NT][4];

static void check_fresh(long id)
{
	CHECK(tv == 12345, "thread %ld: tv starts as %d", id, tv);
	CHECK(strcmp(tb, "initial image") == 0, "thread %ld: tb starts as \"%.39s\"", id, tb);
	CHECK(ts.a == -5 && ts.d == 2.5 && strcmp(ts.s, "struct") == 0,
	      "thread %ld: ts starts as {%ld, %g, \"%.15s\"}", id, ts.a, ts.d, ts.s);
	for (int k = 0; k < 64; k++)
		CHECK(tz[k] == 0, "thread %ld: tz[%d] starts as %ld", id, k, tz[k]);
}

static void *worker(void *arg)
{
	long wave = (long)arg / NT, id = (long)arg % NT;
	check_fresh(id);
	void **a = addr[wave][id];
	a[0] = &tv, a[1] = tb, a[2] = &ts, a[3] = tz;
	/* all threads of this wave alive at once: their addresses must differ */
	__atomic_fetch_add(&started, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < (wave + 1) * NT)
		sched_yield();
	for (unsigned i = 0; tls_more(i, NR); i++) {
		int v = (int)(id * 1000 + i);
		tv = v;
		snprintf(tb, sizeof tb, "thread %ld round %u", id, i);
		ts.a = v * 3L;
		ts.d = v / 4.0;
		snprintf(ts.s, sizeof ts.s, "s%ld.%u", id, i);
		for (int k = 0; k < 64; k++)
			tz[k] = v + k;
		tls_switch(i + (unsigned)id);
		char want[40], wants[16];
		snprintf(want, sizeof want, "thread %ld round %u", id, i);
		snprintf(wants, sizeof wants, "s%ld.%u", id, i);
		CHECK(a[0] == &tv && a[1] == tb && a[2] == &ts && a[3] == tz,
		      "thread %ld: a __thread address changed", id);
		CHECK(tv == v, "thread %ld round %u: tv %d, want %d", id, i, tv, v);
		CHECK(strcmp(tb, want) == 0, "thread %ld: tb \"%.39s\", want \"%s\"", id, tb, want);
		CHECK(ts.a == v * 3L && ts.d == v / 4.0 && strcmp(ts.s, wants) == 0,
		      "thread %ld: ts {%ld, %g, \"%.15s\"}", id, ts.a, ts.d, ts.s);
		for (int k = 0; k < 64; k++)
			CHECK(tz[k] == v + k, "thread %ld: tz[%d] %ld, want %d", id, k, tz[k], v + k);
	}
	return NULL;
}

static void run_wave(long wave)
{
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)(wave * NT + i)) == 0,
		      "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	for (int i = 0; i < NT; i++)
		for (int j = i + 1; j < NT; j++)
			CHECK(addr[wave][i][0] != addr[wave][j][0] && addr[wave][i][1] != addr[wave][j][1],
			      "wave %ld: threads %d and %d share __thread storage", wave, i, j);
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	check_fresh(-1);
	/* the main thread's own copies change; new threads must not see it */
	tv = 1;
	strcpy(tb, "main's value");
	ts.a = 99;
	tz[5] = 5;
	run_wave(0);
	run_wave(1);
	CHECK(tv == 1 && strcmp(tb, "main's value") == 0 && ts.a == 99 && tz[5] == 5,
	      "main's __thread values changed");
	printf("__thread: 2 waves x %d threads x >= %d rounds: init image, values and addresses\n",
	       NT, NR);
	if (tls_migration_verdict())
		return 1;
	printf("PASS thread vars\n");
	return 0;
}
