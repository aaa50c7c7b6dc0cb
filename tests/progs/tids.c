/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/tids.c — every thread has an id of its own, and the calls
 * that take one act on that thread. An ordinary pthread program.
 *
 *   tids ids        1,000 threads each read gettid() and
 *                   syscall(SYS_gettid), then yield 100 times (threads
 *                   move between processors) and read both again: every
 *                   id is constant, the two agree, no two live threads
 *                   share one, none is the process id but main's, which
 *                   is; set_tid_address gives the same id back, and
 *                   glibc's record of a mutex's owner is that id; then
 *                   100 threads made and joined one after another all
 *                   have different ids (an ended thread's id is not the
 *                   next thread's, as CPython's test_threading expects)
 *   tids tgkill     50 threads, half parked in pause() and half running
 *                   a loop that calls nothing: each is sent SIGUSR1 by
 *                   tgkill(getpid(), tid), syscall(SYS_tgkill) or
 *                   syscall(SYS_tkill) from main, and the handler runs on
 *                   that thread (pthread_self() in the handler); the id
 *                   of a thread that ended and was joined gives ESRCH
 *   tids affinity   main pins another thread to the last CPU with
 *                   sched_setaffinity(its tid): that thread then runs
 *                   only there (sched_getcpu), and sched_getaffinity and
 *                   syscall(SYS_sched_getaffinity) of its tid from main
 *                   give that mask; an id no thread has gives ESRCH
 *   tids proc       8 named threads each read, after each of 50 yields,
 *                   their name in /proc/thread-self/comm and in
 *                   /proc/self/task/<their id>/comm and status, with
 *                   open() and fopen(), and their state R in that stat;
 *                   then main, while they wait, reads each one's name by
 *                   its id; /proc/self/task lists as many entries as
 *                   /proc/self/status counts threads
 *   tids sched      main sets another thread's policy and priority
 *                   (sched_setscheduler, sched_setparam), nice value
 *                   (setpriority) and I/O priority (ioprio_set) by its
 *                   id, reads them back by id (the functions and
 *                   syscall()), and the thread finds them as its own;
 *                   main's are unchanged; bad values and an id no
 *                   thread has give the kernel's errors
 *   tids timer      a SIGEV_THREAD_ID timer made for another thread's id
 *                   signals that thread (pthread_self() in the handler),
 *                   5 times, and timer_delete stops it
 *   tids owner      a pipe's read end with O_ASYNC and another thread as
 *                   the owner of its signals (F_SETOWN_EX, F_OWNER_TID):
 *                   each write signals that thread, with plain SIGIO
 *                   (F_SETSIG 0) and then with a real-time signal that
 *                   names the descriptor; F_GETOWN_EX, F_GETOWN and
 *                   F_GETSIG say what was set
 *   tids scan       two threads block in read(2) made with an inline
 *                   system call; main lists /proc/self/task and opens
 *                   each listed id's stat and syscall: every listed id
 *                   opens the task of that id (the stat's first field),
 *                   and two of them are in read
 *
 * Prints "PASS <what>" and exits 0, or says what went wrong and exits 1.
 */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

/* ---- ids ---------------------------------------------------------------------- */

#define NIDS 1000
#define MOVES 100

static pthread_barrier_t all_read;
static int first_id[NIDS], last_id[NIDS];

/* glibc records the owner of a locked mutex by the owner's id */
static void check_mutex_owner(const char *who)
{
	pthread_mutexattr_t a;
	pthread_mutex_t m;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&m, &a);
	CHECK(pthread_mutex_lock(&m) == 0, "pthread_mutex_lock");
	CHECK(m.__data.__owner == gettid(), "%s: the mutex's owner is %d, its id %d", who,
	      m.__data.__owner, gettid());
	pthread_mutex_unlock(&m);
	pthread_mutex_destroy(&m);
}

