/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 5 — malloc/free storm with migrations. 32 threads each do
 * 20,000 operations: malloc (8 B .. 4 KiB, now and then up to 64 KiB) and
 * fill the block with a pattern of its own, realloc (the kept prefix must
 * survive), free after checking the pattern, and hand blocks to the next
 * thread, which checks and frees them (frees of blocks another thread
 * allocated, from another tcache and arena). Every 53 operations the
 * thread switches away (yield or short sleep) and may resume on another OS
 * thread. The hand-off is a single-producer single-consumer ring of C11
 * atomics per neighbour pair, polled with sched_yield: no pthread mutex or
 * condition variable. Any corruption shows as a wrong pattern or a glibc
 * abort ("malloc(): ..."), a hang as the harness's timeout.
 *
 * With --small all blocks are 24..119 bytes: run with
 * GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=1 they
 * all go through the fastbins of one arena, whose lock-free updates are
 * atomic only if glibc believes the process is multi-threaded in every
 * thread (TLS.md 5n).
 */
#include "tls_common.h"

#include <stdatomic.h>
#include <stdint.h>

#define NT 32
#define NOPS 20000
#define SLOTS 64
#define RING 64

struct hdr {
	uint64_t magic;
	size_t size;
	uint64_t seed;
};
#define MAGIC 0x6d616c6c6f63ULL

struct ring {
	_Atomic(struct hdr *) slot[RING];
	_Atomic unsigned head, tail;	/* consumer, producer */
	_Atomic int producer_done;
};
static struct ring rings[NT];		/* rings[i]: from thread i to thread i+1 */
static _Atomic long cross_frees, total_ops, reallocs;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned char pat(uint64_t seed, size_t k)
{
	return (unsigned char)(seed + k * 31);
}

static struct hdr *make(size_t size, uint64_t seed)
{
	struct hdr *h = malloc(size);
	CHECK(h, "malloc(%zu) failed", size);
	h->magic = MAGIC;
	h->size = size;
	h->seed = seed;
	unsigned char *b = (unsigned char *)(h + 1);
	for (size_t k = 0; k < size - sizeof *h; k++)
		b[k] = pat(seed, k);
	return h;
}

static void verify(const struct hdr *h, size_t upto, const char *who)
{
	CHECK(h->magic == MAGIC, "%s: block header overwritten (%llx)", who,
	      (unsigned long long)h->magic);
	const unsigned char *b = (const unsigned char *)(h + 1);
	if (upto > h->size)
		upto = h->size;
	for (size_t k = 0; k + sizeof *h < upto; k++)
		CHECK(b[k] == pat(h->seed, k), "%s: block of %zu bytes corrupt at byte %zu", who,
		      h->size, k);
}

static bool small;	/* --small: fastbin sizes only */

static size_t pick_size(uint64_t *s)
{
	uint64_t r = rnd(s);
	if (small)
		return sizeof(struct hdr) + (r >> 8) % 96;
	if (r % 97 == 0)
		return sizeof(struct hdr) + r % 65536;
	return sizeof(struct hdr) + (r >> 8) % 4096;
}

static bool send(struct ring *r, struct hdr *h)
{
	unsigned t = atomic_load_explicit(&r->tail, memory_order_relaxed);
	if (t - atomic_load_explicit(&r->head, memory_order_acquire) == RING)
		return false;
	atomic_store_explicit(&r->slot[t % RING], h, memory_order_relaxed);
	atomic_store_explicit(&r->tail, t + 1, memory_order_release);
	return true;
}

static struct hdr *receive(struct ring *r)
{
	unsigned h = atomic_load_explicit(&r->head, memory_order_relaxed);
	if (h == atomic_load_explicit(&r->tail, memory_order_acquire))
		return NULL;
	struct hdr *b = atomic_load_explicit(&r->slot[h % RING], memory_order_relaxed);
	atomic_store_explicit(&r->head, h + 1, memory_order_release);
	return b;
}

static int drain(struct ring *in)
{
	int n = 0;
	for (struct hdr *h; (h = receive(in)); n++) {
		verify(h, SIZE_MAX, "received block");
		free(h);
	}
	atomic_fetch_add(&cross_frees, n);
	return n;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	struct ring *out = &rings[id], *in = &rings[(id + NT - 1) % NT];
	struct hdr *slot[SLOTS] = {0};
	uint64_t s = 0x9e3779b97f4a7c15ULL * (uint64_t)(id + 1);
	int op;
	for (op = 0; tls_more((unsigned)op, NOPS); op++) {
		unsigned k = (unsigned)(rnd(&s) % SLOTS);
		unsigned what = (unsigned)(rnd(&s) % 8);
		if (!slot[k]) {
			slot[k] = make(pick_size(&s), rnd(&s));
		} else if (what < 3) {
			verify(slot[k], SIZE_MAX, "own block");
			free(slot[k]);
			slot[k] = NULL;
		} else if (what < 5) {
			if (send(out, slot[k]))
				slot[k] = NULL;
		} else if (what == 5) {
			size_t old = slot[k]->size, nsz = pick_size(&s);
			struct hdr *h = realloc(slot[k], nsz);
			CHECK(h, "realloc(%zu) failed", nsz);
			size_t kept = nsz < old ? nsz : old;
			verify(h, kept, "realloc'ed block");
			h->size = nsz;
			unsigned char *b = (unsigned char *)(h + 1);
			for (size_t j = kept - sizeof *h; j < nsz - sizeof *h; j++)
				b[j] = pat(h->seed, j);
			slot[k] = h;
			atomic_fetch_add(&reallocs, 1);
		} else {
			drain(in);
		}
		if (op % 53 == 52)
			tls_switch((unsigned)(op / 53));
	}
	long ops = op;
	for (int k = 0; k < SLOTS; k++)
		if (slot[k]) {
			verify(slot[k], SIZE_MAX, "own block");
			free(slot[k]);
		}
	atomic_store(&out->producer_done, 1);
	/* the previous thread may still send: take all it sends */
	for (;;) {
		int done = atomic_load(&in->producer_done);
		if (!drain(in) && done)
			break;
		sched_yield();
	}
	drain(in);
	atomic_fetch_add(&total_ops, ops);
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--small") == 0)
			small = true;
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	for (int i = 0; i < NT; i++)
		CHECK(atomic_load(&rings[i].head) == atomic_load(&rings[i].tail),
		      "ring %d not empty at the end", i);
	CHECK(atomic_load(&cross_frees) > 0, "no block was freed by another thread");
	CHECK(atomic_load(&reallocs) > 0, "no realloc happened");
	fprintf(stderr, "cross-thread frees=%ld reallocs=%ld\n", atomic_load(&cross_frees),
		atomic_load(&reallocs));
	printf("malloc storm: %d threads x >= %d operations (malloc, realloc, free, frees of other "
	       "threads' blocks) on %s blocks: no corruption\n",
	       NT, NOPS, small ? "24..119-byte" : "24-byte..64-KiB");
	CHECK(atomic_load(&total_ops) >= (long)NT * NOPS, "%ld operations", atomic_load(&total_ops));
	if (tls_migration_verdict())
		return 1;
	printf("PASS malloc storm\n");
	return 0;
}
