/* SPDX-License-Identifier: MIT */
/*
 * tools/procgroup.h — what a process group adds up to, read in /proc:
 * its threads and resident memory, summed over its processes. Shared by
 * gmprun --compare (tools/gmprun/compare.c) and the compatibility yard's
 * monitor (tests/compat/yardmon.c), which sample a running program every
 * 10 ms. Header only: yardmon is built on its own by tests/compat/yard.sh.
 */
#ifndef GMP_TOOLS_PROCGROUP_H
#define GMP_TOOLS_PROCGROUP_H

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Threads and resident KiB of the processes of group pgid whose command
 * name (comm, at most 15 characters) keep accepts (every one when keep is
 * NULL), added up. */
static inline void procgroup_sample(pid_t pgid, bool (*keep)(const char *comm), long *threads,
				    long *rss_kib)
{
	static long page_kib;
	if (!page_kib)
		page_kib = sysconf(_SC_PAGESIZE) / 1024;
	*threads = 0;
	*rss_kib = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		char path[300], buf[1024];
		snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* pid (comm) state ppid pgrp ...: comm may hold spaces and ')' */
		char *lp = strchr(buf, '('), *rp = strrchr(buf, ')');
		if (!lp || !rp)
			continue;
		*rp = '\0';
		/* fields from 3 (state): v[2] pgrp, v[17] num_threads, v[21]
		 * rss in pages */
		long v[22];
		int k = 0;
		for (char *save = NULL, *tok = strtok_r(rp + 1, " ", &save); tok && k < 22;
		     tok = strtok_r(NULL, " ", &save))
			v[k++] = strtol(tok, NULL, 10);
		if (k < 22 || v[2] != pgid || (keep && !keep(lp + 1)))
			continue;
		*threads += v[17];
		*rss_kib += v[21] * page_kib;
	}
	closedir(d);
}

#endif
