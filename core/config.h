/* SPDX-License-Identifier: MIT */
/*
 * core/config.h — settings read from the environment once at start-up.
 *
 *   GMPMAXPROCS=N     number of Ps (default: CPUs allowed by affinity and
 *                     the cgroup CPU quota)
 *   GMPDEBUG=k=v,...  schedtrace=MS   print a scheduler line every MS ms
 *                     scheddetail=1   with schedtrace: every P, M and G
 *                     preempt=MS|off  time slice before a running thread
 *                                     is preempted (1..10000, default 10)
 *                     deadlock=report|fatal|off  what to do when every
 *                                     thread is asleep for good (default
 *                                     report: print once, keep waiting)
 *                     dump=SIG|off    the signal that prints every thread
 *                                     when the program has no handler for
 *                                     it (default SIGQUIT; a name or number)
 *                     layout=1        print glibc's thread layout as found
 *                                     at start-up
 *                     spin=US|auto    how long an OS thread out of work
 *                                     spins before it sleeps in the kernel
 *                                     (0..1000 µs; auto: 50 where affinity
 *                                     is on, else 0)
 *                     affinity=auto|on|off  hand a readied thread to the
 *                                     OS thread that still holds its thread
 *                                     pointer, when that one looks for work
 *                                     (auto: where a thread-pointer write
 *                                     costs 1 µs or more)
 *                     adapt=0         keep every P in service while the
 *                                     CPUs are shared (core/adapt.c)
 *                     fsbase=syscall  write the thread pointer with
 *                                     arch_prctl even where WRFSBASE is
 *                                     allowed (what a kernel before 5.9
 *                                     pays; default auto)
 *   GMP_STATS=PATH    append run statistics to PATH at exit (gmprun)
 *   GMPTRACE=PATH     record an event trace to PATH (core/trace.h)
 *
 * A malformed value is reported once on stderr, naming the variable and
 * the accepted form, and the default is used.
 */
#ifndef GMP_CORE_CONFIG_H
#define GMP_CORE_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#define GMP_MAXPROCS_LIMIT 1024
#define GMP_SPIN_US 50		/* GMPDEBUG=spin's default */

struct rt_config {
	int maxprocs;
	int schedtrace_ms;	/* 0: off */
	bool scheddetail;
	int64_t preempt_ns;	/* time slice; 0: no asynchronous preemption */
	int deadlock;		/* enum cfg_deadlock */
	int dump_sig;		/* 0: none */
	bool show_layout;	/* print glibc's layout at start-up */
	bool fsbase_syscall;	/* never WRFSBASE */
	int64_t spin_ns;	/* idle M's spin before it sleeps; -1 auto */
	int affinity;		/* -1 auto, 0 off, 1 on */
	bool adapt;		/* Ps leave service while the CPUs are shared */
	const char *stats_path;	/* NULL: no statistics file */
	const char *trace_path;	/* GMPTRACE: NULL, no event trace */
};

enum cfg_deadlock { DEADLOCK_REPORT = 0, DEADLOCK_FATAL, DEADLOCK_OFF };

extern struct rt_config rt_cfg;

/* Parse the environment into rt_cfg. Must run with valid TLS (getenv). */
void config_init(void);
/* Parse one GMPMAXPROCS value: N in 1..GMP_MAXPROCS_LIMIT, else -1. */
int config_parse_maxprocs(const char *s);

#endif
