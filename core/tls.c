/* SPDX-License-Identifier: MIT */
/*
 * core/tls.c — glibc TCB and TLS glue (see tls.h and TLS.md).
 *
 * Offsets into struct pthread and ld.so's stack lists come from the
 * layout found at start-up (layout.h); where it is not found, tls_init
 * refuses and libgmp passes calls through to glibc.
 */
#include "core/tls.h"
#include "core/g.h"
#include "core/layout.h"
#include "core/lock.h"
#include "core/os.h"
#include "core/rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <resolv.h>
#include <link.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

/* tcbhead_t */
#define TCB_SELF	0x10
#define TCB_MULTI	0x18
#define TCB_CANARY	0x28
#define TCB_PTRGUARD	0x30
#define TCB_FEATURE1	0x48
/* struct pthread and ld.so's stack lists, as found at start (layout.h) */
#define PD_SIZE		LO(SIZE)
#define PD_LIST		LO(LIST)
#define PD_TID		LO(TID)
#define PD_ROBUST_PREV	LO(ROBUST_PREV)
#define PD_ROBUST_HEAD	LO(ROBUST_HEAD)
#define PD_SPECIFIC1	LO(SPECIFIC1)
#define PD_SPECIFIC	LO(SPECIFIC)
#define PD_USER_STACK	LO(USER_STACK)
#define PD_STACKBLOCK	LO(STACKBLOCK)
#define PD_STACKSIZE	LO(STACKSIZE)
#define PD_GUARDSIZE	LO(GUARDSIZE)
#define PD_RES		LO(RES)
#define PD_RSEQ		LO(RSEQ)
#define RTLD_STACK_USER	LO(STACK_USER)
#define RTLD_STACK_LOCK	LO(STACK_LOCK)

struct tls_info tls;

typedef struct {
	uintptr_t counter;
	void *to_free;
} dtv_t;
struct list_head {
	struct list_head *next, *prev;
};

static void *(*dl_allocate_tls)(void *);
static void *(*dl_allocate_tls_init)(void *, bool);
static void (*dl_deallocate_tls)(void *, bool);
static void (*ctype_init)(void);
static void (*call_tls_dtors)(void);
static void (*static_info)(size_t *, size_t *);
static char *rtld_global;
static char *resp_addr;
static long resp_off;			/* __resp from the thread pointer */

/* Words of per-thread state glibc allocates on first use and frees only
 * in its own thread exit, as offsets from the thread pointer: malloc's
 * (tcache, thread_arena, in libc's static TLS block) and, from glibc
 * 2.41, getrandom's vDSO state (in struct pthread). A recycled TCB keeps
 * them; a retired one hands them to the next fresh one. */
#define NCARRY 3
static long carry_off[NCARRY];
static int ncarry;

/* Carried state of retired TCBs, handed to the next fresh one. */
#define SPARE_MAX 4096
static struct rt_mutex spare_lock;	/* leaf */
static uintptr_t spare[SPARE_MAX][NCARRY];
static int nspare;

#define W(tp, off) (*(uintptr_t *)((tp) + (off)))

static void *priv(const char *name)
{
	return dlvsym(RTLD_DEFAULT, name, "GLIBC_PRIVATE");
}

static void clear_ranges_init(void);

/* glibc's private entry points libgmp calls; false if one is missing */
static bool resolve_private(char *why, size_t len)
{
	static const struct { const char *name; void **p; } e[] = {
		{"_dl_allocate_tls", (void **)&dl_allocate_tls},
		{"_dl_allocate_tls_init", (void **)&dl_allocate_tls_init},
		{"_dl_deallocate_tls", (void **)&dl_deallocate_tls},
		{"_dl_get_tls_static_info", (void **)&static_info},
		{"__ctype_init", (void **)&ctype_init},
		{"__call_tls_dtors", (void **)&call_tls_dtors},
		{"_rtld_global", (void **)&rtld_global},
		{"__resp", (void **)&resp_addr},
	};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
		if (!(*e[i].p = priv(e[i].name))) {
			rt_snprintf(why, len, "glibc has no %s@GLIBC_PRIVATE", e[i].name);
			return false;
		}
	return true;
}

