/* SPDX-License-Identifier: MIT */
/* Thread attributes: user-supplied stacks (malloc'ed and mmap'ed), guard
 * size, detach state, stack size, scheduling and affinity attributes,
 * pthread_getattr_np on running threads and on the main thread, and the
 * default attributes. Every line printed is the same under NPTL. */
#include "api_util.h"
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>

static size_t page;

/* What a thread saw of itself. */
struct seen {
	char *local;			/* address of one of its locals */
	int getattr_err;
	void *stackaddr;		/* from pthread_getattr_np */
	size_t stacksize, guardsize;
	int detachstate;
	int policy, prio;
	cpu_set_t affinity;
	int affinity_err;
	atomic_int release;		/* set by main: the thread may end */
	atomic_int ready;		/* set by the thread: *this is filled */
};

static void describe_self(struct seen *s)
{
	char local[64];
	pthread_attr_t a;
	snprintf(local, sizeof local, "%p", (void *)s);	/* touch it */
	s->local = local;
	s->getattr_err = pthread_getattr_np(pthread_self(), &a);
	if (s->getattr_err == 0) {
		pthread_attr_getstack(&a, &s->stackaddr, &s->stacksize);
		pthread_attr_getguardsize(&a, &s->guardsize);
		pthread_attr_getdetachstate(&a, &s->detachstate);
		pthread_attr_destroy(&a);
	}
	struct sched_param sp;
	pthread_getschedparam(pthread_self(), &s->policy, &sp);
	s->prio = sp.sched_priority;
	s->affinity_err = pthread_getaffinity_np(pthread_self(), sizeof s->affinity, &s->affinity);
}

static void *describer(void *arg)
{
	struct seen *s = arg;
	describe_self(s);
	atomic_store(&s->ready, 1);
	wait_flag(&s->release);
	return (void *)0x5a5a;
}

static bool inside(const void *p, const void *lo, size_t len)
{
	return (const char *)p >= (const char *)lo && (const char *)p < (const char *)lo + len;
}

/* Create a thread with attr, let it describe itself, join it. */
static void run_described(pthread_attr_t *attr, struct seen *s)
{
	pthread_t t;
	void *res = NULL;
	memset(s, 0, sizeof *s);
	EXPECT_ERR(0, pthread_create(&t, attr, describer, s));
	wait_flag(&s->ready);
	atomic_store(&s->release, 1);
	EXPECT_ERR(0, pthread_join(t, &res));
	CHECK(res == (void *)0x5a5a, "result %p", res);
	CHECK(s->getattr_err == 0, "pthread_getattr_np in thread: %s", errname(s->getattr_err));
	CHECK(inside(s->local, s->stackaddr, s->stacksize),
	      "local %p not in reported stack [%p, +%zu)", (void *)s->local, s->stackaddr,
	      s->stacksize);
}

static void default_attr(void)
{
	pthread_attr_t a;
	size_t ss, gs;
	int v;
	struct sched_param sp;
	struct rlimit rl;

	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_getstacksize(&a, &ss));
	getrlimit(RLIMIT_STACK, &rl);
	size_t want = rl.rlim_cur == RLIM_INFINITY ? 2u << 20 : rl.rlim_cur;
	CHECK(ss == want, "default stacksize %zu, RLIMIT_STACK says %zu", ss, want);
	SAY("default attr: stacksize = RLIMIT_STACK (%zu KiB)", ss / 1024);
	pthread_attr_getguardsize(&a, &gs);
	CHECK(gs == page, "default guard %zu", gs);
	SAY("default attr: guardsize = one page");
	pthread_attr_getdetachstate(&a, &v);
	SAY("default attr: detachstate %s", v == PTHREAD_CREATE_JOINABLE ? "JOINABLE" : "DETACHED");
	pthread_attr_getinheritsched(&a, &v);
	SAY("default attr: inheritsched %s", v == PTHREAD_INHERIT_SCHED ? "INHERIT" : "EXPLICIT");
	pthread_attr_getschedpolicy(&a, &v);
	pthread_attr_getschedparam(&a, &sp);
	SAY("default attr: policy %d prio %d", v, sp.sched_priority);
	pthread_attr_destroy(&a);
}

