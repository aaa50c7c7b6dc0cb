/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sig_cred.c — credentials changed by one thread of a
 * 100-thread program reach every OS thread of the process. An ordinary
 * pthread program; needs to start as root (else prints "SKIP" and exits
 * 77).
 *
 * 100 threads wait (condvar, sleeps); one more thread calls, in turn,
 * seteuid(1), seteuid(0), setegid(2), setregid(-1, 0), setgroups({5, 6}),
 * setresgid(3, 3, 3), setresuid(4, 4, 4); after each call it reads
 * Uid:, Gid: and Groups: of every /proc/self/task/<tid>/status and
 * prints them when all OS threads agree, or the first that differs.
 * Also: setuid(0) after dropping root fails with EPERM.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int released;

/* The Uid:, Gid: and Groups: lines of one status file, tabs as spaces. */
static int creds_of(const char *tid, char *out, size_t n)
{
	char path[300], line[256];
	snprintf(path, sizeof path, "/proc/self/task/%s/status", tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	out[0] = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "Uid:", 4) && strncmp(line, "Gid:", 4) && strncmp(line, "Groups:", 7))
			continue;
		for (char *p = line; *p; p++)
			if (*p == '\t')
				*p = ' ';
		strncat(out, line, n - strlen(out) - 1);
	}
	fclose(f);
	return 0;
}

static int check(const char *after)
{
	DIR *d = opendir("/proc/self/task");
	char first[512] = "", cur[512];
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (creds_of(e->d_name, cur, sizeof cur) != 0)
			continue;	/* a thread that just ended */
		if (!n++)
			strcpy(first, cur);
		else if (strcmp(first, cur) != 0) {
			printf("after %s: OS thread %s has\n%sbut another has\n%s", after, e->d_name,
			       cur, first);
			closedir(d);
			return 1;
		}
	}
	closedir(d);
	printf("after %s, every OS thread:\n%s", after, first);
	return 0;
}

static void *waiter(void *arg)
{
	long i = (long)arg;
	pthread_mutex_lock(&mu);
	while (!released) {
		if (i % 2) {
			pthread_cond_wait(&cv, &mu);
		} else {
			pthread_mutex_unlock(&mu);
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
			pthread_mutex_lock(&mu);
		}
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

#define STEP(call) \
	do { \
		if ((call) != 0) { \
			printf("%s: %s\n", #call, strerror(errno)); \
			return (void *)1; \
		} \
		if (check(#call)) \
			return (void *)1; \
	} while (0)

static void *changer(void *arg)
{
	(void)arg;
	gid_t groups[] = {5, 6};
	STEP(seteuid(1));
	STEP(seteuid(0));
	STEP(setegid(2));
	STEP(setregid(-1, 0));
	STEP(setgroups(2, groups));
	STEP(setresgid(3, 3, 3));
	STEP(setresuid(4, 4, 4));
	errno = 0;
	int r = setuid(0);
	printf("setuid(0) without root: %d %s\n", r, r ? strerror(errno) : "");
	if (check("the failed setuid"))
		return (void *)1;
	return NULL;
}

int main(void)
{
	if (geteuid() != 0) {
		printf("SKIP not root\n");
		return 77;
	}
	pthread_t t[100], c;
	for (long i = 0; i < 100; i++)
		pthread_create(&t[i], NULL, waiter, (void *)i);
	struct timespec ts = {0, 20000000};
	nanosleep(&ts, NULL);
	void *res;
	pthread_create(&c, NULL, changer, NULL);
	pthread_join(c, &res);
	pthread_mutex_lock(&mu);
	released = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 100; i++)
		pthread_join(t[i], NULL);
	if (res) {
		printf("FAIL cred\n");
		return 1;
	}
	printf("PASS cred\n");
	return 0;
}
