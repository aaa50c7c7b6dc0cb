/* SPDX-License-Identifier: MIT */
/*
 * core/os.c — futexes, OS threads and machine facts for the core.
 *
 * The core never calls an interposable symbol that libgmp itself exports
 * (pthread_create, nanosleep, ...): it would re-enter libgmp. The real libc
 * functions are looked up here once with dlsym(RTLD_NEXT), which from
 * libgmp (or from a test binary linking the core directly) finds libc's.
 */
#include "core/os.h"
#include "core/rt.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

int (*os_clock_gettime)(clockid_t, struct timespec *);
size_t os_pagesize = 4096;

static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int (*real_pthread_attr_init)(pthread_attr_t *);
static int (*real_pthread_attr_setstacksize)(pthread_attr_t *, size_t);
static int (*real_pthread_attr_setdetachstate)(pthread_attr_t *, int);
static int (*real_pthread_attr_destroy)(pthread_attr_t *);
static int (*real_pthread_attr_setinheritsched)(pthread_attr_t *, int);
static int (*real_pthread_attr_setschedpolicy)(pthread_attr_t *, int);
static int (*real_pthread_attr_setschedparam)(pthread_attr_t *, const struct sched_param *);

static void *must_resolve(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (!p) {
		rt_printf(2, "gmp: fatal: cannot resolve libc's %s\n", name);
		rt_throw("os_init: libc symbol missing");
	}
	return p;
}

void os_init(void)
{
	if (os_clock_gettime)
		return;
	unsigned long ps = getauxval(AT_PAGESZ);
	if (ps)
		os_pagesize = ps;
	real_pthread_create = must_resolve("pthread_create");
	real_pthread_attr_init = must_resolve("pthread_attr_init");
	real_pthread_attr_setstacksize = must_resolve("pthread_attr_setstacksize");
	real_pthread_attr_setdetachstate = must_resolve("pthread_attr_setdetachstate");
	real_pthread_attr_destroy = must_resolve("pthread_attr_destroy");
	real_pthread_attr_setinheritsched = must_resolve("pthread_attr_setinheritsched");
	real_pthread_attr_setschedpolicy = must_resolve("pthread_attr_setschedpolicy");
	real_pthread_attr_setschedparam = must_resolve("pthread_attr_setschedparam");
	/* published last: its being set means the others are */
	os_clock_gettime = must_resolve("clock_gettime");
}

static int thread_start(void *(*fn)(void *), void *arg, size_t stacksize, int policy, int prio)
{
	pthread_attr_t a;
	pthread_t t;
	int r;

	real_pthread_attr_init(&a);
	if (stacksize)
		real_pthread_attr_setstacksize(&a, stacksize);
	real_pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (policy >= 0) {
		struct sched_param sp = {.sched_priority = prio};
		real_pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
		real_pthread_attr_setschedpolicy(&a, policy);
		real_pthread_attr_setschedparam(&a, &sp);
	}
	r = real_pthread_create(&t, &a, fn, arg);
	real_pthread_attr_destroy(&a);
	return r;
}

int os_thread_start(void *(*fn)(void *), void *arg, size_t stacksize)
{
	return thread_start(fn, arg, stacksize, -1, 0);
}

int os_thread_start_sched(void *(*fn)(void *), void *arg, size_t stacksize, int policy, int prio)
{
	int r = thread_start(fn, arg, stacksize, policy, prio);
	if (r == EPERM || r == EINVAL)
		r = thread_start(fn, arg, stacksize, -1, 0);	/* fn sets what it may */
	return r;
}

struct text_find {
	uintptr_t addr, lo, hi;
	bool found;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct text_find *f = arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
		if (f->addr >= lo && f->addr < hi) {
			f->lo = lo;
			f->hi = hi;
			f->found = true;
			return 1;
		}
	}
	return 0;
}

int os_text_range(const void *addr, uintptr_t *lo, uintptr_t *hi)
{
	struct text_find f = {(uintptr_t)addr, 0, 0, false};
	dl_iterate_phdr(find_text, &f);
	if (!f.found)
		return -1;
	*lo = f.lo;
	*hi = f.hi;
	return 0;
}