bool tls_init(char *why, size_t len)
{
	if (!resolve_private(why, len) || !layout_find(why, len))
		return false;
	uintptr_t tp = arch_tp();
	/* the slots libgmp uses must be free in TCBs glibc makes */
	if (W(tp, GMP_TCB_G_SLOT) != 0 || W(tp, ARCH_TCB_PREEMPT_SLOT) != 0 ||
	    W(tp, TCB_SELF) != tp) {
		rt_snprintf(why, len, "the initial thread's TCB header is not as expected");
		return false;
	}
	size_t size, align;
	static_info(&size, &align);
	if (size <= (size_t)PD_SIZE || align > 4096) {
		rt_snprintf(why, len, "static TLS size %zu is implausible", size);
		return false;
	}
	tls.tcb_size = PD_SIZE;
	tls.align = align < 64 ? 64 : align;
	tls.block = size;
	resp_off = (long)((uintptr_t)resp_addr - tp);
	clear_ranges_init();
	ncarry = 0;
	if (LO(GETRANDOM) != LAYOUT_NONE)
		carry_off[ncarry++] = LO(GETRANDOM);
	return true;
}

uintptr_t tls_tp_for_top(char *top)
{
	return ((uintptr_t)top - PD_SIZE) & ~(uintptr_t)(tls.align - 1);
}

/* --- dl_stack_user registration (glibc's lll lock protocol) ------------- */

static void stack_list_lock(void)
{
	rt_lock((struct rt_mutex *)(rtld_global + RTLD_STACK_LOCK));
}

static void stack_list_unlock(void)
{
	rt_unlock((struct rt_mutex *)(rtld_global + RTLD_STACK_LOCK));
}

static void tls_register(uintptr_t tp)
{
	struct list_head *head = (struct list_head *)(rtld_global + RTLD_STACK_USER);
	struct list_head *n = (struct list_head *)(tp + PD_LIST);
	stack_list_lock();
	n->next = head->next;
	n->prev = head;
	head->next->prev = n;
	atomic_thread_fence(memory_order_release);
	head->next = n;
	stack_list_unlock();
}

static void tls_unregister(uintptr_t tp)
{
	struct list_head *n = (struct list_head *)(tp + PD_LIST);
	stack_list_lock();
	n->next->prev = n->prev;
	n->prev->next = n->next;
	stack_list_unlock();
	n->next = n->prev = n;
}

/* --- per-thread state carried over ------------------------------------------ */

static void carried_save(uintptr_t tp, uintptr_t w[NCARRY])
{
	for (int i = 0; i < ncarry; i++)
		w[i] = W(tp, carry_off[i]);
}

static void carried_restore(uintptr_t tp, const uintptr_t w[NCARRY])
{
	for (int i = 0; i < ncarry; i++)
		W(tp, carry_off[i]) = w[i];
}

static void spare_put(uintptr_t tp)
{
	uintptr_t w[NCARRY] = {0};
	if (!ncarry)
		return;
	carried_save(tp, w);
	bool any = false;
	for (int i = 0; i < ncarry; i++)
		any |= w[i] != 0;
	if (!any)
		return;
	/* from now on the state belongs to the pool, not to tp */
	const uintptr_t none[NCARRY] = {0};
	carried_restore(tp, none);
	rt_lock(&spare_lock);
	if (nspare < SPARE_MAX) {
		memcpy(spare[nspare], w, sizeof w);
		nspare++;
	}
	rt_unlock(&spare_lock);
}

static void spare_adopt(uintptr_t tp)
{
	if (!ncarry || !ld_rlx((_Atomic int *)&nspare))
		return;
	rt_lock(&spare_lock);
	if (nspare > 0) {
		nspare--;
		carried_restore(tp, spare[nspare]);
	}
	rt_unlock(&spare_lock);
}

/* --- TCB set-up ----------------------------------------------------------------- */

/* Mark the rseq area of TCB tp unregistered (cpu_id -2), so that
 * sched_getcpu asks the vDSO on whatever OS thread the G runs (P4). */
