/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sig_jump.c — the signal mask where code leaves by a jump,
 * or unwinds. An ordinary pthread program.
 *
 *   sig_jump unwind   8 threads at a time end with pthread_exit (the
 *                     unwinder blocks every signal around its lookups)
 *                     while the main thread yields and raises SIGUSR1,
 *                     300 rounds: each raise runs the handler before it
 *                     returns, as the main thread's mask lets SIGUSR1
 *                     through
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t hits;

static void count(int sig)
{
	(void)sig;
	hits++;
}

static void *leave(void *arg)
{
	pthread_exit(arg);
}

static int unwind(void)
{
	signal(SIGUSR1, count);
	for (int r = 0; r < 300; r++) {
		pthread_t t[8];
		for (int i = 0; i < 8; i++)
			if (pthread_create(&t[i], NULL, leave, NULL) != 0) {
				printf("pthread_create failed\n");
				return 1;
			}
		for (int i = 0; i < 8; i++) {
			sched_yield();
			int before = hits;
			raise(SIGUSR1);
			if (hits != before + 1) {
				printf("round %d: raise returned before the handler ran\n", r);
				return 1;
			}
		}
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	}
	printf("2400 raises, each handled before raise returned\n");
	printf("PASS unwind\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	const char *sub = argc > 1 ? argv[1] : "";
	if (strcmp(sub, "unwind") == 0)
		return unwind();
	fprintf(stderr, "usage: sig_jump unwind\n");
	return 2;
}
