#!/bin/sh
# SPDX-License-Identifier: MIT
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
run sleepers gate=1 200 5 gate
run concurrent create_error=none 2000 100
run maxthreads create_error=none 2000 100

# The synchronization workloads, with the default GMPMAXPROCS.
run mutex_uncontended n=10000 10000
run cond_pingpong n=200 200
run mutex_contention t64_ops= 20 100000 100 4,64
run prodcons n=2000 2000 8 4 4

# The State: letter of process $1 ("R", "S", "Z", ...), empty once it is gone.
proc_state() {
	sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null
}

# run_echo CONNS SECONDS WARMUP: echo_server under libgmp in the background
# (at most 60 s: its own bound), its "port N pid P" line read, echo_load run
# plainly against it with a timeout, then the server ended by its pid
# (SIGTERM, SIGKILL 5 s later if still there) and waited for.
run_echo() {
	srv=$out.srv
	: >"$srv"
	# shellcheck disable=SC2086
	env ${procs:+GMPMAXPROCS=$procs} "$gmprun" -- "$top/bench/echo_server" 60 \
		>"$srv" 2>"$srv.err" </dev/null &
	spid=$!
	pid=
	port=
	i=0
	while [ $i -lt 100 ]; do
		pp=$(awk 'NR == 1 && NF == 4 && $1 == "port" && $3 == "pid" {print $2, $4}' "$srv")
		if [ -n "$pp" ]; then
			port=${pp% *}
			pid=${pp#* }
			break
		fi
		st=$(proc_state $spid)
		{ [ -z "$st" ] || [ "$st" = Z ]; } && break
		sleep 0.1
		i=$((i + 1))
	done
	# the printed pid is the one started here (gmprun execs the program)
	# or its child; nothing else is signalled
	if [ -n "$pid" ] && [ "$pid" != "$spid" ] &&
		[ "$(awk '/^PPid:/ {print $2}' "/proc/$pid/status" 2>/dev/null)" != "$spid" ]; then
		pid=
	fi
	if [ -z "$pid" ]; then
		echo "FAIL: echo_server did not print its port"
		sed 's/^/  | /' "$srv" "$srv.err"
		status=1
		pid=$spid
	else
		timeout 30 "$top/bench/echo_load" "$port" "$pid" "$@" >"$out" 2>&1
		rc=$?
		line=$(grep "^RESULT name=echo " "$out")
		if [ $rc -ne 0 ] || [ -z "$line" ]; then
			echo "FAIL: echo_load $* against echo_server (exit status $rc$( [ $rc -eq 124 ] && echo ', timed out'))"
			sed 's/^/  | /' "$out" "$srv.err"
			status=1
		else
			echo "ok: $line"
		fi
	fi
	st=$(proc_state "$pid")
	if [ -n "$st" ] && [ "$st" != Z ]; then
		kill -TERM "$pid" 2>/dev/null
		i=0
		while [ $i -lt 50 ]; do
			st=$(proc_state "$pid")
			{ [ -z "$st" ] || [ "$st" = Z ]; } && break
			sleep 0.1
			i=$((i + 1))
		done
		[ -n "$st" ] && [ "$st" != Z ] && kill -KILL "$pid" 2>/dev/null
	else
		echo "FAIL: echo_server ended before it was told to"
		sed 's/^/  | /' "$srv.err"
		status=1
	fi
	wait $spid 2>/dev/null
	rm -f "$srv" "$srv.err"
}

# The I/O workloads: pipes, sockets, file reads and a system call that
# cannot be polled. syscall_latency with one processor, as bench/run.sh
# runs it: the thread made runnable can only run once the blocked thread's
# processor is handed on.
run pipe_pingpong n=200 200 2
run file_compute passes=2 2 2 2 2000 2
procs=1
run syscall_latency rounds=50 50
run syscall_latency call=fifo 50 fifo
procs=
run_echo 20 0.3 0.2

# Threads that only compute, 4 of them on 2 processors (bench/run.sh runs
# 8 on 2): the program fails if one made no progress, which each makes only
# if the scheduler takes the processor from the others (preemption).
procs=2
run cpu_fairness threads=4 4 0.2
procs=

# A sleeper among threads that loop on fast calls and never wait: each
# call's door is where they give the processor up.
run timer_lateness mode=read read 4 0.2
run timer_lateness mode=kill kill 4 0.2

# New threads made faster than they end: each records how long it waited.
run start_latency creators=2 2 64 500
run start_latency processes=2 1 16 200 800 2

# Threads that move to SCHED_FIFO and back around each lock, in two
# processes (each its own libgmp); without the right to use SCHED_FIFO
# it says skipped=EPERM, which passes too.
run rt_churn procs=2 2 2 200

# Process-shared semaphores and a condition variable across processes,
# each with its own libgmp.
run pshared mode=pingpong pingpong 200
run pshared mode=broadcast broadcast 10 2 4

# What loading libgmp adds to a program's start (it spawns /bin/true).
run startup lib=plain -n 10 "$top/.libs/libgmp.so"
rm -f "$out"
exit $status