static void rseq_unregistered(uintptr_t tp)
{
	if (PD_RSEQ != LAYOUT_NONE)
		*(int32_t *)(tp + PD_RSEQ + 4) = -2;
}

static void fill_tcb(struct g *gp, uintptr_t tp, char *base, size_t size, size_t guard)
{
	uintptr_t me = arch_tp();

	W(tp, 0) = tp;
	W(tp, TCB_SELF) = tp;
	*(int *)(tp + TCB_MULTI) = 1;			/* P1: keep lock prefixes */
	W(tp, TCB_CANARY) = W(me, TCB_CANARY);		/* P2 */
	W(tp, TCB_PTRGUARD) = W(me, TCB_PTRGUARD);	/* P3 */
	*(uint32_t *)(tp + TCB_FEATURE1) = *(uint32_t *)(me + TCB_FEATURE1);
	W(tp, GMP_TCB_G_SLOT) = (uintptr_t)gp;
	*(int *)(tp + PD_TID) = g_tid(gp);		/* P5 */
	W(tp, PD_ROBUST_PREV) = tp + PD_ROBUST_HEAD;
	W(tp, PD_ROBUST_HEAD) = tp + PD_ROBUST_HEAD;
	*(long *)(tp + PD_ROBUST_HEAD + 8) = -32;	/* futex_offset, as nptl */
	W(tp, PD_SPECIFIC) = tp + PD_SPECIFIC1;
	*(char *)(tp + PD_USER_STACK) = 1;
	W(tp, PD_STACKBLOCK) = (uintptr_t)base;
	W(tp, PD_STACKSIZE) = size + guard;
	W(tp, PD_GUARDSIZE) = guard;
	rseq_unregistered(tp);				/* P4 */
}

/*
 * Reset a recycled TCB to what a fresh one holds, touching only what a
 * thread's life can have changed: everything but the DTV pointer, the
 * ld.so list links, the unused rest of glibc's TCB header, the key data
 * (cleared by the key destructor pass) and the resolver state, which is
 * cleared only if it was used (568 bytes, usually on a cold page). The
 * tls_state buffers were freed at G exit. The ranges to clear are worked
 * out once from the layout.
 */
#define NCLEAR 8
static struct { long start, end; } clear_range[NCLEAR];
static int nclear;

static void clear_ranges_init(void)
{
	struct { long start, end; } keep[] = {
		{8, 16},
		{0x80, PD_LIST + 16},
		{PD_SPECIFIC1, PD_SPECIFIC + 8L * glibc_layout.nspecific},
		{PD_RES, PD_RES + (long)sizeof(struct __res_state)},
	};
	const int nkeep = sizeof keep / sizeof keep[0];
	long at = 0;
	nclear = 0;
	while (at < PD_SIZE && nclear < NCLEAR) {
		long next = PD_SIZE;	/* start of the first kept range after at */
		for (int i = 0; i < nkeep; i++) {
			if (keep[i].start <= at && at < keep[i].end) {
				at = keep[i].end;
				i = -1;	/* look again from the new place */
				continue;
			}
			if (keep[i].start > at && keep[i].start < next)
				next = keep[i].start;
		}
		if (at >= PD_SIZE)
			break;
		clear_range[nclear].start = at;
		clear_range[nclear].end = next;
		nclear++;
		at = next;
	}
}

static void clear_tcb_keep_links(uintptr_t tp)
{
	for (int i = 0; i < nclear; i++)
		memset((void *)(tp + clear_range[i].start), 0,
		       clear_range[i].end - clear_range[i].start);
	const uint64_t *res = (const uint64_t *)(tp + PD_RES);
	if (res[0] | res[1] | res[2])	/* retrans/retry, options, nscount */
		memset((void *)(tp + PD_RES), 0, sizeof(struct __res_state));
}

