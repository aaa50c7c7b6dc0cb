#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/man.sh — the manual pages format without a warning from man.
# man-db's `man --warnings` prints groff's warnings on stderr (and still
# exits 0): any output there fails the test.
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
if ! command -v man >/dev/null 2>&1; then
	echo "man.sh: man is not installed (apt-get install man-db)" >&2
	exit 1
fi
rc=0
for page in "$srcdir"/man/gmprun.1 "$srcdir"/man/libgmp.7; do
	warn=$(MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
	if [ -n "$warn" ]; then
		echo "FAIL $page:" >&2
		echo "$warn" >&2
		rc=1
	else
		# a page that formats to nothing has not been checked
		lines=$(MANWIDTH=80 man -E UTF-8 -l "$page" 2>/dev/null | wc -l)
		if [ "$lines" -lt 20 ]; then
			echo "FAIL $page: $lines lines of output" >&2
			rc=1
		else
			echo "ok $page ($lines lines)"
		fi
	fi
done
exit $rc
