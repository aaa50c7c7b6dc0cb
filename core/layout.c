/* SPDX-License-Identifier: MIT */
/*
 * core/layout.c — glibc's private layout, found at start-up (layout.h).
 */
#include "core/layout.h"
#include "core/config.h"
#include "core/os.h"
#include "core/real.h"
#include "core/rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <resolv.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/syscall.h>

struct glibc_layout glibc_layout;

static const char *const field_name[LAYOUT_NFIELDS] = {
	"size", "list", "tid", "robust_prev", "robust_head", "cancelhandling",
	"specific_1stblock", "specific", "specific_used", "user_stack",
	"start_routine", "stackblock", "stackblock_size", "guardsize", "res",
	"sigmask", "tls_state", "getrandom_buf", "rseq_area",
	"_dl_stack_used", "_dl_stack_user", "_dl_stack_cache_lock",
};

/* Bytes each field spans (the overlap check). */
static long field_len(int f)
{
	switch (f) {
	case LAYOUT_LIST: return 16;
	case LAYOUT_ROBUST_HEAD: return 24;
	case LAYOUT_TID: case LAYOUT_CANCEL: return 4;
	case LAYOUT_SPECIFIC1: return glibc_layout.nspecific * 16;
	case LAYOUT_SPECIFIC: return glibc_layout.nspecific * 8;
	case LAYOUT_SPECIFIC_USED: case LAYOUT_USER_STACK: return 1;
	case LAYOUT_START: case LAYOUT_TLS_STATE: return 16;
	case LAYOUT_RES: return sizeof(struct __res_state);
	case LAYOUT_RSEQ: return 32;
	case LAYOUT_STACK_USED: case LAYOUT_STACK_USER: return 16;
	case LAYOUT_STACK_LOCK: return 4;
	default: return 8;
	}
}

static void set(int f, long off, char how)
{
	glibc_layout.off[f] = off;
	glibc_layout.how[f] = how;
}

#define W(a) (*(const uintptr_t *)(a))

/* --- what glibc publishes ----------------------------------------------- */

/* A GLIBC_PRIVATE symbol; for a libthread_db descriptor: {bits, count,
 * offset} (bits of the whole field, count 1 but for arrays of unknown
 * size), or {size} for sizeof_. */
static const uint32_t *desc(const char *name)
{
	return dlvsym(RTLD_DEFAULT, name, "GLIBC_PRIVATE");
}

static bool from_descriptors(char *why, size_t len)
{
	static const struct { const char *name; int f; } d[] = {
		{"_thread_db_pthread_list", LAYOUT_LIST},
		{"_thread_db_pthread_tid", LAYOUT_TID},
		{"_thread_db_pthread_specific", LAYOUT_SPECIFIC},
		{"_thread_db_pthread_start_routine", LAYOUT_START},
		{"_thread_db_pthread_cancelhandling", LAYOUT_CANCEL},
		{"_thread_db_rtld_global__dl_stack_used", LAYOUT_STACK_USED},
		{"_thread_db_rtld_global__dl_stack_user", LAYOUT_STACK_USER},
	};
	const uint32_t *sz = desc("_thread_db_sizeof_pthread");
	if (!sz) {
		rt_snprintf(why, len, "size: glibc publishes no _thread_db_sizeof_pthread");
		return false;
	}
	set(LAYOUT_SIZE, sz[0], 'd');
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
		const uint32_t *v = desc(d[i].name);
		if (!v) {
			rt_snprintf(why, len, "%s: glibc publishes no %s", field_name[d[i].f],
				    d[i].name);
			return false;
		}
		set(d[i].f, v[2], 'd');
		if (d[i].f == LAYOUT_SPECIFIC)	/* bits of the whole array */
			glibc_layout.nspecific = (int)(v[0] / 64);
	}
	/* the TCB header's DTV pointer, which tls.c uses at its fixed place */
	const uint32_t *dtvp = desc("_thread_db_pthread_dtvp");
	if (!dtvp || dtvp[2] != 8) {
		rt_snprintf(why, len, "dtv: the TCB header's DTV pointer is not at offset 8");
		return false;
	}
	/* specific_used, report_events and user_stack follow specific[]:
	 * report_events is published, the other two are its neighbours */
	const uint32_t *re = desc("_thread_db_pthread_report_events");
	long used = LO(SPECIFIC) + 8L * glibc_layout.nspecific;
	if (!re || re[2] != used + 1) {
		rt_snprintf(why, len, "user_stack: report_events is not where specific[] ends");
		return false;
	}
	set(LAYOUT_SPECIFIC_USED, used, 's');
	set(LAYOUT_USER_STACK, used + 2, 's');
	/* glibc 2.35 and later register an rseq area; 2.34 none */
	const long *rseq = dlsym(RTLD_DEFAULT, "__rseq_offset");
	if (rseq)
		set(LAYOUT_RSEQ, *rseq, 'd');
	else
		set(LAYOUT_RSEQ, LAYOUT_NONE, '-');
	return true;
}

