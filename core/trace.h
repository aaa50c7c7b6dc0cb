/* SPDX-License-Identifier: MIT */
/*
 * core/trace.h — the event trace (GMPTRACE=file.json).
 *
 * Every M records into a buffer of its own, with no lock: the spans in
 * which it ran a G, and the events create, park (with its reason), ready,
 * steal, system call enter and exit, retake, preempt, netpoll wake, timer
 * fire and exit. A full buffer is written out by its M (under a lock that
 * only writers take); the rest at exit and on a fatal signal. The file is
 * Chrome trace-event JSON, which Perfetto and chrome://tracing open: one
 * track per M ("M0", "M1" ..., and "runtime" for sysmon and threads that
 * are not Ms), running spans named by thread id.
 *
 * Off (the default), every hook is one predictable branch on trace_on.
 */
#ifndef GMP_CORE_TRACE_H
#define GMP_CORE_TRACE_H

#include <stdbool.h>
#include <stdint.h>

struct g;
struct m;

enum trace_type {
	TR_RUN = 1,	/* a span: arg = its start (ns) */
	TR_CREATE,
	TR_PARK,	/* arg = wait reason */
	TR_READY,
	TR_STEAL,	/* arg = Gs taken */
	TR_SYSCALL,
	TR_SYSRET,
	TR_RETAKE,	/* arg = P id */
	TR_PREEMPT,
	TR_NETPOLL,	/* arg = Gs readied */
	TR_TIMER,
	TR_EXIT,
};

extern bool trace_on;

/* Open the file and start recording (valid TLS, at start-up). Returns
 * false (with a message) when the file cannot be written. */
bool trace_init(const char *path);
/* Record an event on mp's buffer (NULL: the shared one, under a lock).
 * gp may be NULL. Async-signal-safe for an M's own buffer. */
void trace_record(struct m *mp, int type, struct g *gp, int64_t arg, int64_t now);
/* Write out everything and end the file. Once; async-signal-safe except
 * that it gives up on a buffer another thread is writing. */
void trace_finish(void);

static inline void trace_ev(struct m *mp, int type, struct g *gp, int64_t arg)
{
	if (__builtin_expect(trace_on, 0))
		trace_record(mp, type, gp, arg, 0);
}

#endif
