/*
 * core/print.c — the runtime's only output path and its fatal-error exit.
 *
 * Owns: rt_printf and friends (a small printf that is async-signal-safe and
 * usable on g0), rt_throw, and the few raw-syscall wrappers (time, mmap)
 * every other core file shares.
 */
#include "core/rt.h"
#include "core/os.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>

static int put_num(char *buf, size_t n, size_t pos, unsigned long long v, int base,
		   bool neg, int width, char pad, bool left)
{
	char tmp[24];
	int len = 0;

	do {
		tmp[len++] = "0123456789abcdef"[v % (unsigned)base];
		v /= (unsigned)base;
	} while (v);
	if (neg)
		tmp[len++] = '-';
	int fill = width > len ? width - len : 0;
	if (neg && pad == '0' && fill && !left) {
		/* keep the sign in front of zero padding */
		if (pos < n)
			buf[pos] = '-';
		pos++;
		len--;
	}
	if (!left)
		for (; fill > 0; fill--, pos++)
			if (pos < n)
				buf[pos] = pad;
	while (len > 0) {
		if (pos < n)
			buf[pos] = tmp[len - 1];
		pos++;
		len--;
	}
	for (; left && fill > 0; fill--, pos++)
		if (pos < n)
			buf[pos] = ' ';
	return (int)pos;
}

int rt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	size_t pos = 0;

	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			if (pos < n)
				buf[pos] = *f;
			pos++;
			continue;
		}
		f++;
		bool left = false;
		char pad = ' ';
		int width = 0, lng = 0;
		if (*f == '-') {
			left = true;
			f++;
		}
		if (*f == '0') {
			pad = '0';
			f++;
		}
		while (*f >= '0' && *f <= '9')
			width = width * 10 + (*f++ - '0');
		int prec = -1;
		if (*f == '.') {
			f++;
			prec = 0;
			if (*f == '*') {
				prec = va_arg(ap, int);
				f++;
			} else {
				while (*f >= '0' && *f <= '9')
					prec = prec * 10 + (*f++ - '0');
			}
		}
		while (*f == 'l') {
			lng++;
			f++;
		}
		if (*f == 'z') {
			lng = 1;
			f++;
		}
		switch (*f) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			size_t sl = 0;
			while (s[sl] && (prec < 0 || sl < (size_t)prec))
				sl++;
			int fill = width > (int)sl ? width - (int)sl : 0;
			for (; !left && fill > 0; fill--, pos++)
				if (pos < n)
					buf[pos] = ' ';
			for (size_t i = 0; i < sl; i++, pos++)
				if (pos < n)
					buf[pos] = s[i];
			for (; left && fill > 0; fill--, pos++)
				if (pos < n)
					buf[pos] = ' ';
			break;
		}
		case 'c':
			if (pos < n)
				buf[pos] = (char)va_arg(ap, int);
			pos++;
			break;
		case 'd': {
			long long v = lng ? (lng > 1 ? va_arg(ap, long long) : va_arg(ap, long))
					  : va_arg(ap, int);
			unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
			pos = put_num(buf, n, pos, u, 10, v < 0, width, pad, left);
			break;
		}
		case 'u':
		case 'x': {
			unsigned long long v = lng ? (lng > 1 ? va_arg(ap, unsigned long long)
						      : va_arg(ap, unsigned long))
						   : va_arg(ap, unsigned);
			pos = put_num(buf, n, pos, v, *f == 'x' ? 16 : 10, false, width, pad, left);
			break;
		}
		case 'p': {
			uintptr_t v = (uintptr_t)va_arg(ap, void *);
			if (pos < n)
				buf[pos] = '0';
			pos++;
			if (pos < n)
				buf[pos] = 'x';
			pos++;
			pos = put_num(buf, n, pos, v, 16, false, 0, ' ', false);
			break;
		}
		case '%':
			if (pos < n)
				buf[pos] = '%';
			pos++;
			break;
		default:
			/* unknown conversion: print it verbatim */
			if (pos < n)
				buf[pos] = *f;
			pos++;
			if (!*f)
				f--;
			break;
		}
	}
	if (n)
		buf[pos < n ? pos : n - 1] = '\0';
	return (int)pos;
}

int rt_snprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = rt_vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r;
}

void rt_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		long r = arch_syscall3(SYS_write, fd, buf, len);
		if (r == -EINTR)
			continue;
		if (r <= 0)
			return;
		buf += r;
		len -= (size_t)r;
	}
}

void rt_printf(int fd, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int r = rt_vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (r > (int)sizeof buf - 1)
		r = sizeof buf - 1;
	rt_write_all(fd, buf, (size_t)r);
}

_Noreturn void rt_throw(const char *msg)
{
	rt_printf(2, "gmp: fatal: %s\n", msg);
	/* abort without libc: raise SIGABRT on this thread, then make sure. */
	long tid = arch_syscall0(SYS_gettid);
	arch_syscall3(SYS_tgkill, arch_syscall0(SYS_getpid), tid, SIGABRT);
	for (;;)
		arch_syscall1(SYS_exit_group, 127);
}

int64_t rt_nanotime(void)
{
	struct timespec ts;
	os_clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t rt_walltime(void)
{
	struct timespec ts;
	os_clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void *rt_mmap(size_t len, int prot, int flags)
{
	long r = arch_syscall6(SYS_mmap, 0, (long)len, prot, flags, -1, 0);
	if (r < 0 && r > -4096)
		return NULL;
	return (void *)r;
}

int rt_munmap(void *p, size_t len)
{
	return (int)arch_syscall2(SYS_munmap, p, len);
}