static void *id_reader(void *arg)
{
	long k = (long)arg;
	int id = gettid();
	CHECK(syscall(SYS_gettid) == id, "thread %ld: syscall(SYS_gettid) %ld, gettid() %d", k,
	      syscall(SYS_gettid), id);
	first_id[k] = id;
	for (int i = 0; i < MOVES; i++) {
		sched_yield();
		CHECK(gettid() == id, "thread %ld: id %d became %d", k, id, gettid());
	}
	last_id[k] = (int)syscall(SYS_gettid);
	if (k % 100 == 0)
		check_mutex_owner("a thread");
	int *addr = NULL;
	CHECK(prctl(PR_GET_TID_ADDRESS, &addr) == 0, "PR_GET_TID_ADDRESS: %s", strerror(errno));
	long r = syscall(SYS_set_tid_address, addr);
	CHECK(r == id, "thread %ld: set_tid_address gave %ld, gettid() %d", k, r, id);
	/* all stay alive until every id is read: the ids of live threads */
	pthread_barrier_wait(&all_read);
	return NULL;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void *id_of(void *arg)
{
	*(int *)arg = gettid();
	return NULL;
}

static int ids(void)
{
	CHECK(gettid() == getpid(), "main's id %d is not the process id %d", gettid(), getpid());
	CHECK(syscall(SYS_gettid) == getpid(), "main's syscall(SYS_gettid) is not the process id");
	check_mutex_owner("main");
	CHECK(pthread_barrier_init(&all_read, NULL, NIDS + 1) == 0, "pthread_barrier_init");
	static pthread_t th[NIDS];
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, 64 * 1024);
	for (long k = 0; k < NIDS; k++)
		CHECK(pthread_create(&th[k], &a, id_reader, (void *)k) == 0, "pthread_create %ld", k);
	pthread_barrier_wait(&all_read);
	for (int k = 0; k < NIDS; k++)
		CHECK(pthread_join(th[k], NULL) == 0, "pthread_join");
	static int sorted[NIDS + 1];
	for (int k = 0; k < NIDS; k++) {
		CHECK(first_id[k] == last_id[k], "thread %d: id %d, then %d", k, first_id[k],
		      last_id[k]);
		CHECK(first_id[k] > 0 && first_id[k] != getpid(), "thread %d has id %d", k,
		      first_id[k]);
		sorted[k] = first_id[k];
	}
	sorted[NIDS] = getpid();
	qsort(sorted, NIDS + 1, sizeof sorted[0], cmp_int);
	for (int k = 1; k <= NIDS; k++)
		CHECK(sorted[k] != sorted[k - 1], "two live threads have id %d", sorted[k]);
	static int seq_id[100];
	for (int k = 0; k < 100; k++) {
		pthread_t t;
		CHECK(pthread_create(&t, NULL, id_of, &seq_id[k]) == 0, "pthread_create");
		CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	}
	qsort(seq_id, 100, sizeof seq_id[0], cmp_int);
	for (int k = 1; k < 100; k++)
		CHECK(seq_id[k] != seq_id[k - 1], "two threads made one after another have id %d",
		      seq_id[k]);
	printf("%d threads: ids distinct, constant over %d yields, gettid() = "
	       "syscall(SYS_gettid) = set_tid_address; main's is the process id; "
	       "100 threads one after another: 100 ids\n", NIDS, MOVES);
	printf("PASS ids\n");
	return 0;
}

/* ---- tgkill -------------------------------------------------------------------- */

#define NKILL 50

static pthread_t kill_th[NKILL];
static _Atomic int kill_tid[NKILL];
static atomic_int kill_ready, handled, wrong = -1;
static _Atomic pthread_t expect;
static atomic_int stop;

static void on_usr1(int sig)
{
	(void)sig;
	if (!pthread_equal(pthread_self(), atomic_load(&expect)))
		atomic_store(&wrong, atomic_load(&handled));
	atomic_fetch_add(&handled, 1);
}

static void *kill_parked(void *arg)
{
	long k = (long)arg;
	atomic_store(&kill_tid[k], gettid());
	atomic_fetch_add(&kill_ready, 1);
	while (!atomic_load(&stop))
		pause();
	return NULL;
}

static void *kill_running(void *arg)
{
	long k = (long)arg;
	atomic_store(&kill_tid[k], gettid());
	atomic_fetch_add(&kill_ready, 1);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	return NULL;
}

