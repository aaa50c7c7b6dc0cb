# SPDX-License-Identifier: MIT
# tests/posix.mk — compat tests of POSIX conformance (tests/compat_posix):
# what the thread functions answer in each part of a thread's life, and
# what a signal does to a thread that waits, as glibc and the kernel do. The programs, tests/progs/posix_*, are ordinary pthread
# programs; the runner compares them under NPTL and under libgmp.

check_PROGRAMS += tests/progs/posix_life
tests_progs_posix_life_LDADD = $(PROG_LIBS)
check_PROGRAMS += tests/progs/posix_signals
tests_progs_posix_signals_LDADD = $(PROG_LIBS)
check_PROGRAMS += tests/progs/posix_fork
tests_progs_posix_fork_LDADD = $(PROG_LIBS)
check_PROGRAMS += tests/progs/posix_misc
tests_progs_posix_misc_LDADD = $(PROG_LIBS)
check_PROGRAMS += tests/progs/posix_rt
tests_progs_posix_rt_LDADD = $(PROG_LIBS)
check_PROGRAMS += tests/progs/posix_pshared
tests_progs_posix_pshared_LDADD = $(PROG_LIBS)

check_PROGRAMS += tests/compat_posix
tests_compat_posix_SOURCES = tests/compat_posix.c tests/harness.c tests/harness.h
tests_compat_posix_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_posix_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_posix_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_posix
