# SPDX-License-Identifier: MIT
# tests/deepbind.mk — compat tests of libraries opened with RTLD_DEEPBIND
# (tests/compat_deepbind): the program tests/progs/deepbind shares its
# mutex, condvar, semaphores, rwlock and barrier with such a library and
# its thread; preload/dlopen.c makes the library use libgmp's functions.

# ---- the program, three times: without a search path of its own (opens
# the library by path), with a RUNPATH and with an RPATH ($ORIGIN/.libs,
# opens it by name). --export-dynamic: the library sees the program's
# db_whoami unless RTLD_DEEPBIND is in effect.
DEEPBIND_PROGS = tests/progs/deepbind tests/progs/deepbind_runpath tests/progs/deepbind_rpath
check_PROGRAMS += $(DEEPBIND_PROGS)
EXTRA_DIST += tests/progs/deepbind.h
tests_progs_deepbind_LDADD = $(PROG_LIBS) -ldl
tests_progs_deepbind_LDFLAGS = -export-dynamic
tests_progs_deepbind_runpath_SOURCES = tests/progs/deepbind.c
tests_progs_deepbind_runpath_LDADD = $(PROG_LIBS) -ldl
tests_progs_deepbind_runpath_LDFLAGS = -export-dynamic \
	-Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN/.libs'
tests_progs_deepbind_rpath_SOURCES = tests/progs/deepbind.c
tests_progs_deepbind_rpath_LDADD = $(PROG_LIBS) -ldl
tests_progs_deepbind_rpath_LDFLAGS = -export-dynamic \
	-Wl,--disable-new-dtags -Wl,-rpath,'$$ORIGIN/.libs'

# ---- the libraries it opens (real shared objects in tests/progs/.libs).
# libdeepbind_lib.so needs libdeepbind_needed.so (loaded by the same
# dlopen call) and finds libdeepbind_dep.so through its own RUNPATH;
# libdeepbind_dep.so is linked with -z now (its GOT is all read-only).
check_LTLIBRARIES += tests/progs/libdeepbind_needed.la tests/progs/libdeepbind_lib.la \
	tests/progs/libdeepbind_dep.la
tests_progs_libdeepbind_needed_la_SOURCES = tests/progs/deepbind_dep.c
tests_progs_libdeepbind_needed_la_CPPFLAGS = $(AM_CPPFLAGS) -DDB_DEP_FNS=db_needed_fns
tests_progs_libdeepbind_needed_la_LDFLAGS = -avoid-version -rpath /nowhere
tests_progs_libdeepbind_needed_la_LIBADD = -lpthread -ldl
tests_progs_libdeepbind_lib_la_SOURCES = tests/progs/deepbind_lib.c
# (libdeepbind_needed.so is linked past libtool, which would put the build
# directory in the RUNPATH)
tests_progs_libdeepbind_lib_la_LDFLAGS = -module -avoid-version -rpath /nowhere \
	-Wl,--enable-new-dtags -Wl,-rpath,'$$ORIGIN' \
	-Wl,--push-state,--no-as-needed,-L$(abs_builddir)/tests/progs/.libs,-ldeepbind_needed,--pop-state
tests_progs_libdeepbind_lib_la_LIBADD = -lpthread -ldl
EXTRA_tests_progs_libdeepbind_lib_la_DEPENDENCIES = tests/progs/libdeepbind_needed.la
tests_progs_libdeepbind_dep_la_SOURCES = tests/progs/deepbind_dep.c
tests_progs_libdeepbind_dep_la_LDFLAGS = -module -avoid-version -rpath /nowhere -Wl,-z,now
tests_progs_libdeepbind_dep_la_LIBADD = -lpthread -ldl

# ---- the compat tests
check_PROGRAMS += tests/compat_deepbind
tests_compat_deepbind_SOURCES = tests/compat_deepbind.c tests/harness.c tests/harness.h
tests_compat_deepbind_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_deepbind_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_deepbind_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_deepbind
