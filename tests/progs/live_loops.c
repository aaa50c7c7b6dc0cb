/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/live_loops.c — threads that never wait for anything, but
 * call the C library or the thread library all the time; meanwhile the
 * main thread sleeps and must wake up, and signals sent to the process
 * must reach their handlers. An ordinary pthread program.
 *
 *   live_loops LOOP     4 threads loop on one call while main sleeps 1 s,
 *                       then clears the flag they test and joins them.
 *                       LOOP: read (a cached file, from its start again at
 *                       its end), pread, getpid (syscall(SYS_getpid)),
 *                       yield (sched_yield), trylock
 *                       (pthread_mutex_trylock + unlock), sem
 *                       (sem_post + sem_trywait), clock (clock_gettime)
 *   live_loops storm    2 threads kill() the process with SIGUSR1 and
 *                       SIGUSR2 in a tight loop while a worker loops on
 *                       pthread_mutex_trylock and main sleeps 1 s; each
 *                       handler counts and sem_posts
 *   live_loops stormblock   the same, the senders and main blocking both
 *                       signals: only the worker takes them
 *   live_loops tkill    2 threads pthread_kill the worker with SIGUSR1 in
 *                       a tight loop
 *   live_loops stormexit    as stormblock, but after 0.5 s main stops the
 *                       worker and joins it while the senders go on, then
 *                       unblocks both signals itself: the signals sent to
 *                       the process meanwhile (some the worker had not
 *                       handled when it ended) reach main's handlers
 *
 *   live_loops sigwaits 2 threads each take 2,000 signals in sigwait,
 *                       each sent by its own sender with pthread_kill as
 *                       soon as the last was taken (so it often arrives
 *                       while its waiter is on its way back into
 *                       sigwait), while 2 threads loop on
 *                       pthread_mutex_trylock
 *   live_loops wakefd   as a Python event loop: main waits in poll and
 *                       select on a socket whose other end the handlers
 *                       of SIGUSR1 and SIGUSR2 write a byte to
 *                       (signal.set_wakeup_fd) and sem_post, while 2
 *                       threads kill() the process with them for 1 s;
 *                       a signal finds main anywhere, inside poll's own
 *                       work and inside the other signal's handler too
 *   live_loops wakeups  4 threads loop on pthread_mutex_trylock while 4
 *                       others are each woken 100 times, one by its own
 *                       1 ms sleeps, one by a pipe a helper writes to, one
 *                       by a condition variable the helper signals, one in
 *                       sigwait by the helper's pthread_kill; all 400
 *                       wake-ups must be taken within 20 s (under NPTL,
 *                       about 0.2 s)
 *
 * In each storm a sender waits in sem_wait, every 64 signals, for the
 * post of its signal's handler: a lost signal hangs the program.
 *
 * Each storm then stops the senders, waits until every signal sent has
 * been handled (at least one per signal number, as standard signals
 * merge), and checks every handler count is non-zero. Prints
 * "PASS <what>" and exits 0, or says what went wrong and exits 1.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <poll.h>
#include <sys/select.h>
#include <sys/socket.h>

#define NLOOP 4
#define FILE_SIZE (1 << 20)

static atomic_int run_flag = 1;
static atomic_long iters[NLOOP];
static int file_fd = -1;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static sem_t sems[NLOOP];

/* Sleep ms milliseconds, whatever signal handlers interrupt it. */
static void sleep_ms(int ms)
{
	double end = now_sec() + ms / 1000.0;
	for (double left; (left = end - now_sec()) > 0;) {
		struct timespec ts = {(time_t)left, (long)((left - (time_t)left) * 1e9)};
		nanosleep(&ts, NULL);
	}
}

/* A file of FILE_SIZE bytes, unlinked, in the page cache. */
static int cached_file(void)
{
	char path[] = "/tmp/live_loops.XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	static char buf[65536];
	memset(buf, 'x', sizeof buf);
	for (int i = 0; i < FILE_SIZE / (int)sizeof buf; i++)
		CHECK(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf, "write: %s", strerror(errno));
	return fd;
}

