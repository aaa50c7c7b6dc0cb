/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sig_fork.c — fork, exec and friends from a program with
 * many threads. An ordinary pthread program.
 *
 *   sig_fork fork     100 threads wait (condvar, pipe read, sleep, mutex);
 *                     three pthread_atfork handler sets print their
 *                     order; the main thread forks; the child has one
 *                     OS thread, creates and joins 50 threads of its own
 *                     (mutex, condvar, sleeps, a pipe between two of
 *                     them) and exits 0; the parent reaps it and ends
 *                     its own 100 threads
 *   sig_fork thread   the same fork made by one of the threads, whose
 *                     child then also forks a grandchild
 *   sig_fork spawn    16 threads at once, each 5 times: popen("echo"),
 *                     system("exit k") and vfork + exec, every output
 *                     and status checked
 *   sig_fork exec     one of 10 running threads calls execl of /bin/sh
 *                     to print a line: the process is replaced
 *
 * Prints what it saw and "PASS <what>", exits 0; on a mismatch says
 * what and exits 1.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int released;
static int pipefd[2];
static atomic_int ready;

static int fail(const char *what)
{
	printf("FAIL %s\n", what);
	fflush(stdout);
	return 1;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {0, (long)ms * 1000000};
	nanosleep(&ts, NULL);
}

static int os_threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* --- the parent's waiting threads ---------------------------------------------- */

static void *waiter(void *arg)
{
	long i = (long)arg;
	atomic_fetch_add(&ready, 1);
	switch (i % 4) {
	case 0:
		pthread_mutex_lock(&mu);
		while (!released)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		break;
	case 1: {
		char c;
		if (read(pipefd[0], &c, 1) != 1)
			return (void *)1;
		break;
	}
	case 2:
		for (;;) {
			pthread_mutex_lock(&mu);
			int r = released;
			pthread_mutex_unlock(&mu);
			if (r)
				break;
			sleep_ms(2);
		}
		break;
	default:
		pthread_mutex_lock(&mu);
		while (!released)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		break;
	}
	return NULL;
}

/* --- the child's own threads ---------------------------------------------------------- */

static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ccv = PTHREAD_COND_INITIALIZER;
static long ctotal;
static int cturn;
static int cpipe[2];

static void *child_worker(void *arg)
{
	long i = (long)arg;
	for (int k = 0; k < 100; k++) {
		pthread_mutex_lock(&cmu);
		ctotal += i;
		pthread_mutex_unlock(&cmu);
	}
	sleep_ms(1 + i % 3);
	if (i == 0) {
		if (write(cpipe[1], "x", 1) != 1)
			return (void *)1;
	} else if (i == 1) {
		char c;
		if (read(cpipe[0], &c, 1) != 1 || c != 'x')
			return (void *)1;
	}
	pthread_mutex_lock(&cmu);
	cturn++;
	pthread_cond_broadcast(&ccv);
	while (cturn < 50)
		pthread_cond_wait(&ccv, &cmu);
	pthread_mutex_unlock(&cmu);
	return NULL;
}

/* The child's life: 1 OS thread, then 50 threads of its own. */
static int child_body(bool grandchild)
{
	int n = os_threads();
	if (n != 1) {
		printf("child: %d OS threads right after fork\n", n);
		return 1;
	}
	if (pipe(cpipe) != 0)
		return 1;
	ctotal = 0;
	cturn = 0;
	pthread_t t[50];
	for (long i = 0; i < 50; i++)
		if (pthread_create(&t[i], NULL, child_worker, (void *)i) != 0)
			return 1;
	for (int i = 0; i < 50; i++) {
		void *r;
		if (pthread_join(t[i], &r) != 0 || r)
			return 1;
	}
	if (ctotal != 100L * (49 * 50 / 2))
		return 1;
	if (grandchild) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(child_body(false));
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return 1;
	}
	return 0;
}

static char order[256];
#define HANDLER(name, k) \
	static void name##k(void) \
	{ \
		size_t l = strlen(order); \
		snprintf(order + l, sizeof order - l, " %s%d", #name, k); \
	}
HANDLER(prepare, 1)
HANDLER(prepare, 2)
HANDLER(prepare, 3)
HANDLER(parent, 1)
HANDLER(parent, 2)
HANDLER(parent, 3)
HANDLER(child, 1)
HANDLER(child, 2)
HANDLER(child, 3)

/* Fork here; returns 0 in the parent once the child ended as expected. */
static int fork_and_check(bool grandchild)
{
	fflush(stdout);
	order[0] = 0;
	pid_t pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		/* the child's handlers ran before fork returned */
		if (strcmp(order, " prepare3 prepare2 prepare1 child1 child2 child3") != 0) {
			printf("child: handlers ran as%s\n", order);
			_exit(1);
		}
		_exit(child_body(grandchild));
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return fail("waitpid");
	printf("atfork handlers in the parent:%s\n", order);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("child status %#x\n", st);
		return fail("child");
	}
	printf("child: 1 OS thread after fork, 50 threads created and joined%s, exit 0\n",
	       grandchild ? ", and a grandchild likewise" : "");
	return 0;
}

