/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/stdio_dup2.c — a pipe dup2'd onto standard output and onto
 * standard input, used through stdio while another thread is at the
 * other end (as a program that redirects its own output, or an inetd
 * style server, does).
 *
 * stdout: 300 x 1000 bytes are fwritten while a reader thread drains the
 * pipe only after 100 ms, so stdio's write must block when the 64 KiB
 * pipe is full. stdin: fgets waits for a line a thread writes 100 ms
 * later. Prints what each got and "DONE"; exits 1 on a short count or
 * an error.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int pfd[2];
static long total;

static void *reader(void *arg)
{
	char buf[4096];
	usleep(100000);
	for (;;) {
		ssize_t n = read(pfd[0], buf, sizeof buf);
		if (n <= 0)
			break;
		total += n;
	}
	return arg;
}

static void *writer(void *arg)
{
	usleep(100000);
	if (write(pfd[1], "hello\n", 6) != 6)
		perror("write");
	return arg;
}

int main(void)
{
	pthread_t t;
	if (pipe(pfd) != 0)
		return 1;
	int saved = dup(1);
	fflush(stdout);
	dup2(pfd[1], 1);
	pthread_create(&t, NULL, reader, NULL);
	char chunk[1000];
	memset(chunk, 'x', sizeof chunk);
	for (int i = 0; i < 300; i++)
		fwrite(chunk, 1, sizeof chunk, stdout);
	fflush(stdout);
	int err = ferror(stdout), e = errno;
	dup2(saved, 1);
	close(pfd[1]);
	pthread_join(t, NULL);
	clearerr(stdout);
	printf("stdout on a pipe: ferror %d (%s), reader got %ld bytes\n", err,
	       err ? strerror(e) : "-", total);
	close(pfd[0]);

	char line[64];
	if (pipe(pfd) != 0)
		return 1;
	dup2(pfd[0], 0);
	pthread_create(&t, NULL, writer, NULL);
	errno = 0;
	char *r = fgets(line, sizeof line, stdin);
	e = errno;
	pthread_join(t, NULL);
	printf("stdin on a pipe: fgets %s%s(%s)\n", r ? "read " : "NULL", r ? line : " ",
	       r ? "-" : strerror(e));
	if (err || total != 300000 || !r)
		return 1;
	printf("DONE\n");
	return 0;
}
