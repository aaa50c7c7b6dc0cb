# SPDX-License-Identifier: MIT
# tests/sig.mk — compat tests of preemption, signals, fork and exec,
# credentials, exit paths and crashes (tests/compat_sig). The programs in
# tests/progs/sig_* are ordinary pthread programs, built without libgmp;
# tests/compat_sig runs each under NPTL and under libgmp and compares.

SIG_PROGS = tests/progs/sig_preempt tests/progs/sig_fork tests/progs/sig_cred tests/progs/sig_crash \
	tests/progs/sig_exit tests/progs/sig_signals tests/progs/sig_oneshot tests/progs/sig_jump
check_PROGRAMS += $(SIG_PROGS)
tests_progs_sig_preempt_LDADD = $(PROG_LIBS)
tests_progs_sig_fork_LDADD = $(PROG_LIBS)
tests_progs_sig_cred_LDADD = $(PROG_LIBS)
tests_progs_sig_crash_LDADD = $(PROG_LIBS)
tests_progs_sig_exit_SOURCES = tests/progs/sig_exit.cc
tests_progs_sig_exit_LDADD = $(PROG_LIBS)
tests_progs_sig_signals_LDADD = $(PROG_LIBS)
# a strict X/Open program: its signal() is System V's (__sysv_signal)
tests_progs_sig_oneshot_CPPFLAGS = -D_XOPEN_SOURCE=700
tests_progs_sig_oneshot_CFLAGS = $(GMP_CFLAGS) -std=c99 -Wno-deprecated-declarations
tests_progs_sig_oneshot_LDADD = $(PROG_LIBS)
tests_progs_sig_jump_LDADD = $(PROG_LIBS)

check_PROGRAMS += tests/compat_sig
tests_compat_sig_SOURCES = tests/compat_sig.c tests/harness.c tests/harness.h
tests_compat_sig_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_sig_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_sig_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_sig
