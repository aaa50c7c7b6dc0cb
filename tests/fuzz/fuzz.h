/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz.h — what the differential fuzzer's files share
 * (tests/fuzz/fuzz.c has the main program and the threads and
 * synchronization generators; fuzz_sig.c, fuzz_io.c, fuzz_net.c and
 * fuzz_proc.c the signal, descriptor, socket and process ones).
 *
 * A generator makes one call with arguments drawn from classes: it
 * describes the call with begin() (classes, never addresses, ids or
 * times), makes it, and prints the result with res_code() (functions
 * that return an error number) or res_sys() (-1 and errno), with what
 * the call wrote to its output arguments. Only pick() may choose: the
 * same seed must make the same calls under both libraries.
 */
#ifndef GMP_TESTS_FUZZ_H
#define GMP_TESTS_FUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

extern uint64_t rng;
uint64_t rnd(void);
/* 0 .. n-1 */
int pick(int n);

extern long step;		/* the number of the call being made */
extern int verbose;
extern char call[256];		/* the call being made, with its classes */

#define SENTINEL 4242		/* errno before each call: no real errno */

/* Describe the call about to be made (printf format); sets errno to
 * SENTINEL. */
void begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* errno's name */
const char *ename(int e);
/* A function that returns an error number (pthread_*, C11 thrd_*): it
 * must leave errno alone. out: what it wrote, or NULL. */
int res_code(int r, const char *out);
/* A function that returns -1 and sets errno. */
long res_sys(long r, const char *out);

/* Deadlines: past, near (1 ms ahead: a wait that would block times
 * out), malformed. */
enum { TS_PAST, TS_NEAR, TS_NSEC_1E9, TS_NSEC_NEG, TS_SEC_NEG, TS_NCLASS };
extern const char *const ts_name[];
struct timespec ts_of(int cls, clockid_t clk);
extern const clockid_t clocks[];	/* 5 of them, the last invalid */
extern const char *const clock_name[];

/* An object's state */
enum { ST_ZERO, ST_INIT, ST_DEAD };
extern const char *const st_name[];

/* Descriptor classes (c in 0..4): an open pipe end (pipe-r, pipe-w: -1
 * while the pipe is not made), a closed number, -1, a huge one. */
extern int pfd[2];
int fd_of(int c, const char **name);

/* A generator, with the interposed functions it calls (a name may
 * appear under several). tests/fuzz/coverage.sh reads fuzz --list. */
struct gen {
	void (*fn)(void);
	const char *names;
};
#define GEN(fn, names) {fn, names}

/* Each group's table and its length. */
extern const struct gen gens_sig[], gens_io[], gens_net[], gens_proc[];
extern const size_t ngens_sig, ngens_io, ngens_net, ngens_proc;

#endif