/* One call of the kind `what`, by looper k (its own descriptor for read). */
static void one_call(const char *what, int k, int fd)
{
	static _Thread_local char buf[4096];
	if (strcmp(what, "read") == 0) {
		ssize_t n = read(fd, buf, sizeof buf);
		CHECK(n >= 0, "read: %s", strerror(errno));
		if (n == 0)
			CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek: %s", strerror(errno));
	} else if (strcmp(what, "pread") == 0) {
		off_t off = (off_t)(atomic_load_explicit(&iters[k], memory_order_relaxed) % 256) * 4096;
		CHECK(pread(fd, buf, sizeof buf, off) == (ssize_t)sizeof buf, "pread: %s",
		      strerror(errno));
	} else if (strcmp(what, "getpid") == 0) {
		CHECK(syscall(SYS_getpid) == getpid(), "syscall(SYS_getpid)");
	} else if (strcmp(what, "yield") == 0) {
		CHECK(sched_yield() == 0, "sched_yield: %s", strerror(errno));
	} else if (strcmp(what, "trylock") == 0) {
		if (pthread_mutex_trylock(&mu) == 0)
			pthread_mutex_unlock(&mu);
	} else if (strcmp(what, "sem") == 0) {
		CHECK(sem_post(&sems[k]) == 0, "sem_post: %s", strerror(errno));
		CHECK(sem_trywait(&sems[k]) == 0, "sem_trywait: %s", strerror(errno));
	} else if (strcmp(what, "clock") == 0) {
		struct timespec ts;
		CHECK(clock_gettime(CLOCK_MONOTONIC, &ts) == 0, "clock_gettime");
	}
}

struct looper {
	const char *what;
	int k;
};

static void *loop(void *arg)
{
	struct looper *l = arg;
	int fd = -1;
	if (strcmp(l->what, "read") == 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", file_fd);
		fd = open(path, O_RDONLY);
		CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	} else {
		fd = file_fd;
	}
	while (atomic_load_explicit(&run_flag, memory_order_relaxed)) {
		one_call(l->what, l->k, fd);
		atomic_fetch_add_explicit(&iters[l->k], 1, memory_order_relaxed);
	}
	if (fd != file_fd)
		close(fd);
	return NULL;
}

static int loops(const char *what)
{
	file_fd = cached_file();
	for (int k = 0; k < NLOOP; k++)
		CHECK(sem_init(&sems[k], 0, 0) == 0, "sem_init");
	pthread_t th[NLOOP];
	struct looper l[NLOOP];
	for (int k = 0; k < NLOOP; k++) {
		l[k] = (struct looper){what, k};
		CHECK(pthread_create(&th[k], NULL, loop, &l[k]) == 0, "pthread_create");
	}
	sleep_ms(1000);
	atomic_store(&run_flag, 0);
	for (int k = 0; k < NLOOP; k++)
		CHECK(pthread_join(th[k], NULL) == 0, "pthread_join");
	for (int k = 0; k < NLOOP; k++)
		CHECK(iters[k] > 0, "looper %d never ran", k);
	printf("4 threads looped on %s while main slept\n", what);
	printf("PASS %s\n", what);
	return 0;
}

/* ---- signal storms ---------------------------------------------------------------------- */

static atomic_long handled[2];	/* SIGUSR1, SIGUSR2 */
static atomic_long sent[2];
static sem_t posted[2];		/* each handler posts its own */
static atomic_int senders_run = 1;
static atomic_int worker_run = 1;
static pthread_t worker_th;
static sigset_t usr;

static void on_usr(int sig)
{
	int saved = errno;
	atomic_fetch_add(&handled[sig == SIGUSR2], 1);
	sem_post(&posted[sig == SIGUSR2]);
	errno = saved;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_sigmask(SIG_UNBLOCK, &usr, NULL);
	while (atomic_load_explicit(&worker_run, memory_order_relaxed))
		if (pthread_mutex_trylock(&mu) == 0)
			pthread_mutex_unlock(&mu);
	return NULL;
}