int tls_setup(struct g *gp, uintptr_t tp, char *base, size_t size, size_t guard, bool recycle)
{
	if (!recycle) {
		memset((void *)tp, 0, PD_SIZE);
		if (!dl_allocate_tls((void *)tp))
			return EAGAIN;
		spare_adopt(tp);
		fill_tcb(gp, tp, base, size, guard);
		tls_register(tp);
		return 0;
	}
	uintptr_t w[NCARRY] = {0};
	carried_save(tp, w);
	dtv_t *dtv = (dtv_t *)W(tp, 8);
	size_t n = dtv[-1].counter;
	for (size_t i = 1; i <= n; i++)
		free(dtv[i].to_free);
	memset(dtv, 0, (n + 1) * sizeof(dtv_t));
	clear_tcb_keep_links(tp);
	dl_allocate_tls_init((void *)tp, true);
	carried_restore(tp, w);
	fill_tcb(gp, tp, base, size, guard);
	return 0;
}

void tls_release(uintptr_t tp)
{
	/* free() inside uses the tcache of the calling thread; when that is
	 * tp itself, static TLS stays valid until the caller switches away */
	dl_deallocate_tls((void *)tp, false);
	tls_unregister(tp);
	spare_put(tp);
}

void tls_enter(uintptr_t tp)
{
	ctype_init();
	W(tp, resp_off) = tp + PD_RES;
	if (unlikely(__atomic_load_n(&glibc_layout.how[LAYOUT_TLS_STATE], __ATOMIC_RELAXED) == '?'))
		layout_find_tls_state(tp);
}

void tls_run_dtors(void)
{
	call_tls_dtors();
}

void tls_exit(uintptr_t tp)
{
	long state = __atomic_load_n(&glibc_layout.tls_state, __ATOMIC_ACQUIRE);
	if (state == LAYOUT_NONE)
		return;		/* not found: glibc's buffers stay (a leak) */
	for (int i = 0; i < 2; i++) {
		free((void *)W(tp, state + 8 * i));
		W(tp, state + 8 * i) = 0;
	}
}

void tls_adopt_current(struct g *gp)
{
	uintptr_t tp = arch_tp();
	gp->tcb = tp;
	W(tp, GMP_TCB_G_SLOT) = (uintptr_t)gp;
	/*
	 * The kernel keeps the rseq cpu_id in this TCB up to date for the
	 * initial OS thread; the main G will run on other OS threads too, so
	 * unregister it and mark it unregistered, as every G TCB is (P4):
	 * sched_getcpu then asks the vDSO on whatever OS thread it runs.
	 */
	const unsigned *rseq_size = dlsym(RTLD_DEFAULT, "__rseq_size");
	if (PD_RSEQ == LAYOUT_NONE)
		return;
	int32_t *cpu_id = (int32_t *)(tp + PD_RSEQ + 4);
	if (rseq_size && *rseq_size && *cpu_id >= 0) {
		unsigned len = *rseq_size < 32 ? 32 : *rseq_size;
		if (arch_syscall4(SYS_rseq, tp + PD_RSEQ, len, 1 /* UNREGISTER */,
				  0x53053053 /* glibc's RSEQ_SIG on x86 */) == 0)
			*cpu_id = -2;
	}
}

uintptr_t tls_new_m_tcb(int tid)
{
	size_t len = (tls.block + 4096 + 4095) & ~(size_t)4095;
	char *mem = rt_mmap(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
	if (!mem)
		return 0;
	uintptr_t tp = tls_tp_for_top(mem + len);
	if (!dl_allocate_tls((void *)tp)) {
		rt_munmap(mem, len);
		return 0;
	}
	uintptr_t me = arch_tp();
	W(tp, 0) = tp;
	W(tp, TCB_SELF) = tp;
	*(int *)(tp + TCB_MULTI) = 1;
	W(tp, TCB_CANARY) = W(me, TCB_CANARY);
	W(tp, TCB_PTRGUARD) = W(me, TCB_PTRGUARD);
	*(uint32_t *)(tp + TCB_FEATURE1) = *(uint32_t *)(me + TCB_FEATURE1);
	*(int *)(tp + PD_TID) = tid;
	W(tp, PD_ROBUST_PREV) = tp + PD_ROBUST_HEAD;
	W(tp, PD_ROBUST_HEAD) = tp + PD_ROBUST_HEAD;
	*(long *)(tp + PD_ROBUST_HEAD + 8) = -32;
	W(tp, PD_SPECIFIC) = tp + PD_SPECIFIC1;
	W(tp, PD_LIST) = tp + PD_LIST;		/* self-linked: on no list */
	W(tp, PD_LIST + 8) = tp + PD_LIST;
	rseq_unregistered(tp);
	/* what start_thread would have done on it */
	W(tp, resp_off) = tp + PD_RES;
	os_set_fs(tp);
	ctype_init();
	os_set_fs(me);
	return tp;
}

/* --- malloc probe ---------------------------------------------------------------- */

struct libc_tls {
	uintptr_t block;	/* libc's TLS block in the calling thread */
	size_t size;
};

static int find_libc_tls(struct dl_phdr_info *info, size_t sz, void *arg)
{
	struct libc_tls *lt = arg;
	if (!os_object_is(info->dlpi_name, "libc.so") || !info->dlpi_tls_data)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_TLS)
			lt->size = info->dlpi_phdr[i].p_memsz;
	lt->block = (uintptr_t)info->dlpi_tls_data;
	return 1;
}

