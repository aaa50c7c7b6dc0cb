#!/bin/sh
# bench/smoke.sh — part of `make check`: runs every bench workload once under
# libgmp with tiny sizes, each with a timeout, and fails if one fails, times
# out or prints no RESULT line. It judges no timing (that is bench/run.sh's
# job, against NPTL in the same run).
top=${BUILDDIR:-$(pwd)}
gmprun="$top/gmprun"
out=${TMPDIR:-/tmp}/gmp-bench-smoke.$$
status=0

[ -x "$gmprun" ] || { echo "smoke: $gmprun not built"; exit 99; }

# run NAME WANT ARGS...: WANT, if not empty, must appear in the RESULT line
run() {
	name=$1
	want=$2
	shift 2
	timeout 30 "$gmprun" -- "$top/bench/$name" "$@" >"$out" 2>&1
	rc=$?
	line=$(grep "^RESULT name=$name " "$out")
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		echo "FAIL: $name $* (exit status $rc$( [ $rc -eq 124 ] && echo ', timed out'))"
		sed 's/^/  | /' "$out"
		status=1
	elif [ -n "$want" ] && ! echo "$line" | grep -q -- "$want"; then
		echo "FAIL: $name $*: no '$want' in: $line"
		status=1
	else
		echo "ok: $line"
	fi
}

run create_join "" 200
run burst "" 500 2
run sleepers "" 200
run concurrent create_error=none 2000 100
run maxthreads create_error=none 2000 100
rm -f "$out"
exit $status
