/* SPDX-License-Identifier: MIT */
/*
 * tests/compat_deepbind.c — compat tests of libraries opened with
 * RTLD_DEEPBIND (suite "deepbind"), whose references bind to glibc's
 * definitions before libgmp's. tests/progs/deepbind shares its mutex,
 * condvar, semaphores, rwlock and barrier with such a library and with a
 * thread the library starts, and checks what the library's references
 * bind to. Each test runs it in a child process with a timeout, under
 * NPTL and then under libgmp with two processors and with one; libgmp's
 * output must be NPTL's, line for line.
 */
#include "tests/harness.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define RUN_TIMEOUT 20	/* seconds, each run */

/* Run `prog lib [mode]` under NPTL and under libgmp: exit 0 and the same
 * output, which ends with the PASS line. */
static void same_as_nptl(const char *prog, const char *lib, const char *mode)
{
	char path[4096];
	snprintf(path, sizeof path, "%s", prog_path(prog));
	const char *argv[] = {path, lib, mode, NULL};
	const char *args = mode ? mode : "";

	struct run nptl = run_prog(argv, NULL, RUN_TIMEOUT, false);
	if (run_code(&nptl) != 0)
		run_dump("under NPTL", &nptl);
	cr_assert_eq(run_code(&nptl), 0, "%s %s %s under NPTL: exit code %d", prog, lib, args,
		     run_code(&nptl));
	cr_assert_eq(count_prefix(nptl.out, "PASS deepbind"), 1, "%s under NPTL: no PASS line", prog);

	const char *one[] = {"GMPMAXPROCS=1", NULL};
	for (int pass = 0; pass < 2; pass++) {
		struct run gmp = run_prog(argv, pass ? one : NULL, RUN_TIMEOUT, true);
		bool same = strcmp(nptl.out, gmp.out) == 0;
		if (run_code(&gmp) != 0 || !same) {
			run_dump("under NPTL", &nptl);
			run_dump(pass ? "under libgmp, GMPMAXPROCS=1" : "under libgmp", &gmp);
		}
		cr_assert_eq(run_code(&gmp), 0, "%s %s %s under libgmp%s: exit code %d", prog, lib,
			     args, pass ? " (GMPMAXPROCS=1)" : "", run_code(&gmp));
		cr_assert(same, "%s %s %s: libgmp's output%s differs from NPTL's", prog, lib, args,
			  pass ? " (GMPMAXPROCS=1)" : "");
		run_free(&gmp);
	}
	run_free(&nptl);
}

static const char *lib_path(void)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s", build_path("tests/progs/.libs/libdeepbind_lib.so"));
	return path;
}

/* The library, opened by path with RTLD_NOW: its GOT is filled in when
 * dlopen returns, and rewritten by libgmp. */
Test(deepbind, library_shares_objects_with_program, .timeout = 90)
{
	same_as_nptl("deepbind", lib_path(), NULL);
}

/* With RTLD_LAZY its PLT slots still point at the resolver stubs. */
Test(deepbind, lazy_binding, .timeout = 90)
{
	same_as_nptl("deepbind", lib_path(), "lazy");
}

/* Opened by bare name through the program's RUNPATH ($ORIGIN/.libs),
 * libdeepbind_dep.so without RTLD_DEEPBIND, the library with it. */
Test(deepbind, bare_name_through_runpath, .timeout = 90)
{
	same_as_nptl("deepbind_runpath", "libdeepbind_lib.so", NULL);
}

Test(deepbind, bare_name_through_runpath_lazy, .timeout = 90)
{
	same_as_nptl("deepbind_runpath", "libdeepbind_lib.so", "lazy");
}

/* The same through a DT_RPATH, which libgmp's own lookups see too. */
Test(deepbind, bare_name_through_rpath, .timeout = 90)
{
	same_as_nptl("deepbind_rpath", "libdeepbind_lib.so", NULL);
}
