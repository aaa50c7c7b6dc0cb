/* SPDX-License-Identifier: MIT */
/*
 * bench/page_floor.c — what the kernel charges for a thread's first
 * touch of its stack, measured without threads: in one anonymous mapping
 * of N slots of STRIDE bytes (default: the default stack size plus a
 * guard page, as the stacks of threads made with default attributes lie),
 * it writes one byte near the top of each slot, as a new thread's first
 * frame does, and reports the time per slot. With slots 2 MiB or more
 * apart every touch also makes a page-table page (VmPTE grows 4 KiB per
 * slot); with STRIDE 4096 the touches are dense, as small stacks are.
 *
 * It is the floor under bench/maxthreads for any thread library that gives
 * each thread a stack of the default size: a million threads cost at least
 * a million of these touches. Not run by run.sh.
 *
 *   page_floor [N [STRIDE]]
 */
#include "bench.h"

#include <sys/mman.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	long stride = 0;
	if (argc > 2) {
		stride = atol(argv[2]);
	} else {
		struct rlimit rl;
		stride = 8L << 20;
		if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			stride = (long)rl.rlim_cur;
		stride += 4096;
	}
	if (n <= 0 || stride < 4096 || stride % 4096) {
		fprintf(stderr, "usage: page_floor [N [STRIDE]] (STRIDE a multiple of 4096)\n");
		return 2;
	}
	long pte0 = status_field("VmPTE");
	char *a = mmap(NULL, (size_t)n * (size_t)stride, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a == MAP_FAILED) {
		perror("page_floor: mmap");
		return 1;
	}
	madvise(a, (size_t)n * (size_t)stride, MADV_NOHUGEPAGE);
	double t0 = now_sec();
	for (long i = 0; i < n; i++)
		((volatile char *)a)[(size_t)(i + 1) * (size_t)stride - 64] = 1;
	double t1 = now_sec();
	long pte1 = status_field("VmPTE");
	printf("RESULT name=page_floor slots=%ld stride=%ld seconds=%.3f us_per_slot=%.2f "
	       "pte_kib_per_slot=%.2f\n",
	       n, stride, t1 - t0, (t1 - t0) / (double)n * 1e6,
	       (double)(pte1 - pte0) / (double)n);
	return 0;
}