struct sender {
	int which;		/* 0: SIGUSR1, 1: SIGUSR2 */
	bool tkill;		/* pthread_kill the worker, else kill the process */
};

static void *sender(void *arg)
{
	struct sender *s = arg;
	int sig = s->which ? SIGUSR2 : SIGUSR1;
	long n = 0;
	while (atomic_load_explicit(&senders_run, memory_order_relaxed)) {
		if (s->tkill)
			CHECK(pthread_kill(worker_th, sig) == 0, "pthread_kill");
		else
			CHECK(kill(getpid(), sig) == 0, "kill: %s", strerror(errno));
		atomic_fetch_add(&sent[s->which], 1);
		/* now and then wait for a handler to have run since (its
		 * post): the program hangs if a signal is lost */
		if (++n % 64 == 0)
			while (sem_wait(&posted[s->which]) != 0)
				CHECK(errno == EINTR, "sem_wait: %s", strerror(errno));
	}
	return NULL;
}

static int storm(const char *what, bool block, bool tkill, bool worker_exits)
{
	CHECK(sem_init(&posted[0], 0, 0) == 0 && sem_init(&posted[1], 0, 0) == 0, "sem_init");
	struct sigaction sa = {0};
	sa.sa_handler = on_usr;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0 && sigaction(SIGUSR2, &sa, NULL) == 0, "sigaction");
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigaddset(&usr, SIGUSR2);
	/* with block, every thread but the worker blocks both (the
	 * senders inherit main's mask) */
	if (block || tkill)
		CHECK(pthread_sigmask(SIG_BLOCK, &usr, NULL) == 0, "pthread_sigmask");
	CHECK(pthread_create(&worker_th, NULL, worker, NULL) == 0, "pthread_create");
	pthread_t th[2];
	struct sender s[2] = {{0, tkill}, {1, tkill}};
	for (int k = 0; k < 2; k++)
		CHECK(pthread_create(&th[k], NULL, sender, &s[k]) == 0, "pthread_create");
	if (worker_exits) {
		sleep_ms(500);
		atomic_store(&worker_run, 0);
		CHECK(pthread_join(worker_th, NULL) == 0, "pthread_join");
		/* the senders now wait for handlers nobody can run */
		sleep_ms(200);
		CHECK(pthread_sigmask(SIG_UNBLOCK, &usr, NULL) == 0, "pthread_sigmask");
		sleep_ms(300);
	} else {
		sleep_ms(1000);
	}
	atomic_store(&senders_run, 0);
	for (int k = 0; k < 2; k++)
		CHECK(pthread_join(th[k], NULL) == 0, "pthread_join");
	/* every signal sent is handled before the worker stops: at least
	 * one handler run per signal number after the last send */
	long h1 = atomic_load(&handled[0]), h2 = atomic_load(&handled[1]);
	long want1 = h1 + 1, want2 = h2 + 1;
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR2);
	if (tkill) {
		pthread_kill(worker_th, SIGUSR1);
		pthread_kill(worker_th, SIGUSR2);
	}
	while (atomic_load(&handled[0]) < want1 || atomic_load(&handled[1]) < want2)
		sleep_ms(1);
	if (!worker_exits) {
		atomic_store(&worker_run, 0);
		CHECK(pthread_join(worker_th, NULL) == 0, "pthread_join");
	}
	CHECK(sent[0] > 0 && sent[1] > 0, "a sender never ran");
	CHECK(h1 > 0 && h2 > 0, "a handler never ran during the storm (%ld, %ld)", h1, h2);
	printf("2 senders stormed the %s with SIGUSR1 and SIGUSR2; both handlers ran%s\n",
	       tkill ? "worker" : "process",
	       worker_exits ? ", on main once the worker had ended" : "");
	printf("PASS %s\n", what);
	return 0;
}

/* ---- a wake-up descriptor written by a handler -------------------------------------- */