static long send_to(int how, int tid, int sig)
{
	if (how == 0)
		return tgkill(getpid(), tid, sig);
	if (how == 1)
		return syscall(SYS_tgkill, getpid(), tid, sig);
	return syscall(SYS_tkill, tid, sig);
}

static int tgkill_test(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
	for (long k = 0; k < NKILL; k++)
		CHECK(pthread_create(&kill_th[k], NULL, k % 2 ? kill_running : kill_parked,
				     (void *)k) == 0, "pthread_create");
	while (atomic_load(&kill_ready) < NKILL)
		sched_yield();
	for (int k = 0; k < NKILL; k++) {
		int before = atomic_load(&handled);
		atomic_store(&expect, kill_th[k]);
		CHECK(send_to(k % 3, atomic_load(&kill_tid[k]), SIGUSR1) == 0,
		      "signal %d to thread %d: %s", k % 3, k, strerror(errno));
		double end = now_sec() + 10;
		while (atomic_load(&handled) == before && now_sec() < end)
			sched_yield();
		CHECK(atomic_load(&handled) == before + 1, "thread %d (%s): %d handlers ran", k,
		      k % 2 ? "running" : "parked", atomic_load(&handled) - before);
		CHECK(atomic_load(&wrong) < 0, "the signal for thread %d ran on another thread", k);
	}
	/* an existence check, then the id of a thread that is gone */
	CHECK(tgkill(getpid(), atomic_load(&kill_tid[0]), 0) == 0, "tgkill(sig 0): %s",
	      strerror(errno));
	atomic_store(&stop, 1);
	for (int k = 0; k < NKILL; k++) {
		if (k % 2 == 0)
			pthread_kill(kill_th[k], SIGUSR1);	/* out of pause() */
		CHECK(pthread_join(kill_th[k], NULL) == 0, "pthread_join");
	}
	errno = 0;
	CHECK(tgkill(getpid(), atomic_load(&kill_tid[1]), SIGUSR1) == -1 && errno == ESRCH,
	      "tgkill to an ended thread: errno %d", errno);
	printf("%d threads, parked and running, each ran its handler for tgkill, "
	       "SYS_tgkill and SYS_tkill to its id; an ended thread's id gives ESRCH\n", NKILL);
	printf("PASS tgkill\n");
	return 0;
}

/* ---- affinity ---------------------------------------------------------------------- */

static atomic_int pin_tid, pinned, pin_bad = -1;
static int pin_cpu;

static void *pin_me(void *arg)
{
	(void)arg;
	atomic_store(&pin_tid, gettid());
	while (!atomic_load(&pinned))
		sched_yield();
	/* moved at its next scheduling point, at the latest */
	sched_yield();
	for (int i = 0; i < 200; i++) {
		int cpu = sched_getcpu();
		if (cpu != pin_cpu)
			atomic_store(&pin_bad, cpu);
		sched_yield();
	}
	return NULL;
}

static int affinity(void)
{
	cpu_set_t all;
	CHECK(sched_getaffinity(0, sizeof all, &all) == 0, "sched_getaffinity: %s", strerror(errno));
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all))
			pin_cpu = c;
	pthread_t t;
	CHECK(pthread_create(&t, NULL, pin_me, NULL) == 0, "pthread_create");
	while (!atomic_load(&pin_tid))
		sched_yield();
	int tid = atomic_load(&pin_tid);
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(pin_cpu, &one);
	CHECK(sched_setaffinity(tid, sizeof one, &one) == 0, "sched_setaffinity(%d): %s", tid,
	      strerror(errno));
	cpu_set_t got;
	CHECK(sched_getaffinity(tid, sizeof got, &got) == 0, "sched_getaffinity(%d): %s", tid,
	      strerror(errno));
	CHECK(CPU_EQUAL(&got, &one), "sched_getaffinity(%d) is not the mask set", tid);
	CPU_ZERO(&got);
	long n = syscall(SYS_sched_getaffinity, tid, sizeof got, &got);
	CHECK(n > 0 && n <= (long)sizeof got, "syscall(SYS_sched_getaffinity) gave %ld: %s", n,
	      strerror(errno));
	CHECK(CPU_EQUAL(&got, &one), "syscall(SYS_sched_getaffinity, %d) is not the mask set", tid);
	/* main itself is not pinned */
	CHECK(sched_getaffinity(0, sizeof got, &got) == 0 && CPU_EQUAL(&got, &all),
	      "main's mask changed");
	atomic_store(&pinned, 1);
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	CHECK(atomic_load(&pin_bad) < 0, "the pinned thread ran on CPU %d, not %d",
	      atomic_load(&pin_bad), pin_cpu);
	errno = 0;
	CHECK(sched_setaffinity(0x7ffffff0, sizeof one, &one) == -1 && errno == ESRCH,
	      "sched_setaffinity of no thread: errno %d", errno);
	errno = 0;
	CHECK(sched_getaffinity(0x7ffffff0, sizeof got, &got) == -1 && errno == ESRCH,
	      "sched_getaffinity of no thread: errno %d", errno);
	printf("sched_setaffinity(tid) from main pinned that thread to the last CPU; "
	       "sched_getaffinity(tid) and its system call agree; no thread: ESRCH\n");
	printf("PASS affinity\n");
	return 0;
}

