/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/boundary.c — calls that reach the kernel past the thread
 * library: inline system call instructions, splice and friends, glibc's
 * own stdio reads, a child process sharing a socket. They must find the
 * descriptor flags the program set and block as the program asked. An
 * ordinary pthread program (x86-64: it has its own `syscall` instruction).
 *
 *   boundary inline      a thread reads a pipe and then a socket pair with
 *                        an inline `syscall` instruction, and writes 1 MiB
 *                        into each the same way; the other side comes
 *                        100 ms late. Each call blocks and moves it all.
 *   boundary splice      splice and tee from an empty pipe that a thread
 *                        fills 100 ms later; sendfile of 400 KiB onto a
 *                        socket pair whose reader starts 100 ms late;
 *                        copy_file_range into a pipe and between files
 *   boundary stdio       50 threads at once: fgets on an fdopen'ed socket
 *                        whose writer is 50 ms late, and fread on a popen
 *                        stream
 *   boundary forkexec    a forked child execs this program (`child` mode)
 *                        on one end of a socket pair: it checks that the
 *                        socket blocks, reads 1 MiB, checking every byte,
 *                        and writes it back; the parent's threads write and
 *                        read the other end, checking every byte, then the
 *                        parent uses the child's end itself
 *   boundary flags       for every kind of descriptor, blocking and not,
 *                        after F_SETFL, FIONBIO and dup: F_GETFL and the
 *                        kernel's own record (/proc/self/fdinfo) agree
 *   boundary noeintr     epoll_wait, poll and nanosleep of 200 ms, each
 *                        made with an inline `syscall` instruction, 3 times,
 *                        while 3 threads spin: none returns EINTR (the
 *                        kernel restarts none of them after a handler)
 *   boundary unseen      2 threads block 1 s in inline-`syscall` reads while
 *                        8 threads spin: every spinner progresses (stderr:
 *                        in how many 100 ms windows all of them did)
 *   boundary signalonly  poll and select on nothing, with no timeout, in a
 *                        process of one thread, each ended by SIGALRM
 *   boundary select      select on an empty pipe, interrupted by SIGALRM
 *                        (no SA_RESTART): EINTR with the set unchanged, then
 *                        the same set sees a byte written 100 ms later
 *   boundary thenselect  signalonly, then select, in one process: the
 *                        waits on nothing come before any descriptor is
 *                        watched, and the writer's 100 ms sleep must still
 *                        end once one is
 *   boundary psem        a forked child posts a process-shared semaphore and
 *                        a named one, and meets the parent at a
 *                        process-shared barrier, each 100 ms late
 *
 * Prints what it saw and "PASS <what>" and exits 0, or says what went
 * wrong and exits 1.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <poll.h>
#include <stdatomic.h>
#include <sys/epoll.h>
#include <semaphore.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/time.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#define MIB (1 << 20)

/* A system call the thread library cannot see. */
static long inline_syscall3(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i % 251);
}

/* ---- inline -------------------------------------------------------------------- */

struct late {
	int fd;
	int ms;
	size_t n;	/* bytes to write (write side) or read (read side) */
	long got;
};

static void *late_writer(void *arg)
{
	struct late *l = arg;
	sleep_ms(l->ms);
	static unsigned char buf[MIB];
	for (size_t i = 0; i < l->n; i++)
		buf[i] = pattern(i);
	size_t done = 0;
	while (done < l->n) {
		ssize_t r = write(l->fd, buf + done, l->n - done);
		CHECK(r > 0, "write: %s", strerror(errno));
		done += (size_t)r;
	}
	l->got = (long)done;
	return NULL;
}

static void *late_reader(void *arg)
{
	struct late *l = arg;
	sleep_ms(l->ms);
	static unsigned char buf[64 * 1024];
	size_t done = 0;
	while (done < l->n) {
		ssize_t r = read(l->fd, buf, sizeof buf);
		CHECK(r > 0, "read: %zd %s", r, strerror(errno));
		for (ssize_t i = 0; i < r; i++)
			CHECK(buf[i] == pattern(done + (size_t)i), "byte %zu", done + (size_t)i);
		done += (size_t)r;
	}
	l->got = (long)done;
	return NULL;
}

