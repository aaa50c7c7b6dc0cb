#!/bin/sh
# bench/smoke.sh — part of `make check`: runs every bench workload once under
# libgmp with tiny sizes, each with a timeout, and fails if one fails, times
# out or prints no RESULT line. It judges no timing (that is bench/run.sh's
# job, against NPTL in the same run).
top=${BUILDDIR:-$(pwd)}
gmprun="$top/gmprun"
out=${TMPDIR:-/tmp}/gmp-bench-smoke.$$
status=0
procs=		# GMPMAXPROCS for the next run() (empty: libgmp's default)

[ -x "$gmprun" ] || { echo "smoke: $gmprun not built"; exit 99; }

# run NAME WANT ARGS...: WANT, if not empty, must appear in the RESULT line
run() {
	name=$1
	want=$2
	shift 2
	# shellcheck disable=SC2086
	timeout 30 env ${procs:+GMPMAXPROCS=$procs} "$gmprun" -- "$top/bench/$name" "$@" >"$out" 2>&1
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
		echo "ok: $line${procs:+ (GMPMAXPROCS=$procs)}"
	fi
}

run create_join "" 200
run burst "" 500 2
run sleepers "" 200
run concurrent create_error=none 2000 100
run maxthreads create_error=none 2000 100

# The synchronization workloads, with the default GMPMAXPROCS.
run mutex_uncontended n=10000 10000
run cond_pingpong n=200 200
run mutex_contention t64_ops= 20 100000 100 4,64
run prodcons n=2000 2000 8 4 4
rm -f "$out"
exit $status
