#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/glibc/passthrough.sh — on a glibc whose thread layout libgmp does
# not find (glibc before 2.34), libgmp must still load, say why it does
# not take over (once a process: programs that run themselves again say
# it again), and pass every call through: each program prints the same
# lines as under NPTL and exits the same way.
#
#   tests/glibc/passthrough.sh [BUILDDIR]
#   tests/glibc/passthrough.sh --programs    the make targets it needs
list='create_join_storm 10 100
print_lines
tls_torture
stdthread
cancel
posix_life life
posix_signals plain
posix_fork thread
posix_misc masks
posix_misc semtimed'
if [ "${1:-}" = --programs ]; then
	echo "$list" | awk '{print "tests/progs/" $1}' | sort -u | tr '\n' ' '
	exit 0
fi
builddir=${1:-${abs_top_builddir:-$(pwd)}}
lib=$builddir/.libs/libgmp.so
progs=$builddir/tests/progs
if [ ! -f "$lib" ]; then
	echo "passthrough.sh: $lib is not built" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rc=0
n=0
# program and arguments, one run a line
while read -r prog args; do
	[ -n "$prog" ] || continue
	n=$((n + 1))
	timeout 120 "$progs/$prog" $args >"$tmp/nptl.out" 2>"$tmp/nptl.err"
	want=$?
	LD_PRELOAD=$lib timeout 120 "$progs/$prog" $args >"$tmp/gmp.out" 2>"$tmp/gmp.err"
	got=$?
	warn=$(grep -c '^gmp: warning:.*passes every call through to glibc' "$tmp/gmp.err")
	other=$(grep '^gmp:' "$tmp/gmp.err" | grep -vc 'passes every call through to glibc')
	# the same lines (threads print in the order they run)
	sort "$tmp/nptl.out" >"$tmp/nptl.sorted"
	sort "$tmp/gmp.out" >"$tmp/gmp.sorted"
	if [ "$got" -ne "$want" ] || ! cmp -s "$tmp/nptl.sorted" "$tmp/gmp.sorted" ||
	   [ "$warn" -lt 1 ] || [ "$other" -ne 0 ]; then
		echo "FAIL $prog $args: exit $got (NPTL $want), $warn pass-through warnings" >&2
		diff "$tmp/nptl.sorted" "$tmp/gmp.sorted" | head -5 >&2
		head -5 "$tmp/gmp.err" >&2
		rc=1
	else
		echo "ok $prog $args"
	fi
done <<EOF
$list
EOF
head -1 "$tmp/gmp.err" 2>/dev/null
echo "passthrough.sh: $n programs, glibc $(getconf GNU_LIBC_VERSION | cut -d' ' -f2)"
exit $rc