/* A thread on a stack the program allocated itself: its locals live
 * there, pthread_getattr_np reports exactly that region, and after the
 * join the memory is the program's again. */
static void user_stack(const char *what, char *mem, size_t size)
{
	pthread_attr_t a;
	struct seen s;
	void *addr;
	size_t sz;

	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_setstack(&a, mem, size));
	EXPECT_ERR(0, pthread_attr_getstack(&a, &addr, &sz));
	CHECK(addr == mem && sz == size, "attr_getstack %p %zu", addr, sz);
	run_described(&a, &s);
	pthread_attr_destroy(&a);
	CHECK(inside(s.local, mem, size), "%s stack: local %p outside [%p, +%zu)", what,
	      (void *)s.local, (void *)mem, size);
	CHECK(s.stackaddr == mem && s.stacksize == size,
	      "%s stack: getattr_np reports [%p, +%zu), given [%p, +%zu)", what, s.stackaddr,
	      s.stacksize, (void *)mem, size);
	SAY("%s stack: local inside it, getattr_np reports it, guardsize %zu", what, s.guardsize);
}

static void user_stacks(void)
{
	size_t size = 256 * 1024;
	char *mem;
	CHECK(posix_memalign((void **)&mem, 64, size) == 0, "posix_memalign");
	memset(mem, 0xa5, size);
	user_stack("malloc'ed", mem, size);
	/* the same memory again, for a second thread */
	user_stack("malloc'ed (reused)", mem, size);
	memset(mem, 0, size);	/* ours again */
	free(mem);

	size = 512 * 1024;
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		   -1, 0);
	CHECK(mem != MAP_FAILED, "mmap");
	user_stack("mmap'ed", mem, size);
	CHECK(munmap(mem, size) == 0, "munmap");

	/* the smallest stack glibc accepts, at an odd address */
	size = PTHREAD_STACK_MIN;
	mem = malloc(size + 64);
	CHECK(mem, "malloc");
	user_stack("PTHREAD_STACK_MIN-sized, odd-address", mem + 13, size);
	free(mem);

	/* nothing may still use the unmapped or freed memory */
	for (int i = 0; i < 50; i++) {
		struct seen s;
		run_described(NULL, &s);
	}
	SAY("50 threads after the user stacks were freed: fine");
}

static void guard_size(void)
{
	pthread_attr_t a;
	size_t gs;
	struct seen s;

	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_setguardsize(&a, 3 * page));
	pthread_attr_getguardsize(&a, &gs);
	CHECK(gs == 3 * page, "guard %zu", gs);
	run_described(&a, &s);
	CHECK(s.guardsize == 3 * page, "getattr_np guard %zu", s.guardsize);
	SAY("guardsize 3 pages: stored, returned, and reported by getattr_np");
	EXPECT_ERR(0, pthread_attr_setguardsize(&a, 0));
	pthread_attr_getguardsize(&a, &gs);
	CHECK(gs == 0, "guard %zu", gs);
	run_described(&a, &s);
	CHECK(s.guardsize == 0, "getattr_np guard %zu", s.guardsize);
	SAY("guardsize 0: stored, returned, and reported by getattr_np");
	EXPECT_ERR(0, pthread_attr_setguardsize(&a, 100));
	pthread_attr_getguardsize(&a, &gs);
	SAY("guardsize 100: attr returns %zu", gs);
	pthread_attr_destroy(&a);
}

/* Use `bytes` of stack below this frame, touching every page. */
static void *deep_user(void *arg)
{
	size_t bytes = (size_t)arg;
	volatile char *p = __builtin_alloca(bytes);
	for (size_t i = 0; i < bytes; i += page)
		p[i] = 1;
	return (void *)(long)p[0];
}

