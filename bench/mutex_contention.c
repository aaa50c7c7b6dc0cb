/* SPDX-License-Identifier: MIT */
/*
 * bench/mutex_contention.c — many threads fighting over one mutex. For each
 * thread count in LIST (default 4,64), in turn: the threads start together
 * (a start gate), then each loops { lock; counter++; its own count++;
 * unlock; a little work outside the lock (WORK rounds of FNV-1a, default
 * 100, about 0.1 us) } until the main thread sets a stop flag after MS
 * milliseconds (default 1,000), or until the counter reaches MAX (default
 * 100,000,000), whichever comes first. The counter is incremented without
 * atomics, so it equals the sum of the threads' own counts only if the
 * mutex excluded; that is checked. Reports, per thread count, lock+unlock
 * pairs per second and the fairness: the fewest increments made by one
 * thread divided by the most made by one thread (1 is perfectly fair, 0
 * means a thread starved).
 *
 *   mutex_contention [MS [MAX [WORK [LIST]]]]      e.g. mutex_contention 1000 100000000 100 4,64
 */
#include "bench.h"

#define MAX_THREADS 4096

/* One thread's tally, alone on its cache line(s). */
struct tally {
	long count; /* increments made by this thread; under lock */
	unsigned long seed;
} __attribute__((aligned(64)));

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;   /* increments by all threads; under lock */
static long max_ops;   /* the stop flag is set once counter reaches this */
static long ops_at_stop; /* counter when the stop flag was set; under lock */
static double t_stop;  /* when it was set; under lock */
static atomic_int stop;
static int work;
static struct gate gate = GATE_INITIALIZER;

/* With `lock` held: sets the stop flag, once. */
static void stop_now(void)
{
	if (atomic_load_explicit(&stop, memory_order_relaxed))
		return;
	ops_at_stop = counter;
	t_stop = now_sec();
	atomic_store(&stop, 1);
}

static void *contender(void *arg)
{
	struct tally *me = arg;
	unsigned long h = me->seed;

	gate_wait(&gate);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		must(pthread_mutex_lock(&lock), "pthread_mutex_lock");
		counter++;
		me->count++;
		if (counter >= max_ops)
			stop_now();
		must(pthread_mutex_unlock(&lock), "pthread_mutex_unlock");
		h = compute(h, work);
	}
	me->seed = h;
	return NULL;
}

struct round {
	long threads, ops, fewest, most;
	double seconds;
	int capped; /* stopped by MAX rather than by the clock */
};

/* One round with `nt` threads for `ms` milliseconds; exits if the counts
 * do not add up. */
static struct round contend(long nt, long ms, pthread_t *t, struct tally *tl)
{
	struct round r = {.threads = nt};

	counter = 0;
	atomic_store(&stop, 0);
	gate_arm(&gate, nt);
	for (long i = 0; i < nt; i++) {
		tl[i] = (struct tally){.seed = (unsigned long)i};
		spawn(&t[i], contender, &tl[i]);
	}
	double t0 = gate_open(&gate), deadline = t0 + (double)ms / 1e3;
	for (double now = t0; now < deadline && !atomic_load(&stop); now = now_sec()) {
		double left = deadline - now;
		usleep(left > 0.01 ? 10000 : (useconds_t)(left * 1e6) + 1);
	}
	must(pthread_mutex_lock(&lock), "pthread_mutex_lock");
	r.capped = atomic_load(&stop);
	stop_now();
	must(pthread_mutex_unlock(&lock), "pthread_mutex_unlock");
	long sum = 0;
	r.fewest = -1;
	for (long i = 0; i < nt; i++) {
		reap(t[i]);
		sum += tl[i].count;
		if (r.fewest < 0 || tl[i].count < r.fewest)
			r.fewest = tl[i].count;
		if (tl[i].count > r.most)
			r.most = tl[i].count;
	}
	if (sum != counter) {
		fprintf(stderr, "mutex_contention: %ld threads counted %ld increments, the counter %ld\n",
			nt, sum, counter);
		exit(1);
	}
	r.ops = ops_at_stop;
	r.seconds = t_stop - t0;
	return r;
}

/* LIST: thread counts separated by commas, each 1..MAX_THREADS. */
static int parse_list(const char *s, long *out, int max)
{
	int k = 0;
	char *end;
	do {
		long v = strtol(s, &end, 10);
		if (end == s || v < 1 || v > MAX_THREADS || k == max || (*end && *end != ','))
			return -1;
		out[k++] = v;
		s = end + 1;
	} while (*end);
	return k;
}

int main(int argc, char **argv)
{
	long ms = arg_long(argc, argv, 1, 1000);
	max_ops = arg_long(argc, argv, 2, 100000000);
	work = (int)arg_long(argc, argv, 3, 100);
	const char *list = argc > 4 ? argv[4] : "4,64";
	long counts[16];
	int nc = parse_list(list, counts, 16);
	pthread_t *t = calloc(MAX_THREADS, sizeof *t);
	struct tally *tl = aligned_alloc(64, MAX_THREADS * sizeof *tl);
	struct round r[16];
	struct sampler smp;

	if (nc < 0) {
		fprintf(stderr, "mutex_contention: LIST must be up to 16 thread counts (1..%d) "
				"separated by commas, not '%s'\n", MAX_THREADS, list);
		return 2;
	}
	if (!t || !tl)
		return 1;
	sampler_start(&smp, 5000);
	for (int i = 0; i < nc; i++)
		r[i] = contend(counts[i], ms, t, tl);
	long peak = sampler_stop(&smp);

	printf("RESULT name=mutex_contention ms=%ld max=%ld work=%d threads=%s", ms, max_ops, work,
	       list);
	for (int i = 0; i < nc; i++) {
		long n = r[i].threads;
		printf(" t%ld_ops=%ld t%ld_seconds=%.6f t%ld_ops_per_sec=%.0f t%ld_fewest=%ld "
		       "t%ld_most=%ld t%ld_fairness=%.4f t%ld_capped=%d",
		       n, r[i].ops, n, r[i].seconds, n, (double)r[i].ops / r[i].seconds, n,
		       r[i].fewest, n, r[i].most, n,
		       r[i].most ? (double)r[i].fewest / (double)r[i].most : 0.0, n, r[i].capped);
	}
	printf(" peak_os_threads=%ld rss_kib=%ld\n", peak, status_field("VmHWM"));
	return 0;
}