/* ---- /proc ------------------------------------------------------------------------ */

#define NPROC 8

static pthread_barrier_t proc_read, proc_done;
static _Atomic int proc_tid[NPROC];

/* The first line of path starting with key (or the whole first line
 * for an empty key), read with open() or fopen(), without its newline. */
static void read_line(const char *path, const char *key, bool use_fopen, char *out, size_t n)
{
	char buf[4096] = "";
	if (use_fopen) {
		FILE *f = fopen(path, "r");
		CHECK(f, "fopen %s: %s", path, strerror(errno));
		size_t got = fread(buf, 1, sizeof buf - 1, f);
		buf[got] = '\0';
		fclose(f);
	} else {
		int fd = open(path, O_RDONLY);
		CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
		ssize_t got = read(fd, buf, sizeof buf - 1);
		CHECK(got >= 0, "read %s: %s", path, strerror(errno));
		buf[got] = '\0';
		close(fd);
	}
	size_t kl = strlen(key);
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (strncmp(line, key, kl) == 0) {
			snprintf(out, n, "%s", line + kl);
			return;
		}
		line = nl ? nl + 1 : NULL;
	}
	CHECK(0, "%s has no line %s", path, key);
}

static void *proc_reader(void *arg)
{
	long k = (long)arg;
	char name[16], path[128], got[256];
	snprintf(name, sizeof name, "tids-%ld", k);
	CHECK(pthread_setname_np(pthread_self(), name) == 0, "pthread_setname_np");
	atomic_store(&proc_tid[k], gettid());
	for (int i = 0; i < 50; i++) {
		sched_yield();
		bool f = i % 2;
		read_line("/proc/thread-self/comm", "", f, got, sizeof got);
		CHECK(strcmp(got, name) == 0, "thread %ld: /proc/thread-self/comm says %s", k, got);
		snprintf(path, sizeof path, "/proc/self/task/%d/comm", gettid());
		read_line(path, "", f, got, sizeof got);
		CHECK(strcmp(got, name) == 0, "thread %ld: %s says %s", k, path, got);
		snprintf(path, sizeof path, "/proc/%d/task/%d/status", getpid(), gettid());
		read_line(path, "Name:\t", f, got, sizeof got);
		CHECK(strcmp(got, name) == 0, "thread %ld: %s says Name: %s", k, path, got);
		snprintf(path, sizeof path, "/proc/self/task/%d/stat", gettid());
		read_line(path, "", f, got, sizeof got);
		char want[64];
		snprintf(want, sizeof want, "(%s) R ", name);
		CHECK(strstr(got, want), "thread %ld: %s says %s", k, path, got);
	}
	pthread_barrier_wait(&proc_read);
	pthread_barrier_wait(&proc_done);
	return NULL;
}

