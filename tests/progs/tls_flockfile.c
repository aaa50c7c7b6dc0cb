/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 6b — flockfile held across a migration. A thread takes a
 * FILE's lock, writes a block of lines "B", "L 0".."L 3", "E" and switches
 * away between the lines (so it may resume, still holding the lock, on
 * another OS thread); after a switch it locks again (recursively) and
 * ftrylockfile succeeds (the lock's owner is the thread, not the OS
 * thread), then it unlocks twice, maybe on yet another OS thread.
 *
 * Phase 1: 16 threads take turns (an atomic turn counter), so flockfile
 * never waits; while a holder is switched away a prober thread's
 * ftrylockfile on the same FILE must fail. Phase 2: the 16 threads compete
 * for the lock, taking it only with ftrylockfile (a blocking flockfile
 * would block the whole OS thread under a user-level scheduler while the
 * holder may wait behind it, TLS.md row 23) and switching away until they
 * get it. Both phases write to stdout, which the test checks: the lines of
 * each block must be contiguous. Phase 2 also runs on a temporary FILE
 * that the program checks itself the same way.
 */
#include "tls_common.h"

#define NT 16
#define NR 8

static FILE *out;
static int phase, turn, probe_req, probe_result, probes_failed;

static void lock_contended(FILE *f)
{
	for (unsigned i = 0; ftrylockfile(f) != 0; i++)
		tls_switch(i);
}

static void block(FILE *f, long id, int r)
{
	fprintf(f, "B %d %ld %d\n", phase, id, r);
	if (phase == 1 && f == stdout) {
		/* switched away with the lock held: the prober must not get it */
		__atomic_store_n(&probe_req, 1, __ATOMIC_SEQ_CST);
		for (unsigned i = 0; __atomic_load_n(&probe_req, __ATOMIC_SEQ_CST); i++)
			tls_switch(i);
		CHECK(probe_result != 0, "thread %ld: another thread's ftrylockfile got a held lock",
		      id);
	}
	for (int k = 0; k < 4; k++) {
		fprintf(f, "L %d %ld %d %d\n", phase, id, r, k);
		tls_switch((unsigned)(k + r + id));
		if (k == 1)
			flockfile(f);	/* recursive: we hold it */
	}
	CHECK(ftrylockfile(f) == 0, "thread %ld: ftrylockfile on a lock it holds failed", id);
	funlockfile(f);
	funlockfile(f);
	fprintf(f, "E %d %ld %d\n", phase, id, r);
}

static void *prober(void *arg)
{
	for (unsigned i = 0; __atomic_load_n(&phase, __ATOMIC_SEQ_CST) == 1; i++) {
		if (!__atomic_load_n(&probe_req, __ATOMIC_SEQ_CST)) {
			tls_switch(i);
			continue;
		}
		int r = ftrylockfile(stdout);
		if (r == 0) {
			funlockfile(stdout);
			probes_failed++;
		}
		probe_result = r;
		__atomic_store_n(&probe_req, 0, __ATOMIC_SEQ_CST);
	}
	return NULL;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	if (phase == 1) {
		for (int r = 0; r < NR; r++) {
			for (unsigned i = 0; __atomic_load_n(&turn, __ATOMIC_SEQ_CST) != r * NT + id; i++)
				tls_switch(i);
			flockfile(out);
			block(out, id, r);
			funlockfile(out);
			__atomic_fetch_add(&turn, 1, __ATOMIC_SEQ_CST);
		}
	} else {
		for (int r = 0; r < NR; r++) {
			lock_contended(out);
			block(out, id, r);
			funlockfile(out);
			tls_switch((unsigned)r);
		}
	}
	return NULL;
}

static void run_phase(int ph, FILE *f)
{
	pthread_t t[NT], pr;
	phase = ph;
	out = f;
	turn = 0;
	if (ph == 1)
		CHECK(pthread_create(&pr, NULL, prober, NULL) == 0, "pthread_create");
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	if (ph == 1) {
		__atomic_store_n(&phase, 0, __ATOMIC_SEQ_CST);
		CHECK(pthread_join(pr, NULL) == 0, "pthread_join");
		CHECK(probes_failed == 0, "%d probes took a held lock", probes_failed);
	}
}

/* Every block B, L 0..3, E of one (phase, thread, round) is contiguous. */
static void check_blocks(FILE *f, int ph)
{
	char line[128];
	int cur_id = -1, cur_r = -1, next_k = 0, blocks = 0;
	rewind(f);
	while (fgets(line, sizeof line, f)) {
		char c;
		int p, id, r, k;
		int n = sscanf(line, "%c %d %d %d %d", &c, &p, &id, &r, &k);
		CHECK(n >= 4 && p == ph, "bad line: %s", line);
		if (c == 'B') {
			CHECK(cur_id < 0, "block %d/%d starts inside block %d/%d", id, r, cur_id, cur_r);
			cur_id = id, cur_r = r, next_k = 0;
		} else if (c == 'L') {
			CHECK(id == cur_id && r == cur_r && n == 5 && k == next_k,
			      "line \"%.40s\" inside block %d/%d at line %d", line, cur_id, cur_r, next_k);
			next_k++;
		} else {
			CHECK(c == 'E' && id == cur_id && r == cur_r && next_k == 4,
			      "block %d/%d ends with \"%.40s\"", cur_id, cur_r, line);
			cur_id = -1;
			blocks++;
		}
	}
	CHECK(cur_id < 0 && blocks == NT * NR, "%d whole blocks, want %d", blocks, NT * NR);
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	FILE *tmp = tmpfile();
	CHECK(tmp, "tmpfile");
	run_phase(2, tmp);
	check_blocks(tmp, 2);
	fclose(tmp);
	run_phase(1, stdout);
	run_phase(2, stdout);
	if (tls_migration_verdict())
		return 1;
	printf("PASS flockfile: %d blocks written under the lock across switches, 2 phases\n",
	       2 * NT * NR);
	return 0;
}
