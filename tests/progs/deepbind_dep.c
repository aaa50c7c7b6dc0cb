/* SPDX-License-Identifier: MIT */
/*
 * tests/progs/deepbind_dep.c — built twice. libdeepbind_dep.so is opened
 * by name by the program (through its RUNPATH or RPATH) and by
 * libdeepbind_lib.so (through the library's RUNPATH), with and without
 * RTLD_DEEPBIND; it is linked with -z now, so its whole GOT is read-only
 * once relocated. libdeepbind_needed.so (DB_DEP_FNS=db_needed_fns) is a
 * DT_NEEDED entry of libdeepbind_lib.so, loaded by the same dlopen call.
 */
#include "tests/progs/deepbind.h"

#ifndef DB_DEP_FNS
#define DB_DEP_FNS db_dep_fns
#endif

void DB_DEP_FNS(void *fns[DB_NFNS])
{
	DB_FILL_FNS(fns);
}