/* --- the probe thread ---------------------------------------------------- */

#define PROBE_STACK (128 * 1024)
#define PROBE_GUARD (2 * 4096 + 1)	/* glibc rounds it up to 3 pages */
#define PROBE_NAME "gmp-layout"
#define PROBE_WORDS 2048		/* largest descriptor looked at: 16 KiB */
#define PROBE_WAIT_NS (100 * 1000 * 1000)

struct probe {
	_Atomic uint32_t state;		/* 0 started, 1 reported, 2 may end */
	uintptr_t tp, resp, local;
	long resp_off;			/* __resp from the thread pointer */
	uintptr_t robust_head;
	int tid;
	long getrandom;			/* the word getrandom set, or LAYOUT_NONE */
	uint64_t mask;			/* the signal mask it was started with */
	uintptr_t words[PROBE_WORDS];	/* the descriptor before getrandom */
};

/* The word of the descriptor glibc's getrandom sets on first use (its
 * vDSO state), where the kernel offers getrandom in the vDSO. */
static long find_getrandom(struct probe *p, long size)
{
	uintptr_t tp = p->tp;
	long nw = size / 8, found = LAYOUT_NONE;
	memcpy(p->words, (void *)tp, nw * 8);
	char buf[8];
	if (getrandom(buf, sizeof buf, GRND_NONBLOCK) < 0)
		return LAYOUT_NONE;
	for (long i = 0; i < nw; i++) {
		uintptr_t now = W(tp + 8 * i);
		if (p->words[i] == 0 && now != 0) {
			if (found != LAYOUT_NONE)
				return LAYOUT_NONE;	/* more than one: unsure */
			found = 8 * i;
		}
	}
	return found;
}

static _Atomic int probe_tid;

int layout_probe_tid(void)
{
	return ld_acq(&probe_tid);
}

static void *probe_main(void *arg)
{
	struct probe *p = arg;
	char local = 0;
	/* the program's signals are for its own threads: glibc has restored
	 * the mask from the descriptor; block them all (the descriptor keeps
	 * the mask it was started with) */
	uint64_t all = ~0ull;
	arch_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, 8);
	p->tp = arch_tp();
	p->local = (uintptr_t)&local;
	p->tid = (int)arch_syscall0(SYS_gettid);
	st_rel(&probe_tid, p->tid);
	size_t hlen;
	arch_syscall3(SYS_get_robust_list, 0, &p->robust_head, &hlen);
	p->resp = W(p->tp + p->resp_off);	/* its __resp, in static TLS */
	arch_syscall2(SYS_prctl, PR_SET_NAME, PROBE_NAME);
	p->getrandom = find_getrandom(p, (long)glibc_layout.off[LAYOUT_SIZE]);
	st_rel(&p->state, 1);
	os_futex_wake(&p->state, 1);
	while (ld_acq(&p->state) != 2)
		os_futex_wait(&p->state, 1, PROBE_WAIT_NS);
	return NULL;	/* probe_tid stays until the join: glibc's thread exit
			 * runs the program's key destructors (jemalloc's) */
}

/* Signals the probe thread starts with blocked besides the caller's: a
 * set no program blocks at start, found again in its descriptor. */
static uint64_t probe_mask(void)
{
	static const int sigs[] = {SIGURG, SIGXFSZ, SIGWINCH, 40, 51, 62};
	uint64_t m = 0;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		m |= 1ull << (sigs[i] - 1);
	return m;
}

