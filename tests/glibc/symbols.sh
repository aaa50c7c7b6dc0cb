#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/glibc/symbols.sh — the interposition checklist, made on the glibc
# it runs on: every thread symbol this glibc exports (pthread_*,
# __pthread_*, sem_*, C11 threads) is either defined by libgmp.so or
# listed, with its reason, in tests/glibc/passthrough.txt; and nothing
# listed there is defined by libgmp.so after all.
srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${abs_top_builddir:-$(pwd)}
lib=$builddir/.libs/libgmp.so
list=$srcdir/tests/glibc/passthrough.txt
if [ ! -f "$lib" ]; then
	echo "symbols.sh: $lib is not built" >&2
	exit 1
fi
cc=${CC:-gcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# glibc's public thread symbols: libc, and libpthread where it is still a
# library of its own (before 2.34)
for name in libc.so.6 libpthread.so.0; do
	path=$(readlink -f "$($cc -print-file-name=$name)")
	[ -f "$path" ] || continue
	nm -D --defined-only "$path" | awk '{print $3}' | grep -v '@GLIBC_PRIVATE'
done | sed 's/@.*//' |
	grep -E '^(__)?pthread_|^sem_|^thrd_|^mtx_|^cnd_|^tss_|^call_once$' |
	sort -u >"$tmp/glibc"
nm -D --defined-only "$lib" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$tmp/gmp"
sed 's/#.*//' "$list" | awk 'NF {print $1}' | sort -u >"$tmp/pass"

n=$(wc -l <"$tmp/glibc")
if [ "$n" -lt 100 ]; then
	echo "FAIL: only $n thread symbols found in glibc" >&2
	exit 1
fi
rc=0
missing=$(comm -23 "$tmp/glibc" "$tmp/gmp" | comm -23 - "$tmp/pass")
if [ -n "$missing" ]; then
	echo "FAIL: glibc exports thread symbols libgmp neither interposes nor lists in passthrough.txt:" >&2
	echo "$missing" | sed 's/^/  /' >&2
	rc=1
fi
stale=$(comm -12 "$tmp/pass" "$tmp/gmp")
if [ -n "$stale" ]; then
	echo "FAIL: passthrough.txt lists symbols libgmp does interpose:" >&2
	echo "$stale" | sed 's/^/  /' >&2
	rc=1
fi
interposed=$(comm -12 "$tmp/glibc" "$tmp/gmp" | wc -l)
passed=$(comm -12 "$tmp/glibc" "$tmp/pass" | wc -l)
echo "glibc $(getconf GNU_LIBC_VERSION | cut -d' ' -f2): $n thread symbols; libgmp interposes $interposed, passes $passed through by design"
exit $rc
