/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/posix_rt.c — real-time scheduling policies reach the
 * kernel. An ordinary pthread program, run as root (with CAP_SYS_NICE).
 *
 * Without that privilege it says so and checks nothing. A thread created
 * with PTHREAD_EXPLICIT_SCHED and SCHED_FIFO 10, one
 * given SCHED_RR 20 by pthread_setschedparam from main, one that gives
 * itself SCHED_FIFO 30 with sched_setscheduler(0, ...), and one it then
 * creates with PTHREAD_INHERIT_SCHED each find, with an inline system
 * call the library cannot see, that the OS thread they run on has that
 * policy and priority; a SCHED_OTHER thread's has SCHED_OTHER. Prints
 * what each found and "PASS rt".
 *
 * "wakeorder": threads of several real-time priorities wait, one after
 * another, for a mutex, a semaphore, a condition variable and a futex
 * word, and an ordinary thread too for the condition variable; main then
 * lets them go one at a time. The kernel's futex queues, which glibc's
 * objects wait on, wake the highest priority first and equals in the
 * order they came, so each object prints the same order. Main starts the
 * next waiter only when the last one sleeps: a real-time thread's
 * /proc/self/task/<tid>/stat state is S; the condition variable's
 * waiters have let go of its mutex, which main then takes. (An ordinary
 * thread's sleep cannot be seen the same way where it shares its OS
 * thread with main.)
 *
 * "pwakeorder": the same with process-shared objects (mutex, semaphore,
 * condition variable), which wait in the kernel on the object's word.
 *
 * "runorder": the process on one CPU, main (SCHED_OTHER) wakes a
 * SCHED_FIFO 10 thread and a SCHED_RR 20 one from a condition variable
 * at once: the higher priority runs first, and finds that the other has
 * not run yet.
 *
 * "preempt": the process on one CPU, main SCHED_FIFO 10. A thread it
 * creates with an explicit SCHED_FIFO 20 runs before pthread_create
 * returns; a SCHED_FIFO 20 thread waiting on a semaphore runs before
 * sem_post returns; an ordinary thread main raises to SCHED_FIFO 20
 * while it waits runs before sem_post returns too. Each logs where it
 * got to; main prints the log.
 *
 * "yieldloop": the process on one CPU, a SCHED_FIFO 10 thread calls
 * sched_yield in a loop until main, an ordinary thread, tells it to stop:
 * main first from its own code, then from a SIGALRM handler while it
 * waits in pause (as stress-ng's mutex stressor stops). The kernel lets
 * ordinary threads run a little in each second a real-time one keeps
 * the CPU, so both happen within seconds; the real-time thread gives up
 * after 20 s and says so.
 *
 * "unprivileged": main gives up root (user and group nobody), then a
 * real-time policy is refused as glibc refuses it: pthread_create with
 * an explicit SCHED_FIFO, pthread_setschedparam and sched_setscheduler
 * fail with EPERM, a lower nice value with EACCES, and the threads keep
 * SCHED_OTHER. Run as root; without root it checks nothing.
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <linux/futex.h>
#include <semaphore.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* The policy and priority of the OS thread the caller runs on. */
static void kernel_sched(int *policy, int *prio)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_sched_getscheduler), "D"(0L)
			 : "rcx", "r11", "memory");
	*policy = (int)r;
	struct sched_param sp = {0};
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_sched_getparam), "D"(0L), "S"(&sp)
			 : "rcx", "r11", "memory");
	*prio = sp.sched_priority;
}

static const char *pname(int p)
{
	return p == SCHED_FIFO ? "SCHED_FIFO" : p == SCHED_RR ? "SCHED_RR" : p == SCHED_OTHER ? "SCHED_OTHER" : "?";
}

