/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/common.h — helpers for the test programs. Each program is an
 * ordinary pthread program (nothing here knows about libgmp). It prints
 * what it checked, and on a failed check "FAIL: ..." and exit status 1.
 */
#ifndef GMP_TESTS_PROGS_COMMON_H
#define GMP_TESTS_PROGS_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		printf("FAIL: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		printf("\n"); \
		fflush(stdout); \
		exit(1); \
	} \
} while (0)

/* A number from /proc/self/status ("Threads", "VmRSS", "VmHWM"), or -1. */
static inline long status_field(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	size_t kl = strlen(key);
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, key, kl) == 0 && line[kl] == ':')
			v = atol(line + kl + 1);
	fclose(f);
	return v;
}

static inline double now_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The id of the OS thread the caller runs on, as the kernel says: an
 * inline system call instruction, which no library sees. */
static inline int os_tid(void)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_gettid) : "rcx", "r11", "memory");
	return (int)r;
}

#endif