static void inline_pair(const char *what, int rd, int wr)
{
	/* read: 1 byte written 100 ms later */
	struct late l = {wr, 100, 1, 0};
	pthread_t t;
	pthread_create(&t, NULL, late_writer, &l);
	unsigned char c = 0xff;
	long r = inline_syscall3(SYS_read, rd, (long)&c, 1);
	pthread_join(t, NULL);
	printf("%s: inline read returned %ld, byte %u\n", what, r, c);
	CHECK(r == 1 && c == pattern(0), "inline read on %s: %ld", what, r);

	/* write: 1 MiB, whose reader starts 100 ms later */
	static unsigned char buf[MIB];
	for (size_t i = 0; i < MIB; i++)
		buf[i] = pattern(i);
	struct late lr = {rd, 100, MIB, 0};
	pthread_create(&t, NULL, late_reader, &lr);
	size_t done = 0;
	while (done < MIB) {
		r = inline_syscall3(SYS_write, wr, (long)(buf + done), (long)(MIB - done));
		CHECK(r > 0, "inline write on %s: %ld", what, r);
		done += (size_t)r;
	}
	pthread_join(t, NULL);
	printf("%s: inline write moved %zu bytes, reader got %ld\n", what, done, lr.got);
	CHECK(lr.got == MIB, "reader");
}

static int do_inline(void)
{
	int p[2], sv[2];
	CHECK(pipe(p) == 0, "pipe");
	inline_pair("pipe", p[0], p[1]);
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	inline_pair("socket pair", sv[0], sv[1]);
	return 0;
}

/* ---- splice ------------------------------------------------------------------- */

static int do_splice(void)
{
	int p[2], q[2];
	CHECK(pipe(p) == 0 && pipe(q) == 0, "pipe");
	struct late l = {p[1], 100, 1, 0};
	pthread_t t;
	pthread_create(&t, NULL, late_writer, &l);
	ssize_t r = splice(p[0], NULL, q[1], NULL, 1, 0);
	pthread_join(t, NULL);
	printf("splice from an empty pipe: %zd\n", r);
	CHECK(r == 1, "splice: %s", strerror(errno));
	unsigned char c;
	CHECK(read(q[0], &c, 1) == 1 && c == pattern(0), "spliced byte");

	pthread_create(&t, NULL, late_writer, &l);
	r = tee(p[0], q[1], 1, 0);
	pthread_join(t, NULL);
	printf("tee from an empty pipe: %zd\n", r);
	CHECK(r == 1, "tee: %s", strerror(errno));
	CHECK(read(q[0], &c, 1) == 1 && c == pattern(0), "teed byte");
	CHECK(read(p[0], &c, 1) == 1 && c == pattern(0), "byte left by tee");

	/* sendfile: 400 KiB onto a socket whose reader is late */
	char name[] = "/tmp/gmp-boundary-XXXXXX";
	int f = mkstemp(name);
	CHECK(f >= 0, "mkstemp");
	unlink(name);
	size_t n = 400 * 1024;
	unsigned char *buf = malloc(n);
	for (size_t i = 0; i < n; i++)
		buf[i] = pattern(i);
	CHECK(write(f, buf, n) == (ssize_t)n, "file");
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	struct late lr = {sv[1], 100, n, 0};
	pthread_create(&t, NULL, late_reader, &lr);
	off_t off = 0;
	while ((size_t)off < n) {
		r = sendfile(sv[0], f, &off, n - (size_t)off);
		CHECK(r > 0, "sendfile after %lld bytes: %s", (long long)off, strerror(errno));
	}
	pthread_join(t, NULL);
	printf("sendfile sent %lld bytes, reader got %ld\n", (long long)off, lr.got);
	CHECK(lr.got == (long)n, "sendfile reader");

	/* copy_file_range into a pipe (the kernel's answer, whatever it is),
	 * then between two files */
	off_t in = 0;
	r = copy_file_range(f, &in, q[1], NULL, 16, 0);
	printf("copy_file_range into a pipe: %zd %s\n", r, r < 0 ? strerror(errno) : "");
	if (r > 0) {
		unsigned char b[16];
		CHECK(read(q[0], b, (size_t)r) == r && memcmp(b, buf, (size_t)r) == 0, "copied");
	}
	char name2[] = "/tmp/gmp-boundary-XXXXXX";
	int g = mkstemp(name2);
	CHECK(g >= 0, "mkstemp");
	unlink(name2);
	in = 0;
	size_t copied = 0;
	while (copied < n) {
		r = copy_file_range(f, &in, g, NULL, n - copied, 0);
		CHECK(r > 0, "copy_file_range: %s", strerror(errno));
		copied += (size_t)r;
	}
	unsigned char *back = malloc(n);
	CHECK(pread(g, back, n, 0) == (ssize_t)n && memcmp(back, buf, n) == 0, "copy");
	printf("copy_file_range between files: %zu bytes\n", copied);
	free(back);
	free(buf);
	return 0;
}