static int probe_start(struct probe *p, pthread_t *th)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PROBE_STACK);
	pthread_attr_setguardsize(&a, PROBE_GUARD);
	uint64_t mask = probe_mask(), old;
	arch_syscall4(SYS_rt_sigprocmask, SIG_BLOCK, &mask, &old, 8);
	p->mask = old | mask;
	int err = real_pthread_create(th, &a, probe_main, p);
	arch_syscall4(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, 8);
	pthread_attr_destroy(&a);
	if (err)
		return err;
	for (int i = 0; i < 50 && ld_acq(&p->state) == 0; i++)
		os_futex_wait(&p->state, 0, PROBE_WAIT_NS);
	return ld_acq(&p->state) == 1 ? 0 : ETIMEDOUT;
}

/* --- looking the probe's values up ----------------------------------------- */

/* The only offset o (8-aligned) of the descriptor at tp where pred, which
 * reads `width` bytes from there, holds; -1 when none or more than one. */
static long find_unique(uintptr_t tp, long size, long width,
			bool (*pred)(uintptr_t, const void *), const void *ctx)
{
	long found = -1;
	for (long o = 0; o + width <= size; o += 8) {
		if (!pred(tp + o, ctx))
			continue;
		if (found >= 0)
			return -1;
		found = o;
	}
	return found;
}

static bool is_stack(uintptr_t a, const void *ctx)
{
	const struct probe *p = ctx;
	uintptr_t base = W(a), size = W(a + 8), guard = W(a + 16), reported = W(a + 24);
	return base && base <= p->local && p->local - base < size &&
	       size >= PROBE_STACK && size < (1ul << 32) &&
	       guard >= PROBE_GUARD && guard % 4096 == 0 && guard < size &&
	       reported == guard;	/* reported_guardsize: the same, rounded up */
}

/* glibc's own signals (SIGCANCEL, SIGSETXID) may differ: it takes them
 * out of a new thread's mask */
static bool is_mask(uintptr_t a, const void *ctx)
{
	const struct probe *p = ctx;
	const uint64_t own = 3ull << 31;
	return (W(a) & ~own) == (p->mask & ~own);
}

/* Is node on the circular list at head (at most max steps)? */
static bool on_list(uintptr_t head, uintptr_t node, int max)
{
	uintptr_t n = W(head);
	for (int i = 0; i < max && n && n != head; i++, n = W(n))
		if (n == node)
			return true;
	return false;
}

#define FAIL(...) do { rt_snprintf(why, len, __VA_ARGS__); return false; } while (0)

/* Fields glibc publishes, checked against the running probe thread. */
static bool check_published(const struct probe *p, pthread_t th, char *why, size_t len)
{
	uintptr_t pd = p->tp;
	const char *rtld = (const char *)desc("_rtld_global");
	if (pd != (uintptr_t)th || W(pd + 0x10) != pd)
		FAIL("size: the probe thread's pthread_t is not its thread pointer");
	if (*(const int *)(pd + LO(TID)) != p->tid)
		FAIL("tid: the probe thread's descriptor does not hold its tid");
	if (W(pd + LO(START)) != (uintptr_t)probe_main || W(pd + LO(START) + 8) != (uintptr_t)p)
		FAIL("start_routine: the probe thread's descriptor does not hold its start");
	if (!rtld || !on_list((uintptr_t)rtld + LO(STACK_USED), pd + LO(LIST), 1 << 20))
		FAIL("_dl_stack_used: the probe thread is not on ld.so's list of stacks");
	if (!on_list((uintptr_t)rtld + LO(STACK_USER), arch_tp() + LO(LIST), 1 << 20))
		FAIL("_dl_stack_user: the initial thread is not on ld.so's list of stacks");
	int cancel = *(const int *)(pd + LO(CANCEL));
	if (cancel & ~0x3)
		FAIL("cancelhandling: the probe thread's cancel state is %#x", cancel);
	return true;
}