static void stack_size(void)
{
	pthread_attr_t a;
	size_t ss;
	struct seen s;

	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_setstacksize(&a, 1 << 20));
	pthread_attr_getstacksize(&a, &ss);
	CHECK(ss == 1 << 20, "stacksize %zu", ss);
	run_described(&a, &s);
	CHECK(s.stacksize >= 1 << 20, "getattr_np stacksize %zu", s.stacksize);
	SAY("stacksize 1 MiB: stored, returned, getattr_np reports at least that, local inside");
	EXPECT_ERR(0, pthread_attr_setstacksize(&a, 16 << 20));
	run_described(&a, &s);
	CHECK(s.stacksize >= 16 << 20, "getattr_np stacksize %zu", s.stacksize);
	pthread_t t;
	void *res;
	EXPECT_ERR(0, pthread_create(&t, &a, deep_user, (void *)(size_t)(12 << 20)));
	EXPECT_ERR(0, pthread_join(t, &res));
	CHECK(res == (void *)1, "deep_user returned %p", res);
	SAY("stacksize 16 MiB: getattr_np reports at least that, local inside, 12 MiB usable");
	size_t odd = (size_t)PTHREAD_STACK_MIN + 1000;
	EXPECT_ERR(0, pthread_attr_setstacksize(&a, odd));
	pthread_attr_getstacksize(&a, &ss);
	CHECK(ss == odd, "stacksize %zu", ss);
	run_described(&a, &s);
	CHECK(s.stacksize >= (size_t)PTHREAD_STACK_MIN, "getattr_np stacksize %zu", s.stacksize);
	SAY("stacksize MIN+1000: stored exactly, thread runs with at least MIN");
	pthread_attr_destroy(&a);
}

static void detach_state(void)
{
	pthread_attr_t a;
	pthread_t t;
	int v;
	struct seen s;

	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED));
	pthread_attr_getdetachstate(&a, &v);
	CHECK(v == PTHREAD_CREATE_DETACHED, "detachstate %d", v);
	memset(&s, 0, sizeof s);
	EXPECT_ERR(0, pthread_create(&t, &a, describer, &s));
	wait_flag(&s.ready);
	/* it runs until released: joining it is an error, not a wait */
	EXPECT_ERR(EINVAL, pthread_join(t, NULL));
	CHECK(s.detachstate == PTHREAD_CREATE_DETACHED, "getattr_np detachstate %d", s.detachstate);
	pthread_attr_t ga;
	EXPECT_ERR(0, pthread_getattr_np(t, &ga));
	pthread_attr_getdetachstate(&ga, &v);
	CHECK(v == PTHREAD_CREATE_DETACHED, "getattr_np from main: detachstate %d", v);
	pthread_attr_destroy(&ga);
	atomic_store(&s.release, 1);
	SAY("detached thread: attr stores it, join says EINVAL, getattr_np says DETACHED");

	/* a joinable one, detached while it runs */
	memset(&s, 0, sizeof s);
	EXPECT_ERR(0, pthread_create(&t, NULL, describer, &s));
	wait_flag(&s.ready);
	CHECK(s.detachstate == PTHREAD_CREATE_JOINABLE, "detachstate %d", s.detachstate);
	EXPECT_ERR(0, pthread_detach(t));
	EXPECT_ERR(0, pthread_getattr_np(t, &ga));
	pthread_attr_getdetachstate(&ga, &v);
	CHECK(v == PTHREAD_CREATE_DETACHED, "after pthread_detach: detachstate %d", v);
	pthread_attr_destroy(&ga);
	EXPECT_ERR(EINVAL, pthread_join(t, NULL));
	atomic_store(&s.release, 1);
	SAY("joinable thread: getattr_np says JOINABLE, after pthread_detach DETACHED, join EINVAL");
	pthread_attr_destroy(&a);
}

