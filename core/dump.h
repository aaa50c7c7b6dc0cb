/* SPDX-License-Identifier: MIT */
/*
 * core/dump.h — thread dumps and the deadlock check (core/dump.c).
 *
 * A dump lists every live G: its id and name, its state, for a waiting G
 * what it waits for (the object's kind and address, and for a mutex the
 * thread holding it) and for how long, and its stack. The deadlock check
 * is Go's checkdead: it is not "every G waits", but "nothing can ever run
 * again": no G runnable, running or in a system call, no timer, nobody
 * waiting on the poller, no G waiting for a signal, no posted signal.
 * sysmon runs it once every P is idle, and reports only when the same
 * state holds 100 ms later with no switch in between.
 */
#ifndef GMP_CORE_DUMP_H
#define GMP_CORE_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct g;

/* Describe what gp waits on (preload knows the objects' layouts: the
 * owner of a mutex, ...). Returns the length written, 0 to let the core
 * describe it. Async-signal-safe. */
extern int (*dump_describe_hook)(struct g *gp, char *buf, size_t n);

/* Print every live G to fd; self (may be NULL) is the calling G, whose
 * stack is unwound where it stands. Returns how many were printed.
 * Async-signal-safe. */
int dump_threads(int fd, struct g *self);

/* Could nothing ever run again? *switches: a count that moves whenever
 * anything is scheduled (compare two calls). */
bool dump_all_asleep(int64_t *switches);
/* Print the deadlock report: the line Go prints, then every G. */
void dump_deadlock(int fd);

#endif
