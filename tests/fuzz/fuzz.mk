# SPDX-License-Identifier: MIT
# tests/fuzz/fuzz.mk — the differential fuzzer (tests/fuzz/fuzz.c): the
# same seeded sequence of calls under NPTL and under libgmp, compared.
#
#   make fuzz                     the fixed seeds (as make check runs them)
#   make fuzz-long SECONDS=600    random seeds for that long

check_PROGRAMS += tests/fuzz/fuzz
tests_fuzz_fuzz_SOURCES = tests/fuzz/fuzz.c tests/fuzz/fuzz.h tests/fuzz/fuzz_sig.c \
	tests/fuzz/fuzz_io.c tests/fuzz/fuzz_net.c tests/fuzz/fuzz_proc.c
tests_fuzz_fuzz_LDADD = $(PROG_LIBS)
TESTS += tests/fuzz/check.sh tests/fuzz/coverage.sh
EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/check.sh tests/fuzz/coverage.sh \
	tests/fuzz/pending.txt

SECONDS = 300
.PHONY: fuzz fuzz-long
fuzz: tests/fuzz/fuzz libgmp.la
	abs_top_builddir=$(abs_top_builddir) $(srcdir)/tests/fuzz/run.sh
fuzz-long: tests/fuzz/fuzz libgmp.la
	abs_top_builddir=$(abs_top_builddir) $(srcdir)/tests/fuzz/run.sh --seconds $(SECONDS)
