/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/limits.c — a threaded program at its descriptor limit.
 *
 *   limits nofile   RLIMIT_NOFILE is lowered to 64. A socket pair and a
 *                   pipe are made, then every free descriptor is taken
 *                   (dup until EMFILE). With none left, threads block in
 *                   read() on the socket and on the pipe, in poll() and
 *                   in sleeps, and other threads wake each of them; a
 *                   thread is created and joined, a condition variable
 *                   passes a token. Then the descriptors are given back
 *                   and a new pipe works. Every step must do what it does
 *                   under NPTL: no call may fail for want of a descriptor
 *                   the program did not ask for.
 *   limits setuid   run as root, the program drops to user nobody (as a
 *                   daemon does after start-up), then 6 threads block in
 *                   read() system calls made inline (no library sees
 *                   them) while main sleeps, then writes to each: all
 *                   must be woken and joined. As another user it says
 *                   so and does nothing.
 *   limits maps     every memory mapping the kernel allows is taken
 *                   (vm.max_map_count: a reserved region split page by
 *                   page until mprotect says ENOMEM), after threads were
 *                   started that block in read() on a socket and on a
 *                   pipe after poll(), in sleeps and on a condition
 *                   variable. With no mapping left, a new mmap fails
 *                   (ENOMEM), pthread_create makes a thread or says
 *                   EAGAIN (NPTL has no stack to give; libgmp may reuse
 *                   one it holds), and every blocked thread is woken in
 *                   each of the
 *                   rounds; once the mappings are given back a thread
 *                   is created and joined. No wake-up or timer may be
 *                   lost, and nothing may crash or hang.
 *   limits as       the same with the address space used up instead:
 *                   RLIMIT_AS is set 64 MiB above what is mapped, and
 *                   that is reserved in chunks and then pages until mmap
 *                   says ENOMEM.
 *   limits nproc    the same with RLIMIT_NPROC lowered first to what
 *                   NPTL needs (the 7 threads) plus one (libgmp's
 *                   service thread); a lower limit under NPTL makes
 *                   pthread_create fail, under libgmp it leaves threads
 *                   blocked in calls libgmp cannot see waiting for an
 *                   OS thread (see the README's limitations).
 */
#include "common.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/socket.h>

#define LIMIT 64
#define ROUNDS 20

static int sv[2], pp[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int token;

static void *sock_reader(void *arg)
{
	long got = 0;
	for (int i = 0; i < ROUNDS; i++) {
		char c;
		ssize_t n = read(sv[1], &c, 1);
		CHECK(n == 1, "read(socket) returned %zd: %s", n, n < 0 ? strerror(errno) : "");
		got += c;
	}
	return (void *)got;
}

static void *pipe_poller(void *arg)
{
	long got = 0;
	for (int i = 0; i < ROUNDS; i++) {
		struct pollfd p = {pp[0], POLLIN, 0};
		int r = poll(&p, 1, 5000);
		CHECK(r == 1 && (p.revents & POLLIN), "poll(pipe) returned %d: %s", r,
		      r < 0 ? strerror(errno) : "");
		char c;
		ssize_t n = read(pp[0], &c, 1);
		CHECK(n == 1, "read(pipe) returned %zd: %s", n, n < 0 ? strerror(errno) : "");
		got += c;
	}
	return (void *)got;
}

static void *sleeper(void *arg)
{
	for (int i = 0; i < ROUNDS; i++)
		usleep(1000);
	return arg;
}

static void *cond_waiter(void *arg)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < ROUNDS; i++) {
		while (token != 2 * i + 1)
			pthread_cond_wait(&cv, &mu);
		token++;
		pthread_cond_broadcast(&cv);
	}
	pthread_mutex_unlock(&mu);
	return arg;
}

static void *noop(void *arg)
{
	return arg;
}