static void sched_attrs(void)
{
	pthread_attr_t a;
	int v;
	struct sched_param sp = {.sched_priority = 0};
	struct seen s;

	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED));
	pthread_attr_getinheritsched(&a, &v);
	CHECK(v == PTHREAD_EXPLICIT_SCHED, "inheritsched %d", v);
	EXPECT_ERR(0, pthread_attr_setschedpolicy(&a, SCHED_FIFO));
	pthread_attr_getschedpolicy(&a, &v);
	CHECK(v == SCHED_FIFO, "policy %d", v);
	sp.sched_priority = 10;
	EXPECT_ERR(0, pthread_attr_setschedparam(&a, &sp));
	sp.sched_priority = -1;
	pthread_attr_getschedparam(&a, &sp);
	CHECK(sp.sched_priority == 10, "prio %d", sp.sched_priority);
	SAY("inheritsched EXPLICIT, policy FIFO, prio 10: stored and returned");
	EXPECT_ERR(0, pthread_attr_setschedpolicy(&a, SCHED_OTHER));
	sp.sched_priority = 0;
	EXPECT_ERR(0, pthread_attr_setschedparam(&a, &sp));
	run_described(&a, &s);
	CHECK(s.policy == SCHED_OTHER && s.prio == 0, "thread has policy %d prio %d", s.policy,
	      s.prio);
	SAY("thread created with EXPLICIT OTHER/0 runs with OTHER/0");
	EXPECT_ERR(EINVAL, pthread_attr_setschedpolicy(&a, SCHED_BATCH));
	SAY("attr policy BATCH: EINVAL");
	if (geteuid() == 0) {
		/* real-time policies need privilege under NPTL */
		EXPECT_ERR(0, pthread_attr_setschedpolicy(&a, SCHED_FIFO));
		sp.sched_priority = 10;
		EXPECT_ERR(0, pthread_attr_setschedparam(&a, &sp));
		run_described(&a, &s);
		CHECK(s.policy == SCHED_FIFO && s.prio == 10, "thread has policy %d prio %d",
		      s.policy, s.prio);
		SAY("thread created with EXPLICIT FIFO/10 runs with FIFO/10 (root)");
	} else {
		SAY("thread created with EXPLICIT FIFO/10: skipped (not root)");
	}
	pthread_attr_destroy(&a);
	/* INHERIT (the default): the creator's policy */
	run_described(NULL, &s);
	CHECK(s.policy == SCHED_OTHER && s.prio == 0, "thread has policy %d prio %d", s.policy,
	      s.prio);
	SAY("thread created with default attr runs with OTHER/0");
}

static void affinity_attr(void)
{
	cpu_set_t all, one, got;
	pthread_attr_t a;
	struct seen s;
	int first = -1;

	CHECK(sched_getaffinity(0, sizeof all, &all) == 0, "sched_getaffinity");
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &all))
			first = c;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_setaffinity_np(&a, sizeof one, &one));
	CPU_ZERO(&got);
	EXPECT_ERR(0, pthread_attr_getaffinity_np(&a, sizeof got, &got));
	CHECK(CPU_EQUAL(&got, &one), "attr affinity differs");
	SAY("affinity attr {first CPU}: stored and returned");
	run_described(&a, &s);
	CHECK(s.affinity_err == 0 && CPU_EQUAL(&s.affinity, &one),
	      "thread's affinity: err %s, %d CPUs", errname(s.affinity_err),
	      CPU_COUNT(&s.affinity));
	SAY("thread created with it: pthread_getaffinity_np gives {first CPU}");
	pthread_attr_destroy(&a);
	run_described(NULL, &s);
	CHECK(s.affinity_err == 0 && CPU_EQUAL(&s.affinity, &all),
	      "default thread's affinity: err %s, %d CPUs", errname(s.affinity_err),
	      CPU_COUNT(&s.affinity));
	SAY("thread created without it: affinity = the process's");
}