/* ---- stdio -------------------------------------------------------------------------- */

#define NSTDIO 50

struct line_writer {
	int fd, id;
};

/* A line 50 ms late, in two halves. */
static void *write_line(void *arg)
{
	struct line_writer *x = arg;
	char line[64];
	int len = snprintf(line, sizeof line, "line of thread %d\n", x->id);
	sleep_ms(50);
	CHECK(write(x->fd, line, 5) == 5, "write");
	sleep_ms(10);
	CHECK(write(x->fd, line + 5, (size_t)len - 5) == len - 5, "write");
	return NULL;
}

static void *stdio_thread(void *arg)
{
	int id = (int)(intptr_t)arg;
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	FILE *in = fdopen(sv[0], "r");
	CHECK(in, "fdopen");
	struct line_writer w = {sv[1], id};
	pthread_t t;
	pthread_create(&t, NULL, write_line, &w);
	char got[64], want[64];
	snprintf(want, sizeof want, "line of thread %d\n", id);
	CHECK(fgets(got, sizeof got, in) != NULL, "fgets: %s", strerror(errno));
	CHECK(strcmp(got, want) == 0, "fgets got '%s'", got);
	pthread_join(t, NULL);
	fclose(in);
	close(sv[1]);

	char cmd[64];
	snprintf(cmd, sizeof cmd, "sleep 0.05; echo popen %d", id);
	FILE *p = popen(cmd, "r");
	CHECK(p, "popen");
	char buf[64] = {0};
	size_t r = fread(buf, 1, sizeof buf - 1, p);
	snprintf(want, sizeof want, "popen %d\n", id);
	CHECK(r == strlen(want) && strcmp(buf, want) == 0, "fread got %zu '%s' (%s)", r, buf,
	      ferror(p) ? strerror(errno) : "no error");
	CHECK(pclose(p) == 0, "pclose");
	return NULL;
}

static int do_stdio(void)
{
	pthread_t t[NSTDIO];
	for (int i = 0; i < NSTDIO; i++)
		CHECK(pthread_create(&t[i], NULL, stdio_thread, (void *)(intptr_t)i) == 0, "create");
	for (int i = 0; i < NSTDIO; i++)
		pthread_join(t[i], NULL);
	printf("%d threads read their lines with fgets and fread\n", NSTDIO);
	return 0;
}

/* ---- forkexec ------------------------------------------------------------------ */

static int child_mode(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	CHECK(fl >= 0 && !(fl & O_NONBLOCK), "the child's socket is non-blocking: %#x", fl);
	static unsigned char buf[MIB];
	size_t done = 0;
	while (done < MIB) {
		ssize_t r = read(fd, buf + done, MIB - done);
		CHECK(r > 0, "child read: %zd %s", r, strerror(errno));
		done += (size_t)r;
	}
	for (size_t i = 0; i < MIB; i++)
		CHECK(buf[i] == pattern(i), "child: byte %zu", i);
	done = 0;
	while (done < MIB) {
		ssize_t r = write(fd, buf + done, MIB - done);
		CHECK(r > 0, "child write: %zd %s", r, strerror(errno));
		done += (size_t)r;
	}
	return 0;
}

