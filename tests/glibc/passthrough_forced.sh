#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/glibc/passthrough_forced.sh — passthrough.sh on this glibc, with
# libgmp told to find no layout (GMP_TEST_UNKNOWN_LAYOUT): the
# pass-through a glibc before 2.34 gets, checked on every machine.
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
GMP_TEST_UNKNOWN_LAYOUT=size
export GMP_TEST_UNKNOWN_LAYOUT
exec sh "$srcdir/tests/glibc/passthrough.sh" "$@"
