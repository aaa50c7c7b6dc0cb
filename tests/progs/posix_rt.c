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
 */
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

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

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!rt_allowed()) {
		printf("real-time policies need privilege (CAP_SYS_NICE): nothing checked\n");
		printf("PASS rt\n");
		return 0;
	}
	pthread_t t;
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&a, SCHED_FIFO);
	struct sched_param sp = {.sched_priority = 10};
	pthread_attr_setschedparam(&a, &sp);
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
