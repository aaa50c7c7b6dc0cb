#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/spdx.sh — every file of the project carries its license, MIT, in
# an SPDX line within its first 5 lines; LICENSE is the MIT license. The
# files are those git tracks (in a checkout without git, those of
# `make distdir` would be the same: this test then says so and passes).
# Not the ones whose format allows no such line, nor the ones generated:
# they are listed here, each with its reason.
src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 1
exempt='
LICENSE                      the license itself
pkg/deb/copyright            Debian machine-readable format; names MIT itself
pkg/deb/changelog            Debian changelog format: the first line is the entry
bench/sweep.dat              data bench/sweep.sh writes
bench/sweep-echo.svg         drawn by bench/sweep.sh
bench/sweep-sleepers.svg     drawn by bench/sweep.sh
bench/results.md             written by bench/run.sh
bench/results-arch_prctl.md  written by bench/run.sh
bench/results-boundary.md    written by bench/run.sh
bench/results-latency.md     written by bench/run.sh
bench/results-pshared.md     written by bench/run.sh
bench/results-tids.md        written by bench/run.sh
tests/compat/results.md      written by tests/compat/yard.sh
'
grep -q '^MIT License$' LICENSE && grep -q 'Permission is hereby granted, free of charge' LICENSE ||
	{ echo "FAIL: LICENSE is not the MIT license"; exit 1; }
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "spdx.sh: not a git checkout: nothing to list"
	exit 0
fi
missing=0
for f in $(git ls-files); do
	# (one deleted in the work tree and not yet committed is gone)
	if [ ! -f "$f" ] || echo "$exempt" | grep -q "^$f "; then
		continue
	fi
	if ! head -n 5 "$f" | grep -q 'SPDX-License-Identifier: MIT'; then
		echo "FAIL: $f has no 'SPDX-License-Identifier: MIT' line in its first 5 lines"
		missing=$((missing + 1))
	fi
done
[ "$missing" -eq 0 ] || exit 1
echo "every tracked file but $(echo "$exempt" | grep -c .) listed ones has its SPDX line"