static bool name_is_probe(int tid)
{
	char path[64], name[32] = "";
	rt_snprintf(path, sizeof path, "/proc/self/task/%d/comm", tid);
	long fd = arch_syscall3(SYS_open, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return true;	/* no /proc: the tid was checked by value */
	long n = arch_syscall3(SYS_read, fd, name, sizeof name - 1);
	arch_syscall1(SYS_close, fd);
	return n > 0 && strncmp(name, PROBE_NAME "\n", sizeof PROBE_NAME) == 0;
}

/* Fields found from the probe thread's own values. */
static bool find_probed(const struct probe *p, char *why, size_t len)
{
	uintptr_t pd = p->tp;
	long size = LO(SIZE), o;
	if (!name_is_probe(*(const int *)(pd + LO(TID))))
		FAIL("tid: the thread named by the descriptor's tid is not the probe");
	uintptr_t s1 = W(pd + LO(SPECIFIC));
	if (s1 <= pd || s1 - pd != (uintptr_t)(LO(SPECIFIC) - 16L * glibc_layout.nspecific))
		FAIL("specific_1stblock: specific[0] does not point just before specific[]");
	set(LAYOUT_SPECIFIC1, (long)(s1 - pd), 'p');
	if (p->robust_head <= pd || p->robust_head - pd >= (uintptr_t)size ||
	    W(p->robust_head) != p->robust_head || W(p->robust_head - 8) != p->robust_head)
		FAIL("robust_head: the kernel's robust list head is not in the descriptor");
	set(LAYOUT_ROBUST_HEAD, (long)(p->robust_head - pd), 'p');
	set(LAYOUT_ROBUST_PREV, LO(ROBUST_HEAD) - 8, 'p');
	if ((o = find_unique(pd, size, 32, is_stack, p)) < 0)
		FAIL("stackblock: no single place holds the probe thread's stack and guard");
	set(LAYOUT_STACKBLOCK, o, 'p');
	set(LAYOUT_STACKSIZE, o + 8, 'p');
	set(LAYOUT_GUARDSIZE, o + 16, 'p');
	if (p->resp <= pd || p->resp - pd >= (uintptr_t)size)
		FAIL("res: __resp of the probe thread is not in its descriptor");
	set(LAYOUT_RES, (long)(p->resp - pd), 'p');
	if ((o = find_unique(pd, size, 8, is_mask, p)) < 0)
		FAIL("sigmask: no single word holds the probe thread's signal mask");
	set(LAYOUT_SIGMASK, o, 'p');
	set(LAYOUT_TLS_STATE, LAYOUT_NONE, '?');	/* found in the first G */
	set(LAYOUT_GETRANDOM, p->getrandom, p->getrandom == LAYOUT_NONE ? '-' : 'p');
	if (LO(RSEQ) != LAYOUT_NONE) {
		int cpu = *(const int *)(pd + LO(RSEQ) + 4);
		const unsigned *rsize = dlsym(RTLD_DEFAULT, "__rseq_size");
		if (rsize && *rsize ? cpu < 0 || cpu >= 65536 : cpu != -2 && cpu != -1)
			FAIL("rseq_area: cpu_id at __rseq_offset is %d", cpu);
	}
	return true;
}

/* After the join: the probe's stack went to ld.so's stack cache, whose
 * lock sits after the cache head, its size and the in-flight word. */
static bool find_stack_lock(uintptr_t pd, char *why, size_t len)
{
	uintptr_t rtld = (uintptr_t)desc("_rtld_global");
	uintptr_t cache = rtld + LO(STACK_USED) + 32;
	if (!on_list(cache, pd + LO(LIST), 1 << 20) ||
	    W(cache + 16) < W(pd + LO(STACKSIZE)) || W(cache + 24) != 0 ||
	    *(const int *)(cache + 32) != 0)
		FAIL("_dl_stack_cache_lock: the probe's stack is not in ld.so's stack cache");
	set(LAYOUT_STACK_LOCK, LO(STACK_USED) + 64, 's');
	return true;
}

static bool probe(char *why, size_t len)
{
	static struct probe p;	/* 16 KiB: not on the caller's stack */
	pthread_t th;
	if (LO(SIZE) < 1024 || LO(SIZE) > 8 * PROBE_WORDS || LO(SIZE) % 64)
		FAIL("size: struct pthread of %ld bytes is implausible", LO(SIZE));
	const char *resp = (const char *)desc("__resp");
	if (!resp)
		FAIL("res: glibc has no __resp");
	p.resp_off = (long)((uintptr_t)resp - arch_tp());
	int err = probe_start(&p, &th);
	if (err == EAGAIN || err == ENOMEM || err == EPERM)
		FAIL("probe: no thread of glibc's could be started (error %d)", err);
	bool ok = err == 0 && check_published(&p, th, why, len) && find_probed(&p, why, len);
	if (err == 0 || err == ETIMEDOUT) {
		st_rel(&p.state, 2);
		os_futex_wake(&p.state, 1);
		real_pthread_join(th, NULL);
		st_rel(&probe_tid, 0);
	}
	if (err == ETIMEDOUT)
		FAIL("probe: the thread of glibc's it started did not report");
	return ok && find_stack_lock(p.tp, why, len);
}

/* --- plausibility and the tables of tested versions ----------------------- */

static bool plausible(char *why, size_t len)
{
	long size = LO(SIZE);
	for (int f = LAYOUT_LIST; f < LAYOUT_NFIELDS; f++) {
		long o = glibc_layout.off[f], n = field_len(f);
		bool rtld = f >= LAYOUT_STACK_USED;
		if (o == LAYOUT_NONE || (f == LAYOUT_RSEQ && o < 0))
			continue;	/* absent, or in static TLS below the TCB */
		if (o < 0 || (!rtld && o + n > size) || (rtld && o > 65536) ||
		    o % (n >= 8 ? 8 : n) != 0)
			FAIL("%s: offset %ld is outside the descriptor or misaligned",
			     field_name[f], o);
		for (int g = LAYOUT_LIST; g < f; g++) {
			long q = glibc_layout.off[g];
			if (q == LAYOUT_NONE || (g >= LAYOUT_STACK_USED) != rtld ||
			    (g == LAYOUT_RSEQ && q < 0))
				continue;
			if (o < q + field_len(g) && q < o + n)
				FAIL("%s: offset %ld overlaps %s at %ld", field_name[f], o,
				     field_name[g], q);
		}
	}
	if (LO(RSEQ) != LAYOUT_NONE && LO(RSEQ) < 0 && LO(RSEQ) % 32)
		FAIL("rseq_area: __rseq_offset %ld is misaligned", LO(RSEQ));
	return true;
}

/* Layouts of the versions libgmp is tested on (x86-64, Debian's builds),
 * in enum order; rseq_area of 2.41 lies in static TLS, where it depends
 * on the program, and is not compared. */
#define U LAYOUT_NONE
static const struct {
	const char *version;
	long off[LAYOUT_NFIELDS];
} tables[] = {
	{"2.36", {2368, 704, 720, 728, 736, 776, 784, 1296, 1552, 1554, 1592, 1680, 1688, 1696,
		  1720, 2288, 2304, U, 2336, 4264, 4280, 4328}},
	{"2.41", {2368, 704, 720, 728, 736, 776, 784, 1296, 1552, 1554, 1592, 1680, 1688, 1696,
		  1720, 2288, 2312, 2328, 1, 2816, 2832, 2880}},
};
#undef U

static bool confirm(char *why, size_t len)
{
	const char *ver = gnu_get_libc_version();
	for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
		if (strcmp(tables[t].version, ver) != 0)
			continue;
		for (int f = 0; f < LAYOUT_NFIELDS; f++) {
			long want = tables[t].off[f];
			if (want == 1)
				continue;	/* not fixed */
			if (f == LAYOUT_GETRANDOM && glibc_layout.off[f] == LAYOUT_NONE)
				continue;	/* a kernel without getrandom in the vDSO */
			if (f == LAYOUT_TLS_STATE && glibc_layout.off[f] == LAYOUT_NONE)
				continue;	/* found later (layout_find_tls_state) */
			if (glibc_layout.off[f] != want)
				FAIL("%s: found at %ld, glibc %s's table has %ld", field_name[f],
				     glibc_layout.off[f], ver, want);
		}
		glibc_layout.table = true;
	}
	return true;
}

