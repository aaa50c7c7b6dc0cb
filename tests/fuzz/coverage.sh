#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/coverage.sh — every function libgmp interposes that glibc
# also exports has a generator in tests/fuzz/fuzz (fuzz --list), or is
# named in tests/fuzz/pending.txt (the ones still to write); a pending one
# that has a generator must leave the list.
here=$(cd "$(dirname "$0")" && pwd)
bld=${abs_top_builddir:-${BUILDDIR:-$(cd "$here/../.." && pwd)}}
lib=$bld/.libs/libgmp.so
fuzz=$bld/tests/fuzz/fuzz
[ -e "$lib" ] && [ -x "$fuzz" ] || { echo "coverage.sh: build first"; exit 1; }
libc=$(ldd "$fuzz" | awk '/libc\.so\.6/ {print $3}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
syms() {
	nm -D --defined-only "$1" | awk '$2 ~ /^[TWi]$/ {print $3}' | sed 's/@.*//' | sort -u
}
syms "$lib" >"$tmp/ours"
syms "$libc" >"$tmp/glibc"
comm -12 "$tmp/ours" "$tmp/glibc" >"$tmp/both"
"$fuzz" --list | tr ' ' '\n' | grep -v '^$' | sort -u >"$tmp/gen"
grep -v '^#' "$here/pending.txt" | awk 'NF {print $1}' | sort -u >"$tmp/pending"
cat "$tmp/gen" "$tmp/pending" | sort -u >"$tmp/known"
rc=0
missing=$(comm -23 "$tmp/both" "$tmp/known")
if [ -n "$missing" ]; then
	echo "FAIL: interposed, with no generator in tests/fuzz/fuzz.c nor in pending.txt:" $missing
	rc=1
fi
stale=$(comm -12 "$tmp/gen" "$tmp/pending")
if [ -n "$stale" ]; then
	echo "FAIL: have a generator, still in tests/fuzz/pending.txt:" $stale
	rc=1
fi
echo "coverage: $(comm -12 "$tmp/both" "$tmp/gen" | wc -l) of $(wc -l <"$tmp/both")" \
	"functions libgmp interposes (and glibc exports) have a generator;" \
	"$(comm -12 "$tmp/both" "$tmp/pending" | wc -l) pending"
exit $rc