static int proc_test(void)
{
	CHECK(pthread_barrier_init(&proc_read, NULL, NPROC + 1) == 0, "pthread_barrier_init");
	CHECK(pthread_barrier_init(&proc_done, NULL, NPROC + 1) == 0, "pthread_barrier_init");
	pthread_t th[NPROC];
	for (long k = 0; k < NPROC; k++)
		CHECK(pthread_create(&th[k], NULL, proc_reader, (void *)k) == 0, "pthread_create");
	pthread_barrier_wait(&proc_read);
	char path[128], got[256], want[16];
	for (int k = 0; k < NPROC; k++) {
		snprintf(path, sizeof path, "/proc/self/task/%d/comm", atomic_load(&proc_tid[k]));
		read_line(path, "", k % 2, got, sizeof got);
		snprintf(want, sizeof want, "tids-%d", k);
		CHECK(strcmp(got, want) == 0, "main: %s says %s", path, got);
	}
	long threads = status_field("Threads");
	DIR *d = opendir("/proc/self/task");
	CHECK(d, "opendir /proc/self/task: %s", strerror(errno));
	long entries = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.')
			entries++;
	closedir(d);
	CHECK(entries == threads, "/proc/self/task lists %ld, /proc/self/status counts %ld", entries,
	      threads);
	pthread_barrier_wait(&proc_done);
	for (int k = 0; k < NPROC; k++)
		CHECK(pthread_join(th[k], NULL) == 0, "pthread_join");
	printf("%d named threads read their own name and state under /proc/thread-self and "
	       "/proc/self/task/<id>, with open and fopen; main read each one's name by id; "
	       "/proc/self/task lists what Threads: counts\n", NPROC);
	printf("PASS proc\n");
	return 0;
}

/* ---- scheduling by id ---------------------------------------------------------------- */

static _Atomic int sched_tid, sched_go, sched_seen;
static int seen_policy, seen_prio, seen_nice;
static long seen_ioprio;

static void *sched_target(void *arg)
{
	(void)arg;
	atomic_store(&sched_tid, gettid());
	while (!atomic_load(&sched_go))
		sched_yield();
	struct sched_param sp;
	CHECK(pthread_getschedparam(pthread_self(), &seen_policy, &sp) == 0, "pthread_getschedparam");
	seen_prio = sp.sched_priority;
	errno = 0;
	seen_nice = getpriority(PRIO_PROCESS, 0);
	seen_ioprio = syscall(SYS_ioprio_get, 1, 0);
	atomic_store(&sched_seen, 1);
	return NULL;
}

#define IOPRIO(class, data) (((class) << 13) | (data))