static int wake_sv[2];		/* main reads [0]; the handler writes [1] */

static void on_usr_write(int sig)
{
	int saved = errno, k = sig == SIGUSR2;
	char c = 1;
	(void)!write(wake_sv[1], &c, 1);	/* full: a wake-up is pending anyway */
	atomic_fetch_add(&handled[k], 1);
	sem_post(&posted[k]);
	errno = saved;
}

static void *wakefd_sender(void *arg)
{
	int k = (int)(intptr_t)arg;
	long n = 0;
	while (atomic_load_explicit(&senders_run, memory_order_relaxed)) {
		CHECK(kill(getpid(), k ? SIGUSR2 : SIGUSR1) == 0, "kill: %s", strerror(errno));
		atomic_fetch_add(&sent[k], 1);
		if (++n % 64 == 0)
			while (sem_wait(&posted[k]) != 0)
				CHECK(errno == EINTR, "sem_wait: %s", strerror(errno));
	}
	return NULL;
}

static int wakefd(void)
{
	CHECK(sem_init(&posted[0], 0, 0) == 0 && sem_init(&posted[1], 0, 0) == 0, "sem_init");
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, wake_sv) == 0, "socketpair");
	for (int k = 0; k < 2; k++)
		CHECK(fcntl(wake_sv[k], F_SETFL, O_NONBLOCK) == 0, "fcntl");
	struct sigaction sa = {0};
	sa.sa_handler = on_usr_write;	/* no SA_RESTART, as CPython */
	sigemptyset(&sa.sa_mask);	/* each may interrupt the other's handler */
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0 && sigaction(SIGUSR2, &sa, NULL) == 0,
	      "sigaction");
	/* the senders block both: main takes every one */
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	sigaddset(&usr, SIGUSR2);
	CHECK(pthread_sigmask(SIG_BLOCK, &usr, NULL) == 0, "pthread_sigmask");
	pthread_t th[2];
	for (int k = 0; k < 2; k++)
		CHECK(pthread_create(&th[k], NULL, wakefd_sender, (void *)(intptr_t)k) == 0,
		      "pthread_create");
	CHECK(pthread_sigmask(SIG_UNBLOCK, &usr, NULL) == 0, "pthread_sigmask");
	long waits = 0, woke = 0, eintr = 0;
	double end = now_sec() + 1.0;
	while (now_sec() < end) {
		int r;
		if (waits++ % 2 == 0) {
			struct pollfd pf = {wake_sv[0], POLLIN, 0};
			r = poll(&pf, 1, 100);
		} else {
			fd_set rs;
			FD_ZERO(&rs);
			FD_SET(wake_sv[0], &rs);
			struct timeval tv = {0, 100000};
			r = select(wake_sv[0] + 1, &rs, NULL, NULL, &tv);
		}
		if (r < 0) {
			CHECK(errno == EINTR, "poll/select: %s", strerror(errno));
			eintr++;
			continue;
		}
		if (r > 0) {
			char buf[256];
			ssize_t k;
			while ((k = read(wake_sv[0], buf, sizeof buf)) > 0)
				woke += k;
			CHECK(k < 0 && errno == EAGAIN, "read: %s", strerror(errno));
		}
	}
	atomic_store(&senders_run, 0);
	/* a sender may wait for one more handler run */
	kill(getpid(), SIGUSR1);
	kill(getpid(), SIGUSR2);
	for (int k = 0; k < 2; k++)
		CHECK(pthread_join(th[k], NULL) == 0, "pthread_join");
	for (int k = 0; k < 2; k++)
		CHECK(sent[k] > 0 && atomic_load(&handled[k]) > 0,
		      "no SIGUSR%d handled (%ld sent)", k + 1, (long)sent[k]);
	CHECK(woke > 0, "the wake-up descriptor never became readable");
	printf("main waited in poll and select while 2 threads sent SIGUSR1 and SIGUSR2; "
	       "the handlers wrote the wake-up descriptor, and main read it\n");
	printf("PASS wakefd\n");
	return 0;
}

