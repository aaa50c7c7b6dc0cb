#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/configure_clean.sh — ./configure, run where the sources are (as the
# README's quick start does), leaves nothing of its own checks behind and
# prints no error: autoconf's clean-up begins with `rm -f core`, which met
# the core/ directory. Runs the project's configure in a scratch copy of
# what it reads.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
src=${abs_top_srcdir:-$top}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gmp-configure.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/core"
cp "$src/configure" "$src/Makefile.in" "$src/config.h.in" "$tmp/" &&
	cp -R "$src/build-aux" "$tmp/" &&
	cp "$src/core/sched.c" "$tmp/core/" || exit 1
cd "$tmp" || exit 1
if ! timeout 300 ./configure -q >out 2>err; then
	echo "FAIL: configure failed:"
	cat err
	exit 1
fi
left=$(ls -d conftest* confdefs* conf[0-9]* 2>/dev/null)
if [ -n "$left" ]; then
	echo "FAIL: configure left behind: $left"
	exit 1
fi
if grep -q "cannot remove" err; then
	echo "FAIL: configure printed errors:"
	cat err
	exit 1
fi
if [ ! -d core ] || [ ! -f core/sched.c ]; then
	echo "FAIL: configure removed core/"
	exit 1
fi
echo "PASS configure_clean"