static int nofile(void)
{
	struct rlimit rl = {LIMIT, LIMIT};
	CHECK(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit: %s", strerror(errno));
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair: %s", strerror(errno));
	CHECK(pipe(pp) == 0, "pipe: %s", strerror(errno));
	int fill[LIMIT], nfill = 0, e = 0;
	for (;;) {
		int fd = dup(0);
		if (fd < 0) {
			e = errno;
			break;
		}
		CHECK(nfill < LIMIT, "more than %d descriptors", LIMIT);
		fill[nfill++] = fd;
	}
	CHECK(e == EMFILE, "dup failed with %s, not EMFILE", strerror(e));
	printf("every descriptor taken: dup says EMFILE\n");

	pthread_t r, p, s, c;
	CHECK(pthread_create(&r, NULL, sock_reader, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&p, NULL, pipe_poller, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&s, NULL, sleeper, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&c, NULL, cond_waiter, NULL) == 0, "pthread_create");
	long sent = 0;
	for (int i = 0; i < ROUNDS; i++) {
		usleep(2000);	/* the readers block first, most rounds */
		char b = (char)(i + 1);
		CHECK(write(sv[0], &b, 1) == 1, "write(socket): %s", strerror(errno));
		CHECK(write(pp[1], &b, 1) == 1, "write(pipe): %s", strerror(errno));
		sent += b;
		pthread_mutex_lock(&mu);
		token++;
		pthread_cond_broadcast(&cv);
		while (token != 2 * i + 2)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		pthread_t t;
		CHECK(pthread_create(&t, NULL, noop, NULL) == 0, "pthread_create (round %d)", i);
		CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	}
	void *gr, *gp;
	CHECK(pthread_join(r, &gr) == 0, "pthread_join");
	CHECK(pthread_join(p, &gp) == 0, "pthread_join");
	CHECK(pthread_join(s, NULL) == 0, "pthread_join");
	CHECK(pthread_join(c, NULL) == 0, "pthread_join");
	CHECK((long)gr == sent && (long)gp == sent, "read %ld and %ld, sent %ld", (long)gr,
	      (long)gp, sent);
	printf("with no descriptor free: %d rounds of blocking reads (socket, pipe after poll), "
	       "sleeps, a condition variable and a create+join, all woken\n", ROUNDS);

	for (int i = 0; i < nfill; i++)
		close(fill[i]);
	int q[2];
	CHECK(pipe(q) == 0, "pipe after the descriptors came back: %s", strerror(errno));
	char b = 'x', got = 0;
	CHECK(write(q[1], &b, 1) == 1 && read(q[0], &got, 1) == 1 && got == 'x', "new pipe");
	printf("descriptors given back: a new pipe works\n");
	printf("DONE nofile\n");
	return 0;
}

/* The address space the process has mapped, in bytes. */
static size_t vm_size(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	CHECK(f != NULL, "/proc/self/status: %s", strerror(errno));
	char line[256];
	size_t kib = 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmSize: %zu kB", &kib) == 1)
			break;
	fclose(f);
	CHECK(kib > 0, "no VmSize");
	return kib * 1024;
}

#define NCHUNK 4096

/* Every byte of address space RLIMIT_AS leaves taken: the limit is set a
 * little above what is mapped, then chunks, then pages, are reserved
 * until mmap says ENOMEM. */
static int take_address_space(void **chunk, size_t *len)
{
	struct rlimit rl;
	CHECK(getrlimit(RLIMIT_AS, &rl) == 0, "getrlimit: %s", strerror(errno));
	rl.rlim_cur = vm_size() + (64u << 20);
	CHECK(setrlimit(RLIMIT_AS, &rl) == 0, "setrlimit(RLIMIT_AS): %s", strerror(errno));
	int n = 0;
	for (size_t sz = 1u << 20; sz >= 4096; sz /= 16) {
		void *q;
		while (n < NCHUNK && (q = mmap(NULL, sz, PROT_NONE,
					       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) !=
						 MAP_FAILED) {
			chunk[n] = q;
			len[n++] = sz;
		}
		CHECK(n < NCHUNK, "still mapping after %d chunks", n);
		CHECK(errno == ENOMEM, "mmap: %s, not ENOMEM", strerror(errno));
	}
	return n;
}

static int maps_test(bool as)
{
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair: %s", strerror(errno));
	CHECK(pipe(pp) == 0, "pipe: %s", strerror(errno));
	pthread_t r, p, s, c;
	CHECK(pthread_create(&r, NULL, sock_reader, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&p, NULL, pipe_poller, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&s, NULL, sleeper, NULL) == 0, "pthread_create");
	CHECK(pthread_create(&c, NULL, cond_waiter, NULL) == 0, "pthread_create");

	const char *what = as ? "address space" : "mapping";
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), npages = 300000;
	char *base = NULL;
	static void *chunk[NCHUNK];
	static size_t len[NCHUNK];
	int nchunk = 0;
	if (as) {
		nchunk = take_address_space(chunk, len);
		printf("all the address space RLIMIT_AS allows taken: mmap says ENOMEM\n");
	} else {
		/* a reserved region (no memory behind it) made into one
		 * mapping per page by giving every other page another
		 * protection */
		base = mmap(NULL, npages * pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			    -1, 0);
		CHECK(base != MAP_FAILED, "mmap of the reserve: %s", strerror(errno));
		int e = 0;
		for (size_t i = 1; i < npages; i += 2)
			if (mprotect(base + i * pg, pg, PROT_READ) != 0) {
				e = errno;
				break;
			}
		CHECK(e == ENOMEM, "mprotect stopped with %s, not ENOMEM",
		      e ? strerror(e) : "no error");
		/* the last few (a split takes two): pages of shared memory
		 * of their own, which cannot join a neighbouring mapping */
		void *q;
		int last = 0;
		while ((q = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
				 0)) != MAP_FAILED)
			CHECK(++last < 16, "still mapping after %d more", last);
		CHECK(errno == ENOMEM, "a new mapping: %s", strerror(errno));
		printf("every mapping taken: mmap says ENOMEM\n");
	}

	long sent = 0;
	int created = 0, refused = 0, other = 0;
	for (int i = 0; i < ROUNDS; i++) {
		usleep(2000);	/* the readers block first, most rounds */
		char b = (char)(i + 1);
		CHECK(write(sv[0], &b, 1) == 1, "write(socket): %s", strerror(errno));
		CHECK(write(pp[1], &b, 1) == 1, "write(pipe): %s", strerror(errno));
		sent += b;
		pthread_mutex_lock(&mu);
		token++;
		pthread_cond_broadcast(&cv);
		while (token != 2 * i + 2)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		pthread_t t;
		int err = pthread_create(&t, NULL, noop, NULL);
		if (err == 0) {
			created++;
			CHECK(pthread_join(t, NULL) == 0, "pthread_join");
		} else if (err == EAGAIN) {
			refused++;
		} else {
			other = err;
		}
	}
	CHECK(other == 0, "pthread_create failed with %s, not EAGAIN", strerror(other));
	void *gr, *gp;
	CHECK(pthread_join(r, &gr) == 0, "pthread_join");
	CHECK(pthread_join(p, &gp) == 0, "pthread_join");
	CHECK(pthread_join(s, NULL) == 0, "pthread_join");
	CHECK(pthread_join(c, NULL) == 0, "pthread_join");
	CHECK((long)gr == sent && (long)gp == sent, "read %ld and %ld, sent %ld", (long)gr,
	      (long)gp, sent);
	/* NPTL has no stack to give (EAGAIN every time); libgmp may reuse
	 * one it holds. Both are right: only another error is wrong. */
	fprintf(stderr, "pthread_create with no %s free: %d made, %d EAGAIN\n", what, created,
		refused);
	printf("with no %s free: %d rounds of blocking reads (socket, pipe after poll), "
	       "sleeps and a condition variable, all woken; pthread_create made a thread or "
	       "said EAGAIN\n", what, ROUNDS);

	if (as)
		for (int i = 0; i < nchunk; i++)
			CHECK(munmap(chunk[i], len[i]) == 0, "munmap: %s", strerror(errno));
	else
		CHECK(munmap(base, npages * pg) == 0, "munmap: %s", strerror(errno));
	pthread_t t;
	CHECK(pthread_create(&t, NULL, noop, NULL) == 0, "pthread_create after the %s came back",
	      what);
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	printf("%s given back: a thread is created and joined\n", as ? "address space" : "mappings");
	printf("DONE %s\n", as ? "as" : "maps");
	return 0;
}

