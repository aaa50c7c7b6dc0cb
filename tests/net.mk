# SPDX-License-Identifier: MIT
# tests/net.mk — compat tests of blocking I/O on pipes and sockets
# (tests/compat_net): streams, UDP, poll/select/epoll, errno values and
# O_NONBLOCK as the program set it, fds inherited by children, closing an
# fd another thread waits on, and a thread-per-connection echo server
# with 2,000 connections. The programs in tests/progs/net_* are ordinary
# pthread programs, built without libgmp; tests/compat_net runs each under
# NPTL and under libgmp and compares.

NET_PROGS = \
	tests/progs/net_io tests/progs/net_echo_server tests/progs/net_echo_client
check_PROGRAMS += $(NET_PROGS)
tests_progs_net_io_LDADD = $(PROG_LIBS)
tests_progs_net_echo_server_LDADD = $(PROG_LIBS)
tests_progs_net_echo_client_LDADD = $(PROG_LIBS)

check_PROGRAMS += tests/compat_net
tests_compat_net_SOURCES = tests/compat_net.c tests/harness.c tests/harness.h
tests_compat_net_CPPFLAGS = $(AM_CPPFLAGS) -DTEST_BUILDDIR='"$(abs_top_builddir)"'
tests_compat_net_CFLAGS = $(AM_CFLAGS) $(CRITERION_CFLAGS)
tests_compat_net_LDADD = $(CRITERION_LIBS)
TESTS += tests/compat_net
