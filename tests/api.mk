# SPDX-License-Identifier: MIT
# tests/api.mk — compat tests of the thread API: attributes, exit paths,
# keys, C11 threads, sleeps, per-thread properties (tests/compat_api).
# The programs in tests/progs/api_* are ordinary pthread programs, built
# without libgmp; tests/compat_api runs them with libgmp preloaded in a
# child process (and most of them under NPTL too, for comparison).

API_PROGS = \
	tests/progs/api_attr tests/progs/api_scope tests/progs/api_exit \
	tests/progs/api_unwind tests/progs/api_keys tests/progs/api_c11 \
	tests/progs/api_sleep tests/progs/api_props tests/progs/api_join \
	tests/progs/api_exit_fx
check_PROGRAMS += $(API_PROGS)
tests_progs_api_attr_LDADD = $(PROG_LIBS)
tests_progs_api_scope_LDADD = $(PROG_LIBS)
tests_progs_api_exit_LDADD = $(PROG_LIBS)
# the same program built with -fexceptions: C cleanup handlers then are
# run by the unwinder (glibc's __cleanup__ variant of pthread_cleanup_push)
tests_progs_api_exit_fx_SOURCES = tests/progs/api_exit.c
tests_progs_api_exit_fx_CFLAGS = $(AM_CFLAGS) -fexceptions
tests_progs_api_exit_fx_LDADD = $(PROG_LIBS)
tests_progs_api_unwind_SOURCES = tests/progs/api_unwind.cc
tests_progs_api_unwind_LDADD = $(PROG_LIBS)
tests_progs_api_keys_LDADD = $(PROG_LIBS)
tests_progs_api_c11_LDADD = $(PROG_LIBS)
tests_progs_api_sleep_LDADD = $(PROG_LIBS)
tests_progs_api_props_LDADD = $(PROG_LIBS)
tests_progs_api_join_LDADD = $(PROG_LIBS)
EXTRA_DIST += tests/progs/api_util.h

check_PROGRAMS += tests/compat_api
tests_compat_api_SOURCES = tests/compat_api.c tests/harness.c tests/harness.h
tests_compat_api_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_api_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_api_LDADD = $(CRITERION_LIBS)

TESTS += tests/compat_api
