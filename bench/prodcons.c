/* SPDX-License-Identifier: MIT */
/*
 * bench/prodcons.c — producers and consumers over a bounded queue: P
 * producer threads (default 4) put N items in all (default 1,000,000) into
 * a ring of CAP slots (default 64) guarded by one mutex and two condvars
 * (not full, not empty); C consumer threads (default 4) take them out until
 * all N are taken. Every thread starts at once (a start gate). Each item
 * carries a hash of its number; the consumers' count and sum are checked
 * against what was produced, so a lost or doubled item fails the run.
 * Reports items per second, from the gate opening to the last item taken.
 *
 *   prodcons [N [CAP [P [C]]]]
 */
#include "bench.h"

static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_full, not_empty;
	unsigned long *ring; /* the items; ring, head, len and taken under lock */
	long cap, head, len;
	long taken; /* items taken out so far, by all consumers */
} q = {.lock = PTHREAD_MUTEX_INITIALIZER,
       .not_full = PTHREAD_COND_INITIALIZER,
       .not_empty = PTHREAD_COND_INITIALIZER};

static long n, producers;
static double t_end; /* when the last item was taken; under q.lock */
static struct gate gate = GATE_INITIALIZER;

/* What item i carries. */
static unsigned long item(long i)
{
	return compute((unsigned long)i, 8);
}

/* Producer p puts items p, p + P, p + 2P, ... below N. */
static void *producer(void *arg)
{
	long p = (long)arg;

	gate_wait(&gate);
	for (long i = p; i < n; i += producers) {
		unsigned long v = item(i);
		must(pthread_mutex_lock(&q.lock), "pthread_mutex_lock");
		while (q.len == q.cap)
			must(pthread_cond_wait(&q.not_full, &q.lock), "pthread_cond_wait");
		q.ring[(q.head + q.len) % q.cap] = v;
		q.len++;
		must(pthread_cond_signal(&q.not_empty), "pthread_cond_signal");
		must(pthread_mutex_unlock(&q.lock), "pthread_mutex_unlock");
	}
	return NULL;
}

/* What one consumer took. */
struct haul {
	long count;
	unsigned long sum;
};

static void *consumer(void *arg)
{
	struct haul *h = arg;

	gate_wait(&gate);
	for (;;) {
		must(pthread_mutex_lock(&q.lock), "pthread_mutex_lock");
		while (q.len == 0 && q.taken < n)
			must(pthread_cond_wait(&q.not_empty, &q.lock), "pthread_cond_wait");
		if (q.len == 0) { /* all N taken */
			must(pthread_mutex_unlock(&q.lock), "pthread_mutex_unlock");
			break;
		}
		unsigned long v = q.ring[q.head];
		q.head = (q.head + 1) % q.cap;
		q.len--;
		if (++q.taken == n) { /* the other consumers may be waiting for more */
			t_end = now_sec();
			must(pthread_cond_broadcast(&q.not_empty), "pthread_cond_broadcast");
		}
		must(pthread_cond_signal(&q.not_full), "pthread_cond_signal");
		must(pthread_mutex_unlock(&q.lock), "pthread_mutex_unlock");
		h->count++;
		h->sum += v;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	n = arg_long(argc, argv, 1, 1000000);
	q.cap = arg_long(argc, argv, 2, 64);
	producers = arg_long(argc, argv, 3, 4);
	long consumers = arg_long(argc, argv, 4, 4);
	long nt = producers + consumers;
	pthread_t *t = calloc((size_t)nt, sizeof *t);
	struct haul *haul = calloc((size_t)consumers, sizeof *haul);
	unsigned long want = 0, sum = 0;
	long count = 0;
	struct sampler smp;

	q.ring = calloc((size_t)q.cap, sizeof *q.ring);
	if (!t || !haul || !q.ring)
		return 1;
	for (long i = 0; i < n; i++)
		want += item(i);

	sampler_start(&smp, 5000);
	gate_arm(&gate, nt);
	for (long i = 0; i < producers; i++)
		spawn(&t[i], producer, (void *)i);
	for (long i = 0; i < consumers; i++)
		spawn(&t[producers + i], consumer, &haul[i]);
	double t0 = gate_open(&gate);
	for (long i = 0; i < nt; i++)
		reap(t[i]);
	double secs = t_end - t0;
	long peak = sampler_stop(&smp);
	for (long i = 0; i < consumers; i++) {
		count += haul[i].count;
		sum += haul[i].sum;
	}
	if (count != n || sum != want) {
		fprintf(stderr, "prodcons: consumers took %ld items summing to %lx, want %ld summing to %lx\n",
			count, sum, n, want);
		return 1;
	}
	printf("RESULT name=prodcons n=%ld capacity=%ld producers=%ld consumers=%ld seconds=%.6f "
	       "items_per_sec=%.0f peak_os_threads=%ld rss_kib=%ld\n",
	       n, q.cap, producers, consumers, secs, (double)n / secs, peak, status_field("VmHWM"));
	return 0;
}