static void *forker(void *arg)
{
	(void)arg;
	return (void *)(long)fork_and_check(true);
}

static int forks(bool from_thread)
{
	pthread_atfork(prepare1, parent1, child1);
	pthread_atfork(prepare2, parent2, child2);
	pthread_atfork(prepare3, parent3, child3);
	if (pipe(pipefd) != 0)
		return fail("pipe");
	pthread_t t[100];
	for (long i = 0; i < 100; i++)
		if (pthread_create(&t[i], NULL, waiter, (void *)i) != 0)
			return fail("pthread_create");
	while (atomic_load(&ready) < 100)
		sleep_ms(1);
	sleep_ms(20);
	int r;
	if (from_thread) {
		pthread_t f;
		void *res;
		pthread_create(&f, NULL, forker, NULL);
		pthread_join(f, &res);
		r = (int)(long)res;
	} else {
		r = fork_and_check(false);
	}
	if (r)
		return r;
	pthread_mutex_lock(&mu);
	released = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < 25; i++)
		if (write(pipefd[1], "x", 1) != 1)
			return fail("write");
	for (int i = 0; i < 100; i++) {
		void *res;
		if (pthread_join(t[i], &res) != 0 || res)
			return fail("join");
	}
	printf("parent: 100 threads released and joined\n");
	printf("PASS %s\n", from_thread ? "thread" : "fork");
	return 0;
}

/* --- popen, system, vfork from many threads ------------------------------------------- */

static void *spawner(void *arg)
{
	long i = (long)arg;
	for (int k = 0; k < 5; k++) {
		char cmd[64], buf[64] = "";
		snprintf(cmd, sizeof cmd, "echo t%ld-%d", i, k);
		FILE *f = popen(cmd, "r");
		if (!f)
			return (void *)"popen";
		if (!fgets(buf, sizeof buf, f)) {
			pclose(f);
			return (void *)"popen read";
		}
		if (pclose(f) != 0)
			return (void *)"pclose";
		char want[64];
		snprintf(want, sizeof want, "t%ld-%d\n", i, k);
		if (strcmp(buf, want) != 0)
			return (void *)"popen output";
		snprintf(cmd, sizeof cmd, "exit %d", (int)(i + k) % 7);
		int st = system(cmd);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != (int)(i + k) % 7)
			return (void *)"system status";
		pid_t pid = vfork();
		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", "exit 3", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 3)
			return (void *)"vfork";
	}
	return NULL;
}

static int spawn(void)
{
	pthread_t t[16];
	for (long i = 0; i < 16; i++)
		pthread_create(&t[i], NULL, spawner, (void *)i);
	int bad = 0;
	for (int i = 0; i < 16; i++) {
		void *r;
		pthread_join(t[i], &r);
		if (r) {
			printf("thread %d: %s failed\n", i, (const char *)r);
			bad = 1;
		}
	}
	if (bad)
		return fail("spawn");
	printf("16 threads x 5: popen, system and vfork+exec, every output and status right\n");
	printf("PASS spawn\n");
	return 0;
}

/* --- exec from a thread ------------------------------------------------------------------ */

static atomic_int stop;

static void *busy(void *arg)
{
	long i = (long)arg;
	if (i == 5) {
		sleep_ms(20);
		fflush(stdout);
		execl("/bin/sh", "sh", "-c", "echo replaced by sh; echo PASS exec", (char *)NULL);
		printf("execl: %s\n", strerror(errno));
		exit(1);
	}
	while (!atomic_load(&stop))
		sleep_ms(1);
	return NULL;
}

static int exec_from_thread(void)
{
	pthread_t t[10];
	printf("10 threads; thread 5 calls execl\n");
	for (long i = 0; i < 10; i++)
		pthread_create(&t[i], NULL, busy, (void *)i);
	for (int i = 0; i < 10; i++)
		pthread_join(t[i], NULL);
	return fail("exec: all threads ended and the process is still here");
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "fork") == 0)
		return forks(false);
	if (strcmp(what, "thread") == 0)
		return forks(true);
	if (strcmp(what, "spawn") == 0)
		return spawn();
	if (strcmp(what, "exec") == 0)
		return exec_from_thread();
	fprintf(stderr, "usage: sig_fork fork|thread|spawn|exec\n");
	return 2;
}
