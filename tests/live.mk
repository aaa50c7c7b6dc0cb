# SPDX-License-Identifier: MIT
# tests/live.mk — compat tests of liveness (tests/compat_live): threads
# that loop on calls into the C library or libgmp and never wait, while
# the main thread sleeps and signals storm the process. The program,
# tests/progs/live_loops, is an ordinary pthread program; the runner
# compares it under NPTL and under libgmp.

check_PROGRAMS += tests/progs/live_loops
tests_progs_live_loops_LDADD = $(PROG_LIBS)

check_PROGRAMS += tests/compat_live
tests_compat_live_SOURCES = tests/compat_live.c tests/harness.c tests/harness.h
tests_compat_live_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_live_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_live_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_live
