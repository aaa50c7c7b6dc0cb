/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/sync_xfutex.c — a futex shared between two processes:
 * syscall(SYS_futex, FUTEX_WAIT) without FUTEX_PRIVATE_FLAG on a word of a
 * MAP_SHARED file mapping, woken by another process (this program run
 * again with "wake": posix_spawn, so both run the same way) with
 * FUTEX_WAKE. A thread of the first waits; the round is repeated in the
 * other direction too, a thread of the second process waiting for the
 * first. Prints PASS.
 */
#include "sync_util.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define ROUNDS 5

static _Atomic uint32_t *words;	/* [0] first -> second, [1] second -> first */

static void wait_word(_Atomic uint32_t *w, uint32_t seen)
{
	for (int k = 0; atomic_load(w) == seen; k++) {
		CHECK(k < 100000, "woken %d times without a change", k);
		long r = syscall(SYS_futex, w, FUTEX_WAIT, seen, NULL, NULL, 0);
		CHECK(r == 0 || errno == EAGAIN || errno == EINTR, "FUTEX_WAIT: %s",
		      errname(errno));
	}
}

static void bump(_Atomic uint32_t *w)
{
	atomic_fetch_add(w, 1);
	CHECK(syscall(SYS_futex, w, FUTEX_WAKE, 1, NULL, NULL, 0) >= 0, "FUTEX_WAKE");
}

/* one side: wait for the other's bump of in[], answer on out[] */
static void *side(void *arg)
{
	int first = arg != NULL;
	for (uint32_t r = 0; r < ROUNDS; r++) {
		if (first) {
			bump(&words[0]);
			wait_word(&words[1], r);
		} else {
			wait_word(&words[0], r);
			bump(&words[1]);
		}
	}
	return NULL;
}

static void map(const char *path)
{
	int fd = open(path, O_RDWR);
	CHECK(fd >= 0, "open %s", path);
	words = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(words != MAP_FAILED, "mmap");
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "wake") == 0) {
		map(argv[2]);
		pthread_t t;
		EXPECT_ERR(0, pthread_create(&t, NULL, side, NULL));
		EXPECT_ERR(0, pthread_join(t, NULL));
		return 0;
	}
	char path[] = "/tmp/gmp-xfutex-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && ftruncate(fd, 4096) == 0, "mkstemp");
	close(fd);
	map(path);
	char *args[] = {argv[0], "wake", path, NULL};
	pid_t pid;
	CHECK(posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args, environ) == 0, "posix_spawn");
	pthread_t t;
	EXPECT_ERR(0, pthread_create(&t, NULL, side, (void *)1));
	EXPECT_ERR(0, pthread_join(t, NULL));
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the other process failed");
	unlink(path);
	SAY("shared futex between two processes: %d rounds each way", ROUNDS);
	SAY("PASS sync_xfutex");
	return 0;
}