static int do_forkexec(const char *self)
{
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(sv[0]);
		char fdarg[16];
		snprintf(fdarg, sizeof fdarg, "%d", sv[1]);
		execl(self, self, "child", fdarg, (char *)NULL);
		_exit(127);
	}
	/* the parent keeps the child's end open too */
	struct late w = {sv[0], 0, MIB, 0}, r = {sv[0], 0, MIB, 0};
	pthread_t tw, tr;
	pthread_create(&tw, NULL, late_writer, &w);
	pthread_create(&tr, NULL, late_reader, &r);
	pthread_join(tw, NULL);
	pthread_join(tr, NULL);
	int st;
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
	printf("parent and exec'd child moved %ld and %ld bytes through one socket\n", w.got, r.got);
	/* now the parent uses the child's end */
	int fl = fcntl(sv[1], F_GETFL);
	CHECK(fl >= 0 && !(fl & O_NONBLOCK), "the child's end changed: %#x", fl);
	struct late w2 = {sv[1], 100, 1000, 0};
	pthread_t t;
	pthread_create(&t, NULL, late_writer, &w2);
	unsigned char buf[1000];
	size_t done = 0;
	while (done < sizeof buf) {
		ssize_t n = read(sv[0], buf + done, sizeof buf - done);
		CHECK(n > 0, "read: %s", strerror(errno));
		done += (size_t)n;
	}
	pthread_join(t, NULL);
	for (size_t i = 0; i < done; i++)
		CHECK(buf[i] == pattern(i), "byte %zu", i);
	printf("then the parent read %zu bytes written on the child's end\n", done);
	return 0;
}

/* ---- noeintr ------------------------------------------------------------------ */

#define NSPIN 3

static atomic_int spinning = 1;

static void *spin(void *arg)
{
	atomic_long *n = arg;
	while (atomic_load_explicit(&spinning, memory_order_relaxed))
		atomic_fetch_add_explicit(n, 1, memory_order_relaxed);
	return NULL;
}

static long inline_syscall4(long nr, long a, long b, long c, long d)
{
	long r;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return r;
}

/* Each call waits 200 ms for nothing, made with the program's own
 * `syscall` instruction, while 3 threads spin: the kernel never restarts
 * these after a signal, so any signal the thread library sent would show
 * as -EINTR. */
static int do_noeintr(void)
{
	static atomic_long spins[NSPIN];
	pthread_t s[NSPIN];
	for (int i = 0; i < NSPIN; i++)
		pthread_create(&s[i], NULL, spin, &spins[i]);
	int ep = epoll_create1(0), p[2];
	CHECK(ep >= 0 && pipe(p) == 0, "fds");
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = p[0]};
	CHECK(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) == 0, "epoll_ctl");
	for (int round = 0; round < 3; round++) {
		long r = inline_syscall4(SYS_epoll_wait, ep, (long)&ev, 1, 200);
		printf("epoll_wait of 200 ms: %s\n", r == 0 ? "timed out" : strerror((int)-r));
		CHECK(r == 0, "epoll_wait returned %ld", r);
		struct pollfd pf = {p[0], POLLIN, 0};
		r = inline_syscall3(SYS_poll, (long)&pf, 1, 200);
		printf("poll of 200 ms: %s\n", r == 0 ? "timed out" : strerror((int)-r));
		CHECK(r == 0, "poll returned %ld", r);
		struct timespec ts = {0, 200000000};
		r = inline_syscall3(SYS_nanosleep, (long)&ts, 0, 0);
		printf("nanosleep of 200 ms: %s\n", r == 0 ? "slept" : strerror((int)-r));
		CHECK(r == 0, "nanosleep returned %ld", r);
	}
	atomic_store(&spinning, 0);
	for (int i = 0; i < NSPIN; i++) {
		pthread_join(s[i], NULL);
		CHECK(atomic_load(&spins[i]) > 0, "spinner %d never ran", i);
	}
	return 0;
}

/* ---- unseen ------------------------------------------------------------------ */

#define NUNSEEN_SPIN 8
#define NUNSEEN_WINDOWS 10