/* Attributes that ask for an explicit policy and priority. */
static void explicit_attr(pthread_attr_t *a, int policy, int prio)
{
	pthread_attr_init(a);
	pthread_attr_setinheritsched(a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(a, policy);
	struct sched_param sp = {.sched_priority = prio};
	pthread_attr_setschedparam(a, &sp);
}

static void report(const char *who)
{
	int pol, prio;
	kernel_sched(&pol, &prio);
	printf("%-36s its OS thread: %s %d\n", who, pname(pol), prio);
}

static atomic_int go;

static void *explicit_fifo(void *arg)
{
	(void)arg;
	report("created SCHED_FIFO 10:");
	return NULL;
}

static void *set_by_main(void *arg)
{
	(void)arg;
	while (!atomic_load(&go))
		sched_yield();
	report("given SCHED_RR 20 by main:");
	return NULL;
}

static void *inherited(void *arg)
{
	(void)arg;
	report("created by it, inheriting:");
	return NULL;
}

static void *sets_itself(void *arg)
{
	(void)arg;
	struct sched_param sp = {.sched_priority = 30};
	CHECK(sched_setscheduler(0, SCHED_FIFO, &sp) == 0, "sched_setscheduler: %s", strerror(errno));
	report("gave itself SCHED_FIFO 30:");
	pthread_t t;
	CHECK(pthread_create(&t, NULL, inherited, NULL) == 0, "pthread_create");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	return NULL;
}

static void *plain(void *arg)
{
	(void)arg;
	report("created SCHED_OTHER:");
	return NULL;
}

/* May this process use real-time policies? Asked of the kernel for the
 * main OS thread, which gets SCHED_OTHER back. */
static bool rt_allowed(void)
{
	struct sched_param sp = {.sched_priority = 1}, zero = {0};
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_sched_setscheduler), "D"(0L),
			 "S"((long)SCHED_FIFO), "d"(&sp) : "rcx", "r11", "memory");
	if (r != 0)
		return false;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_sched_setscheduler), "D"(0L),
			 "S"((long)SCHED_OTHER), "d"(&zero) : "rcx", "r11", "memory");
	return true;
}

/* --- wakeorder --- */

#define NWAIT 6
static const struct {
	const char *name;
	int policy, prio;
} waiters[NWAIT] = {
	{"A FIFO 10", SCHED_FIFO, 10}, {"B RR 30", SCHED_RR, 30}, {"C FIFO 20", SCHED_FIFO, 20},
	{"D OTHER", SCHED_OTHER, 0},   {"E FIFO 30", SCHED_FIFO, 30}, {"F FIFO 20", SCHED_FIFO, 20},
};

enum kind { K_MUTEX, K_SEM, K_COND, K_FUTEX, NKIND };
static const char *kind_name[NKIND] = {"mutex", "semaphore", "condvar", "futex"};

static enum kind kind;
static pthread_mutex_t mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t sem;
static _Atomic uint32_t fword;
static atomic_int started[NWAIT], tids[NWAIT];
static int order[NWAIT];
static atomic_int norder;

static void *waiter(void *arg)
{
	int i = (int)(intptr_t)arg;
	atomic_store(&tids[i], gettid());
	switch (kind) {
	case K_MUTEX:
		atomic_store(&started[i], 1);
		CHECK(pthread_mutex_lock(&mx) == 0, "lock");
		order[atomic_load(&norder)] = i;
		atomic_fetch_add(&norder, 1);
		CHECK(pthread_mutex_unlock(&mx) == 0, "unlock");
		break;
	case K_SEM:
		atomic_store(&started[i], 1);
		CHECK(sem_wait(&sem) == 0, "sem_wait: %s", strerror(errno));
		order[atomic_load(&norder)] = i;
		atomic_fetch_add(&norder, 1);
		break;
	case K_COND:
		CHECK(pthread_mutex_lock(&mx) == 0, "lock");
		atomic_store(&started[i], 1);
		CHECK(pthread_cond_wait(&cv, &mx) == 0, "cond_wait");
		order[atomic_load(&norder)] = i;
		atomic_fetch_add(&norder, 1);
		CHECK(pthread_mutex_unlock(&mx) == 0, "unlock");
		break;
	case K_FUTEX:
		atomic_store(&started[i], 1);
		while (atomic_load(&fword) == 0)
			syscall(SYS_futex, &fword, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
		order[atomic_load(&norder)] = i;
		atomic_fetch_add(&norder, 1);
		break;
	default:
		break;
	}
	return NULL;
}

/* The scheduling state of thread tid, from /proc/self/task/<tid>/stat. */
static char task_state(int tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0, "open %s: %s", path, strerror(errno));
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	CHECK(n > 0, "read %s", path);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	CHECK(p && p[1] == ' ', "stat format: %s", buf);
	return p[2];
}

