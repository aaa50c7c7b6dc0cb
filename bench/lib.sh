# SPDX-License-Identifier: MIT
# bench/lib.sh — what bench/run.sh and bench/sweep.sh share: one run of a
# workload under NPTL or libgmp, with its raw line, and the echo server's
# start, load and end. Sourced by bash; the caller sets
#
#   top     the build tree (bench/<program> and gmprun are there)
#   gmprun  "$top/gmprun"
#   before_gmprun  an older build's gmprun, for the runs of mode "before"
#   tmp     a private temporary directory (server.pid, out, err, note...),
#           from make_tmp
#   raw     the file the raw lines are appended to
#   wprocs  GMPMAXPROCS for this workload's libgmp runs, or empty
#   here    the bench/ directory of the source (for its git revision)
#
# A server still running when the script exits is ended by make_tmp's
# trap: its pid is in $tmp/server.pid while one runs.

# make_tmp NAME: a private temporary directory, $tmp, removed when the
# script exits, when it also ends an echo server still running (which ends
# itself in any case, 30 s after echo_load's timeout)
make_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 2
	trap 'test -s "$tmp/server.pid" && kill "$(cat "$tmp/server.pid")" 2>/dev/null; test -s "$tmp/hog.pid" && kill "$(cat "$tmp/hog.pid")" 2>/dev/null; rm -rf "$tmp"' EXIT
}

# An awk function for the reports: sorted_median(a, n), the median of the
# numbers a[1..n], which it sorts.
# shellcheck disable=SC2016
awk_median='
function sorted_median(a, n,    i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'

# The source's revision (short), "unknown" outside git, with "(with
# uncommitted changes)" when a file differs from it other than what
# run.sh and sweep.sh write in bench/ (the reports, raw lines, data, charts).
source_rev() {
	local rev
	rev=$(git -C "$here" rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
	git -C "$here" diff --quiet HEAD -- ':(top)' ':(top,exclude)bench/results.md' \
		':(top,exclude)bench/results-raw.txt' ':(top,exclude)bench/sweep.dat' \
		':(top,exclude)bench/sweep-raw.txt' ':(top,exclude)bench/sweep-*.svg' 2>/dev/null ||
		rev="$rev (with uncommitted changes)"
	echo "$rev"
}

# run_one WORKLOAD MODE REP TIMEOUT ARGS...: one run, one line in $raw:
#   WORKLOAD MODE REP rc=N RESULT-fields [rt_os_threads=N gomaxprocs=N
#   [rt_syscalls=N rt_retakes=N]] [rt_context_switches=N rt_tp_writes=N ...]
#   [GMPMAXPROCS=N]
# WORKLOAD names the program bench/WORKLOAD, or echo_server driven by
# echo_load when it is echo_SOMETHING; a suffix @POINT (sleepers@1000,
# echo@500) names a point of a sweep, and only the part before it is used.
# The rt_ fields and gomaxprocs are what gmprun --stats=json counted (the
# blocking system calls and the Ps retaken from them where it says so;
# libgmp's own kernel work: thread-pointer writes and whether WRFSBASE made
# them, futex sleeps and wake-ups, epoll_wait calls, eventfd writes,
# signals sent, signal-mask changes; for echo, the server's GMP_STATS line);
# the last field says the workload set its own GMPMAXPROCS ($wprocs).
run_one() {
	local w=$1 mode=$2 rep=$3 to=$4 prog=${1%@*} rc line extra= json runner=$gmprun
	shift 4
	# mode "before": an older build's libgmp (run.sh --before); "go":
	# the Go version of the workload (run.sh's $gobin)
	[ "$mode" = before ] && runner=$before_gmprun
	: >"$tmp/note"
	case $prog in
	echo|echo_*) run_echo "$@"; rc=$? ;;
	*)
		if [ "$mode" = nptl ]; then
			timeout "$to" "$top/bench/$prog" "$@" >"$tmp/out" 2>"$tmp/err"
		elif [ "$mode" = go ]; then
			timeout "$to" "$gobin/$prog" "$@" >"$tmp/out" 2>"$tmp/err"
		else
			# shellcheck disable=SC2086
			timeout "$to" env ${wprocs:+GMPMAXPROCS=$wprocs} \
				"$runner" --stats=json -- "$top/bench/$prog" "$@" >"$tmp/out" 2>"$tmp/err"
		fi
		rc=$?
		;;
	esac
	line=$(grep -m1 '^RESULT ' "$tmp/out" | sed 's/^RESULT //')
	if [ "$mode" != nptl ] && [ "$mode" != go ]; then
		json=$(grep '^{' "$tmp/err" | tail -1)
		case $prog in
		echo|echo_*)
			# the server's GMP_STATS line (key=value), as JSON's pairs
			json=$(grep -m1 '^pid=' "$tmp/srv.stats" 2>/dev/null |
				sed 's/\([a-z_0-9]*\)=\([0-9]*\)/"\1": \2,/g') ;;
		esac
		extra=$(echo "$json" | sed -n 's/.*"peak_os_threads": \([0-9]*\),.*"gomaxprocs": \([0-9]*\)[,}].*/rt_os_threads=\1 gomaxprocs=\2/p')
		[ -n "$extra" ] && extra="$extra$(echo "$json" |
			sed -n 's/.*"syscalls": \([0-9]*\), "retakes": \([0-9]*\).*/ rt_syscalls=\1 rt_retakes=\2/p')"
		# libgmp's own kernel work: rt_<counter>=N (see gmprun --stats)
		local k v
		for k in context_switches tp_writes tp_wrfsbase futex_waits futex_wakes epoll_waits \
			eventfd_writes signals_sent sigmask_changes; do
			v=$(echo "$json" | sed -n "s/.*\"$k\": \([0-9]*\)[,}].*/\1/p")
			[ -n "$v" ] && extra="$extra rt_$k=$v"
		done
		[ -n "$wprocs" ] && extra="$extra GMPMAXPROCS=$wprocs"
	fi
	[ $rc -eq 124 ] && line="TIMEOUT after ${to}s $line"
	[ -z "$line" ] && line="NORESULT $(grep -v '^{' "$tmp/err" | head -3 | tr '\n' ' ')"
	[ -s "$tmp/note" ] && line="$(cat "$tmp/note") $line"
	echo "$w $mode $rep rc=$rc $line $extra" | tee -a "$raw" >&2
}

