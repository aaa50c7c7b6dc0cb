# SPDX-License-Identifier: MIT
# tests/sync.mk — compat tests of synchronisation: mutexes, condvars,
# rwlocks, barriers, spinlocks, once, keys, semaphores, C11 and C++20
# primitives, the futex system call, cancellation, threads glibc makes
# itself, and Rust's std::sync (tests/compat_sync). The programs in
# tests/progs/sync_* are ordinary pthread programs, built without libgmp;
# tests/compat_sync runs each under NPTL and under libgmp and compares.

SYNC_PROGS = \
	tests/progs/sync_mutex tests/progs/sync_queue tests/progs/sync_rwlock \
	tests/progs/sync_misc tests/progs/sync_errors tests/progs/sync_foreign \
	tests/progs/sync_cancel tests/progs/sync_cxx tests/progs/sync_xfutex
check_PROGRAMS += $(SYNC_PROGS)
tests_progs_sync_xfutex_LDADD = $(PROG_LIBS)
tests_progs_sync_mutex_LDADD = $(PROG_LIBS)
tests_progs_sync_queue_LDADD = $(PROG_LIBS)
tests_progs_sync_rwlock_LDADD = $(PROG_LIBS)
tests_progs_sync_misc_LDADD = $(PROG_LIBS)
tests_progs_sync_errors_LDADD = $(PROG_LIBS)
tests_progs_sync_foreign_LDADD = $(PROG_LIBS) -lrt -ldl
tests_progs_sync_cancel_LDADD = $(PROG_LIBS)
tests_progs_sync_cxx_SOURCES = tests/progs/sync_cxx.cc
tests_progs_sync_cxx_CXXFLAGS = $(AM_CXXFLAGS) -std=c++20
tests_progs_sync_cxx_LDADD = $(PROG_LIBS)
EXTRA_DIST += tests/progs/sync_util.h tests/progs/sync_rust.rs

# The Rust program is built only where configure found rustc (Debian 12's
# 1.63 is enough); tests/compat_sync skips its test when it is missing.
# MAKEFLAGS is cleared so that rustc does not look for make's jobserver.
if HAVE_RUSTC
check_SCRIPTS = tests/progs/sync_rust
CLEANFILES += tests/progs/sync_rust
tests/progs/sync_rust: tests/progs/sync_rust.rs
	$(AM_V_GEN)MAKEFLAGS= $(RUSTC) -O -o $@ $<
endif

check_PROGRAMS += tests/compat_sync
tests_compat_sync_SOURCES = tests/compat_sync.c tests/harness.c tests/harness.h
tests_compat_sync_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_sync_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_sync_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_sync