/* ---- wake-ups of every kind among loopers ----------------------------------------- */

#define ROUNDS 100

static atomic_int woken[4];	/* sleep, pipe, condvar, signal */
static int wake_pipe[2];
static pthread_mutex_t cv_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cv_turns;
static pthread_t sig_th;

static void *wake_sleep(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
		atomic_fetch_add(&woken[0], 1);
	}
	return NULL;
}

static void *wake_pipe_reader(void *arg)
{
	(void)arg;
	char c;
	for (int i = 0; i < ROUNDS; i++) {
		CHECK(read(wake_pipe[0], &c, 1) == 1, "read: %s", strerror(errno));
		atomic_fetch_add(&woken[1], 1);
	}
	return NULL;
}

static void *wake_cond(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&cv_mu);
	for (int i = 0; i < ROUNDS; i++) {
		while (cv_turns == 0)
			pthread_cond_wait(&cv, &cv_mu);
		cv_turns--;
		atomic_fetch_add(&woken[2], 1);
	}
	pthread_mutex_unlock(&cv_mu);
	return NULL;
}

static void *wake_sig(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		int sig;
		CHECK(sigwait(&usr, &sig) == 0, "sigwait");
		atomic_fetch_add(&woken[3], 1);
	}
	return NULL;
}

/* Wakes the pipe reader, the condvar waiter and the signal waiter, one
 * round every millisecond; the next round only once the last is taken
 * (standard signals merge). */
static void *waker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
		CHECK(write(wake_pipe[1], "x", 1) == 1, "write: %s", strerror(errno));
		pthread_mutex_lock(&cv_mu);
		cv_turns++;
		pthread_cond_signal(&cv);
		pthread_mutex_unlock(&cv_mu);
		while (atomic_load(&woken[3]) < i)
			sched_yield();
		pthread_kill(sig_th, SIGUSR1);
	}
	return NULL;
}

static int wakeups(void)
{
	sigemptyset(&usr);
	sigaddset(&usr, SIGUSR1);
	CHECK(pthread_sigmask(SIG_BLOCK, &usr, NULL) == 0, "pthread_sigmask");
	CHECK(pipe(wake_pipe) == 0, "pipe: %s", strerror(errno));
	pthread_t loopers[NLOOP], th[4], w;
	for (int k = 0; k < NLOOP; k++)
		CHECK(pthread_create(&loopers[k], NULL, worker, NULL) == 0, "pthread_create");
	void *(*fn[4])(void *) = {wake_sleep, wake_pipe_reader, wake_cond, wake_sig};
	for (int k = 0; k < 4; k++)
		CHECK(pthread_create(&th[k], NULL, fn[k], NULL) == 0, "pthread_create");
	sig_th = th[3];
	CHECK(pthread_create(&w, NULL, waker, NULL) == 0, "pthread_create");
	double end = now_sec() + 20;
	static const char *const kind[] = {"sleep", "pipe", "condvar", "signal"};
	for (int k = 0; k < 4; k++) {
		while (atomic_load(&woken[k]) < ROUNDS && now_sec() < end)
			sleep_ms(1);
		CHECK(atomic_load(&woken[k]) == ROUNDS, "the %s waiter was woken %d times of %d in 20 s",
		      kind[k], atomic_load(&woken[k]), ROUNDS);
	}
	CHECK(pthread_join(w, NULL) == 0, "pthread_join");
	for (int k = 0; k < 4; k++)
		CHECK(pthread_join(th[k], NULL) == 0, "pthread_join");
	atomic_store(&worker_run, 0);
	for (int k = 0; k < NLOOP; k++)
		CHECK(pthread_join(loopers[k], NULL) == 0, "pthread_join");
	printf("4 waiters woken 100 times each by a timer, a pipe, a condvar and a signal "
	       "while 4 threads looped\n");
	printf("PASS wakeups\n");
	return 0;
}

/* ---- a storm of signals on threads in sigwait ------------------------------------- */

#define SIGWAITS 2000

