/* SPDX-License-Identifier: MIT */
/*
 * core/trace.c — the event trace (see trace.h).
 */
#include "core/trace.h"
#include "core/lock.h"
#include "core/os.h"
#include "core/rt.h"
#include "core/sched.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

bool trace_on;

#define TRACE_EVENTS 16384	/* per buffer: 512 KiB */

struct trace_ev {
	int64_t ts, arg;
	uint64_t goid;
	int32_t type;
	int32_t pad;
};

struct trace_buf {
	_Atomic uint32_t n;
	int tid;		/* the track: the M's id, or -1 */
	bool named;
	struct trace_ev ev[TRACE_EVENTS];
};

static int fd = -1;
static struct rt_mutex wlock;		/* writes to fd, and the shared buffer */
static _Atomic int finished;
static bool first = true;		/* under wlock: no comma before it */
static struct trace_buf *shared;	/* sysmon and threads that are not Ms */

static struct trace_buf *buf_new(int tid)
{
	struct trace_buf *b = rt_mmap(sizeof *b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
	if (b)
		b->tid = tid;
	return b;
}

bool trace_init(const char *path)
{
	fd = (int)arch_syscall4(SYS_openat, AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
				0644);
	if (fd < 0) {
		rt_printf(2, "gmp: GMPTRACE=%s: cannot open it for writing (error %d); no trace\n",
			  path, -fd);
		fd = -1;
		return false;
	}
	shared = buf_new(-1);
	if (!shared)
		return false;
	rt_write_all(fd, "{\"traceEvents\":[\n", 17);
	trace_on = true;
	return true;
}

static const char *const names[] = {
	[TR_RUN] = "run",	  [TR_CREATE] = "create", [TR_PARK] = "park",
	[TR_READY] = "ready",	  [TR_STEAL] = "steal",	  [TR_SYSCALL] = "syscall enter",
	[TR_SYSRET] = "syscall exit", [TR_RETAKE] = "retake", [TR_PREEMPT] = "preempt",
	[TR_NETPOLL] = "netpoll wake", [TR_TIMER] = "timer fire", [TR_EXIT] = "exit",
};

/* ns since start as "us.fff" */
static int us(char *out, size_t n, int64_t ns)
{
	if (ns < 0)
		ns = 0;
	return rt_snprintf(out, n, "%ld.%03ld", (long)(ns / 1000), (long)(ns % 1000));
}

/* Format one event; returns its length. */
static int format(char *out, size_t n, int tid, const struct trace_ev *e)
{
	char ts[32], dur[32];
	int64_t t0 = sched.start_ns;
	if (e->type == TR_RUN) {
		us(ts, sizeof ts, e->arg - t0);
		us(dur, sizeof dur, e->ts - e->arg);
		return rt_snprintf(out, n,
				   "{\"name\":\"thread %lu\",\"cat\":\"run\",\"ph\":\"X\",\"ts\":%s,"
				   "\"dur\":%s,\"pid\":1,\"tid\":%d,\"args\":{\"g\":%lu}}",
				   (unsigned long)e->goid, ts, dur, tid, (unsigned long)e->goid);
	}
	us(ts, sizeof ts, e->ts - t0);
	char args[96];
	if (e->type == TR_PARK)
		rt_snprintf(args, sizeof args, "{\"g\":%lu,\"reason\":\"%s\"}", (unsigned long)e->goid,
			    e->arg >= 0 && e->arg < WAIT_NREASON ? g_waitreason_keys[e->arg] : "?");
	else if (e->type == TR_STEAL || e->type == TR_NETPOLL)
		rt_snprintf(args, sizeof args, "{\"g\":%lu,\"n\":%ld}", (unsigned long)e->goid,
			    (long)e->arg);
	else if (e->type == TR_RETAKE)
		rt_snprintf(args, sizeof args, "{\"p\":%ld}", (long)e->arg);
	else
		rt_snprintf(args, sizeof args, "{\"g\":%lu}", (unsigned long)e->goid);
	return rt_snprintf(out, n,
			   "{\"name\":\"%s\",\"cat\":\"sched\",\"ph\":\"i\",\"s\":\"t\",\"ts\":%s,"
			   "\"pid\":1,\"tid\":%d,\"args\":%s}",
			   names[e->type], ts, tid, args);
}

/* Write b's events [0, n) and empty it. Caller holds wlock. */
static void flush_locked(struct trace_buf *b)
{
	char out[8192];
	size_t len = 0;
	int tid = b->tid < 0 ? 1000000 : b->tid;
	if (!b->named) {
		b->named = true;
		char name[16];
		if (b->tid < 0)
			rt_snprintf(name, sizeof name, "runtime");
		else
			rt_snprintf(name, sizeof name, "M%d", b->tid);
		len += (size_t)rt_snprintf(out + len, sizeof out - len,
					   "%s{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,"
					   "\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
					   first ? "" : ",\n", tid, name);
		first = false;
	}
	uint32_t n = ld_acq(&b->n);
	if (n > TRACE_EVENTS)
		n = TRACE_EVENTS;
	for (uint32_t i = 0; i < n; i++) {
		if (len > sizeof out - 512) {
			rt_write_all(fd, out, len);
			len = 0;
		}
		if (!first)
			out[len++] = ',', out[len++] = '\n';
		first = false;
		len += (size_t)format(out + len, sizeof out - len, tid, &b->ev[i]);
	}
	rt_write_all(fd, out, len);
	st_rel(&b->n, 0u);
}

void trace_record(struct m *mp, int type, struct g *gp, int64_t arg, int64_t now)
{
	if (ld_acq(&finished))
		return;
	struct trace_buf *b;
	bool locked = false;
	if (mp) {
		b = mp->trace;
		if (!b) {
			b = buf_new(mp->id);
			if (!b)
				return;
			mp->trace = b;
		}
	} else {
		rt_lock(&wlock);
		locked = true;
		b = shared;
	}
	uint32_t n = ld_rlx(&b->n);
	if (n == TRACE_EVENTS) {
		if (!locked)
			rt_lock(&wlock);
		flush_locked(b);
		if (!locked)
			rt_unlock(&wlock);
		n = 0;
	}
	struct trace_ev *e = &b->ev[n];
	e->ts = now ? now : rt_nanotime();
	e->arg = arg;
	e->goid = gp ? gp->goid : 0;
	e->type = type;
	st_rel(&b->n, n + 1);
	if (locked)
		rt_unlock(&wlock);
}

static _Atomic uint32_t written;	/* 1 once the file is complete */

void trace_finish(void)
{
	int expect = 0;
	if (!trace_on)
		return;
	if (!cas(&finished, &expect, 1)) {
		/* another thread writes it out (two threads dying of a signal
		 * at once): the process must not end before it is done */
		int64_t until = rt_nanotime() + 2000000000;
		while (!ld_acq(&written) && rt_nanotime() < until)
			os_futex_wait(&written, 0, 10000000);
		return;
	}
	if (!rt_trylock(&wlock)) {
		/* a writer was interrupted here (a fatal signal): end the
		 * file as it is */
		rt_write_all(fd, "]}\n", 3);
		st_rel(&written, 1u);
		os_futex_wake(&written, INT32_MAX);
		return;
	}
	for (struct m *mp = ld_acq(&sched.allm); mp; mp = mp->alllink)
		if (mp->trace)
			flush_locked(mp->trace);
	flush_locked(shared);
	rt_write_all(fd, "\n]}\n", 4);
	arch_syscall1(SYS_close, fd);
	rt_unlock(&wlock);
	st_rel(&written, 1u);
	os_futex_wake(&written, INT32_MAX);
}
