/* SPDX-License-Identifier: MIT */
/*
 * core/real.c — resolution of glibc's definitions (see real.h).
 */
#include "core/real.h"
#include "core/rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#define REAL_DEFINE(ret, name, params, ver) ret(*real_##name) params;
REAL_FUNCS(REAL_DEFINE)
#undef REAL_DEFINE

/* What a function this glibc does not have (epoll_pwait2 before 2.35)
 * answers, should a program reach it through libgmp's definition. */
static long missing(void)
{
	errno = ENOSYS;
	return -1;
}

/* Before glibc 2.34 the pthread and timer functions had no GLIBC_2.34
 * version, and dlsym may hand out an old compatible version of these
 * (timer_create@GLIBC_2.2, whose timer ids are indexes): name the one
 * glibc linked programs to then. */
static const char *old_default(const char *name)
{
	static const struct { const char *name, *ver; } v[] = {
		{"timer_create", "GLIBC_2.3.3"},
		{"timer_delete", "GLIBC_2.3.3"},
		{"sched_setaffinity", "GLIBC_2.3.4"},
		{"sched_getaffinity", "GLIBC_2.3.4"},
		{"pthread_setaffinity_np", "GLIBC_2.3.4"},
		{"pthread_getaffinity_np", "GLIBC_2.3.4"},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (strcmp(v[i].name, name) == 0)
			return v[i].ver;
	return NULL;
}

static void *resolve(const char *name, const char *ver)
{
	void *p = ver ? dlvsym(RTLD_NEXT, name, ver) : NULL;
	const char *old = p ? NULL : old_default(name);
	if (old)
		p = dlvsym(RTLD_NEXT, name, old);
	if (!p)
		p = dlsym(RTLD_NEXT, name);
	return p ? p : (void *)missing;
}

void real_init(void)
{
	static _Atomic int done;
	if (ld_acq(&done))
		return;
#define REAL_RESOLVE(ret, name, params, ver) real_##name = resolve(#name, ver);
	REAL_FUNCS(REAL_RESOLVE)
#undef REAL_RESOLVE
	st_rel(&done, 1);
}