/* Wait (at most 10 s) until waiter i has started and sleeps. */
static void await_asleep(int i)
{
	double end = now_sec() + 10;
	while (!atomic_load(&started[i])) {
		CHECK(now_sec() < end, "waiter %s never started", waiters[i].name);
		usleep(1000);
	}
	while (task_state(atomic_load(&tids[i])) != 'S') {
		CHECK(now_sec() < end, "waiter %s never slept", waiters[i].name);
		usleep(1000);
	}
}

static bool pshared;	/* the objects are process-shared (pwakeorder) */

/* mx and cv afresh, process-shared or not */
static void init_objects(void)
{
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	CHECK(pthread_mutexattr_init(&ma) == 0 && pthread_condattr_init(&ca) == 0, "attr init");
	int how = pshared ? PTHREAD_PROCESS_SHARED : PTHREAD_PROCESS_PRIVATE;
	CHECK(pthread_mutexattr_setpshared(&ma, how) == 0, "mutexattr_setpshared");
	CHECK(pthread_condattr_setpshared(&ca, how) == 0, "condattr_setpshared");
	CHECK(pthread_mutex_init(&mx, &ma) == 0, "mutex_init");
	CHECK(pthread_cond_init(&cv, &ca) == 0, "cond_init");
}

static void wake_order(enum kind k)
{
	kind = k;
	atomic_store(&norder, 0);
	atomic_store(&fword, 0);
	init_objects();
	CHECK(sem_init(&sem, pshared, 0) == 0, "sem_init");
	if (k == K_MUTEX)
		CHECK(pthread_mutex_lock(&mx) == 0, "lock");
	pthread_t t[NWAIT];
	int nw = 0;
	for (int i = 0; i < NWAIT; i++) {
		atomic_store(&started[i], 0);
		if (waiters[i].policy == SCHED_OTHER && k != K_COND)
			continue;
		nw++;
		pthread_attr_t a;
		if (waiters[i].policy != SCHED_OTHER)
			explicit_attr(&a, waiters[i].policy, waiters[i].prio);
		else
			pthread_attr_init(&a);
		CHECK(pthread_create(&t[i], &a, waiter, (void *)(intptr_t)i) == 0, "pthread_create");
		pthread_attr_destroy(&a);
		if (k == K_COND) {
			/* it holds the mutex until it waits */
			while (!atomic_load(&started[i]))
				usleep(1000);
			CHECK(pthread_mutex_lock(&mx) == 0, "lock");
			CHECK(pthread_mutex_unlock(&mx) == 0, "unlock");
		}
		if (waiters[i].policy != SCHED_OTHER)
			await_asleep(i);
	}
	for (int n = 0; n < nw; n++) {
		switch (k) {
		case K_MUTEX:
			if (n == 0)
				CHECK(pthread_mutex_unlock(&mx) == 0, "unlock");
			break;
		case K_SEM:
			CHECK(sem_post(&sem) == 0, "sem_post");
			break;
		case K_COND:
			CHECK(pthread_mutex_lock(&mx) == 0, "lock");
			CHECK(pthread_cond_signal(&cv) == 0, "signal");
			CHECK(pthread_mutex_unlock(&mx) == 0, "unlock");
			break;
		case K_FUTEX:
			/* one waiter sees the word set and leaves; it is cleared
			 * again before the next wake-up */
			atomic_store(&fword, 1);
			CHECK(syscall(SYS_futex, &fword, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0) == 1,
			      "FUTEX_WAKE woke nobody");
			break;
		default:
			break;
		}
		double end = now_sec() + 10;
		while (atomic_load(&norder) < n + 1) {
			CHECK(now_sec() < end, "%s: wake-up %d reached nobody", kind_name[k], n);
			usleep(200);
		}
		if (k == K_FUTEX)
			atomic_store(&fword, 0);
	}
	for (int i = 0; i < NWAIT; i++)
		if (waiters[i].policy != SCHED_OTHER || k == K_COND)
			CHECK(pthread_join(t[i], NULL) == 0, "join");
	CHECK(atomic_load(&norder) == nw, "%d woken", atomic_load(&norder));
	printf("%-10s woken:", kind_name[k]);
	for (int n = 0; n < nw; n++)
		printf(" [%s]", waiters[order[n]].name);
	printf("\n");
	sem_destroy(&sem);
}

