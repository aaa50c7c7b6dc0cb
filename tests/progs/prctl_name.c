/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/prctl_name.c — thread names set and read with
 * prctl(PR_SET_NAME/PR_GET_NAME), as Rust's std names its threads, mixed
 * with pthread_setname_np/pthread_getname_np. A thread's name is its own:
 * it must not leak to the main thread. Prints the names and "DONE".
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>

static void *run(void *arg)
{
	char a[16] = "", b[16] = "";
	prctl(PR_SET_NAME, (unsigned long)"a-very-long-thread-name", 0, 0, 0);
	pthread_getname_np(pthread_self(), a, sizeof a);
	prctl(PR_GET_NAME, (unsigned long)b, 0, 0, 0);
	printf("after PR_SET_NAME: getname_np \"%s\", PR_GET_NAME \"%s\"\n", a, b);
	pthread_setname_np(pthread_self(), "by-setname");
	pthread_getname_np(pthread_self(), a, sizeof a);
	prctl(PR_GET_NAME, (unsigned long)b, 0, 0, 0);
	printf("after pthread_setname_np: getname_np \"%s\", PR_GET_NAME \"%s\"\n", a, b);
	return arg;
}

int main(void)
{
	pthread_t t[4];
	char m[16] = "";
	for (int i = 0; i < 4; i++) {
		pthread_create(&t[i], NULL, run, NULL);
		pthread_join(t[i], NULL);
	}
	prctl(PR_GET_NAME, (unsigned long)m, 0, 0, 0);
	printf("main, PR_GET_NAME: \"%s\"\n", m);
	printf("DONE\n");
	return 0;
}
