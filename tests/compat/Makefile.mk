# SPDX-License-Identifier: MIT
# tests/compat/ — the compatibility yard: real, unmodified thread-heavy
# programs (CPython and its thread test suites, pigz, pbzip2, sysbench,
# stress-ng, memcached, redis, ripgrep, a Rust and a C++ program) run
# under NPTL and under libgmp, outputs compared, wall time, peak OS
# threads and peak memory recorded. `make compat` runs it (installing the
# Debian packages it needs when run as root), writes
# tests/compat/results.md and the table in README.md.
EXTRA_DIST += tests/compat/yard.sh tests/compat/yardmon.c tools/procgroup.h tests/compat/memc_client.c \
	tests/compat/py_threads.py tests/compat/rust_threads.rs tests/compat/cxx_threads.cc \
	tests/compat/junit_passed.py

.PHONY: compat
compat: all
	$(srcdir)/tests/compat/yard.sh --lib $(abs_top_builddir)/.libs/libgmp.so \
		--results $(srcdir)/tests/compat/results.md --readme $(srcdir)/README.md