static int wakeorder(void)
{
	for (enum kind k = 0; k < NKIND; k++)
		wake_order(k);
	printf("PASS wakeorder\n");
	return 0;
}

/* The same with process-shared objects, which wait in the kernel on the
 * object's own word under NPTL (libgmp polled the semaphore: arrival
 * order). */
static int pwakeorder(void)
{
	pshared = true;
	for (enum kind k = 0; k < K_FUTEX; k++)
		wake_order(k);
	printf("PASS pwakeorder\n");
	return 0;
}

/* --- runorder --- */

static atomic_int ran_lo, ran_hi, ready;

/* arg 1: the SCHED_RR 20 thread, 0: the SCHED_FIFO 10 one */
static void *run_prio(void *arg)
{
	bool hi = arg != NULL;
	CHECK(pthread_mutex_lock(&mx) == 0, "lock");
	atomic_fetch_add(&ready, 1);
	CHECK(pthread_cond_wait(&cv, &mx) == 0, "cond_wait");
	CHECK(pthread_mutex_unlock(&mx) == 0, "unlock");
	printf("%s runs; the %s thread has run: %d\n", hi ? "RR 20" : "FIFO 10",
	       hi ? "FIFO 10" : "RR 20", atomic_load(hi ? &ran_lo : &ran_hi));
	atomic_store(hi ? &ran_hi : &ran_lo, 1);
	return NULL;
}

/* The whole process on one CPU: the main OS thread pins itself (an
 * inline system call, for the kernel's thread) and executes the program
 * again, so that every thread made afterwards inherits the CPU. */
static void on_one_cpu(char **argv)
{
	if (getenv("POSIX_RT_ONE_CPU"))
		return;
	cpu_set_t set;
	CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
	int cpu = 0;
	while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set))
		cpu++;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_sched_setaffinity), "D"(0L),
			 "S"((long)sizeof set), "d"(&set) : "rcx", "r11", "memory");
	CHECK(r == 0, "sched_setaffinity: %ld", r);
	setenv("POSIX_RT_ONE_CPU", "1", 1);
	execv("/proc/self/exe", argv);
	CHECK(0, "execv: %s", strerror(errno));
}

static int runorder(void)
{
	pthread_t lo, hi;
	pthread_attr_t a;
	explicit_attr(&a, SCHED_FIFO, 10);
	CHECK(pthread_create(&lo, &a, run_prio, NULL) == 0, "pthread_create");
	pthread_attr_destroy(&a);
	explicit_attr(&a, SCHED_RR, 20);
	CHECK(pthread_create(&hi, &a, run_prio, (void *)1) == 0, "pthread_create");
	pthread_attr_destroy(&a);
	/* both wait: they let go of the mutex in pthread_cond_wait */
	double end = now_sec() + 10;
	for (;;) {
		CHECK(pthread_mutex_lock(&mx) == 0, "lock");
		int n = atomic_load(&ready);
		CHECK(pthread_mutex_unlock(&mx) == 0, "unlock");
		if (n == 2)
			break;
		CHECK(now_sec() < end, "the threads never waited");
		usleep(1000);
	}
	CHECK(pthread_mutex_lock(&mx) == 0, "lock");
	CHECK(pthread_cond_broadcast(&cv) == 0, "broadcast");
	CHECK(pthread_mutex_unlock(&mx) == 0, "unlock");
	CHECK(pthread_join(lo, NULL) == 0, "join");
	CHECK(pthread_join(hi, NULL) == 0, "join");
	printf("PASS runorder\n");
	return 0;
}

/* --- preempt --- */

static const char *plog[64];
static atomic_int nplog;
static sem_t psem;

static void plog_add(const char *what)
{
	int i = atomic_fetch_add(&nplog, 1);
	if (i < 64)
		plog[i] = what;
}

static void *created_high(void *arg)
{
	plog_add((const char *)arg);
	return NULL;
}

