/* SPDX-License-Identifier: MIT */
/*
 * core/timer.c — per-P 4-ary timer heaps (see timer.h). The heap array is
 * grown with mremap so that no path here allocates through libc: timers
 * are added and run on g0 as well as on Gs.
 */
#include "core/timer.h"
#include "core/sched.h"
#include "core/os.h"
#include "core/trace.h"
#include "core/real.h"

#include <errno.h>

#include <sys/mman.h>
#include <sys/syscall.h>

/* Room for this many timers per P is reserved when the P is made
 * (timers_init): address space only, whose pages are touched as timers
 * come. Adding a timer then needs no new mapping up to there: a sleep or
 * a timed wait must not fail where the process has no mapping or address
 * space left (NPTL's need none). Beyond it the heap grows with mremap. */
#define TIMER_RESERVE (1u << 17)

void timers_init(struct timers *ts)
{
	void *p = (void *)arch_syscall6(SYS_mmap, 0, (long)(TIMER_RESERVE * sizeof(struct timer *)),
					PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if ((long)p < 0 && (long)p > -4096)
		rt_throw("timers_init: no address space for a processor's timers");
	ts->heap = p;
	ts->cap = TIMER_RESERVE;
}

static void heap_grow(struct timers *ts)
{
	uint32_t ncap = ts->cap ? ts->cap * 2 : 512;
	size_t oldsz = ts->cap * sizeof(struct timer *);
	size_t newsz = ncap * sizeof(struct timer *);
	void *p;

	if (ts->heap)
		p = (void *)arch_syscall4(SYS_mremap, ts->heap, oldsz, newsz, MREMAP_MAYMOVE);
	else
		p = (void *)arch_syscall6(SYS_mmap, 0, (long)newsz, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((long)p < 0 && (long)p > -4096)
		rt_throw("timer_add: out of memory for the timer heap");
	ts->heap = p;
	ts->cap = ncap;
}

static void heap_set(struct timers *ts, uint32_t i, struct timer *t)
{
	ts->heap[i] = t;
	t->idx = (int32_t)i;
}

static void sift_up(struct timers *ts, uint32_t i)
{
	struct timer *t = ts->heap[i];
	while (i > 0) {
		uint32_t parent = (i - 1) / 4;
		if (ts->heap[parent]->when <= t->when)
			break;
		heap_set(ts, i, ts->heap[parent]);
		i = parent;
	}
	heap_set(ts, i, t);
}

static void sift_down(struct timers *ts, uint32_t i)
{
	struct timer *t = ts->heap[i];
	for (;;) {
		uint32_t c = i * 4 + 1;
		if (c >= ts->len)
			break;
		uint32_t best = c;
		uint32_t end = c + 4 < ts->len ? c + 4 : ts->len;
		for (uint32_t k = c + 1; k < end; k++)
			if (ts->heap[k]->when < ts->heap[best]->when)
				best = k;
		if (ts->heap[best]->when >= t->when)
			break;
		heap_set(ts, i, ts->heap[best]);
		i = best;
	}
	heap_set(ts, i, t);
}

static void update_min(struct timers *ts)
{
	st_rel(&ts->minwhen, ts->len ? ts->heap[0]->when : 0);
}

/* Remove heap[i]; caller holds the lock. */
static void heap_remove(struct timers *ts, uint32_t i)
{
	struct timer *t = ts->heap[i];
	uint32_t last = --ts->len;
	if (i != last) {
		heap_set(ts, i, ts->heap[last]);
		if (i > 0 && ts->heap[i]->when < ts->heap[(i - 1) / 4]->when)
			sift_up(ts, i);
		else
			sift_down(ts, i);
	}
	t->idx = -1;
	st_rel(&t->pp, (struct p *)NULL);
}

void timers_after_fork(struct timers *ts)
{
	ts->lock = (struct rt_mutex){0};
	ts->len = 0;
	st_rel(&ts->minwhen, (int64_t)0);
}

void timer_add(struct timer *t, struct p *pp)
{
	struct timers *ts = &pp->timers;
	bool earliest;

	rt_lock(&ts->lock);
	if (ts->len == ts->cap)
		heap_grow(ts);
	st_rel(&t->pp, pp);
	ts->heap[ts->len] = t;
	sift_up(ts, ts->len++);
	earliest = ts->heap[0] == t;
	update_min(ts);
	rt_unlock(&ts->lock);
	if (earliest)
		sched_wake_netpoller(t->when);
}

bool timer_del(struct timer *t)
{
	for (;;) {
		struct p *pp = ld_acq(&t->pp);
		if (!pp)
			return false;
		struct timers *ts = &pp->timers;
		rt_lock(&ts->lock);
		if (ld_rlx(&t->pp) != pp) {
			rt_unlock(&ts->lock);
			continue;	/* fired or moved meanwhile */
		}
		heap_remove(ts, (uint32_t)t->idx);
		update_min(ts);
		rt_unlock(&ts->lock);
		return true;
	}
}

void timers_move(struct p *from, struct p *to)
{
	struct timers *a = &from->timers, *b = &to->timers;
	if (from == to || ld_acq(&a->minwhen) == 0)
		return;
	/* both heaps, in P id order (the one place two are held) */
	struct timers *first = from->id < to->id ? a : b, *second = first == a ? b : a;
	rt_lock(&first->lock);
	rt_lock(&second->lock);
	while (a->len > 0) {
		struct timer *t = a->heap[a->len - 1];
		heap_remove(a, a->len - 1);
		if (b->len == b->cap)
			heap_grow(b);
		st_rel(&t->pp, to);
		b->heap[b->len] = t;
		sift_up(b, b->len++);
	}
	update_min(a);
	update_min(b);
	int64_t when = ld_rlx(&b->minwhen);
	rt_unlock(&second->lock);
	rt_unlock(&first->lock);
	if (when)
		sched_wake_netpoller(when);
}

int64_t timers_run(struct p *pp, struct p *runner, int64_t now)
{
	struct timers *ts = &pp->timers;
	int64_t minw = ld_acq(&ts->minwhen);

	if (minw == 0 || minw > now)
		return minw;
	rt_lock(&ts->lock);
	while (ts->len > 0 && ts->heap[0]->when <= now) {
		struct timer *t = ts->heap[0];
		void (*f)(void *, uint64_t, struct p *) = t->f;
		void *arg = t->arg;
		uint64_t seq = t->seq;
		heap_remove(ts, 0);
		rt_unlock(&ts->lock);
		/* t may be reused by its owner as soon as pp is cleared: use
		 * only the copies. */
		trace_ev(runner ? runner->m : NULL, TR_TIMER, NULL, 0);
		f(arg, seq, runner);
		rt_lock(&ts->lock);
	}
	update_min(ts);
	minw = ts->len ? ts->heap[0]->when : 0;
	rt_unlock(&ts->lock);
	return minw;
}

uint32_t timers_len(struct p *pp)
{
	return pp->timers.len;
}

int64_t timer_rel_deadline(const struct timespec *rel)
{
	if (!rel)
		return 0;
	int64_t ns = (int64_t)rel->tv_sec * 1000000000 + rel->tv_nsec;
	if (rel->tv_sec > INT64_MAX / 4000000000 || ns > INT64_MAX / 4)
		return 0;	/* centuries: forever */
	return rt_nanotime() + (ns > 0 ? ns : 0);
}

int64_t timer_ms_deadline(int ms)
{
	return ms < 0 ? 0 : rt_nanotime() + (int64_t)ms * 1000000;
}

struct timespec *timer_left_ts(int64_t deadline, struct timespec *buf)
{
	if (!deadline)
		return NULL;
	int64_t left = deadline - rt_nanotime();
	if (left < 0)
		left = 0;
	buf->tv_sec = left / 1000000000;
	buf->tv_nsec = left % 1000000000;
	return buf;
}

int timer_left_ms(int64_t deadline)
{
	if (!deadline)
		return -1;
	int64_t left = deadline - rt_nanotime();
	return left > 0 ? (int)((left + 999999) / 1000000) : 0;
}

int timer_deadline(clockid_t clk, const struct timespec *abs, int64_t *deadline)
{
	if (abs->tv_nsec < 0 || abs->tv_nsec >= 1000000000)
		return EINVAL;
	if (abs->tv_sec < 0) {
		*deadline = 1;		/* long past */
		return 0;
	}
	int64_t now = rt_nanotime();
	int64_t t;
	if (abs->tv_sec > INT64_MAX / 2000000000) {
		t = INT64_MAX / 2;	/* effectively never */
	} else {
		t = (int64_t)abs->tv_sec * 1000000000 + abs->tv_nsec;
		if (clk != CLOCK_MONOTONIC) {
			struct timespec cur;
			real_clock_gettime(clk, &cur);
			t = now + (t - ((int64_t)cur.tv_sec * 1000000000 + cur.tv_nsec));
		}
	}
	*deadline = t > 0 ? t : 1;
	return 0;
}
