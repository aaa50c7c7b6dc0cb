/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/blocked_calls.c — a thread blocked in a call that cannot be
 * polled leaves the other threads running. For each call, one thread
 * blocks in it, and another makes 1,000 steps of progress and only then
 * does what ends the wait. If the blocked thread's OS thread kept the
 * only processor, the other would never run and the program would hang
 * (the test's timeout fails it). Calls: waitpid and waitid (a child
 * shell reads a line from a pipe), system() (the same, inside glibc),
 * semop and msgrcv (System V IPC), flock, opening and reading a FIFO,
 * reading a regular file in large pieces until told to stop (each read
 * takes long enough for its processor to be handed on), and a read made
 * with syscall(2) on a pipe made the same way (a thread library cannot
 * tell that it blocks). Prints PASS.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static atomic_int waiting, progress;
static void (*release)(void);

/* the other thread: progress, then release the blocked one */
static void *worker(void *arg)
{
	while (!atomic_load(&waiting))
		sched_yield();
	for (int i = 0; i < 1000; i++) {
		atomic_fetch_add(&progress, 1);
		sched_yield();
	}
	release();
	return arg;
}

/* Run blocker (which sets `waiting` right before it blocks) against the
 * worker, and report. */
static void run(const char *what, void *(*blocker)(void *), void (*rel)(void))
{
	atomic_store(&waiting, 0);
	atomic_store(&progress, 0);
	release = rel;
	pthread_t b, w;
	CHECK(pthread_create(&b, NULL, blocker, NULL) == 0, "create");
	CHECK(pthread_create(&w, NULL, worker, NULL) == 0, "create");
	CHECK(pthread_join(b, NULL) == 0 && pthread_join(w, NULL) == 0, "join");
	CHECK(atomic_load(&progress) == 1000, "%s: progress %d", what, atomic_load(&progress));
	printf("%s: the other thread made %d steps meanwhile\n", what, atomic_load(&progress));
}

/* ---- child processes ---- */

static int fds[2];
static pid_t child;

static void write_line(void)
{
	CHECK(write(fds[1], "go\n", 3) == 3, "write");
}

static void spawn_reader(void)
{
	CHECK(pipe(fds) == 0, "pipe");
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
	posix_spawn_file_actions_addclose(&fa, fds[1]);
	char *argv[] = {"/bin/sh", "-c", "read x", NULL};
	CHECK(posix_spawn(&child, "/bin/sh", &fa, NULL, argv, environ) == 0, "posix_spawn");
	posix_spawn_file_actions_destroy(&fa);
	close(fds[0]);
}

static void *by_waitpid(void *arg)
{
	int st = 0;
	atomic_store(&waiting, 1);
	pid_t r = waitpid(child, &st, 0);
	CHECK(r == child && WIFEXITED(st) && WEXITSTATUS(st) == 0, "waitpid %d", (int)r);
	return arg;
}

static void *by_waitid(void *arg)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	atomic_store(&waiting, 1);
	CHECK(waitid(P_PID, (id_t)child, &si, WEXITED) == 0 && si.si_pid == child, "waitid");
	return arg;
}

static void *by_system(void *arg)
{
	atomic_store(&waiting, 1);
	int r = system("read x <&3");
	CHECK(r == 0, "system: %d", r);
	return arg;
}

/* ---- System V IPC ---- */

static int semid, msqid;

static void sem_up(void)
{
	struct sembuf op = {.sem_num = 0, .sem_op = 1};
	CHECK(semop(semid, &op, 1) == 0, "semop +1");
}

static void *by_semop(void *arg)
{
	struct sembuf op = {.sem_num = 0, .sem_op = -1};
	atomic_store(&waiting, 1);
	CHECK(semop(semid, &op, 1) == 0, "semop -1: %s", strerror(errno));
	return arg;
}

struct msg {
	long type;
	char text[8];
};

static void msg_send(void)
{
	struct msg m = {.type = 1, .text = "go"};
	CHECK(msgsnd(msqid, &m, sizeof m.text, 0) == 0, "msgsnd");
}

static void *by_msgrcv(void *arg)
{
	struct msg m;
	atomic_store(&waiting, 1);
	CHECK(msgrcv(msqid, &m, sizeof m.text, 1, 0) == (ssize_t)sizeof m.text, "msgrcv: %s",
	      strerror(errno));
	return arg;
}

/* ---- flock ---- */

static int lockfd1, lockfd2;

