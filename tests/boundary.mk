# SPDX-License-Identifier: MIT
# tests/boundary.mk — compat tests of the boundary (tests/compat_boundary):
# calls that reach the kernel past libgmp (inline system calls, splice,
# sendfile, glibc's stdio, a child process sharing a socket) must find the
# descriptor flags the program set. The program, tests/progs/boundary, is
# an ordinary pthread program; the runner compares it under NPTL and under
# libgmp.

check_PROGRAMS += tests/progs/boundary
tests_progs_boundary_LDADD = $(PROG_LIBS)

# io_uring, where configure found liburing
if HAVE_LIBURING
check_PROGRAMS += tests/progs/uring
tests_progs_uring_LDADD = -luring $(PROG_LIBS)
endif
EXTRA_DIST += tests/progs/uring.c

check_PROGRAMS += tests/compat_boundary
tests_compat_boundary_SOURCES = tests/compat_boundary.c tests/harness.c tests/harness.h
tests_compat_boundary_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_boundary_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_boundary_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_boundary
