# SPDX-License-Identifier: MIT
# tests/obs.mk — compat tests of observability: the deadlock report and
# the thread dump (tests/compat_obs). The programs in tests/progs/obs_*
# are ordinary pthread programs, built without libgmp.

OBS_PROGS = tests/progs/obs_deadlock
check_PROGRAMS += $(OBS_PROGS)
tests_progs_obs_deadlock_LDADD = $(PROG_LIBS)

check_PROGRAMS += tests/compat_obs
tests_compat_obs_SOURCES = tests/compat_obs.c tests/harness.c tests/harness.h
tests_compat_obs_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"' \
	-DTEST_SRCDIR='"$(abs_top_srcdir)"'
tests_compat_obs_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_obs_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_obs
EXTRA_DIST += tests/trace_check.py