/*
 * Give a scratch TCB its own fresh TLS, switch the calling thread to it,
 * malloc once and switch back. The words of libc's block that went from
 * zero to non-zero are malloc's per-thread state (tcache, arena): exactly
 * two are expected, otherwise recycled TCBs do not carry them over.
 */
/* Is the process's malloc glibc's? Another allocator (jemalloc, linked
 * into redis, for one) keeps its per-thread state in its own TLS and
 * lists every thread it saw: a malloc on the scratch TCB below would
 * leave it a thread whose memory is gone. */
static bool malloc_is_glibcs(void)
{
	Dl_info di;
	void *m = dlsym(RTLD_DEFAULT, "malloc");
	return m && dladdr(m, &di) && di.dli_fname && os_object_is(di.dli_fname, "libc.so");
}

void tls_probe_malloc(void)
{
	if (!malloc_is_glibcs())
		return;
	struct libc_tls lt = {0, 0};
	dl_iterate_phdr(find_libc_tls, &lt);
	uintptr_t me = arch_tp();
	if (!lt.block || lt.size == 0 || lt.size > 4096 || lt.block >= me)
		return;
	long block_off = (long)(lt.block - me);

	size_t len = (tls.block + 2 * 4096 + 4095) & ~(size_t)4095;
	char *mem = rt_mmap(len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
	if (!mem)
		return;
	uintptr_t tp = tls_tp_for_top(mem + len);
	if (!dl_allocate_tls((void *)tp)) {
		rt_munmap(mem, len);
		return;
	}
	W(tp, 0) = tp;
	W(tp, TCB_SELF) = tp;
	*(int *)(tp + TCB_MULTI) = 1;
	W(tp, TCB_CANARY) = W(me, TCB_CANARY);
	W(tp, TCB_PTRGUARD) = W(me, TCB_PTRGUARD);
	rseq_unregistered(tp);

	uintptr_t *blk = (uintptr_t *)(tp + block_off);
	size_t nw = lt.size / sizeof(uintptr_t);
	uintptr_t before[512];
	memcpy(before, blk, nw * sizeof(uintptr_t));

	os_set_fs(tp);
	void *volatile x = malloc(32);
	free(x);
	os_set_fs(me);

	long found[3];
	int nf = 0;
	for (size_t i = 0; i < nw; i++)
		if (before[i] == 0 && blk[i] != 0 && nf < 3)
			found[nf++] = block_off + (long)(i * sizeof(uintptr_t));
	if (nf == 2 && ncarry + 2 <= NCARRY) {
		carry_off[ncarry++] = found[0];
		carry_off[ncarry++] = found[1];
	}
	dl_deallocate_tls((void *)tp, false);
	spare_put(tp);
	rt_munmap(mem, len);
}

/*
 * What the kernel does for a thread that exits (kernel/futex/core.c,
 * exit_robust_list), for a G, whose robust list the kernel never sees:
 * every robust mutex still owned (its futex word holds the G's tid) gets
 * FUTEX_OWNER_DIED, and one waiter is woken, so that glibc's robust
 * mutexes report EOWNERDEAD to the next locker.
 */
#define ROBUST_LIST_LIMIT 2048

static void robust_death(uint32_t *uaddr, int tid, bool pi)
{
	_Atomic uint32_t *w = (_Atomic uint32_t *)uaddr;
	uint32_t v = ld_acq(w);
	for (;;) {
		if ((v & FUTEX_TID_MASK) != (uint32_t)tid)
			return;
		uint32_t nv = (v & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
		if (cas(w, &v, nv))
			break;
	}
	if (!pi && (v & FUTEX_WAITERS))
		arch_syscall3(SYS_futex, uaddr, FUTEX_WAKE, 1);	/* robust waits are shared */
}

int tls_tid(uintptr_t tp)
{
	return *(int *)(tp + PD_TID);
}

void tls_set_tid(uintptr_t tp, int tid)
{
	*(int *)(tp + PD_TID) = tid;
}

int *tls_tid_addr(uintptr_t tp)
{
	return (int *)(tp + PD_TID);
}

/* The robust list of TCB tp: each entry's futex word (pending included)
 * to fn. */
static void robust_each(uintptr_t tp, void (*fn)(uint32_t *w, bool pi, void *arg), void *arg)
{
	uintptr_t head = tp + PD_ROBUST_HEAD;
	uintptr_t entry = *(uintptr_t *)head;
	long off = *(long *)(head + 8);
	uintptr_t pending = *(uintptr_t *)(head + 16);
	for (int n = 0; entry && (entry & ~1ul) != head && n < ROBUST_LIST_LIMIT; n++) {
		uintptr_t e = entry & ~1ul;
		uintptr_t next = *(uintptr_t *)e;
		if (e != (pending & ~1ul))
			fn((uint32_t *)(e + off), entry & 1, arg);
		entry = next;
	}
	if (pending)
		fn((uint32_t *)((pending & ~1ul) + off), pending & 1, arg);
}

struct retid {
	uint32_t from, to;
};

/* A robust mutex's word and owner (pthread_mutex_t: __lock, then __count,
 * then __owner) from one tid to the other; the other bits kept. */
static void robust_retid(uint32_t *uaddr, bool pi, void *arg)
{
	(void)pi;
	struct retid *t = arg;
	_Atomic uint32_t *w = (_Atomic uint32_t *)uaddr;
	uint32_t v = ld_acq(w);
	while ((v & FUTEX_TID_MASK) == t->from && !cas(w, &v, (v & ~FUTEX_TID_MASK) | t->to))
		;
	int *owner = (int *)(uaddr + 2);
	if ((uint32_t)*owner == t->from)
		*owner = (int)t->to;
}

int tls_take_tid(uintptr_t tp, int tid)
{
	int old = tls_tid(tp);
	struct retid t = {(uint32_t)old, (uint32_t)tid};
	tls_set_tid(tp, tid);
	robust_each(tp, robust_retid, &t);
	tls_robust_register(tp);
	return old;
}

void tls_robust_register(uintptr_t tp)
{
	arch_syscall2(SYS_set_robust_list, tp + PD_ROBUST_HEAD, 3 * sizeof(long));
}

void tls_robust_forget(uintptr_t tp)
{
	uintptr_t head = tp + PD_ROBUST_HEAD;
	*(uintptr_t *)head = head;
	*(uintptr_t *)(head + 16) = 0;
}

static void robust_release_one(uint32_t *uaddr, bool pi, void *arg)
{
	robust_death(uaddr, *(int *)arg, pi);
}

void tls_robust_release(uintptr_t tp)
{
	int tid = tls_tid(tp);
	robust_each(tp, robust_release_one, &tid);
	/* the TCB will serve another G */
	tls_robust_forget(tp);
}

void tls_after_fork(uintptr_t tp_g, uintptr_t tp_m, bool m_tcb_ours)
{
	spare_lock = (struct rt_mutex){0};
	/* the links still name the parent's neighbours: overwrite them */
	tls_register(tp_g);
	if (m_tcb_ours)
		tls_unregister(tp_m);
}
