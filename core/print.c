/* SPDX-License-Identifier: MIT */
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

/* A conversion's flags, width, precision (-1: none) and length (0, l, ll;
 * z counts as l). */
struct spec {
	bool left;
	char pad;
	int width, prec, lng;
};

/* Reads the conversion after a '%' at *fp, leaving *fp on its letter. */
static struct spec parse_spec(const char **fp, va_list *ap)
{
	const char *f = *fp;
	struct spec sp = {.pad = ' ', .prec = -1};
	if (*f == '-') {
		sp.left = true;
		f++;
	}
	if (*f == '0') {
		sp.pad = '0';
		f++;
	}
	while (*f >= '0' && *f <= '9')
		sp.width = sp.width * 10 + (*f++ - '0');
	if (*f == '.') {
		f++;
		sp.prec = 0;
		if (*f == '*') {
			sp.prec = va_arg(*ap, int);
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				sp.prec = sp.prec * 10 + (*f++ - '0');
		}
	}
	while (*f == 'l') {
		sp.lng++;
		f++;
	}
	if (*f == 'z') {
		sp.lng = 1;
		f++;
	}
	*fp = f;
	return sp;
}

static size_t put_char(char *buf, size_t n, size_t pos, char c)
{
	if (pos < n)
		buf[pos] = c;
	return pos + 1;
}

static size_t put_str(char *buf, size_t n, size_t pos, const char *s, const struct spec *sp)
{
	if (!s)
		s = "(null)";
	size_t sl = 0;
	while (s[sl] && (sp->prec < 0 || sl < (size_t)sp->prec))
		sl++;
	int fill = sp->width > (int)sl ? sp->width - (int)sl : 0;
	for (; !sp->left && fill > 0; fill--)
		pos = put_char(buf, n, pos, ' ');
	for (size_t i = 0; i < sl; i++)
		pos = put_char(buf, n, pos, s[i]);
	for (; sp->left && fill > 0; fill--)
		pos = put_char(buf, n, pos, ' ');
	return pos;
}

/* One conversion, letter c, of spec sp at pos; the argument from *ap. */
static size_t put_conv(char *buf, size_t n, size_t pos, char c, const struct spec *sp,
		       va_list *ap)
{
	switch (c) {
	case 's':
		return put_str(buf, n, pos, va_arg(*ap, const char *), sp);
	case 'c':
		return put_char(buf, n, pos, (char)va_arg(*ap, int));
	case 'd': {
		long long v = sp->lng ? (sp->lng > 1 ? va_arg(*ap, long long) : va_arg(*ap, long))
				      : va_arg(*ap, int);
		unsigned long long u = v < 0 ? -(unsigned long long)v : (unsigned long long)v;
		return put_num(buf, n, pos, u, 10, v < 0, sp->width, sp->pad, sp->left);
	}
	case 'u':
	case 'x': {
		unsigned long long v = sp->lng ? (sp->lng > 1 ? va_arg(*ap, unsigned long long)
							 : va_arg(*ap, unsigned long))
					       : va_arg(*ap, unsigned);
		return put_num(buf, n, pos, v, c == 'x' ? 16 : 10, false, sp->width, sp->pad,
			       sp->left);
	}
	case 'p': {
		uintptr_t v = (uintptr_t)va_arg(*ap, void *);
		pos = put_char(buf, n, pos, '0');
		pos = put_char(buf, n, pos, 'x');
		return put_num(buf, n, pos, v, 16, false, 0, ' ', false);
	}
	default:
		/* %%, or an unknown conversion: printed verbatim */
		return put_char(buf, n, pos, c);
	}
}

int rt_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	size_t pos = 0;
	va_list aq;
	va_copy(aq, ap);
	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			pos = put_char(buf, n, pos, *f);
			continue;
		}
		f++;
		struct spec sp = parse_spec(&f, &aq);
		if (!*f)
			break;	/* a '%' at the end */
		pos = put_conv(buf, n, pos, *f, &sp, &aq);
	}
	va_end(aq);
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