struct main_view {
	pthread_t main;
	int err;
	void *addr;
	size_t size;
};

static void *view_main(void *arg)
{
	struct main_view *mv = arg;
	pthread_attr_t a;
	mv->err = pthread_getattr_np(mv->main, &a);
	if (mv->err == 0) {
		pthread_attr_getstack(&a, &mv->addr, &mv->size);
		pthread_attr_destroy(&a);
	}
	return NULL;
}

static void getattr_running(void)
{
	struct seen s;
	pthread_t t;
	pthread_attr_t a;
	void *addr;
	size_t ss, gs;
	int v;

	memset(&s, 0, sizeof s);
	EXPECT_ERR(0, pthread_create(&t, NULL, describer, &s));
	wait_flag(&s.ready);
	/* from inside */
	CHECK(s.getattr_err == 0, "getattr_np: %s", errname(s.getattr_err));
	CHECK(inside(s.local, s.stackaddr, s.stacksize), "local not inside");
	CHECK(s.guardsize == page, "guard %zu", s.guardsize);
	CHECK(s.detachstate == PTHREAD_CREATE_JOINABLE, "detachstate %d", s.detachstate);
	pthread_attr_init(&a);
	pthread_attr_getstacksize(&a, &ss);
	pthread_attr_destroy(&a);
	CHECK(s.stacksize == ss, "running thread's stack %zu, default %zu", s.stacksize, ss);
	/* from another thread, while it runs */
	EXPECT_ERR(0, pthread_getattr_np(t, &a));
	pthread_attr_getstack(&a, &addr, &ss);
	pthread_attr_getguardsize(&a, &gs);
	pthread_attr_getdetachstate(&a, &v);
	pthread_attr_destroy(&a);
	CHECK(addr == s.stackaddr && ss == s.stacksize && gs == s.guardsize,
	      "seen from main: [%p, +%zu) guard %zu; from itself [%p, +%zu) guard %zu", addr, ss,
	      gs, s.stackaddr, s.stacksize, s.guardsize);
	CHECK(v == PTHREAD_CREATE_JOINABLE, "detachstate %d", v);
	atomic_store(&s.release, 1);
	EXPECT_ERR(0, pthread_join(t, NULL));
	SAY("getattr_np of a running thread: default size, local inside, one guard page, JOINABLE,"
	    " same from itself and from main");

	/* the main thread */
	char local;
	EXPECT_ERR(0, pthread_getattr_np(pthread_self(), &a));
	pthread_attr_getstack(&a, &addr, &ss);
	pthread_attr_getdetachstate(&a, &v);
	pthread_attr_destroy(&a);
	CHECK(inside(&local, addr, ss), "main's local %p not in [%p, +%zu)", (void *)&local, addr,
	      ss);
	CHECK(v == PTHREAD_CREATE_JOINABLE, "main detachstate %d", v);
	struct main_view mv = {.main = pthread_self()};
	EXPECT_ERR(0, pthread_create(&t, NULL, view_main, &mv));
	EXPECT_ERR(0, pthread_join(t, NULL));
	CHECK(mv.err == 0 && mv.addr == addr && mv.size == ss,
	      "main's stack seen from a thread: %s [%p, +%zu), from main [%p, +%zu)",
	      errname(mv.err), mv.addr, mv.size, addr, ss);
	SAY("getattr_np of the main thread: local inside, JOINABLE, the same seen from a thread");
}

