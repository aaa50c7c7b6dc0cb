/*
 * tests/progs/blocked_wait.c — a thread blocked in waitpid leaves the
 * other threads running. A child shell waits for a line on a pipe; one
 * thread waits for the child; another thread makes 1,000 steps of
 * progress and only then writes the line the child waits for. If the
 * waiting thread's OS thread kept the only processor while blocked, the
 * writer would never run and the program would hang (the test's timeout
 * fails it). The same with system() and with waitid. Prints PASS.
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int fds[2];
static pid_t child;
static atomic_int waiting, progress;
static int how;

static void *waiter(void *arg)
{
	int st = 0;
	atomic_store(&waiting, 1);
	if (how == 0) {
		pid_t r = waitpid(child, &st, 0);
		CHECK(r == child && WIFEXITED(st) && WEXITSTATUS(st) == 0, "waitpid %d", (int)r);
	} else {
		siginfo_t si;
		memset(&si, 0, sizeof si);
		CHECK(waitid(P_PID, (id_t)child, &si, WEXITED) == 0 && si.si_pid == child, "waitid");
	}
	return arg;
}

static void *worker(void *arg)
{
	while (!atomic_load(&waiting))
		sched_yield();
	for (int i = 0; i < 1000; i++) {
		atomic_fetch_add(&progress, 1);
		sched_yield();
	}
	CHECK(write(fds[1], "go\n", 3) == 3, "write");
	return arg;
}

static void round_trip(int which)
{
	how = which;
	atomic_store(&waiting, 0);
	atomic_store(&progress, 0);
	CHECK(pipe(fds) == 0, "pipe");
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	char *argv[] = {"/bin/sh", "-c", "read x", NULL};
	CHECK(posix_spawn(&child, "/bin/sh", &fa, NULL, argv, environ) == 0, "posix_spawn");
	posix_spawn_file_actions_destroy(&fa);
	close(fds[0]);
	pthread_t w, k;
	CHECK(pthread_create(&w, NULL, waiter, NULL) == 0, "create");
	CHECK(pthread_create(&k, NULL, worker, NULL) == 0, "create");
	CHECK(pthread_join(w, NULL) == 0 && pthread_join(k, NULL) == 0, "join");
	close(fds[1]);
	CHECK(atomic_load(&progress) == 1000, "progress %d", atomic_load(&progress));
	printf("%s: the other thread made %d steps meanwhile\n", which ? "waitid" : "waitpid",
	       atomic_load(&progress));
}

static void *system_user(void *arg)
{
	atomic_store(&waiting, 1);
	int r = system("read x <&3");
	CHECK(r == 0, "system: %d", r);
	return arg;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	round_trip(0);
	round_trip(1);
	/* system(): its shell reads the line from fd 3 */
	atomic_store(&waiting, 0);
	atomic_store(&progress, 0);
	CHECK(pipe(fds) == 0 && dup2(fds[0], 3) == 3, "pipe");
	pthread_t w, k;
	CHECK(pthread_create(&w, NULL, system_user, NULL) == 0, "create");
	CHECK(pthread_create(&k, NULL, worker, NULL) == 0, "create");
	CHECK(pthread_join(w, NULL) == 0 && pthread_join(k, NULL) == 0, "join");
	printf("system: the other thread made %d steps meanwhile\n", atomic_load(&progress));
	printf("PASS blocked_wait\n");
	return 0;
}
