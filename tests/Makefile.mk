# SPDX-License-Identifier: MIT
# tests/ — Criterion unit tests of the core (tests/unit_tests, linking the
# core directly, no preloading) and compat tests (tests/compat_tests) that
# run the unmodified programs of tests/progs with libgmp preloaded in a
# child process, each with a timeout.

# ---- test programs: ordinary pthread programs, built without libgmp
PROG_LIBS = -lpthread
check_PROGRAMS += \
	tests/progs/create_join_storm tests/progs/sleepers tests/progs/print_lines \
	tests/progs/bad_input tests/progs/stdthread tests/progs/tls_torture \
	tests/progs/foreign_threads tests/progs/exit_status tests/progs/exhaust \
	tests/progs/cancel tests/progs/signals tests/progs/blocked_calls \
	tests/progs/stdio_dup2 tests/progs/prctl_name tests/progs/tid_address \
	tests/progs/callback_block tests/progs/compare_prog tests/progs/limits
tests_progs_limits_LDADD = $(PROG_LIBS)
tests_progs_compare_prog_LDADD = $(PROG_LIBS)
tests_progs_stdio_dup2_LDADD = $(PROG_LIBS)
tests_progs_callback_block_LDADD = $(PROG_LIBS)
tests_progs_tid_address_LDADD = $(PROG_LIBS)
tests_progs_prctl_name_LDADD = $(PROG_LIBS)
tests_progs_cancel_LDADD = $(PROG_LIBS)
tests_progs_blocked_calls_LDADD = $(PROG_LIBS)
tests_progs_signals_LDADD = $(PROG_LIBS)
tests_progs_exhaust_LDADD = $(PROG_LIBS)
tests_progs_foreign_threads_LDADD = $(PROG_LIBS) -lrt
tests_progs_create_join_storm_LDADD = $(PROG_LIBS)
tests_progs_sleepers_LDADD = $(PROG_LIBS)
tests_progs_print_lines_LDADD = $(PROG_LIBS)
tests_progs_bad_input_LDADD = $(PROG_LIBS)
tests_progs_stdthread_SOURCES = tests/progs/stdthread.cc
tests_progs_stdthread_LDADD = $(PROG_LIBS)
tests_progs_tls_torture_SOURCES = tests/progs/tls_torture.cc
tests_progs_tls_torture_LDADD = $(PROG_LIBS)
EXTRA_DIST += tests/progs/common.h

# A program whose malloc is jemalloc, built where configure found it.
if HAVE_JEMALLOC
check_PROGRAMS += tests/progs/jemalloc_threads
tests_progs_jemalloc_threads_LDADD = -ljemalloc $(PROG_LIBS)
else
EXTRA_DIST += tests/progs/jemalloc_threads.c
endif

# ---- unit tests of the core
check_PROGRAMS += tests/unit_tests
tests_unit_tests_SOURCES = \
	tests/unit/test_arch.c tests/unit/test_runq.c tests/unit/test_timer.c \
	tests/unit/test_sched.c tests/unit/test_config.c tests/unit/test_stack.c \
	tests/unit/test_waitq.c tests/unit/test_netpoll.c tests/unit/test_sigq.c \
	tests/unit/unit.h
tests_unit_tests_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_unit_tests_LDADD = libgmpcore.la $(CRITERION_LIBS) -ldl -lpthread -lm

# ---- compat tests
check_PROGRAMS += tests/compat_tests
tests_compat_tests_SOURCES = tests/compat.c tests/harness.c tests/harness.h
tests_compat_tests_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_tests_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_tests_LDADD = $(CRITERION_LIBS)

TESTS += tests/unit_tests tests/compat_tests tests/man.sh tests/deb.sh tests/glibc/symbols.sh \
	tests/glibc/passthrough_forced.sh tests/configure_clean.sh tests/spdx.sh \
	tests/layout.sh
EXTRA_DIST += tests/man.sh tests/deb.sh tests/glibc/symbols.sh tests/glibc/passthrough.txt \
	tests/configure_clean.sh tests/spdx.sh tests/layout.sh \
	tests/glibc/run.sh tests/glibc/passthrough.sh tests/glibc/passthrough_forced.sh
# One test at a time: the compat programs start thousands of threads and
# the unit tests measure nothing, but both want the machine's cores.
AM_TESTS_ENVIRONMENT = CRITERION_JOBS=1; export CRITERION_JOBS;

# make check-glibc: the same make check inside a Debian root with another
# glibc (GLIBC_SUITES, default trixie: glibc 2.41), made with debootstrap
# the first time and reused after (tests/glibc/run.sh; needs root).
GLIBC_SUITES = trixie
.PHONY: check-glibc
check-glibc:
	@for s in $(GLIBC_SUITES); do \
		$(srcdir)/tests/glibc/run.sh $$s check || exit 1; \
	done