static void unlock_file(void)
{
	CHECK(flock(lockfd1, LOCK_UN) == 0, "flock LOCK_UN");
}

static void *by_flock(void *arg)
{
	atomic_store(&waiting, 1);
	CHECK(flock(lockfd2, LOCK_EX) == 0, "flock LOCK_EX: %s", strerror(errno));
	return arg;
}

/* ---- files ---- */

static char fifo_path[64];

static void *by_fifo(void *arg)
{
	atomic_store(&waiting, 1);
	int fd = open(fifo_path, O_RDONLY);	/* blocks until a writer opens */
	CHECK(fd >= 0, "open fifo: %s", strerror(errno));
	char buf[8];
	CHECK(read(fd, buf, sizeof buf) == 3 && memcmp(buf, "go\n", 3) == 0, "read fifo");
	close(fd);
	return arg;
}

static void fifo_write(void)
{
	int fd = open(fifo_path, O_WRONLY);
	CHECK(fd >= 0 && write(fd, "go\n", 3) == 3, "fifo writer");
	close(fd);
}

static char file_path[64];
static atomic_int stop_reading;

static void *by_file_reads(void *arg)
{
	int fd = open(file_path, O_RDONLY);
	CHECK(fd >= 0, "open file");
	size_t size = 8 << 20;
	char *buf = malloc(size);
	CHECK(buf, "malloc");
	atomic_store(&waiting, 1);
	long reads = 0;
	while (!atomic_load(&stop_reading)) {
		CHECK(pread(fd, buf, size, 0) == (ssize_t)size, "pread");
		reads++;
	}
	free(buf);
	close(fd);
	return arg;
}

static void stop_file_reads(void)
{
	atomic_store(&stop_reading, 1);
}

/* ---- a system call made with syscall(2) on a pipe also made that way:
 * nothing a thread library sees as a call that may block ---- */

static int rawfds[2];

static void *by_raw_read(void *arg)
{
	char c;
	atomic_store(&waiting, 1);
	CHECK(syscall(SYS_read, rawfds[0], &c, 1) == 1 && c == 'g', "raw read");
	return arg;
}

static void raw_write(void)
{
	CHECK(syscall(SYS_write, rawfds[1], "g", 1) == 1, "raw write");
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	spawn_reader();
	run("waitpid", by_waitpid, write_line);
	close(fds[1]);
	spawn_reader();
	run("waitid", by_waitid, write_line);
	close(fds[1]);
	CHECK(pipe(fds) == 0 && dup2(fds[0], 3) == 3, "pipe");
	run("system", by_system, write_line);
	close(fds[1]);

	semid = semget(IPC_PRIVATE, 1, 0600);
	msqid = msgget(IPC_PRIVATE, 0600);
	CHECK(semid >= 0 && msqid >= 0, "semget/msgget: %s", strerror(errno));
	run("semop", by_semop, sem_up);
	run("msgrcv", by_msgrcv, msg_send);
	semctl(semid, 0, IPC_RMID);
	msgctl(msqid, IPC_RMID, NULL);

	char path[] = "/tmp/gmp-flock-XXXXXX";
	lockfd1 = mkstemp(path);
	lockfd2 = open(path, O_RDWR);
	CHECK(lockfd1 >= 0 && lockfd2 >= 0 && flock(lockfd1, LOCK_EX) == 0, "flock setup");
	run("flock", by_flock, unlock_file);
	unlink(path);

	snprintf(fifo_path, sizeof fifo_path, "/tmp/gmp-fifo-%d", (int)getpid());
	CHECK(mkfifo(fifo_path, 0600) == 0, "mkfifo");
	run("fifo", by_fifo, fifo_write);
	unlink(fifo_path);

	snprintf(file_path, sizeof file_path, "/tmp/gmp-file-%d", (int)getpid());
	int fd = open(file_path, O_CREAT | O_RDWR | O_TRUNC, 0600);
	CHECK(fd >= 0 && ftruncate(fd, 8 << 20) == 0, "make file");
	char *page = calloc(1, 1 << 20);
	for (int i = 0; i < 8; i++)
		CHECK(pwrite(fd, page, 1 << 20, (off_t)i << 20) == 1 << 20, "fill file");
	free(page);
	close(fd);
	run("file reads", by_file_reads, stop_file_reads);
	unlink(file_path);

	CHECK(syscall(SYS_pipe2, rawfds, 0) == 0, "raw pipe");
	run("raw read", by_raw_read, raw_write);
	printf("PASS blocked_calls\n");
	return 0;
}
