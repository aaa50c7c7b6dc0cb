/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of configuration parsing: GMPMAXPROCS accepts exactly an
 * integer from 1 to 1024; a bad value is reported once, naming the
 * variable, and the default is kept.
 */
#include "unit.h"
#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test(config, maxprocs_values)
{
	cr_assert_eq(config_parse_maxprocs("1"), 1);
	cr_assert_eq(config_parse_maxprocs("8"), 8);
	cr_assert_eq(config_parse_maxprocs("1024"), 1024);
	const char *bad[] = {"", "0", "1025", "abc", "2x", "+3", " 3", "3 ", "-1",
			     "99999999999999999999", NULL};
	for (int i = 0; bad[i]; i++)
		cr_assert_eq(config_parse_maxprocs(bad[i]), -1, "\"%s\" accepted", bad[i]);
}

/* Run config_init with the given environment; return its stderr. */
static char *init_with(const char *maxprocs, const char *debug)
{
	static char out[4096];
	int fds[2];
	cr_assert_eq(pipe(fds), 0);
	int saved = dup(2);
	dup2(fds[1], 2);
	if (maxprocs)
		setenv("GMPMAXPROCS", maxprocs, 1);
	else
		unsetenv("GMPMAXPROCS");
	if (debug)
		setenv("GMPDEBUG", debug, 1);
	else
		unsetenv("GMPDEBUG");
	memset(&rt_cfg, 0, sizeof rt_cfg);
	os_init();
	config_init();
	dup2(saved, 2);
	close(fds[1]);
	ssize_t n = read(fds[0], out, sizeof out - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	return out;
}

Test(config, default_is_cpu_count)
{
	char *err = init_with(NULL, NULL);
	cr_assert_str_empty(err);
	cr_assert_eq(rt_cfg.maxprocs, os_ncpu());
	cr_assert(rt_cfg.maxprocs >= 1);
}

Test(config, bad_maxprocs_reported_once_default_kept)
{
	char *err = init_with("abc", NULL);
	cr_assert(strstr(err, "GMPMAXPROCS=\"abc\""), "%s", err);
	cr_assert(strstr(err, "expected an integer from 1 to 1024"), "%s", err);
	cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "one line: %s", err);
	cr_assert_eq(rt_cfg.maxprocs, os_ncpu());
}

Test(config, gmpdebug_keys)
{
	char *err = init_with("3", "schedtrace=250,scheddetail=1");
	cr_assert_str_empty(err);
	cr_assert_eq(rt_cfg.maxprocs, 3);
	cr_assert_eq(rt_cfg.schedtrace_ms, 250);
	cr_assert(rt_cfg.scheddetail);

	err = init_with(NULL, "schedtrace=x,color=1,scheddetail=7");
	cr_assert(strstr(err, "schedtrace=\"x\""), "%s", err);
	cr_assert(strstr(err, "unknown key \"color\""), "%s", err);
	cr_assert(strstr(err, "scheddetail=\"7\""), "%s", err);
	cr_assert_eq(rt_cfg.schedtrace_ms, 0);
	cr_assert(!rt_cfg.scheddetail);
}

Test(config, gmpdebug_fsbase)
{
	char *err = init_with(NULL, "fsbase=syscall");
	cr_assert_str_empty(err);
	cr_assert(rt_cfg.fsbase_syscall);
	err = init_with(NULL, "fsbase=auto");
	cr_assert_str_empty(err);
	cr_assert(!rt_cfg.fsbase_syscall);
	err = init_with(NULL, "spin=20,affinity=on");
	cr_assert_str_empty(err);
	cr_assert_eq(rt_cfg.spin_ns, 20000);
	cr_assert_eq(rt_cfg.affinity, 1);
	err = init_with(NULL, "spin=2000,affinity=maybe");
	cr_assert(strstr(err, "spin=\"2000\": expected auto or microseconds (0..1000)"), "%s", err);
	cr_assert(strstr(err, "affinity=\"maybe\": expected auto, on or off"), "%s", err);
	cr_assert_eq(rt_cfg.spin_ns, -1);
	cr_assert_eq(rt_cfg.affinity, -1);
	err = init_with(NULL, "adapt=0");
	cr_assert_str_empty(err);
	cr_assert(!rt_cfg.adapt);
	err = init_with(NULL, NULL);
	cr_assert(rt_cfg.adapt);
	err = init_with(NULL, "fsbase=never");
	cr_assert(strstr(err, "fsbase=\"never\": expected auto or syscall; using auto"), "%s", err);
	cr_assert(!rt_cfg.fsbase_syscall);
}