static void *inline_reader(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char c;
	long r = inline_syscall3(SYS_read, fd, (long)&c, 1);
	return (void *)(intptr_t)(r == 1 ? 0 : 1);
}

/* 2 threads block in inline-`syscall` reads of their own pipes for 1 s
 * while 8 threads spin: every spinner must make progress meanwhile (on
 * a thread library with 2 processors, both are held by the blocked
 * threads until something takes them back). Prints how many of the ten
 * 100 ms windows saw every spinner progress, as a figure (stderr). */
static int do_unseen(void)
{
	static atomic_long spins[NUNSEEN_SPIN];
	int p[2][2];
	pthread_t rd[2], s[NUNSEEN_SPIN];
	for (int i = 0; i < 2; i++) {
		CHECK(pipe(p[i]) == 0, "pipe");
		pthread_create(&rd[i], NULL, inline_reader, (void *)(intptr_t)p[i][0]);
	}
	sleep_ms(20);
	for (int i = 0; i < NUNSEEN_SPIN; i++)
		pthread_create(&s[i], NULL, spin, &spins[i]);
	long first[NUNSEEN_SPIN], last[NUNSEEN_SPIN];
	for (int i = 0; i < NUNSEEN_SPIN; i++)
		first[i] = last[i] = atomic_load(&spins[i]);
	int full = 0;
	for (int w = 0; w < NUNSEEN_WINDOWS; w++) {
		sleep_ms(100);
		int all = 1;
		for (int i = 0; i < NUNSEEN_SPIN; i++) {
			long v = atomic_load(&spins[i]);
			all &= v != last[i];
			last[i] = v;
		}
		full += all;
	}
	for (int i = 0; i < 2; i++)
		CHECK(write(p[i][1], "x", 1) == 1, "write");
	for (int i = 0; i < 2; i++) {
		void *r;
		pthread_join(rd[i], &r);
		CHECK(r == NULL, "inline read");
	}
	atomic_store(&spinning, 0);
	for (int i = 0; i < NUNSEEN_SPIN; i++)
		pthread_join(s[i], NULL);
	for (int i = 0; i < NUNSEEN_SPIN; i++)
		CHECK(last[i] != first[i], "spinner %d never ran while 2 threads were blocked", i);
	printf("%d spinners all ran while 2 threads were blocked in inline reads\n", NUNSEEN_SPIN);
	fprintf(stderr, "figure: every spinner progressed in %d of %d windows of 100 ms\n", full,
		NUNSEEN_WINDOWS);
	return 0;
}

/* ---- select ------------------------------------------------------------------ */

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* select on an empty pipe is interrupted by a SIGALRM whose handler has
 * no SA_RESTART: -1 with EINTR, and the set left as it was, as Linux
 * leaves it (CPython's select retries with the same sets). The retry,
 * with that set, then sees the byte a thread writes 100 ms later. */
static int do_select(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
	struct itimerval it = {{0, 0}, {0, 100000}};
	int p[2];
	CHECK(pipe(p) == 0, "pipe");
	fd_set r;
	FD_ZERO(&r);
	FD_SET(p[0], &r);
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer");
	int n = select(p[0] + 1, &r, NULL, NULL, NULL);
	int e = errno;
	printf("select interrupted: %d (%s), %d alarm, pipe still in the set: %s\n", n,
	       n < 0 ? strerror(e) : "-", (int)alarms, FD_ISSET(p[0], &r) ? "yes" : "no");
	CHECK(n == -1 && e == EINTR && FD_ISSET(p[0], &r), "select after a signal");
	struct late l = {p[1], 100, 1, 0};
	pthread_t t;
	pthread_create(&t, NULL, late_writer, &l);
	n = select(p[0] + 1, &r, NULL, NULL, NULL);
	pthread_join(t, NULL);
	printf("select again with the same set: %d, pipe ready: %s\n", n,
	       FD_ISSET(p[0], &r) ? "yes" : "no");
	CHECK(n == 1 && FD_ISSET(p[0], &r), "select after the write");
	return 0;
}

/* poll and select on nothing, with no timeout, in a process of one
 * thread: only the SIGALRM ends them. */
static int do_signalonly(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
	struct itimerval it = {{0, 0}, {0, 100000}};
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer");
	int n = poll(NULL, 0, -1);
	int e = errno;
	printf("poll on nothing interrupted: %d (%s)\n", n, n < 0 ? strerror(e) : "-");
	CHECK(n == -1 && e == EINTR, "poll on nothing");
	CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0, "setitimer");
	n = select(0, NULL, NULL, NULL, NULL);
	e = errno;
	printf("select on nothing interrupted: %d (%s)\n", n, n < 0 ? strerror(e) : "-");
	CHECK(n == -1 && e == EINTR, "select on nothing");
	return 0;
}