static sigset_t both;
static atomic_long taken[2];
static atomic_int feeding = 1;
static pthread_t waiter_th[2];

static void *sig_taker(void *arg)
{
	int k = (int)(intptr_t)arg;
	for (long i = 0; i < SIGWAITS; i++) {
		int sig;
		CHECK(sigwait(&both, &sig) == 0, "sigwait");
		CHECK(sig == (k ? SIGUSR2 : SIGUSR1), "waiter %d took signal %d", k, sig);
		atomic_fetch_add(&taken[k], 1);
	}
	return NULL;
}

static void *sig_sender(void *arg)
{
	int k = (int)(intptr_t)arg;
	for (long i = 0; i < SIGWAITS && atomic_load(&feeding); i++) {
		CHECK(pthread_kill(waiter_th[k], k ? SIGUSR2 : SIGUSR1) == 0, "pthread_kill");
		/* the next one as soon as this one is taken: it comes while
		 * the waiter is on its way back into sigwait */
		while (atomic_load(&taken[k]) <= i && atomic_load(&feeding))
			sched_yield();
	}
	return NULL;
}

static int sigwaits(void)
{
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGUSR2);
	CHECK(pthread_sigmask(SIG_BLOCK, &both, NULL) == 0, "pthread_sigmask");
	pthread_t loopers[2], senders[2];
	for (int k = 0; k < 2; k++)
		CHECK(pthread_create(&loopers[k], NULL, worker, NULL) == 0, "pthread_create");
	for (int k = 0; k < 2; k++)
		CHECK(pthread_create(&waiter_th[k], NULL, sig_taker, (void *)(intptr_t)k) == 0,
		      "pthread_create");
	for (int k = 0; k < 2; k++)
		CHECK(pthread_create(&senders[k], NULL, sig_sender, (void *)(intptr_t)k) == 0,
		      "pthread_create");
	double end = now_sec() + 20;
	for (int k = 0; k < 2; k++) {
		while (atomic_load(&taken[k]) < SIGWAITS && now_sec() < end)
			sleep_ms(1);
		CHECK(atomic_load(&taken[k]) == SIGWAITS, "waiter %d took %ld signals of %d in 20 s",
		      k, atomic_load(&taken[k]), SIGWAITS);
	}
	atomic_store(&feeding, 0);
	for (int k = 0; k < 2; k++) {
		CHECK(pthread_join(senders[k], NULL) == 0, "pthread_join");
		CHECK(pthread_join(waiter_th[k], NULL) == 0, "pthread_join");
	}
	atomic_store(&worker_run, 0);
	for (int k = 0; k < 2; k++)
		CHECK(pthread_join(loopers[k], NULL) == 0, "pthread_join");
	printf("2 threads took %d signals each in sigwait, each sent once the last was taken\n",
	       SIGWAITS);
	printf("PASS sigwaits\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *what = argc > 1 ? argv[1] : "";
	static const char *const loop_kinds[] = {"read", "pread", "getpid", "yield", "trylock",
						 "sem", "clock"};
	for (size_t i = 0; i < sizeof loop_kinds / sizeof loop_kinds[0]; i++)
		if (strcmp(what, loop_kinds[i]) == 0)
			return loops(what);
	if (strcmp(what, "storm") == 0)
		return storm(what, false, false, false);
	if (strcmp(what, "stormblock") == 0)
		return storm(what, true, false, false);
	if (strcmp(what, "tkill") == 0)
		return storm(what, false, true, false);
	if (strcmp(what, "stormexit") == 0)
		return storm(what, true, false, true);
	if (strcmp(what, "wakeups") == 0)
		return wakeups();
	if (strcmp(what, "wakefd") == 0)
		return wakefd();
	if (strcmp(what, "sigwaits") == 0)
		return sigwaits();
	fprintf(stderr, "usage: live_loops read|pread|getpid|yield|trylock|sem|clock|"
			"storm|stormblock|tkill|stormexit|sigwaits|wakeups|wakefd\n");
	return 2;
}
