/*
 * core/real.c — resolution of glibc's definitions (see real.h).
 */
#include "core/real.h"
#include "core/rt.h"

#include <dlfcn.h>
#include <errno.h>
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

static void *resolve(const char *name, const char *ver)
{
	void *p = ver ? dlvsym(RTLD_NEXT, name, ver) : NULL;
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