static int sched_test(void)
{
	pthread_t t;
	CHECK(pthread_create(&t, NULL, sched_target, NULL) == 0, "pthread_create");
	while (!atomic_load(&sched_tid))
		sched_yield();
	int tid = atomic_load(&sched_tid);
	int main_policy = sched_getscheduler(0), main_nice = getpriority(PRIO_PROCESS, 0);
	struct sched_param sp = {.sched_priority = 10};
	CHECK(sched_setscheduler(tid, SCHED_RR, &sp) == 0, "sched_setscheduler: %s", strerror(errno));
	CHECK(sched_getscheduler(tid) == SCHED_RR, "sched_getscheduler: %d", sched_getscheduler(tid));
	sp.sched_priority = 20;
	CHECK(syscall(SYS_sched_setparam, tid, &sp) == 0, "SYS_sched_setparam: %s", strerror(errno));
	CHECK(syscall(SYS_sched_getscheduler, tid) == SCHED_RR, "SYS_sched_getscheduler");
	struct sched_param got = {0};
	CHECK(sched_getparam(tid, &got) == 0 && got.sched_priority == 20, "sched_getparam: %d",
	      got.sched_priority);
	CHECK(setpriority(PRIO_PROCESS, tid, 7) == 0, "setpriority: %s", strerror(errno));
	errno = 0;
	int n = getpriority(PRIO_PROCESS, tid);
	CHECK(n == 7 && errno == 0, "getpriority: %d", n);
	CHECK(syscall(SYS_getpriority, PRIO_PROCESS, tid) == 20 - 7, "SYS_getpriority: %ld",
	      syscall(SYS_getpriority, PRIO_PROCESS, tid));
	CHECK(syscall(SYS_ioprio_set, 1, tid, IOPRIO(2, 6)) == 0, "ioprio_set: %s", strerror(errno));
	CHECK(syscall(SYS_ioprio_get, 1, tid) == IOPRIO(2, 6), "ioprio_get: %ld",
	      syscall(SYS_ioprio_get, 1, tid));
	/* the kernel's errors */
	errno = 0;
	CHECK(sched_setscheduler(tid, 12345, &sp) == -1 && errno == EINVAL, "bad policy: errno %d",
	      errno);
	sp.sched_priority = 1000;
	errno = 0;
	CHECK(sched_setparam(tid, &sp) == -1 && errno == EINVAL, "bad priority: errno %d", errno);
	errno = 0;
	CHECK(syscall(SYS_ioprio_set, 1, tid, IOPRIO(7, 0)) == -1 && errno == EINVAL,
	      "bad I/O class: errno %d", errno);
	errno = 0;
	CHECK(sched_getscheduler(0x7ffffff0) == -1 && errno == ESRCH, "no thread: errno %d", errno);
	errno = 0;
	CHECK(setpriority(PRIO_PROCESS, 0x7ffffff0, 1) == -1 && errno == ESRCH,
	      "setpriority of no thread: errno %d", errno);
	/* main's own are unchanged */
	CHECK(sched_getscheduler(0) == main_policy, "main's policy changed");
	errno = 0;
	CHECK(getpriority(PRIO_PROCESS, 0) == main_nice, "main's nice value changed");
	atomic_store(&sched_go, 1);
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	CHECK(seen_policy == SCHED_RR && seen_prio == 20, "the thread sees policy %d priority %d",
	      seen_policy, seen_prio);
	CHECK(seen_nice == 7, "the thread sees nice %d", seen_nice);
	CHECK(seen_ioprio == IOPRIO(2, 6), "the thread sees I/O priority %ld", seen_ioprio);
	printf("policy, priority, nice value and I/O priority set and read by another thread's id "
	       "are that thread's; bad values and no thread give the kernel's errors\n");
	printf("PASS sched\n");
	return 0;
}

/* ---- a timer for a thread ------------------------------------------------------------- */

static _Atomic int timer_tid, timer_hits, timer_wrong;
static _Atomic pthread_t timer_th;

static void on_timer(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (!pthread_equal(pthread_self(), atomic_load(&timer_th)) || si->si_code != SI_TIMER ||
	    si->si_value.sival_int != 42)
		atomic_fetch_add(&timer_wrong, 1);
	atomic_fetch_add(&timer_hits, 1);
}

static void *timer_waiter(void *arg)
{
	(void)arg;
	atomic_store(&timer_tid, gettid());
	double end = now_sec() + 10;
	while (atomic_load(&timer_hits) < 5 && now_sec() < end) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int timer_test(void)
{
	struct sigaction sa = {0};
	sa.sa_sigaction = on_timer;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0, "sigaction");
	pthread_t t;
	CHECK(pthread_create(&t, NULL, timer_waiter, NULL) == 0, "pthread_create");
	atomic_store(&timer_th, t);
	while (!atomic_load(&timer_tid))
		sched_yield();
	struct sigevent ev = {0};
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGUSR2;
	ev.sigev_value.sival_int = 42;
	ev._sigev_un._tid = atomic_load(&timer_tid);
	timer_t tm;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &tm) == 0, "timer_create: %s", strerror(errno));
	struct itimerspec it = {{0, 2000000}, {0, 2000000}};
	CHECK(timer_settime(tm, 0, &it, NULL) == 0, "timer_settime: %s", strerror(errno));
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	CHECK(timer_delete(tm) == 0, "timer_delete: %s", strerror(errno));
	CHECK(atomic_load(&timer_hits) >= 5, "%d timer signals in 10 s", atomic_load(&timer_hits));
	CHECK(atomic_load(&timer_wrong) == 0, "%d timer signals ran elsewhere or wrong",
	      atomic_load(&timer_wrong));
	/* a timer for no thread: the kernel's EINVAL */
	ev._sigev_un._tid = 0x7ffffff0;
	errno = 0;
	CHECK(timer_create(CLOCK_MONOTONIC, &ev, &tm) == -1 && errno == EINVAL,
	      "timer_create for no thread: errno %d", errno);
	printf("a SIGEV_THREAD_ID timer for another thread's id signalled that thread 5 times; "
	       "for no thread: EINVAL\n");
	printf("PASS timer\n");
	return 0;
}

