#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/deb.sh — the Debian package: built from these sources (make deb's
# pkg/deb/build.sh), without an error from lintian, unpacked into a scratch
# root with dpkg -x; the library where it cannot shadow GNU MP's libgmp.so,
# and gmprun --compare run on the installed demo from the unpacked files
# alone, with no environment pointing at them.
srcdir=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
srcdir=$(cd "$srcdir" && pwd)
for c in dpkg-deb dpkg-architecture lintian; do
	if ! command -v "$c" >/dev/null 2>&1; then
		echo "deb.sh: $c is not installed (apt-get install dpkg-dev lintian)" >&2
		exit 1
	fi
done
tmp=$(mktemp -d /tmp/gmpsched-debtest.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

deb=$("$srcdir/pkg/deb/build.sh" "$srcdir" "$tmp" | tail -1) || fail "pkg/deb/build.sh"
[ -f "$deb" ] || fail "no package ($deb)"
echo "built $(basename "$deb")"
case $(basename "$deb") in gmpsched_*_"$(dpkg --print-architecture)".deb) ;;
*) fail "package name $(basename "$deb")" ;; esac

lintian --fail-on error --tag-display-limit 0 "$deb" >"$tmp/lintian" 2>&1
lrc=$?
cat "$tmp/lintian"
[ $lrc -eq 0 ] || fail "lintian reports errors"
! grep -q '^E: ' "$tmp/lintian" || fail "lintian: E: lines"

root=$tmp/root
dpkg -x "$deb" "$root" || fail "dpkg -x"
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for f in usr/lib/$triplet/gmpsched/libgmp.so usr/bin/gmprun usr/libexec/gmpsched/threads \
	usr/share/man/man1/gmprun.1.gz usr/share/man/man7/libgmp.7.gz \
	usr/share/doc/gmpsched/copyright usr/share/doc/gmpsched/README.md.gz; do
	[ -e "$root/$f" ] || fail "$f is not in the package"
done
# the license: MIT, in Debian's machine-readable copyright file, with the
# text of the sources' LICENSE
cr=$root/usr/share/doc/gmpsched/copyright
grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$cr" &&
	[ "$(grep -c '^License: MIT$' "$cr")" = 2 ] && grep -qx 'Copyright: 2026 The gmpsched authors' "$cr" ||
	fail "copyright: not MIT in Debian's machine-readable format"
awk '/^License: MIT$/ { n++; next } n == 2' "$cr" | sed -e 's/^ //' -e 's/^\.$//' >"$tmp/license.deb"
sed -n '5,$p' "$srcdir/LICENSE" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/license.src"
cmp -s "$tmp/license.deb" "$tmp/license.src" ||
	{ diff "$tmp/license.src" "$tmp/license.deb"; fail "copyright: the license text is not LICENSE's"; }
echo "copyright: MIT, the text of LICENSE"
# never where the dynamic linker would find it for GNU MP's users
for d in usr/lib usr/lib/$triplet lib lib/$triplet usr/local/lib; do
	[ ! -e "$root/$d/libgmp.so" ] || fail "$d/libgmp.so would shadow GNU MP's"
done

# the unpacked gmprun preloads the unpacked library, found from its own place
out=$(env -u GMP_LIBRARY -u LD_PRELOAD "$root/usr/bin/gmprun" -- cat /proc/self/maps) ||
	fail "gmprun -- cat"
echo "$out" | grep -q "$root/usr/lib/$triplet/gmpsched/libgmp.so" ||
	fail "the unpacked gmprun did not preload the unpacked library"

env -u GMP_LIBRARY -u LD_PRELOAD "$root/usr/bin/gmprun" --compare -n 1 --procs 1,2 -- \
	"$root/usr/libexec/gmpsched/threads" 500 -q >"$tmp/compare" 2>"$tmp/compare.err"
crc=$?
cat "$tmp/compare"
[ $crc -eq 0 ] || { cat "$tmp/compare.err" >&2; fail "gmprun --compare exited $crc"; }
grep -q '^output  *identical in all 3 runs' "$tmp/compare" || fail "outputs differ"
grep -q 'libgmp P=2' "$tmp/compare" || fail "no libgmp P=2 column"
echo "PASS deb"