/* ---- psem ---------------------------------------------------------------------- */

/* Shared between this process and a forked child: a semaphore made with
 * sem_init(pshared = 1), a named one from sem_open, and a process-shared
 * barrier. Each time the child comes 100 ms late: the parent's wait must
 * end by the child's post (or arrival), which no thread of its own makes. */
static int do_psem(void)
{
	struct shared {
		sem_t sem;
		pthread_barrier_t bar;
	} *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh != MAP_FAILED, "mmap");
	CHECK(sem_init(&sh->sem, 1, 0) == 0, "sem_init");
	char name[64];
	snprintf(name, sizeof name, "/gmp-boundary-%d", (int)getpid());
	sem_t *named = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
	CHECK(named != SEM_FAILED, "sem_open: %s", strerror(errno));
	sem_unlink(name);
	pthread_barrierattr_t ba;
	pthread_barrierattr_init(&ba);
	pthread_barrierattr_setpshared(&ba, PTHREAD_PROCESS_SHARED);
	CHECK(pthread_barrier_init(&sh->bar, &ba, 2) == 0, "barrier");
	fflush(stdout);
	pid_t pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		sleep_ms(100);
		sem_post(&sh->sem);
		sleep_ms(100);
		sem_post(named);
		sleep_ms(100);
		pthread_barrier_wait(&sh->bar);
		_exit(0);
	}
	CHECK(sem_wait(&sh->sem) == 0, "sem_wait: %s", strerror(errno));
	printf("a process-shared semaphore: posted by the child\n");
	CHECK(sem_wait(named) == 0, "sem_wait: %s", strerror(errno));
	printf("a named semaphore: posted by the child\n");
	int r = pthread_barrier_wait(&sh->bar);
	CHECK(r == 0 || r == PTHREAD_BARRIER_SERIAL_THREAD, "barrier: %d", r);
	printf("a process-shared barrier: the child arrived\n");
	int st;
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0, "child");
	return 0;
}

/* ---- flags ---------------------------------------------------------------------- */

/* O_NONBLOCK as the kernel records it for fd. */
static int kernel_nb(int fd)
{
	char path[64], line[128];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	FILE *f = fopen(path, "r");
	CHECK(f, "%s", path);
	int nb = -1;
	while (fgets(line, sizeof line, f))
		if (strncmp(line, "flags:", 6) == 0)
			nb = (strtol(line + 6, NULL, 8) & O_NONBLOCK) != 0;
	fclose(f);
	return nb;
}

static void show(const char *what, int fd)
{
	int fl = fcntl(fd, F_GETFL);
	CHECK(fl >= 0, "F_GETFL %s", what);
	int k = kernel_nb(fd), u = (fl & O_NONBLOCK) != 0;
	printf("%-34s F_GETFL %-12s kernel %s\n", what, u ? "non-blocking" : "blocking",
	       k ? "non-blocking" : "blocking");
	CHECK(k == u, "%s: the kernel's flags differ from F_GETFL's", what);
}

static void toggle(const char *what, int fd)
{
	char name[80];
	show(what, fd);
	int fl = fcntl(fd, F_GETFL);
	CHECK(fcntl(fd, F_SETFL, fl ^ O_NONBLOCK) == 0, "F_SETFL");
	snprintf(name, sizeof name, "%s, F_SETFL", what);
	show(name, fd);
	int on = !(fcntl(fd, F_GETFL) & O_NONBLOCK);
	CHECK(ioctl(fd, FIONBIO, &on) == 0, "FIONBIO");
	snprintf(name, sizeof name, "%s, FIONBIO", what);
	show(name, fd);
	int d = dup(fd);
	snprintf(name, sizeof name, "%s, dup", what);
	show(name, d);
	close(d);
}