/* ---- the owner of a descriptor's signals ----------------------------------------------- */

static _Atomic int own_tid, own_hits, own_wrong, own_stop;
static _Atomic pthread_t own_th;
static _Atomic int own_sig, own_fd;

static void on_io(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	bool ok = pthread_equal(pthread_self(), atomic_load(&own_th)) && sig == atomic_load(&own_sig);
	if (sig == SIGIO)
		ok = ok && si->si_code == SI_KERNEL;
	else
		ok = ok && si->si_code == POLL_IN && si->si_fd == atomic_load(&own_fd);
	if (!ok)
		atomic_fetch_add(&own_wrong, 1);
	atomic_fetch_add(&own_hits, 1);
}

static void *owner_thread(void *arg)
{
	(void)arg;
	atomic_store(&own_tid, gettid());
	while (!atomic_load(&own_stop)) {
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Write a byte, wait for the owner's handler, read the byte back. */
static void one_signal(int p[2], const char *what)
{
	int before = atomic_load(&own_hits);
	CHECK(write(p[1], "x", 1) == 1, "write: %s", strerror(errno));
	double end = now_sec() + 10;
	while (atomic_load(&own_hits) == before && now_sec() < end)
		sched_yield();
	CHECK(atomic_load(&own_hits) == before + 1, "%s: %d signals", what,
	      atomic_load(&own_hits) - before);
	CHECK(atomic_load(&own_wrong) == 0, "%s: the signal ran elsewhere or said something else",
	      what);
	char c;
	CHECK(read(p[0], &c, 1) == 1, "read: %s", strerror(errno));
}

static int owner_test(void)
{
	struct sigaction sa = {0};
	sa.sa_sigaction = on_io;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGIO, &sa, NULL) == 0, "sigaction");
	CHECK(sigaction(SIGRTMIN + 1, &sa, NULL) == 0, "sigaction");
	pthread_t t;
	CHECK(pthread_create(&t, NULL, owner_thread, NULL) == 0, "pthread_create");
	atomic_store(&own_th, t);
	while (!atomic_load(&own_tid))
		sched_yield();
	int tid = atomic_load(&own_tid);
	int p[2];
	CHECK(pipe(p) == 0, "pipe: %s", strerror(errno));
	atomic_store(&own_fd, p[0]);
	struct f_owner_ex o = {F_OWNER_TID, tid};
	CHECK(fcntl(p[0], F_SETOWN_EX, &o) == 0, "F_SETOWN_EX: %s", strerror(errno));
	CHECK(fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_ASYNC) == 0, "O_ASYNC: %s",
	      strerror(errno));
	struct f_owner_ex got = {0};
	CHECK(fcntl(p[0], F_GETOWN_EX, &got) == 0 && got.type == F_OWNER_TID && got.pid == tid,
	      "F_GETOWN_EX: type %d id %d", got.type, got.pid);
	CHECK(fcntl(p[0], F_GETOWN) == tid, "F_GETOWN: %d", fcntl(p[0], F_GETOWN));
	CHECK(fcntl(p[0], F_GETSIG) == 0, "F_GETSIG: %d", fcntl(p[0], F_GETSIG));
	atomic_store(&own_sig, SIGIO);
	for (int i = 0; i < 5; i++)
		one_signal(p, "plain SIGIO");
	CHECK(fcntl(p[0], F_SETSIG, SIGRTMIN + 1) == 0, "F_SETSIG: %s", strerror(errno));
	CHECK(fcntl(p[0], F_GETSIG) == SIGRTMIN + 1, "F_GETSIG: %d", fcntl(p[0], F_GETSIG));
	atomic_store(&own_sig, SIGRTMIN + 1);
	for (int i = 0; i < 5; i++)
		one_signal(p, "F_SETSIG");
	/* an id no thread has: the kernel's ESRCH */
	o.pid = 0x7ffffff0;
	errno = 0;
	CHECK(fcntl(p[0], F_SETOWN_EX, &o) == -1 && errno == ESRCH, "F_SETOWN_EX of no thread: %d",
	      errno);
	atomic_store(&own_stop, 1);
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	close(p[0]);
	close(p[1]);
	printf("a pipe owned by another thread's id (F_SETOWN_EX) signalled that thread, "
	       "with SIGIO and with its F_SETSIG signal naming the pipe; F_GETOWN_EX, F_GETOWN "
	       "and F_GETSIG as set; no thread: ESRCH\n");
	printf("PASS owner\n");
	return 0;
}