/* waits on psem `arg` times, logging each wake-up */
static void *waits_high(void *arg)
{
	static const char *woke[] = {"waiter woke 1", "waiter woke 2", "waiter woke 3"};
	for (long i = 0; i < (long)arg; i++) {
		while (sem_wait(&psem) != 0)
			CHECK(errno == EINTR, "sem_wait: %s", strerror(errno));
		plog_add(woke[i % 3]);
	}
	return NULL;
}

static int preempt(void)
{
	static const char *ran[] = {"created thread 1 ran", "created thread 2 ran",
				    "created thread 3 ran"};
	static const char *after[] = {"main: pthread_create 1 returned",
				      "main: pthread_create 2 returned",
				      "main: pthread_create 3 returned"};
	static const char *posted[] = {"main: sem_post 1 returned", "main: sem_post 2 returned",
				       "main: sem_post 3 returned"};
	struct sched_param sp = {.sched_priority = 10};
	CHECK(pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0, "setschedparam main");
	pthread_attr_t a;
	pthread_t t[3];
	explicit_attr(&a, SCHED_FIFO, 20);
	for (int i = 0; i < 3; i++) {
		CHECK(pthread_create(&t[i], &a, created_high, (void *)ran[i]) == 0, "pthread_create");
		plog_add(after[i]);
	}
	for (int i = 0; i < 3; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "join");

	/* a real-time waiter: it waits before pthread_create returns */
	CHECK(sem_init(&psem, 0, 0) == 0, "sem_init");
	CHECK(pthread_create(&t[0], &a, waits_high, (void *)3L) == 0, "pthread_create");
	for (int i = 0; i < 3; i++) {
		CHECK(sem_post(&psem) == 0, "sem_post");
		plog_add(posted[i]);
	}
	CHECK(pthread_join(t[0], NULL) == 0, "join");
	pthread_attr_destroy(&a);

	/* an ordinary waiter, raised while it waits */
	CHECK(pthread_create(&t[0], NULL, waits_high, (void *)1L) == 0, "pthread_create");
	/* main sleeps, so that it runs and waits (had it not got there,
	 * the raise would run it at once, into the same wait: the log is
	 * the same) */
	usleep(20000);
	sp.sched_priority = 20;
	CHECK(pthread_setschedparam(t[0], SCHED_FIFO, &sp) == 0, "setschedparam waiter");
	plog_add("main: raised the waiter");
	CHECK(sem_post(&psem) == 0, "sem_post");
	plog_add("main: sem_post 4 returned");
	CHECK(pthread_join(t[0], NULL) == 0, "join");
	int n = atomic_load(&nplog);
	for (int i = 0; i < n && i < 64; i++)
		printf("%s\n", plog[i]);
	printf("PASS preempt\n");
	return 0;
}

/* --- yieldloop --- */

static atomic_int stop_yielding, main_ran;

static void *yielder(void *arg)
{
	(void)arg;
	double end = now_sec() + 20;
	while (!atomic_load(&stop_yielding)) {
		if (now_sec() > end) {
			printf("FIFO thread: never told to stop (main ran: %d)\n",
			       atomic_load(&main_ran));
			return NULL;
		}
		sched_yield();
	}
	printf("FIFO thread: stopped by %s\n",
	       atomic_load(&stop_yielding) == 1 ? "main" : "the signal handler");
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
	atomic_store(&stop_yielding, 2);
}

static int yieldloop(void)
{
	pthread_attr_t a;
	pthread_t t;
	explicit_attr(&a, SCHED_FIFO, 10);
	for (int round = 1; round <= 2; round++) {
		atomic_store(&stop_yielding, 0);
		CHECK(pthread_create(&t, &a, yielder, NULL) == 0, "pthread_create");
		atomic_store(&main_ran, round);
		if (round == 1) {
			atomic_store(&stop_yielding, 1);
		} else {
			struct sigaction sa = {.sa_handler = on_alarm};
			sigemptyset(&sa.sa_mask);
			CHECK(sigaction(SIGALRM, &sa, NULL) == 0, "sigaction");
			alarm(1);
			while (atomic_load(&stop_yielding) == 0)
				pause();
		}
		CHECK(pthread_join(t, NULL) == 0, "join");
	}
	pthread_attr_destroy(&a);
	printf("PASS yieldloop\n");
	return 0;
}

/* --- unprivileged --- */