#define NSU 6
static int sup[NSU][2];

static long inline_read(int fd, void *buf, long n)
{
	long r;
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(n)
			 : "rcx", "r11", "memory");
	return r;
}

static void *su_reader(void *arg)
{
	char c = 0;
	long r = inline_read(sup[(long)arg][0], &c, 1);
	return (void *)(r == 1 ? (long)c : -1L);
}

static int setuid_test(bool nproc)
{
	const char *what = nproc ? "nproc" : "setuid";
	if (geteuid() != 0) {
		printf("not root: nothing to drop\nDONE %s\n", what);
		return 0;
	}
	for (int i = 0; i < NSU; i++)
		CHECK(pipe(sup[i]) == 0, "pipe: %s", strerror(errno));
	if (nproc) {
		struct rlimit rl = {NSU + 2, NSU + 2};
		CHECK(setrlimit(RLIMIT_NPROC, &rl) == 0, "setrlimit: %s", strerror(errno));
	}
	CHECK(setgid(65534) == 0 && setuid(65534) == 0, "setuid(nobody): %s", strerror(errno));
	pthread_t t[NSU];
	for (long i = 0; i < NSU; i++)
		CHECK(pthread_create(&t[i], NULL, su_reader, (void *)i) == 0, "pthread_create");
	usleep(100000);	/* a sleep of main's: its processor may be held */
	for (int i = 0; i < NSU; i++) {
		char c = (char)('a' + i);
		CHECK(write(sup[i][1], &c, 1) == 1, "write: %s", strerror(errno));
	}
	for (int i = 0; i < NSU; i++) {
		void *r;
		CHECK(pthread_join(t[i], &r) == 0, "pthread_join");
		CHECK((long)r == 'a' + i, "thread %d read %ld", i, (long)r);
	}
	printf("after setuid(nobody)%s: %d threads blocked in inline read() woken and joined\n",
	       nproc ? " with RLIMIT_NPROC 8" : "", NSU);
	printf("DONE %s\n", what);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "nofile") == 0)
		return nofile();
	if (strcmp(what, "maps") == 0)
		return maps_test(false);
	if (strcmp(what, "as") == 0)
		return maps_test(true);
	if (strcmp(what, "setuid") == 0)
		return setuid_test(false);
	if (strcmp(what, "nproc") == 0)
		return setuid_test(true);
	fprintf(stderr, "usage: limits nofile|maps|as|setuid|nproc\n");
	return 2;
}
