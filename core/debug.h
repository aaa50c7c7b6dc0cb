/* SPDX-License-Identifier: MIT */
/*
 * core/debug.h — what the runtime tells about itself: GMPDEBUG=schedtrace
 * lines and the statistics gmprun --stats prints.
 */
#ifndef GMP_CORE_DEBUG_H
#define GMP_CORE_DEBUG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/g.h"

/* One "SCHED ..." line on stderr, Go's format; with detail, one line per
 * P, M and G after it. Called by sysmon (valid TLS, but uses no libc). */
void debug_schedtrace(bool detail);

struct rt_stats {
	uint64_t threads_created;	/* Gs created (pthread_create) */
	int64_t peak_live;		/* most Gs alive at once (main included) */
	int os_threads;			/* OS threads the runtime started, + main */
	uint64_t switches;		/* Gs switched in */
	uint64_t steals;		/* Gs stolen from other Ps */
	uint64_t syscalls;		/* blocking system calls made by Gs */
	uint64_t retakes;		/* Ps sysmon took back from system calls */
	uint64_t blocked;		/* Ms found blocked where libgmp cannot see */
	uint64_t netpoll_wakeups;	/* Gs woken by a descriptor's readiness */
	uint64_t sysmon_polls;		/* network polls by sysmon that woke Gs */
	uint64_t sysmon_timers;		/* Ms sysmon woke for overdue timers */
	uint64_t preemptions;		/* Gs preempted asynchronously */
	uint64_t door_preemptions;	/* Gs that yielded at a door when asked */
	uint64_t handoffs;		/* Ps handed to another M because a G blocked */
	uint64_t spin_handoffs;		/* Gs readied onto a spinning M */
	uint64_t procs_parked;		/* times a P left service (core/adapt.c) */
	uint64_t waits[WAIT_NREASON];	/* parks by reason */
	/* libgmp's own kernel work (os.h's counts) */
	uint64_t tp_writes;		/* thread-pointer writes, all of them */
	bool tp_wrfsbase;		/* ... made with WRFSBASE, not arch_prctl */
	int64_t tp_write_ns;		/* one write's cost, measured at start */
	bool affinity;			/* readied Gs go to the M with their TCB */
	uint64_t futex_waits, futex_wakes, epoll_waits, eventfd_writes;
	uint64_t signals, sigmasks;
	int gomaxprocs;
};
void debug_stats(struct rt_stats *st);

/* sysmon.c */
int sysmon_running(void);

#endif