# The state of process $1 ("R", "S", "Z", ...), empty once it is gone.
proc_state() { sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null; }

# run_echo CONNS [SECONDS [WARMUP]], from run_one (w, mode, rep, to, runner set
# there): the server in the background, echo_load against it, the server ended;
# the latency distribution echo_load wrote is appended to $dists when set.
# echo_load's output goes where run_one reads it; a server that did not
# start or ended by itself is said in $tmp/note, which fails the run.
run_echo() {
	local spid pid port pp i st
	: >"$tmp/srv.out"
	: >"$tmp/out"
	: >"$tmp/err"
	# the server's own bound: it ends itself 30 s after echo_load's timeout
	if [ "$mode" = nptl ]; then
		"$top/bench/echo_server" $((to + 30)) >"$tmp/srv.out" 2>"$tmp/srv.err" </dev/null &
	elif [ "$mode" = go ]; then
		"$gobin/echo_server" $((to + 30)) >"$tmp/srv.out" 2>"$tmp/srv.err" </dev/null &
	else
		# shellcheck disable=SC2086
		rm -f "$tmp/srv.stats"
		env ${wprocs:+GMPMAXPROCS=$wprocs} GMP_STATS="$tmp/srv.stats" \
			"$runner" -- "$top/bench/echo_server" $((to + 30)) \
			>"$tmp/srv.out" 2>"$tmp/srv.err" </dev/null &
	fi
	spid=$!
	echo "$spid" >"$tmp/server.pid"
	# echo_*_hog: a CPU hog beside the server (plain, in every mode),
	# ended by its pid with the server
	local hog=
	case $w in *_hog)
		timeout $((to + 30)) yes >/dev/null &
		hog=$!
		echo "$hog" >"$tmp/hog.pid" ;;
	esac
	# "port N pid P" within 10 s; P is $spid (gmprun execs the program) or,
	# should a wrapper fork, its child: nothing else is ended below
	port= pid=
	for i in $(seq 100); do
		pp=$(awk 'NR == 1 && NF == 4 && $1 == "port" && $3 == "pid" {print $2, $4}' "$tmp/srv.out")
		if [ -n "$pp" ]; then
			port=${pp% *} pid=${pp#* }
			break
		fi
		st=$(proc_state "$spid")
		[ -z "$st" ] || [ "$st" = Z ] && break
		sleep 0.1
	done
	if [ -n "$pid" ] && [ "$pid" != "$spid" ] &&
		[ "$(awk '/^PPid:/ {print $2}' "/proc/$pid/status" 2>/dev/null)" != "$spid" ]; then
		pid=
	fi
	if [ -z "$pid" ]; then
		echo "SERVER-DID-NOT-START($(head -3 "$tmp/srv.err" | tr '\n' ' '))" >"$tmp/note"
		pid=$spid
		rc=99
	else
		rm -f "$tmp/dist"
		ECHO_LAT_DIST=$tmp/dist timeout "$to" "$top/bench/echo_load" "$port" "$pid" "$@" \
			>"$tmp/out" 2>"$tmp/err"
		rc=$?
		# the latency distribution, kept as lines "WORKLOAD MODE REP PERCENT US"
		[ -n "${dists:-}" ] && [ -s "$tmp/dist" ] &&
			sed "s/^/$w $mode $rep /" "$tmp/dist" >>"$dists"
	fi
	st=$(proc_state "$pid")
	if [ -z "$st" ] || [ "$st" = Z ]; then
		[ -s "$tmp/note" ] || echo "SERVER-ENDED-EARLY($(head -3 "$tmp/srv.err" | tr '\n' ' '))" >"$tmp/note"
	else
		kill -TERM "$pid" 2>/dev/null
		for i in $(seq 50); do
			st=$(proc_state "$pid")
			[ -z "$st" ] || [ "$st" = Z ] && break
			sleep 0.1
		done
		[ -n "$st" ] && [ "$st" != Z ] && kill -KILL "$pid" 2>/dev/null
	fi
	wait "$spid" 2>/dev/null
	: >"$tmp/server.pid"
	if [ -n "$hog" ]; then
		kill "$hog" 2>/dev/null
		wait "$hog" 2>/dev/null
		: >"$tmp/hog.pid"
	fi
	return $rc
}