static int do_flags(void)
{
	int p[2];
	CHECK(pipe(p) == 0, "pipe");
	toggle("pipe", p[0]);
	toggle("pipe (write end)", p[1]);
	CHECK(pipe2(p, O_NONBLOCK) == 0, "pipe2");
	toggle("pipe2 O_NONBLOCK", p[0]);
	int sv[2];
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	toggle("socketpair", sv[0]);
	CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, sv) == 0, "socketpair");
	toggle("socketpair SOCK_NONBLOCK", sv[0]);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t al = sizeof a;
	CHECK(bind(l, (struct sockaddr *)&a, sizeof a) == 0 && listen(l, 4) == 0, "listen");
	CHECK(getsockname(l, (struct sockaddr *)&a, &al) == 0, "getsockname");
	toggle("TCP listener", l);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(connect(c, (struct sockaddr *)&a, sizeof a) == 0, "connect: %s", strerror(errno));
	toggle("TCP client", c);
	fcntl(l, F_SETFL, fcntl(l, F_GETFL) & ~O_NONBLOCK);
	int s = accept(l, NULL, NULL);
	CHECK(s >= 0, "accept");
	toggle("accepted", s);
	int c2 = socket(AF_INET, SOCK_STREAM, 0);
	CHECK(connect(c2, (struct sockaddr *)&a, sizeof a) == 0, "connect");
	int s2 = accept4(l, NULL, NULL, SOCK_NONBLOCK);
	CHECK(s2 >= 0, "accept4");
	toggle("accept4 SOCK_NONBLOCK", s2);
	toggle("eventfd", eventfd(0, 0));
	toggle("eventfd EFD_NONBLOCK", eventfd(0, EFD_NONBLOCK));
	toggle("timerfd", timerfd_create(CLOCK_MONOTONIC, 0));
	sigset_t m;
	sigemptyset(&m);
	sigaddset(&m, SIGUSR1);
	toggle("signalfd", signalfd(-1, &m, 0));
	toggle("inotify", inotify_init());
	toggle("inotify IN_NONBLOCK", inotify_init1(IN_NONBLOCK));
	int d = dup2(sv[0], 50);
	toggle("dup2", d);
	int d3 = dup3(p[1], 51, O_CLOEXEC);
	toggle("dup3", d3);
	int fd = fcntl(sv[1], F_DUPFD_CLOEXEC, 60);
	toggle("F_DUPFD_CLOEXEC", fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *what = argc > 1 ? argv[1] : "";
	int r;
	if (strcmp(what, "inline") == 0)
		r = do_inline();
	else if (strcmp(what, "splice") == 0)
		r = do_splice();
	else if (strcmp(what, "stdio") == 0)
		r = do_stdio();
	else if (strcmp(what, "forkexec") == 0)
		r = do_forkexec("/proc/self/exe");
	else if (strcmp(what, "child") == 0 && argc > 2)
		return child_mode(atoi(argv[2]));
	else if (strcmp(what, "flags") == 0)
		r = do_flags();
	else if (strcmp(what, "noeintr") == 0)
		r = do_noeintr();
	else if (strcmp(what, "unseen") == 0)
		r = do_unseen();
	else if (strcmp(what, "select") == 0)
		r = do_select();
	else if (strcmp(what, "psem") == 0)
		r = do_psem();
	else if (strcmp(what, "signalonly") == 0)
		r = do_signalonly();
	else if (strcmp(what, "thenselect") == 0)
		r = do_signalonly() || do_select();
	else {
		fprintf(stderr, "usage: boundary inline|splice|stdio|forkexec|flags|noeintr|unseen|select|psem|signalonly|thenselect\n");
		return 2;
	}
	if (r == 0)
		printf("PASS %s\n", what);
	return r;
}