/* --- scan --- */

static int scan_pipe[2][2];

static void *inline_reader(void *arg)
{
	int fd = scan_pipe[(long)arg][0];
	char c;
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_read), "D"((long)fd), "S"(&c), "d"(1L)
			 : "rcx", "r11", "memory");
	CHECK(r == 1, "inline read: %ld", r);
	return NULL;
}

/* The first number of /proc/self/task/<id>/FILE, or -1 (-2: "running");
 * the second, in hexadecimal (syscall's first argument), in *arg. */
static long task_field(const char *id, const char *file, long *arg)
{
	char path[128], buf[256];
	snprintf(path, sizeof path, "/proc/self/task/%s/%s", id, file);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	if (buf[0] < '0' || buf[0] > '9')
		return -2;	/* "running" */
	char *end;
	long v = strtol(buf, &end, 10);
	if (arg)
		*arg = strtol(end, NULL, 16);
	return v;
}

/* One pass over the listing: how many listed tasks are in read(2) on a
 * reader's pipe (main's own read of the file does not count); *own false
 * if a listed id opened another task. */
static int scan_once(bool *own)
{
	DIR *d = opendir("/proc/self/task");
	CHECK(d, "opendir: %s", strerror(errno));
	struct dirent *e;
	int in_read = 0;
	*own = true;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		long first = task_field(e->d_name, "stat", NULL), fd = -1;
		if (first >= 0 && first != atol(e->d_name))
			*own = false;
		if (task_field(e->d_name, "syscall", &fd) == SYS_read &&
		    (fd == scan_pipe[0][0] || fd == scan_pipe[1][0]))
			in_read++;
	}
	closedir(d);
	return in_read;
}

static int scan_test(void)
{
	pthread_t t[2];
	for (long i = 0; i < 2; i++) {
		CHECK(pipe(scan_pipe[i]) == 0, "pipe");
		CHECK(pthread_create(&t[i], NULL, inline_reader, (void *)i) == 0, "pthread_create");
	}
	/* until both are in read (at most 10 s) */
	bool own = true, all_own = true;
	int in_read = 0;
	double end = now_sec() + 10;
	while ((in_read = scan_once(&own)) < 2 && now_sec() < end) {
		all_own = all_own && own;
		usleep(2000);
	}
	all_own = all_own && own;
	for (int k = 0; k < 20; k++) {	/* and a few more looks, both waiting */
		in_read = scan_once(&own);
		all_own = all_own && own;
	}
	printf("every listed id opens the task of that id: %s\n", all_own ? "yes" : "no");
	printf("listed tasks in read(2): %d\n", in_read);
	for (int i = 0; i < 2; i++) {
		CHECK(write(scan_pipe[i][1], "x", 1) == 1, "write");
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	}
	printf("PASS scan\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *what = argc > 1 ? argv[1] : "";
	if (strcmp(what, "ids") == 0)
		return ids();
	if (strcmp(what, "tgkill") == 0)
		return tgkill_test();
	if (strcmp(what, "affinity") == 0)
		return affinity();
	if (strcmp(what, "proc") == 0)
		return proc_test();
	if (strcmp(what, "sched") == 0)
		return sched_test();
	if (strcmp(what, "timer") == 0)
		return timer_test();
	if (strcmp(what, "owner") == 0)
		return owner_test();
	if (strcmp(what, "scan") == 0)
		return scan_test();
	fprintf(stderr, "usage: tids ids|tgkill|affinity|proc|sched|timer|owner|scan\n");
	return 2;
}
