# SPDX-License-Identifier: MIT
# tests/tls.mk — compat tests of per-thread storage (TLS.md rows): programs
# in tests/progs/tls_*, run by tests/compat_tls.

# ---- test programs: ordinary pthread programs, built without libgmp
TLS_PROGS = \
	tests/progs/tls_errno tests/progs/tls_thread_vars tests/progs/tls_dlopen \
	tests/progs/tls_thread_local_dtor tests/progs/tls_malloc_storm \
	tests/progs/tls_printf tests/progs/tls_flockfile tests/progs/tls_setjmp \
	tests/progs/tls_stack_protector tests/progs/tls_getcpu \
	tests/progs/tls_pthread_self tests/progs/tls_locale tests/progs/tls_dlerror \
	tests/progs/tls_signal tests/progs/tls_recursive_mutex \
	tests/progs/tls_real_thread tests/progs/tls_fork tests/progs/tls_raise_abort
check_PROGRAMS += $(TLS_PROGS)
EXTRA_DIST += tests/progs/tls_common.h

tests_progs_tls_errno_LDADD = $(PROG_LIBS)
tests_progs_tls_thread_vars_LDADD = $(PROG_LIBS)
tests_progs_tls_dlopen_LDADD = $(PROG_LIBS) -ldl
tests_progs_tls_thread_local_dtor_SOURCES = tests/progs/tls_thread_local_dtor.cc
tests_progs_tls_thread_local_dtor_LDADD = $(PROG_LIBS)
tests_progs_tls_malloc_storm_LDADD = $(PROG_LIBS)
tests_progs_tls_printf_LDADD = $(PROG_LIBS)
tests_progs_tls_flockfile_LDADD = $(PROG_LIBS)
tests_progs_tls_setjmp_LDADD = $(PROG_LIBS)
# row 8: every function of this program carries a canary
tests_progs_tls_stack_protector_CFLAGS = $(AM_CFLAGS) -fstack-protector-all
tests_progs_tls_stack_protector_LDADD = $(PROG_LIBS)
tests_progs_tls_getcpu_LDADD = $(PROG_LIBS)
tests_progs_tls_pthread_self_LDADD = $(PROG_LIBS) -ldl
tests_progs_tls_locale_LDADD = $(PROG_LIBS)
tests_progs_tls_dlerror_LDADD = $(PROG_LIBS) -ldl
tests_progs_tls_signal_LDADD = $(PROG_LIBS)
tests_progs_tls_recursive_mutex_LDADD = $(PROG_LIBS)
tests_progs_tls_real_thread_LDADD = $(PROG_LIBS) -ldl
tests_progs_tls_fork_LDADD = $(PROG_LIBS)
tests_progs_tls_raise_abort_LDADD = $(PROG_LIBS)

# ---- libraries that tls_dlopen opens (rows 3 and 3b): one source, built
# with the default (global-dynamic) TLS model and with initial-exec.
# -rpath makes libtool build real shared objects (tests/progs/.libs/).
check_LTLIBRARIES += tests/progs/libtls_gd.la tests/progs/libtls_ie.la
tests_progs_libtls_gd_la_SOURCES = tests/progs/tls_lib.c
tests_progs_libtls_gd_la_CFLAGS = $(AM_CFLAGS) -DLIB_MODEL='"gd"'
tests_progs_libtls_gd_la_LDFLAGS = -module -avoid-version -rpath /nowhere
tests_progs_libtls_ie_la_SOURCES = tests/progs/tls_lib.c
tests_progs_libtls_ie_la_CFLAGS = $(AM_CFLAGS) -ftls-model=initial-exec -DLIB_MODEL='"ie"'
tests_progs_libtls_ie_la_LDFLAGS = -module -avoid-version -rpath /nowhere

# ---- the compat tests
check_PROGRAMS += tests/compat_tls
tests_compat_tls_SOURCES = tests/compat_tls.c tests/harness.c tests/harness.h
tests_compat_tls_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_tls_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_tls_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_tls
