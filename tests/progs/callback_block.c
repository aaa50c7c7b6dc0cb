/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/callback_block.c — the program's code that a thread library
 * calls back (a pthread_once routine, a key destructor) may block in a
 * call the library never sees, and other threads must go on meanwhile.
 * An ordinary pthread program; meant for one processor under libgmp.
 *
 *   once   a thread holds stdout's lock (flockfile) for 50 ms while
 *          main's pthread_once routine prints: glibc's lock blocks the
 *          routine until the thread, which must get to run, lets go
 *   dtor   the same from a key destructor of an ending thread
 *   vfork  after a vfork child exec'd, main waits 300 ms in wait4 made
 *          with syscall() while a thread spins: the spinner runs then
 *
 * Prints what happened and "DONE", exits 0; a hang is the failure (the
 * caller's timeout).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void *hold_stdout(void *arg)
{
	(void)arg;
	flockfile(stdout);
	usleep(50000);
	funlockfile(stdout);
	return NULL;
}

static void say(void)
{
	printf("the callback printed\n");
	fflush(stdout);
}

static pthread_key_t key;

static void destructor(void *v)
{
	(void)v;
	say();
}

static void *with_key(void *arg)
{
	(void)arg;
	pthread_setspecific(key, (void *)1);
	return NULL;
}

static atomic_long spins;
static atomic_int stop;

static void *spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop))
		atomic_fetch_add(&spins, 1);
	return NULL;
}

static int vfork_then_wait(void)
{
	pid_t p = vfork();
	if (p == 0) {
		char *av[] = {"/bin/true", NULL};
		execve("/bin/true", av, environ);
		_exit(127);
	}
	int st;
	waitpid(p, &st, 0);
	pthread_t t;
	pthread_create(&t, NULL, spin, NULL);
	usleep(20000);
	pid_t c = fork();
	if (c == 0) {
		usleep(300000);
		_exit(0);
	}
	long before = atomic_load(&spins);
	syscall(SYS_wait4, c, &st, 0, NULL);	/* a call no thread library sees */
	long during = atomic_load(&spins) - before;
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("vfork child exec'd; the spinner ran while main waited: %d\n", during > 0);
	return during > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(what, "vfork") == 0) {
		if (vfork_then_wait())
			return 1;
		printf("DONE\n");
		return 0;
	}
	if (strcmp(what, "once") != 0 && strcmp(what, "dtor") != 0) {
		fprintf(stderr, "usage: callback_block once|dtor|vfork\n");
		return 2;
	}
	pthread_t holder;
	pthread_create(&holder, NULL, hold_stdout, NULL);
	usleep(10000);
	if (strcmp(what, "once") == 0) {
		static pthread_once_t once = PTHREAD_ONCE_INIT;
		pthread_once(&once, say);
	} else {
		pthread_key_create(&key, destructor);
		pthread_t t;
		pthread_create(&t, NULL, with_key, NULL);
		pthread_join(t, NULL);
	}
	pthread_join(holder, NULL);
	printf("DONE\n");
	return 0;
}
