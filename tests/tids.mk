# SPDX-License-Identifier: MIT
# tests/tids.mk — compat tests of thread ids (tests/compat_tids): every
# thread has an id of its own, stable while it lives, and the calls that
# take one (tgkill, sched_setaffinity ...) act on that thread. The
# program, tests/progs/tids, is an ordinary pthread program; the runner
# compares it under NPTL and under libgmp.

check_PROGRAMS += tests/progs/tids
tests_progs_tids_LDADD = $(PROG_LIBS)

check_PROGRAMS += tests/compat_tids
tests_compat_tids_SOURCES = tests/compat_tids.c tests/harness.c tests/harness.h
tests_compat_tids_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"' \
	-DTEST_SRCDIR='"$(abs_top_srcdir)"'
tests_compat_tids_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_tids_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_tids
EXTRA_DIST += tests/progs/native_ids.py