static void *unpriv_thread(void *arg)
{
	(void)arg;
	struct sched_param sp = {.sched_priority = 5};
	int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	printf("thread: pthread_setschedparam SCHED_FIFO 5: %s\n", strerror(r));
	errno = 0;
	r = sched_setscheduler(0, SCHED_RR, &sp);
	printf("thread: sched_setscheduler SCHED_RR 5: %d %s\n", r, strerror(errno));
	int pol;
	CHECK(pthread_getschedparam(pthread_self(), &pol, &sp) == 0, "getschedparam");
	printf("thread: policy %s %d\n", pname(pol), sp.sched_priority);
	int kpol, kprio;
	kernel_sched(&kpol, &kprio);
	printf("thread: its OS thread: %s %d\n", pname(kpol), kprio);
	return NULL;
}

static int unprivileged(void)
{
	if (getuid() != 0) {
		printf("not root: nothing checked\n");
		printf("PASS unprivileged\n");
		return 0;
	}
	CHECK(setgroups(0, NULL) == 0, "setgroups: %s", strerror(errno));
	CHECK(setresgid(65534, 65534, 65534) == 0, "setresgid: %s", strerror(errno));
	CHECK(setresuid(65534, 65534, 65534) == 0, "setresuid: %s", strerror(errno));
	pthread_t t;
	pthread_attr_t a;
	explicit_attr(&a, SCHED_FIFO, 10);
	struct sched_param sp = {.sched_priority = 10};
	int r = pthread_create(&t, &a, explicit_fifo, NULL);
	printf("pthread_create SCHED_FIFO 10: %s\n", strerror(r));
	if (r == 0)
		pthread_join(t, NULL);
	pthread_attr_destroy(&a);
	r = pthread_setschedparam(pthread_self(), SCHED_RR, &sp);
	printf("main: pthread_setschedparam SCHED_RR 10: %s\n", strerror(r));
	errno = 0;
	r = setpriority(PRIO_PROCESS, 0, -5);
	printf("main: setpriority -5: %d %s\n", r, strerror(errno));
	CHECK(pthread_create(&t, NULL, unpriv_thread, NULL) == 0, "pthread_create");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	printf("PASS unprivileged\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "rt";
	if (strcmp(mode, "unprivileged") == 0)
		return unprivileged();
	if (!rt_allowed()) {
		printf("real-time policies need privilege (CAP_SYS_NICE): nothing checked\n");
		printf("PASS %s\n", mode);
		return 0;
	}
	if (strcmp(mode, "wakeorder") == 0)
		return wakeorder();
	if (strcmp(mode, "pwakeorder") == 0)
		return pwakeorder();
	if (strcmp(mode, "runorder") == 0) {
		on_one_cpu(argv);
		return runorder();
	}
	if (strcmp(mode, "yieldloop") == 0) {
		on_one_cpu(argv);
		return yieldloop();
	}
	if (strcmp(mode, "preempt") == 0) {
		on_one_cpu(argv);
		return preempt();
	}
	CHECK(strcmp(mode, "rt") == 0, "unknown mode %s", mode);
	pthread_t t;
	pthread_attr_t a;
	explicit_attr(&a, SCHED_FIFO, 10);
	struct sched_param sp = {.sched_priority = 10};
	CHECK(pthread_create(&t, &a, explicit_fifo, NULL) == 0, "pthread_create SCHED_FIFO");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");

	CHECK(pthread_create(&t, NULL, set_by_main, NULL) == 0, "pthread_create");
	sp.sched_priority = 20;
	CHECK(pthread_setschedparam(t, SCHED_RR, &sp) == 0, "pthread_setschedparam");
	int pol;
	CHECK(pthread_getschedparam(t, &pol, &sp) == 0 && pol == SCHED_RR && sp.sched_priority == 20,
	      "pthread_getschedparam");
	atomic_store(&go, 1);
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");

	CHECK(pthread_create(&t, NULL, sets_itself, NULL) == 0, "pthread_create");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	CHECK(pthread_create(&t, NULL, plain, NULL) == 0, "pthread_create");
	CHECK(pthread_join(t, NULL) == 0, "pthread_join");
	report("main:");
	printf("PASS rt\n");
	return 0;
}