int64_t os_thread_cputime(int tid)
{
	/* the kernel's MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) */
	clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 6);
	struct timespec ts;
	if (arch_syscall2(SYS_clock_gettime, clk, &ts) < 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The next number of a /proc line: decimal or 0x-hex, with an optional
 * minus; advances *p past it. */
static bool next_num(const char **p, const char *end, long *v)
{
	const char *s = *p;
	while (s < end && *s == ' ')
		s++;
	bool neg = s < end && *s == '-';
	if (neg)
		s++;
	int base = 10;
	if (end - s > 2 && s[0] == '0' && s[1] == 'x') {
		base = 16;
		s += 2;
	}
	unsigned long x = 0;
	const char *start = s;
	for (; s < end; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else
			break;
		x = x * (unsigned long)base + (unsigned long)d;
	}
	if (s == start)
		return false;
	*v = neg ? -(long)x : (long)x;
	*p = s;
	return true;
}

/* /proc/self/task/TID/<file> into path (room for 64). */
static void task_path(char *path, int tid, const char *file)
{
	char digits[12];
	int n = 0;
	for (unsigned t = (unsigned)tid; n == 0 || t; t /= 10)
		digits[n++] = (char)('0' + t % 10);
	memcpy(path, "/proc/self/task/", 17);
	size_t len = 16;
	while (n)
		path[len++] = digits[--n];
	path[len++] = '/';
	size_t fl = strlen(file);
	memcpy(path + len, file, fl + 1);
}

/* Up to len bytes of /proc/self/task/TID/<file> into buf: how many
 * (-2 when the file may not be opened, -1 on any other error or when
 * it is empty). */
static long read_task_file(int tid, const char *file, char *buf, size_t len)
{
	char path[64];
	task_path(path, tid, file);
	int fd = (int)arch_syscall3(SYS_open, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return fd == -EACCES ? -2 : -1;
	long r = arch_syscall3(SYS_read, fd, buf, len);
	arch_syscall1(SYS_close, fd);
	return r > 0 ? r : -1;
}

int64_t os_thread_waittime(int tid)
{
	char buf[96];
	long r = read_task_file(tid, "schedstat", buf, sizeof buf - 1);
	if (r < 0)
		return -1;
	const char *p = buf, *end = buf + r;
	long run, wait;
	if (!next_num(&p, end, &run) || !next_num(&p, end, &wait))
		return -1;
	return wait;
}

int os_thread_blocked(int tid, struct os_blocked *b)
{
	char buf[256];
	long r = read_task_file(tid, "syscall", buf, sizeof buf - 1);
	if (r < 0)
		return (int)r;
	const char *p = buf, *end = buf + r;
	if (*p == 'r')
		return 1;	/* "running" */
	long v[9];
	int k = 0;
	while (k < 9 && next_num(&p, end, &v[k]))
		k++;
	if (k >= 1 && v[0] < 0)
		return 1;	/* "-1 sp pc": not in a system call */
	if (k != 9)
		return -1;
	b->nr = v[0];
	b->sp = (uintptr_t)v[7];
	b->pc = (uintptr_t)v[8];
	return 0;
}

int os_thread_sleeping(int tid)
{
	char buf[512];
	long r = read_task_file(tid, "stat", buf, sizeof buf - 1);
	if (r < 0)
		return -1;
	/* "tid (comm) S ...": the state follows the last ')' (a name may
	 * hold one) */
	const char *close = NULL;
	for (long i = 0; i < r; i++)
		if (buf[i] == ')')
			close = buf + i;
	if (!close || close + 2 >= buf + r)
		return -1;
	return close[2] == 'S';
}

int os_membarrier_init(void)
{
	/* MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (Linux 4.14) */
	return arch_syscall3(SYS_membarrier, 1 << 4, 0, 0) == 0 ? 0 : -1;
}

void os_membarrier(void)
{
	arch_syscall3(SYS_membarrier, 1 << 3, 0, 0);	/* ..._PRIVATE_EXPEDITED */
}

int os_gettid(void)
{
	return (int)arch_syscall0(SYS_gettid);
}

_Atomic uint64_t os_counts[OSC_N];

void os_set_fs(uintptr_t tp)
{
	os_count(OSC_TPW);
	arch_set_fs(tp);
}

int os_futex_wait(_Atomic uint32_t *addr, uint32_t val, int64_t rel_ns)
{
	os_count(OSC_FUTEX_WAIT);
	struct timespec ts, *tsp = NULL;
	if (rel_ns >= 0) {
		ts.tv_sec = rel_ns / 1000000000;
		ts.tv_nsec = rel_ns % 1000000000;
		tsp = &ts;
	}
	return (int)arch_syscall4(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, tsp);
}

int os_futex_wake(_Atomic uint32_t *addr, int n)
{
	os_count(OSC_FUTEX_WAKE);
	return (int)arch_syscall3(SYS_futex, addr, FUTEX_WAKE_PRIVATE, n);
}

/* Read a small file into buf (NUL-terminated). Returns bytes read or -1. */
static int read_small(const char *path, char *buf, size_t n)
{
	int fd = (int)arch_syscall3(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	long r = arch_syscall3(SYS_read, fd, buf, n - 1);
	arch_syscall1(SYS_close, fd);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	return (int)r;
}

/* CPU quota from cgroup v2 (cpu.max: "quota period" or "max period") or
 * v1 (cfs_quota_us / cfs_period_us), rounded up; 0 when unlimited. */
static int cgroup_cpu_limit(void)
{
	char buf[128];
	long long quota = -1, period = 0;

	if (read_small("/sys/fs/cgroup/cpu.max", buf, sizeof buf) > 0) {
		if (strncmp(buf, "max", 3) == 0)
			return 0;
		char *end;
		quota = strtoll(buf, &end, 10);
		period = strtoll(end, NULL, 10);
	} else if (read_small("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", buf, sizeof buf) > 0) {
		quota = strtoll(buf, NULL, 10);
		if (read_small("/sys/fs/cgroup/cpu/cpu.cfs_period_us", buf, sizeof buf) > 0)
			period = strtoll(buf, NULL, 10);
	}
	if (quota <= 0 || period <= 0)
		return 0;
	return (int)((quota + period - 1) / period);
}

int os_ncpu(void)
{
	cpu_set_t set;
	int n = 0;

	/* raw: libgmp interposes sched_getaffinity itself */
	CPU_ZERO(&set);
	if (arch_syscall3(SYS_sched_getaffinity, 0, sizeof set, &set) > 0)
		n = CPU_COUNT(&set);
	if (n <= 0) {
		long c = sysconf(_SC_NPROCESSORS_ONLN);
		n = c > 0 ? (int)c : 1;
	}
	int lim = cgroup_cpu_limit();
	if (lim > 0 && lim < n)
		n = lim;
	return n;
}

struct libc_find {
	uintptr_t *lo, *hi;
	int n, max;
	uintptr_t vdso;
};

bool os_object_is(const char *path, const char *prefix)
{
	const char *b = strrchr(path, '/');
	return strncmp(b ? b + 1 : path, prefix, strlen(prefix)) == 0;
}

static bool is_runtime_object(const char *name)
{
	return os_object_is(name, "libc.so") || os_object_is(name, "ld-linux") ||
	       os_object_is(name, "ld64.so");
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	struct libc_find *f = arg;
	if (!(info->dlpi_addr == f->vdso || (info->dlpi_name && is_runtime_object(info->dlpi_name))))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && f->n < f->max; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		f->lo[f->n] = info->dlpi_addr + ph->p_vaddr;
		f->hi[f->n] = f->lo[f->n] + ph->p_memsz;
		f->n++;
	}
	return 0;
}

int os_libc_text_ranges(uintptr_t *lo, uintptr_t *hi, int max)
{
	struct libc_find f = {lo, hi, 0, max, (uintptr_t)getauxval(AT_SYSINFO_EHDR)};
	if (!f.vdso)
		f.vdso = 1;	/* matches nothing */
	dl_iterate_phdr(find_libc, &f);
	return f.n;
}

extern void *__libc_stack_end;

int os_main_stack(uintptr_t *lo, uintptr_t *hi)
{
	struct rlimit rl;
	uintptr_t top = ((uintptr_t)__libc_stack_end + os_pagesize - 1) & ~(os_pagesize - 1);
	if (!top || arch_syscall2(SYS_getrlimit, RLIMIT_STACK, &rl) != 0)
		return -1;
	size_t lim = rl.rlim_cur;
	if (rl.rlim_cur == RLIM_INFINITY || lim > ((size_t)1 << 32))
		lim = (size_t)1 << 32;
	*hi = top;
	*lo = top > lim ? top - lim : 0;
	return 0;
}

int os_each_task(void (*fn)(int tid, void *arg), void *arg)
{
	int fd = (int)arch_syscall3(SYS_openat, AT_FDCWD, "/proc/self/task",
				    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[4096];
	long r;
	int n = 0;
	while ((r = arch_syscall3(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < r;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);
			off += d->d_reclen;
			int tid = atoi(d->d_name);
			if (tid <= 0)
				continue;	/* "." and ".." */
			n++;
			if (fn)
				fn(tid, arg);
		}
	}
	arch_syscall1(SYS_close, fd);
	return n;
}