static bool test_hidden(char *why, size_t len)
{
	const char *hide = getenv("GMP_TEST_UNKNOWN_LAYOUT");
	if (!hide)
		return false;
	for (int f = 0; f < LAYOUT_NFIELDS; f++)
		if (strcmp(hide, field_name[f]) == 0) {
			rt_snprintf(why, len, "%s: not found (GMP_TEST_UNKNOWN_LAYOUT)", hide);
			return true;
		}
	rt_snprintf(why, len, "size: not found (GMP_TEST_UNKNOWN_LAYOUT)");
	return true;
}

/* glibc 2.34 moved the threads from libpthread into libc and ld.so's
 * stack lists into _rtld_global: before that, glibc publishes neither. */
static bool version_known(char *why, size_t len)
{
	const char *v = gnu_get_libc_version();
	char *end;
	unsigned long major = strtoul(v, &end, 10), minor = 0;
	if (*end == '.')
		minor = strtoul(end + 1, NULL, 10);
	if (major < 2 || (major == 2 && minor < 34))
		FAIL("size: glibc before 2.34 keeps its threads in libpthread, "
		     "whose private lists libgmp cannot find");
	return true;
}

bool layout_find(char *why, size_t len)
{
	memset(glibc_layout.how, '?', sizeof glibc_layout.how);
	glibc_layout.tls_state = LAYOUT_NONE;
	if (test_hidden(why, len))
		return false;
	real_init();	/* glibc's pthread_create and pthread_join */
	return version_known(why, len) && from_descriptors(why, len) && probe(why, len) &&
	       plausible(why, len) && confirm(why, len);
}

