/* SPDX-License-Identifier: MIT */
/*
 * TLS.md row 9 — sched_getcpu() after migrations. glibc's sched_getcpu
 * reads the CPU number from the thread's rseq area in its TCB when the
 * thread is rseq-registered, and asks the vDSO otherwise; a TCB that claims
 * a registration the kernel does not update would always answer 0. 16
 * threads take 200 samples each, switching away (and maybe resuming on
 * another OS thread) before every sample: the getcpu system call, then
 * sched_getcpu(), then the getcpu system call again. The OS thread may be
 * moved to another CPU between the calls, so a sample is wrong only when
 * sched_getcpu() matches neither system call. No sample may be wrong.
 */
#include "tls_common.h"

#include <sys/sysinfo.h>

#define NT 16
#define NR 200

static long wrong, nonzero, moved_between;

static int getcpu_syscall(void)
{
	unsigned cpu = 0, node = 0;
	CHECK(syscall(SYS_getcpu, &cpu, &node, NULL) == 0, "getcpu system call failed");
	return (int)cpu;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	int ncpu = get_nprocs_conf();
	for (unsigned i = 0; tls_more(i, NR); i++) {
		tls_switch(i + (unsigned)id);
		int before = getcpu_syscall();
		int got = sched_getcpu();
		int after = getcpu_syscall();
		CHECK(got >= 0 && got < ncpu, "thread %ld: sched_getcpu() = %d with %d CPUs", id, got,
		      ncpu);
		if (got != before && got != after) {
			__atomic_fetch_add(&wrong, 1, __ATOMIC_RELAXED);
			printf("FAIL: thread %ld: sched_getcpu() = %d between getcpu %d and %d\n", id, got,
			       before, after);
		}
		if (before != after)
			__atomic_fetch_add(&moved_between, 1, __ATOMIC_RELAXED);
		if (got != 0)
			__atomic_fetch_add(&nonzero, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	tls_args(argc, argv);
	pthread_t t[NT];
	for (long i = 0; i < NT; i++)
		CHECK(pthread_create(&t[i], NULL, worker, (void *)i) == 0, "pthread_create");
	for (int i = 0; i < NT; i++)
		CHECK(pthread_join(t[i], NULL) == 0, "pthread_join");
	fprintf(stderr, "samples on a CPU other than 0: %ld, moved between the calls: %ld\n",
		nonzero, moved_between);
	if (wrong) {
		printf("FAIL: %ld of %d samples of sched_getcpu() were wrong\n", wrong, NT * NR);
		return 1;
	}
	printf("sched_getcpu: %d threads x >= %d samples agree with the getcpu system call\n", NT, NR);
	if (tls_migration_verdict())
		return 1;
	printf("PASS getcpu\n");
	return 0;
}