static void defaults(void)
{
	pthread_attr_t a, d;
	size_t ss;
	struct seen s;

	EXPECT_ERR(0, pthread_getattr_default_np(&d));
	pthread_attr_getstacksize(&d, &ss);
	pthread_attr_destroy(&d);
	pthread_attr_init(&a);
	size_t plain;
	pthread_attr_getstacksize(&a, &plain);
	CHECK(ss == plain, "getattr_default_np stacksize %zu, attr_init %zu", ss, plain);
	SAY("getattr_default_np: stacksize = the default attr's");

	EXPECT_ERR(0, pthread_attr_setstacksize(&a, 32 << 20));
	EXPECT_ERR(0, pthread_setattr_default_np(&a));
	pthread_attr_destroy(&a);
	EXPECT_ERR(0, pthread_getattr_default_np(&d));
	pthread_attr_getstacksize(&d, &ss);
	pthread_attr_destroy(&d);
	CHECK(ss == 32 << 20, "new default %zu", ss);
	pthread_attr_init(&a);
	pthread_attr_getstacksize(&a, &ss);
	pthread_attr_destroy(&a);
	CHECK(ss == 32 << 20, "attr_init now says %zu", ss);
	SAY("setattr_default_np(32 MiB): getattr_default_np and a new attr say 32 MiB");
	/* larger than any stack made so far: a thread created now must get
	 * the new size (and can use it) */
	run_described(NULL, &s);
	CHECK(s.stacksize >= 32 << 20, "thread created with NULL attr: stack %zu", s.stacksize);
	pthread_attr_init(&a);
	run_described(&a, &s);
	CHECK(s.stacksize >= 32 << 20, "thread created with attr_init attr: stack %zu", s.stacksize);
	pthread_t t;
	void *res;
	EXPECT_ERR(0, pthread_create(&t, &a, deep_user, (void *)(size_t)(24 << 20)));
	pthread_attr_destroy(&a);
	EXPECT_ERR(0, pthread_join(t, &res));
	CHECK(res == (void *)1, "deep_user returned %p", res);
	SAY("threads created afterwards have 32 MiB stacks, locals inside, 24 MiB usable");

	/* a default guard size: threads created with a NULL attr get it */
	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_setstacksize(&a, 1 << 20));
	EXPECT_ERR(0, pthread_attr_setguardsize(&a, 2 * page));
	EXPECT_ERR(0, pthread_setattr_default_np(&a));
	pthread_attr_destroy(&a);
	EXPECT_ERR(0, pthread_getattr_default_np(&d));
	size_t gs;
	pthread_attr_getguardsize(&d, &gs);
	pthread_attr_destroy(&d);
	CHECK(gs == 2 * page, "default guard %zu", gs);
	run_described(NULL, &s);
	CHECK(s.guardsize == 2 * page, "thread created with NULL attr: guard %zu", s.guardsize);
	SAY("setattr_default_np(guard 2 pages): a thread created with NULL attr has 2 guard pages");

	/* a default with a stack address is refused */
	static char mem[64 * 1024];
	pthread_attr_init(&a);
	pthread_attr_setstack(&a, mem, sizeof mem);
	EXPECT_ERR(EINVAL, pthread_setattr_default_np(&a));
	pthread_attr_destroy(&a);
	SAY("setattr_default_np with a stack address: EINVAL");

	pthread_attr_init(&a);
	EXPECT_ERR(0, pthread_attr_setstacksize(&a, 2 << 20));
	EXPECT_ERR(0, pthread_setattr_default_np(&a));
	pthread_attr_destroy(&a);
	EXPECT_ERR(0, pthread_getattr_default_np(&d));
	pthread_attr_getstacksize(&d, &ss);
	pthread_attr_destroy(&d);
	CHECK(ss == 2 << 20, "new default %zu", ss);
	run_described(NULL, &s);
	CHECK(s.stacksize >= 2 << 20, "after a third change: stack %zu", s.stacksize);
	SAY("setattr_default_np(2 MiB): getattr_default_np says so, the next thread runs");
}

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	default_attr();
	getattr_running();
	user_stacks();
	guard_size();
	stack_size();
	detach_state();
	sched_attrs();
	affinity_attr();
	defaults();
	SAY("PASS api_attr");
	return 0;
}