void layout_print(int fd)
{
	rt_printf(fd, "gmp: glibc %s layout (d: published, p: probed, s: fixed place; %s)\n",
		  gnu_get_libc_version(),
		  glibc_layout.table ? "confirmed by the table of this version"
				     : "no table for this version");
	for (int f = 0; f < LAYOUT_NFIELDS; f++) {
		if (f == LAYOUT_TLS_STATE && glibc_layout.how[f] == '?')
			rt_printf(fd, "gmp:   %-22s found in the first thread libgmp starts\n",
				  field_name[f]);
		else if (glibc_layout.off[f] == LAYOUT_NONE)
			rt_printf(fd, "gmp:   %-22s none\n", field_name[f]);
		else
			rt_printf(fd, "gmp:   %-22s %6ld %c\n", field_name[f], glibc_layout.off[f],
				  glibc_layout.how[f]);
	}
}

/*
 * tls_state is found on the first G libgmp starts, on its own fresh TCB
 * before its start routine, not in the probe thread: strsignal and
 * strerror, whose buffers glibc keeps there, take gettext's lock and
 * allocate, and the code that first entered libgmp may hold that lock or
 * the allocator's (a library's constructor inside bindtextdomain, a
 * malloc such as jemalloc starting up). Not found, it stays unknown:
 * glibc's two buffers of a G are then not freed when it ends.
 */
void layout_find_tls_state(uintptr_t tp)
{
	static _Atomic int claimed;
	int zero = 0;
	if (ld_rlx(&claimed) || !cas(&claimed, &zero, 1))
		return;
	uintptr_t sig = (uintptr_t)strsignal(1000), err = (uintptr_t)strerror(100000);
	long found = -1;
	for (long o = 0; sig && err && o + 16 <= LO(SIZE); o += 8) {
		if (W(tp + o) != sig || W(tp + o + 8) != err)
			continue;
		found = found < 0 ? o : -2;	/* more than one: unsure */
	}
	if (found >= 0) {
		*(uintptr_t *)(tp + found) = 0;
		*(uintptr_t *)(tp + found + 8) = 0;
		set(LAYOUT_TLS_STATE, found, 'p');
		char why[160];
		if (!plausible(why, sizeof why) || !confirm(why, sizeof why)) {
			set(LAYOUT_TLS_STATE, LAYOUT_NONE, '-');
			found = -1;
		}
	}
	if (found < 0) {
		/* where glibc keeps them is unknown: leave them to it */
		glibc_layout.how[LAYOUT_TLS_STATE] = '-';
		if (rt_cfg.show_layout)
			rt_printf(2, "gmp:   %-22s not found in the first thread\n",
				  field_name[LAYOUT_TLS_STATE]);
		return;
	}
	free((void *)sig);
	free((void *)err);
	__atomic_store_n(&glibc_layout.tls_state, found, __ATOMIC_RELEASE);
	if (rt_cfg.show_layout)
		rt_printf(2, "gmp:   %-22s %6ld p (in the first thread libgmp started)\n",
			  field_name[LAYOUT_TLS_STATE], found);
}
