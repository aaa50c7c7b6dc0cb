#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/run.sh — runs every bench workload under NPTL (plainly) and under
# libgmp (through the build tree's gmprun), interleaved: repetition i runs
# NPTL then libgmp when i is odd, libgmp then NPTL when i is even. It takes
# the median of each measure over the repetitions, prints a table with the
# NPTL/libgmp ratios and writes it, with the machine's facts, the command and
# every run's raw RESULT line, to bench/results.md.
#
#   bench/run.sh [-r REPS] [-o FILE] [-p PROCS] [--quick] [--no-maxthreads]
#                [--maxthreads-n N] [--only WORKLOAD,...] [--sweep | --no-sweep]
#                [--before DIR] [--no-go]
#
#   -r REPS          repetitions per library and workload (default 5)
#   -o FILE          where the report goes (default: results.md next to
#                    this script); the raw lines also go to FILE's
#                    directory as results-raw.txt
#   -p PROCS         GMPMAXPROCS for the libgmp runs (default: libgmp's own);
#                    a workload may set its own (syscall_latency: 1,
#                    cpu_fairness: 2)
#   --quick          small sizes, no maxthreads: a check that it all works,
#                    not numbers to publish
#   --no-maxthreads  skip the 1,000,000-thread run
#   --maxthreads-n N threads for maxthreads (default 1,000,000); it runs once
#                    per library, and under libgmp only when MemAvailable
#                    covers about 12 KiB per thread
#   --only LIST      only these workloads (comma-separated; "echo" names
#                    both echo_100 and echo_2000)
#   --sweep          then run bench/sweep.sh with the same -o, -p and
#                    --quick: sleepers and echo against the thread count,
#                    its section in the report, its data and charts next to
#                    it (`make bench` asks for it)
#   --no-sweep       not that (the default; the last of the two counts)
#   --before DIR     also run each workload under the libgmp of the build
#                    tree DIR (an older checkout, built: DIR/gmprun), in
#                    the same interleaved repetitions, and add its table
#                    (against the same NPTL runs) to the report: libgmp
#                    before and after a change, measured together
#   --no-go          do not run the Go programs. By default, when the go
#                    command is installed (Debian's golang-go; nothing is
#                    installed here), bench/go/'s Go versions of
#                    create_join, burst, cond_pingpong, maxthreads and the
#                    echo server are built into the build tree (bench/go-bin) and run
#                    in the same interleaved repetitions, and the report
#                    gains a section of libgmp against Go
#
# The echo workloads (echo_100, echo_2000: 100 and 2,000 connections;
# echo_100_hog: 100, with a CPU hog running beside them, `yes` into
# /dev/null, which shares the CPUs with the server and the load;
# echo_100_idle: 100 connections open and silent, the server's CPU time
# while it waits for them) start
# bench/echo_server in the background, plainly or through gmprun, read the
# port and pid it prints, drive it with bench/echo_load, which runs plainly
# in both cases (only the server differs), then end the server by its pid
# (SIGTERM; SIGKILL if it is still there 5 s later) and wait for it. Their
# latency distributions (every 0.1 %, each run) go to echo-latency.dat
# beside the report, and with gnuplot (GNUPLOT names another) to
# echo-latency.svg: latency against percentile, on a scale of nines, one
# line per library (the first repetition), which the report shows.
#
# The report ends with what libgmp did in the kernel of its own, per
# operation (gmprun --stats: thread-pointer writes, futex calls, epoll,
# eventfd, signals) and says how the thread pointer was written. With
# GMPDEBUG=fsbase=syscall in the environment the libgmp runs write it with
# arch_prctl even where WRFSBASE is allowed: what hosts without FSGSBASE
# (kernels before 5.9) pay.
#
# Needs bash, awk, timeout. BUILDDIR names the build tree (default: the
# parent of this script's directory).
set -u
LC_ALL=C
export LC_ALL

here=$(cd "$(dirname "$0")" && pwd)
top=${BUILDDIR:-$(cd "$here/.." && pwd)}
cmdline="bench/run.sh $*"
reps=5
out="$here/results.md"
procs=
quick=0
maxthreads=1
max_n=1000000
only=
sweep=0
before=
use_go=1

usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
	case $1 in
	-r) reps=$2; shift ;;
	-o) out=$2; shift ;;
	-p) procs=$2; shift ;;
	--quick) quick=1 ;;
	--no-maxthreads) maxthreads=0 ;;
	--maxthreads-n) max_n=$2; shift ;;
	--only) only=$2; shift ;;
	--sweep) sweep=1 ;;
	--no-sweep) sweep=0 ;;
	--no-go) use_go=0 ;;
	--before) before=$(cd "$2" 2>/dev/null && pwd) || { echo "run.sh: no directory $2" >&2; exit 2; }; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "run.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
case $reps in ''|*[!0-9]*|0) echo "run.sh: -r wants a positive count" >&2; exit 2 ;; esac

gmprun="$top/gmprun"
for p in "$gmprun" "$top/bench/create_join" "$top/bench/burst" "$top/bench/sleepers" \
	"$top/bench/concurrent" "$top/bench/maxthreads" "$top/bench/cond_pingpong" \
	"$top/bench/mutex_uncontended" "$top/bench/mutex_contention" "$top/bench/prodcons" \
	"$top/bench/pipe_pingpong" "$top/bench/echo_server" "$top/bench/echo_load" \
	"$top/bench/file_compute" "$top/bench/syscall_latency" "$top/bench/cpu_fairness" \
	"$top/bench/timer_lateness" "$top/bench/start_latency" "$top/bench/rt_churn" \
	"$top/bench/pshared"; do
	[ -x "$p" ] || { echo "run.sh: $p is not built (make bench builds it)" >&2; exit 2; }
done
[ -n "$procs" ] && export GMPMAXPROCS=$procs
# the Go programs, built with the go command when there is one
gobin=
if [ $use_go = 1 ] && command -v go >/dev/null 2>&1; then
	gobin="$top/bench/go-bin"
	mkdir -p "$gobin"
	for p in create_join burst cond_pingpong echo_server maxthreads; do
		if ! GO111MODULE=off GOCACHE="$gobin/.cache" go build -o "$gobin/$p" \
			"$here/go/common.go" "$here/go/$p.go" >"$gobin/build.log" 2>&1; then
			echo "run.sh: go build of bench/go/$p.go failed ($gobin/build.log): no Go runs" >&2
			gobin=
			break
		fi
	done
fi
# has_go WORKLOAD: it has a Go version and the Go programs are built
has_go() {
	[ -n "$gobin" ] || return 1
	case $1 in create_join|burst|cond_pingpong|echo_*|maxthreads) return 0 ;; *) return 1 ;; esac
}

before_gmprun=
if [ -n "$before" ]; then
	before_gmprun="$before/gmprun"
	[ -x "$before_gmprun" ] || { echo "run.sh: $before_gmprun is not built" >&2; exit 2; }
fi

# workload | arguments | timeout (s) | repetitions [| arguments for NPTL
#   [| GMPMAXPROCS for libgmp, over -p]]
# echo_C's arguments are echo_load's after the port and pid: connections,
# seconds measured, seconds of warm-up.
# syscall_latency measures how soon a runnable thread gets the processor of
# one blocked in a system call: with one processor there is no other to run
# it on, so its libgmp runs have GMPMAXPROCS=1.
# cpu_fairness has its 8 spinning threads share 2 processors, 4 on each,
# whatever the machine: its libgmp runs have GMPMAXPROCS=2. NPTL has the
# machine's CPUs (the report's label says how many).
if [ $quick = 1 ]; then
	maxthreads=0
	plan="create_join|5000|60|$reps
burst|2000 3|60|$reps
sleepers|2000 20|60|$reps
concurrent|10000 200|120|$reps
concurrent@idle|2000 500 500|60|$reps
cond_pingpong|5000|30|$reps
mutex_uncontended|2000000|30|$reps
mutex_contention|100 10000000 100 4,64|30|$reps
prodcons|50000|30|$reps
pipe_pingpong|5000|30|$reps
echo_100|100 0.5 0.3|30|$reps
echo_2000|2000 0.5 0.3|60|$reps
echo_100_hog|100 0.5 0.3|30|$reps
echo_100_idle|100 0.5 0.3 idle|30|$reps
file_compute|16 4 2 30000 8|60|$reps
syscall_latency|200|30|$reps||1
syscall_latency@fifo|200 fifo|30|$reps||1
cpu_fairness|8 0.3|30|$reps||2
timer_lateness@read|read 4 0.3|30|$reps
timer_lateness@kill|kill 4 0.3|30|$reps
start_latency@1|1 256 2000|30|$reps
start_latency@4|4 256 2000|30|$reps
start_latency@4p|1 256 2000 800 4|30|$reps
rt_churn@1|1 2 2000|30|$reps
rt_churn@4|4 2 2000|30|$reps
pshared@pingpong|pingpong 2000|30|$reps
pshared@broadcast|broadcast 50|30|$reps"
else
	plan="create_join|20000|120|$reps
burst|10000 5|120|$reps
sleepers|10000 20|180|$reps
concurrent|100000 500|300|$reps
concurrent@idle|10000 500 2000|120|$reps
cond_pingpong|100000|60|$reps
mutex_uncontended|50000000|60|$reps
mutex_contention|1000 100000000 100 4,64|60|$reps
prodcons|1000000|60|$reps
pipe_pingpong|100000|60|$reps
echo_100|100 3 1|60|$reps
echo_2000|2000 3 1|90|$reps
echo_100_hog|100 3 1|60|$reps
echo_100_idle|100 2 0.5 idle|30|$reps
file_compute|64 4 2 300000 32|120|$reps
syscall_latency|2000|60|$reps||1
syscall_latency@fifo|2000 fifo|60|$reps||1
cpu_fairness|8 2|60|$reps||2
timer_lateness@read|read 4 2|60|$reps
timer_lateness@kill|kill 4 2|60|$reps
start_latency@1|1 1024 20000|60|$reps
start_latency@4|4 1024 20000|90|$reps
start_latency@4p|1 1024 20000 800 4|90|$reps
rt_churn@1|1 2 50000|60|$reps
rt_churn@4|4 2 50000|90|$reps
pshared@pingpong|pingpong 20000|60|$reps
pshared@broadcast|broadcast 500|90|$reps"
fi
if [ $maxthreads = 1 ]; then
	plan="$plan
maxthreads|$max_n 5000|1200|1|$max_n 500"
fi

raw=$(dirname "$out")/results-raw.txt
dists=$(dirname "$out")/echo-latency.dat
gnuplot=${GNUPLOT:-gnuplot}
# make_tmp, run_one, run_echo, source_rev, awk_median
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
make_tmp gmp-bench
: >"$raw"
: >"$dists"

mem_avail_kib() { awk '/^MemAvailable:/ {print $2}' /proc/meminfo; }

# maxthreads re-checks its flag every 5 s under libgmp (a million threads
# waking every 500 ms would be most of what the machine does), but NPTL stops
# near 32,000 threads, which the usual 500 ms suits: it is released sooner.
echo "$plan" | while IFS='|' read -r w args to n nargs wprocs; do
	[ -n "$nargs" ] || nargs=$args
	case $w in echo_*) base=echo ;; *@*) base=${w%@*} ;; *) base=$w ;; esac
	if [ -n "$only" ] && ! echo ",$only," | grep -q -e ",$w," -e ",$base,"; then
		continue
	fi
	for rep in $(seq 1 "$n"); do
		# shellcheck disable=SC2086
		if [ "$w" = maxthreads ] && [ "$(mem_avail_kib)" -lt $((${args%% *} * 12)) ]; then
			echo "$w libgmp $rep rc=- SKIPPED MemAvailable=$(mem_avail_kib)KiB, needs about $((${args%% *} * 12))KiB" |
				tee -a "$raw" >&2
			run_one "$w" nptl "$rep" "$to" $nargs
			continue
		fi
		if [ $((rep % 2)) = 1 ]; then
			run_one "$w" nptl "$rep" "$to" $nargs
			[ -n "$before" ] && run_one "$w" before "$rep" "$to" $args
			has_go "$w" && run_one "$w" go "$rep" "$to" $args
			run_one "$w" libgmp "$rep" "$to" $args
		else
			run_one "$w" libgmp "$rep" "$to" $args
			has_go "$w" && run_one "$w" go "$rep" "$to" $args
			[ -n "$before" ] && run_one "$w" before "$rep" "$to" $args
			run_one "$w" nptl "$rep" "$to" $nargs
		fi
	done
done

# ---------------------------------------------------------------- report
glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null || ldd --version | head -1)
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
memtotal=$(awk '/^MemTotal:/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
rev=$(source_rev)
# whether the kernel lets user space write the thread pointer (FSGSBASE:
# AT_HWCAP2 bit 1), and whether the libgmp runs were told not to
hwcap2=$(LD_SHOW_AUXV=1 /bin/true 2>/dev/null | awk '/^AT_HWCAP2:/ {print $2}')
case $(( ${hwcap2:-0} & 2 )) in
2) fsgsbase="the kernel allows WRFSBASE" ;;
*) fsgsbase="the kernel does not allow WRFSBASE (no FSGSBASE: a kernel before 5.9, or a hypervisor that hides it)" ;;
esac
case ${GMPDEBUG:-} in
*fsbase=syscall*) fsgsbase="$fsgsbase; GMPDEBUG=fsbase=syscall forced arch_prctl" ;;
esac

# report FILE REV: the report of the raw lines in FILE (libgmp's source
# REV) on stdout
report() {
awk -v reps="$reps" -v procs_env="${GMPMAXPROCS:-}" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" \
	-v nproc="$(nproc)" -v kernel="$(uname -srm)" -v glibc="$glibc" -v cpu="$cpu" \
	-v mem="$memtotal" -v pidmax="$(cat /proc/sys/kernel/pid_max)" \
	-v maxmap="$(cat /proc/sys/vm/max_map_count)" -v stack="$(ulimit -s)" \
	-v cmd="$cmdline" -v rev="$2" -v fsgsbase="$fsgsbase" "$awk_median"'
function median(w, m, k,    n, i, a) {
	n = cnt[w, m, k]
	if (n == 0) return ""
	for (i = 1; i <= n; i++) a[i] = val[w, m, k, i]
	return sorted_median(a, n)
}
function has(w, m, k) { return cnt[w, m, k] > 0 }
# The median over the repetitions of the libgmp value over the NPTL one
# of the same repetition (the two ran one after the other), "" when no
# repetition has both: it leaves out what drifts between repetitions on
# a shared machine, which the ratio of the two medians keeps.
function paired(w, k,    r, n, a) {
	n = 0
	for (r = 1; r <= reps; r++)
		if (((w, "nptl", k, r) in byrep) && ((w, "libgmp", k, r) in byrep) && byrep[w, "nptl", k, r] > 0)
			a[++n] = byrep[w, "libgmp", k, r] / byrep[w, "nptl", k, r]
	return n ? sorted_median(a, n) : ""
}
# a row of that median for a rate k (higher is better)
function paired_rate(w, lbl, label, k,    q) {
	q = paired(w, k)
	row(w, lbl, label, "1", q == "" ? "n/a" : sprintf("%.3f", q), q == "" ? "n/a" : versus(q))
}
function fmt(f, v) { return v == "" ? "n/a" : sprintf(f, v) }
function fmt_ms(v) { return v == "" ? "n/a" : sprintf("%.1f", v * 1000) }
# v / d printed with format f, "n/a" when v is missing
function scaled(f, v, d) { return v == "" ? "n/a" : sprintf(f, v / d) }
# q = how many times faster libgmp is: "**12.3x faster**" or "**2.0x slower**"
function versus(q) { return q >= 1 ? sprintf("**%.1fx faster**", q) : sprintf("**%.1fx slower**", 1 / q) }
# libgmp against NPTL for a time (lower is better: NPTL / libgmp) or, when
# higher is set, for a rate (higher is better: libgmp / NPTL); "n/a" when
# either is missing
function compare(w, k, higher,    a, b) {
	if (!has(w, "nptl", k) || !has(w, "libgmp", k)) return "n/a"
	a = median(w, "nptl", k); b = median(w, "libgmp", k)
	if (b <= 0 || a <= 0) return "n/a"
	return versus(higher ? b / a : a / b)
}
function speed(w, k) { return compare(w, k, 0) }
function rate(w, k) { return compare(w, k, 1) }
# the libgmp median over the NPTL one, "" when either is missing
function lib_over_nptl(w, k) {
	if (!has(w, "nptl", k) || !has(w, "libgmp", k) || median(w, "nptl", k) <= 0) return ""
	return median(w, "libgmp", k) / median(w, "nptl", k)
}
function runs(w, m) { return ok[w, m] + 0 "/" tot[w, m] + 0 }
function threads(w, m) { return has(w, m, "peak_os_threads") ? sprintf("%d", median(w, m, "peak_os_threads")) : "n/a" }
function mib(w, m) { return has(w, m, "rss_kib") ? sprintf("%.1f MiB", median(w, m, "rss_kib") / 1024) : "n/a" }
function reached(w, m,    r, e) {
	if (!has(w, m, "reached")) return "n/a"
	r = sprintf("%d", median(w, m, "reached"))
	e = err[w, m]
	return e == "" || e == "none" ? r : r " (" e ")"
}
# one table row; the workload, its OS threads and RSS only on its first row
function row(w, lbl, label, nv, gv, ratio,    first) {
	first = w != last
	printf "| %s | %s | %s | %s | %s | %s | %s |\n", first ? lbl : "", label, nv, gv, ratio,
		first ? threads(w, "nptl") " / " threads(w, "libgmp") : "",
		first ? mib(w, "nptl") " / " mib(w, "libgmp") : ""
	last = w
}
# a row of one measure k, both medians divided by d and printed with format
# f, compared as a "time" (lower is better), a "rate" (higher is better) or
# not at all ("")
function measure(w, lbl, label, k, f, d, how) {
	row(w, lbl, label, scaled(f, median(w, "nptl", k), d), scaled(f, median(w, "libgmp", k), d),
	    how == "time" ? speed(w, k) : how == "rate" ? rate(w, k) : "")
}
function size(w, k,    v) { v = median(w, "libgmp", k); return v != "" ? v : median(w, "nptl", k) }
function verdict(c) { return c ? "**met**" : "**not met**" }
# the runs that set their own GMPMAXPROCS do not say what the others ran with
{ rawl[++nraw] = $0; if ($0 !~ / GMPMAXPROCS=/ && match($0, /gomaxprocs=[0-9]+/)) gp = substr($0, RSTART + 11, RLENGTH - 11) }
{
	w = $1; m = $2; tot[w, m]++
	if ($4 == "rc=-") { skipped[w, m] = 1; skipline[w, m] = $0; next }
	if ($4 == "rc=0" && $5 ~ /^name=/) ok[w, m]++
	else { failed[w, m]++; failmsg[w, m] = $0 }
	for (i = 5; i <= NF; i++) if (split($i, kv, "=") == 2) {
		if (kv[1] == "create_error") { err[w, m] = kv[2]; continue }
		# echo_load reports the threads and peak RSS of the server by these names
		if (kv[1] == "peak_threads") kv[1] = "peak_os_threads"
		if (kv[1] == "rss_kb") kv[1] = "rss_kib"
		if (kv[2] !~ /^-?[0-9.]+$/) continue
		val[w, m, kv[1], ++cnt[w, m, kv[1]]] = kv[2]
		byrep[w, m, kv[1], $3] = kv[2]
		# mutex_contention: the thread counts, in the order the program ran them
		if (kv[1] ~ /^t[0-9]+_ops_per_sec$/ && !tseen[w, kv[1]]++)
			tlist[w] = tlist[w] " " substr(kv[1], 2, index(kv[1], "_") - 2)
	}
	if (!order[w]++) ws[++nw] = w
	if (match($0, / GMPMAXPROCS=[0-9]+/)) own[w] = substr($0, RSTART + 13, RLENGTH - 13)
}
END {
	procs = has_any_gp() ? gp : (procs_env != "" ? procs_env : "n/a")
	print "# gmpsched benchmark results"
	print ""
	print "Every workload runs under glibc'"'"'s NPTL and under libgmp in the same invocation,"
	print "interleaved (odd repetitions NPTL first, even ones libgmp first); each"
	print "number is the median over the repetitions. The comparison says how many"
	print "times faster (or slower) libgmp is: NPTL / libgmp for times, libgmp / NPTL"
	print "for rates (per second). Peak OS threads and peak RSS are the medians of"
	print "what each run measured itself (`Threads:` and `VmHWM` in /proc/self/status);"
	print "for echo, those of the server, which the load generator reads in its"
	print "/proc/PID/status. `bench/README.md` describes the workloads."
	print ""
	print "| | |"
	print "|---|---|"
	print "| date | " date " |"
	print "| command | `" cmd "` |"
	print "| source | " rev " |"
	print "| machine | " nproc " CPUs (" cpu "), " mem " |"
	print "| kernel | " kernel " |"
	print "| glibc | " glibc " |"
	ownp = ""
	for (i = 1; i <= nw; i++) if (ws[i] in own) ownp = ownp "; " ws[i] ": " own[ws[i]]
	print "| GMPMAXPROCS | " procs (procs_env == "" ? " (libgmp'"'"'s default: the CPUs it may use)" : " (set)") ownp " |"
	print "| limits | pid_max " pidmax ", vm.max_map_count " maxmap ", stack " stack " KiB |"
	print "| repetitions | " reps " per library (maxthreads: 1) |"
	print "| thread pointer | " (tp_path() == "" ? "not recorded" : tp_path()) " (" fsgsbase ") |"
	print ""
	print "| workload | measure (median) | NPTL | libgmp | libgmp vs NPTL | peak OS threads NPTL / libgmp | peak RSS NPTL / libgmp |"
	print "|---|---|---|---|---|---|---|"
	w = "create_join"
	if (order[w]) {
		row(w, w " (" size(w, "n") ")", "µs per create+join", fmt("%.2f", median(w, "nptl", "us_per_op")),
		    fmt("%.2f", median(w, "libgmp", "us_per_op")), speed(w, "us_per_op"))
	}
	w = "burst"
	if (order[w]) {
		lbl = w " (" size(w, "n") " threads x " size(w, "reps") ")"
		row(w, lbl, "first (cold) burst, ms", fmt_ms(median(w, "nptl", "cold_seconds")),
		    fmt_ms(median(w, "libgmp", "cold_seconds")), speed(w, "cold_seconds"))
		row(w, lbl, "later (warm) bursts, ms", fmt_ms(median(w, "nptl", "warm_seconds")),
		    fmt_ms(median(w, "libgmp", "warm_seconds")), speed(w, "warm_seconds"))
		row(w, lbl, "computation alone, µs/thread", fmt("%.2f", median(w, "nptl", "work_us")),
		    fmt("%.2f", median(w, "libgmp", "work_us")), "")
	}
	w = "sleepers"
	if (order[w]) {
		r = size(w, "rounds")
		lbl = w " (" size(w, "n") " threads x " r " x 1 ms)"
		row(w, lbl, "wall time, s", fmt("%.3f", median(w, "nptl", "seconds")),
		    fmt("%.3f", median(w, "libgmp", "seconds")), speed(w, "seconds"))
		row(w, lbl, "wall / ideal (" r " ms)", fmt("%.1fx", median(w, "nptl", "x_ideal")),
		    fmt("%.1fx", median(w, "libgmp", "x_ideal")), "")
	}
	for (x = 1; x <= 2; x++) {
		w = x == 1 ? "concurrent" : "maxthreads"
		if (!order[w]) continue
		lbl = w " (" size(w, "n") ")"
		# ratios only for the same thread count and re-check period
		same = w == "concurrent" && has(w, "nptl", "reached") && median(w, "nptl", "reached") == median(w, "libgmp", "reached")
		row(w, lbl, "threads alive at once", reached(w, "nptl"), skipped[w, "libgmp"] ? "skipped" : reached(w, "libgmp"), "")
		row(w, lbl, "threads joined", fmt("%d", median(w, "nptl", "joined")), fmt("%d", median(w, "libgmp", "joined")), "")
		row(w, lbl, "RSS per thread, KiB (peak)", fmt("%.2f", median(w, "nptl", "hwm_kib_per_thread")),
		    fmt("%.2f", median(w, "libgmp", "hwm_kib_per_thread")), "")
		row(w, lbl, "page tables per thread, KiB (VmPTE, not in RSS)", fmt("%.2f", median(w, "nptl", "pte_kib_per_thread")),
		    fmt("%.2f", median(w, "libgmp", "pte_kib_per_thread")), "")
		row(w, lbl, "create all, s", fmt("%.2f", median(w, "nptl", "create_seconds")),
		    fmt("%.2f", median(w, "libgmp", "create_seconds")), same ? speed(w, "create_seconds") : "(not comparable)")
		row(w, lbl, "create, release and join all, s", fmt("%.2f", median(w, "nptl", "seconds")),
		    fmt("%.2f", median(w, "libgmp", "seconds")), same ? speed(w, "seconds") : "(not comparable)")
	}
	w = "concurrent@idle"
	if (order[w])
		measure(w, "concurrent, idle (" size(w, "n") " threads each sleeping 500 ms at a time)",
			"CPU of the process while they sleep, ms per second", "idle_cpu_ms_per_s", "%.1f", 1, "time")
	w = "cond_pingpong"
	if (order[w])
		measure(w, w " (" size(w, "n") " round trips)", "round trips per second, thousands",
			"round_trips_per_sec", "%.1f", 1e3, "rate")
	w = "mutex_uncontended"
	if (order[w])
	{
		measure(w, w " (" size(w, "n") ")", "ns per lock+unlock", "ns_per_op", "%.2f", 1, "time")
		measure(w, w " (" size(w, "n") ")", "ns per gettid()", "gettid_ns", "%.2f", 1, "time")
	}
	w = "mutex_contention"
	if (order[w]) {
		lbl = w " (" size(w, "ms") " ms per thread count)"
		nt = split(tlist[w], tl, " ")
		for (i = 1; i <= nt; i++) {
			measure(w, lbl, tl[i] " threads: lock+unlock per second, millions",
				"t" tl[i] "_ops_per_sec", "%.2f", 1e6, "rate")
			measure(w, lbl, tl[i] " threads: fairness (fewest / most per thread)",
				"t" tl[i] "_fairness", "%.3f", 1, "")
		}
		if (!nt) row(w, lbl, "lock+unlock per second", "n/a", "n/a", "")
	}
	w = "prodcons"
	if (order[w])
		measure(w, w " (" size(w, "n") " items, " size(w, "producers") " x " size(w, "consumers") ", capacity " \
			size(w, "capacity") ")", "items per second, thousands", "items_per_sec", "%.1f", 1e3, "rate")
	w = "pipe_pingpong"
	if (order[w])
		measure(w, w " (" size(w, "n") " round trips x " size(w, "pairs") " pair" (size(w, "pairs") == 1 ? "" : "s") ")",
			"round trips per second, thousands", "round_trips_per_sec", "%.1f", 1e3, "rate")
	for (x = 1; x <= 3; x++) {
		w = x == 1 ? "echo_100" : x == 2 ? "echo_2000" : "echo_100_hog"
		if (!order[w]) continue
		lbl = "echo (" size(w, "conns") " connections, " sprintf("%g", size(w, "seconds")) " s" \
			(x == 3 ? ", a CPU hog beside the server" : "") "; the server'"'"'s threads and RSS)"
		measure(w, lbl, "requests per second, thousands", "rps", "%.1f", 1e3, "rate")
		measure(w, lbl, "latency p50, µs", "p50_us", "%.0f", 1, "time")
		measure(w, lbl, "latency p99, µs", "p99_us", "%.0f", 1, "time")
		measure(w, lbl, "latency p99.9, µs", "p999_us", "%.0f", 1, "time")
		measure(w, lbl, "server CPU per request, µs", "server_cpu_us_per_req", "%.2f", 1, "time")
	}
	w = "echo_100_idle"
	if (order[w])
		measure(w, "echo (" size(w, "conns") " connections open and silent, " sprintf("%g", size(w, "seconds")) " s)",
			"server CPU while it waits, ms per second", "server_cpu_ms_per_s", "%.2f", 1, "time")
	w = "file_compute"
	if (order[w]) {
		lbl = w " (" size(w, "readers") " readers x " size(w, "passes") " passes over " size(w, "mib") " MiB, " \
			size(w, "computers") " compute threads)"
		measure(w, lbl, "wall time, s", "seconds", "%.3f", 1, "time")
		measure(w, lbl, "computation among the readers, thousand units per second", "compute_units_per_sec",
			"%.1f", 1e3, "rate")
		row(w, lbl, "computation among the readers / alone", fmt("%.2fx", median(w, "nptl", "compute_x_alone")),
			fmt("%.2fx", median(w, "libgmp", "compute_x_alone")), "")
		measure(w, lbl, "reads, MiB per second", "read_mib_per_sec", "%.0f", 1, "rate")
	}
	for (x = 1; x <= 2; x++) {
		w = x == 1 ? "syscall_latency" : "syscall_latency@fifo"
		if (!order[w]) continue
		lbl = "syscall_latency (" size(w, "rounds") " x " (x == 1 ? "flock" : "open of a FIFO") \
			((w in own) ? "; libgmp with GMPMAXPROCS=" own[w] : "") ")"
		measure(w, lbl, "blocked to other thread running, median µs", "median_us", "%.1f", 1, "time")
		measure(w, lbl, "blocked to other thread running, p99 µs", "p99_us", "%.1f", 1, "time")
	}
	w = "cpu_fairness"
	if (order[w]) {
		lbl = w " (" size(w, "threads") " spinning threads x " sprintf("%g", size(w, "seconds")) " s; " \
			((w in own) ? "libgmp with GMPMAXPROCS=" own[w] ", " : "") "NPTL on " nproc " CPUs)"
		measure(w, lbl, "iterations per second, millions", "iters_per_sec", "%.1f", 1e6, "rate")
		measure(w, lbl, "fairness (fewest / most per thread)", "fairness", "%.3f", 1, "")
		measure(w, lbl, "min share (fewest / mean per thread)", "min_share", "%.3f", 1, "")
		measure(w, lbl, "main thread wake-up lateness, ms", "late_ms", "%.2f", 1, "time")
	}
	for (x = 1; x <= 2; x++) {
		w = x == 1 ? "timer_lateness@read" : "timer_lateness@kill"
		if (!order[w]) continue
		lbl = "timer_lateness (main sleeps 1 ms at a time while " size(w, "threads") " threads loop on " \
			(x == 1 ? "read() of a cached file" : "kill() to the process") ", " sprintf("%g", size(w, "seconds")) " s)"
		measure(w, lbl, "wake-up lateness, median ms", "median_late_ms", "%.3f", 1, "time")
		measure(w, lbl, "wake-up lateness, p99 ms", "p99_late_ms", "%.3f", 1, "time")
		measure(w, lbl, "wake-up lateness, worst ms", "max_late_ms", "%.3f", 1, "time")
		measure(w, lbl, "calls per second of the loopers, thousands", "calls_per_sec", "%.0f", 1e3, "rate")
	}
	for (x = 1; x <= 3; x++) {
		w = x == 1 ? "start_latency@1" : x == 2 ? "start_latency@4" : "start_latency@4p"
		if (!order[w]) continue
		lbl = "start_latency (" (x == 3 ? size(w, "processes") " processes at once, each with its own libgmp and " : "") \
			size(w, "creators") " creator" (x == 2 ? "s" : "") ", each keeping " \
			size(w, "alive") " threads alive, " size(w, "per_creator") " threads each)"
		measure(w, lbl, "pthread_create to first instruction, median µs", "median_us", "%.1f", 1, "time")
		measure(w, lbl, "pthread_create to first instruction, p99 µs", "p99_us", "%.1f", 1, "time")
		measure(w, lbl, "threads started per second, thousands", "threads_per_sec", "%.1f", 1e3, "rate")
	}
	for (x = 1; x <= 2; x++) {
		w = x == 1 ? "rt_churn@1" : "rt_churn@4"
		if (!order[w]) continue
		lbl = "rt_churn (" size(w, "procs") " process" (x == 1 ? "" : "es") " at once, " \
			size(w, "threads") " threads each: SCHED_FIFO, lock a priority-inheritance mutex, SCHED_OTHER)"
		measure(w, lbl, "loops per second, thousands", "loops_per_sec", "%.1f", 1e3, "rate")
		measure(w, lbl, "one loop, median µs", "median_us", "%.2f", 1, "time")
		measure(w, lbl, "one loop, p99 µs", "p99_us", "%.2f", 1, "time")
	}
	if (order["pshared@pingpong"]) {
		w = "pshared@pingpong"
		lbl = "pshared ping-pong (2 processes, " size(w, "n") " round trips through two process-shared semaphores)"
		measure(w, lbl, "round trips per second, thousands", "round_trips_per_sec", "%.1f", 1e3, "rate")
		paired_rate(w, lbl, "libgmp / NPTL rate in the same repetition, median", "round_trips_per_sec")
		measure(w, lbl, "one round trip, p99 µs", "p99_us", "%.1f", 1, "time")
	}
	if (order["pshared@broadcast"]) {
		w = "pshared@broadcast"
		lbl = "pshared broadcast (" size(w, "procs") " processes x " size(w, "threads") \
			" waiters on one process-shared condition variable, " size(w, "rounds") " rounds)"
		measure(w, lbl, "rounds per second (all waiters woken and answered)", "rounds_per_sec", "%.0f", 1, "rate")
		paired_rate(w, lbl, "libgmp / NPTL rate in the same repetition, median", "rounds_per_sec")
		measure(w, lbl, "one round, p99 µs", "p99_us", "%.0f", 1, "time")
		measure(w, lbl, "start-up until every waiter waits, ms", "startup_ms", "%.2f", 1, "time")
	}
	print ""
	nf = 0
	for (i = 1; i <= nw; i++) for (x = 1; x <= 2; x++) {
		m = x == 1 ? "nptl" : "libgmp"
		if (failed[ws[i], m]) {
			if (!nf++) print "Runs that failed (not in the medians):\n"
			print "- " ws[i] " under " m ": " failed[ws[i], m] " of " tot[ws[i], m] " runs: `" failmsg[ws[i], m] "`"
		}
		if (skipped[ws[i], m]) {
			if (!nf++) print "Runs that failed (not in the medians):\n"
			print "- " ws[i] " under " m ": not run: `" skipline[ws[i], m] "`"
		}
	}
	if (nf) print ""

	kernel_work()

	print "## Targets"
	print ""
	w = "create_join"
	if (order[w] && has(w, "libgmp", "us_per_op") && has(w, "nptl", "us_per_op")) {
		q = median(w, "nptl", "us_per_op") / median(w, "libgmp", "us_per_op")
		printf "- create+join one at a time >= 10x faster than NPTL: %.1fx — %s\n", q, verdict(q >= 10)
	}
	w = "burst"
	if (order[w] && has(w, "libgmp", "cold_seconds") && has(w, "nptl", "cold_seconds")) {
		c = median(w, "nptl", "cold_seconds") / median(w, "libgmp", "cold_seconds")
		h = median(w, "nptl", "warm_seconds") / median(w, "libgmp", "warm_seconds")
		printf "- %d-thread burst >= 20x faster than NPTL: first (cold) burst %.1fx — %s; later (warm) bursts %.1fx — %s\n",
			median(w, "libgmp", "n"), c, verdict(c >= 20), h, verdict(h >= 20)
	}
	w = "sleepers"
	if (order[w] && has(w, "libgmp", "x_ideal")) {
		q = median(w, "libgmp", "x_ideal")
		printf "- %d threads x %d x 1 ms sleeps within 20x of ideal: libgmp %.1fx ideal (NPTL %s) — %s\n",
			median(w, "libgmp", "n"), median(w, "libgmp", "rounds"), q,
			fmt("%.1fx", median(w, "nptl", "x_ideal")), verdict(q <= 20)
	}
	w = "concurrent"
	if (order[w] && has(w, "libgmp", "reached")) {
		t = median(w, "libgmp", "peak_os_threads"); k = median(w, "libgmp", "hwm_kib_per_thread")
		all = median(w, "libgmp", "reached") == median(w, "libgmp", "n")
		printf "- %d concurrent sleepers: all alive at once: %s; OS threads %d <= GMPMAXPROCS + 4 = %s: %s; peak RSS per thread %.2f KiB <= 32 KiB: %s\n",
			median(w, "libgmp", "n"), all ? "yes" : "no, " reached(w, "libgmp"), t, procs == "n/a" ? "n/a" : procs + 4,
			procs == "n/a" ? "n/a" : verdict(t <= procs + 4), k, verdict(k <= 32)
	}
	w = "maxthreads"
	if (!order[w])
		print "- 1,000,000 concurrent threads reached and joined: **not measured** in this run"
	else if (skipped[w, "libgmp"])
		print "- 1,000,000 concurrent threads reached and joined: **not measured** (not enough memory)"
	else {
		r = median(w, "libgmp", "reached"); j = median(w, "libgmp", "joined")
		n = size(w, "n")
		printf "- 1,000,000 concurrent threads reached and joined: %d asked, reached %s, joined %s, in %s s, peak RSS %s — %s\n",
			n, fmt("%d", r), fmt("%d", j), fmt("%.1f", median(w, "libgmp", "seconds")),
			mib(w, "libgmp"), n < 1000000 ? "**not measured** at 1,000,000" : verdict(r != "" && r == n && j == n)
	}
	w = "cond_pingpong"
	if (order[w]) {
		q = lib_over_nptl(w, "round_trips_per_sec")
		printf "- condvar ping-pong >= 3x NPTL round trips per second: %s\n",
			q == "" ? "**not measured**" : sprintf("%.1fx — %s", q, verdict(q >= 3))
	}
	w = "mutex_contention"
	if (order[w]) {
		q = lib_over_nptl(w, "t64_ops_per_sec"); f = median(w, "libgmp", "t64_fairness")
		printf "- 64-thread mutex contention >= NPTL throughput with fairness >= 0.2: %s\n",
			q == "" || f == "" ? "**not measured**" : sprintf("throughput %.2fx NPTL, fairness %.3f (NPTL %s) — %s",
			q, f, fmt("%.3f", median(w, "nptl", "t64_fairness")), verdict(q >= 1 && f >= 0.2))
	}
	w = "mutex_uncontended"
	if (order[w]) {
		q = lib_over_nptl(w, "ns_per_op")
		printf "- uncontended lock+unlock no slower than 1.5x NPTL: %s\n",
			q == "" ? "**not measured**" : sprintf("libgmp %.2f ns, NPTL %.2f ns: %.2fx NPTL'"'"'s time — %s",
			median(w, "libgmp", "ns_per_op"), median(w, "nptl", "ns_per_op"), q, verdict(q <= 1.5))
		gl = median(w, "libgmp", "gettid_ns"); gn = median(w, "nptl", "gettid_ns")
		printf "- gettid() at most 5 ns more than glibc'"'"'s: %s\n",
			gl == "" || gn == "" ? "**not measured**" : sprintf("libgmp %.2f ns, NPTL %.2f ns — %s",
			gl, gn, verdict(gl - gn <= 5))
	}
	w = "prodcons"
	if (order[w]) {
		q = lib_over_nptl(w, "items_per_sec")
		printf "- producer/consumer %sx%s >= 3x NPTL items per second: %s\n", size(w, "producers"),
			size(w, "consumers"), q == "" ? "**not measured**" : sprintf("%.1fx — %s", q, verdict(q >= 3))
	}
	w = "pipe_pingpong"
	if (order[w]) {
		q = lib_over_nptl(w, "round_trips_per_sec")
		printf "- pipe ping-pong >= 2x NPTL round trips per second: %s\n",
			q == "" ? "**not measured**" : sprintf("%.1fx — %s", q, verdict(q >= 2))
	}
	w = "echo_2000"
	if (order[w]) {
		# the bound on OS threads needs GMPMAXPROCS: the one the runs
		# reported, the one set, or else the default of libgmp, the CPUs
		lim = procs != "n/a" ? procs : nproc
		q = lib_over_nptl(w, "rps"); t = median(w, "libgmp", "peak_os_threads")
		printf "- echo at %s connections >= 2x NPTL requests per second with at most GMPMAXPROCS + 8 = %d OS threads: %s\n",
			size(w, "conns"), lim + 8, q == "" || t == "" ? "**not measured**" : \
			sprintf("%.2fx NPTL, %d OS threads (NPTL %s) — %s", q, t,
			fmt("%d", median(w, "nptl", "peak_os_threads")), verdict(q >= 2 && t <= lim + 8))
	}
	w = "echo_100"
	if (order[w]) {
		q = lib_over_nptl(w, "rps")
		printf "- echo at %s connections no slower than NPTL (requests per second): %s\n", size(w, "conns"),
			q == "" ? "**not measured**" : sprintf("%.2fx NPTL — %s", q, verdict(q >= 1))
	}
	w = "syscall_latency"
	if (order[w]) {
		v = median(w, "libgmp", "median_us")
		printf "- a runnable thread runs within 200 µs (median) of another blocking in flock%s: %s\n",
			(w in own) ? " with GMPMAXPROCS=" own[w] : "",
			v == "" ? "**not measured**" : sprintf("%.1f µs (NPTL %s µs) — %s", v,
			fmt("%.1f", median(w, "nptl", "median_us")), verdict(v <= 200))
	}
	w = "cpu_fairness"
	if (order[w]) {
		v = median(w, "libgmp", "min_share")
		printf "- CPU fairness: each of %s spinning threads gets at least a third of its fair share (min_share >= 0.33)%s: %s\n",
			size(w, "threads"), (w in own) ? " with GMPMAXPROCS=" own[w] : "",
			v == "" ? "**not measured**" : sprintf("%.3f (NPTL %s) — %s", v,
			fmt("%.3f", median(w, "nptl", "min_share")), verdict(v >= 0.33))
	}
	print ""
	print "## Raw results"
	print ""
	print "One line per run: workload, library, repetition, exit status, the"
	print "workload'"'"'s RESULT fields, and for libgmp what `gmprun --stats` counted"
	print "(`rt_os_threads`: the runtime'"'"'s own peak OS thread count)."
	print ""
	print "```"
	for (i = 1; i <= nraw; i++) print rawl[i]
	print "```"
}
function has_any_gp() { return gp != "" }
# What one operation of workload w is, and how many the libgmp runs made
# (medians): "" when the workload has no count of its own
function op_name(w) {
	if (w ~ /^(create_join|concurrent|maxthreads|burst)$/) return "thread"
	if (w ~ /^sleepers/) return "sleep"
	if (w ~ /^(cond|pipe)_pingpong$/) return "round trip"
	if (w ~ /^mutex_/) return "lock+unlock"
	if (w == "prodcons") return "item"
	if (w ~ /^echo/) return "request"
	return ""
}
function op_count(w,    n, t, k, i) {
	if (w ~ /^(create_join|concurrent|maxthreads|mutex_uncontended|prodcons)$/) return median(w, "libgmp", "n")
	if (w == "burst") return median(w, "libgmp", "n") * median(w, "libgmp", "reps")
	if (w ~ /^sleepers/) return median(w, "libgmp", "n") * median(w, "libgmp", "rounds")
	if (w ~ /^(cond|pipe)_pingpong$/) return median(w, "libgmp", "round_trips_per_sec") * median(w, "libgmp", "seconds")
	if (w ~ /^echo/) return median(w, "libgmp", "replies")
	if (w == "mutex_contention") {
		n = split(tlist[w], t, " ")
		for (i = 1; i <= n; i++) k += median(w, "libgmp", "t" t[i] "_ops")
		return k
	}
	return ""
}
# the kernel work of libgmp itself (gmprun --stats), per operation where the
# workload counts operations, else per context switch
# how libgmp wrote the thread pointer in these runs (gmprun --stats), ""
# when no run said
function tp_path(    i, path) {
	path = ""
	for (i = 1; i <= nw; i++)
		if (has(ws[i], "libgmp", "rt_tp_wrfsbase"))
			path = median(ws[i], "libgmp", "rt_tp_wrfsbase") >= 1 ? "WRFSBASE (an instruction)" : "arch_prctl (a system call)"
	return path
}
function kernel_work(    i, w, n, d, unit, path, k, ks, nk, line) {
	nk = split("tp_writes futex_waits futex_wakes epoll_waits eventfd_writes signals_sent sigmask_changes", ks, " ")
	path = tp_path()
	if (path == "") return
	print "## libgmp'"'"'s own kernel work"
	print ""
	print "What libgmp did besides the program'"'"'s own calls, from `gmprun --stats`"
	print "(for echo, the server'"'"'s, warm-up included), per operation of the"
	print "workload, or per context switch where it counts none. The thread"
	print "pointer was written with " path "."
	print ""
	print "| workload | per | context switches | thread-pointer writes | futex sleeps | futex wake-ups | epoll_wait | eventfd writes | signals sent | sigmask changes |"
	print "|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= nw; i++) {
		w = ws[i]
		if (!has(w, "libgmp", "rt_context_switches")) continue
		# their threads run in child processes, whose counts are not these
		if (w ~ /^rt_churn/ || w ~ /^pshared/ || w == "start_latency@4p") continue
		n = op_count(w); unit = op_name(w)
		sw = median(w, "libgmp", "rt_context_switches")
		if (n == "" || n <= 0) { n = sw; unit = "switch" }
		if (n <= 0) continue
		line = "| " w " | " unit " | " (unit == "switch" ? "1" : sprintf("%.3g", sw / n))
		for (k = 1; k <= nk; k++)
			line = line " | " (has(w, "libgmp", "rt_" ks[k]) ? sprintf("%.3g", median(w, "libgmp", "rt_" ks[k]) / n) : "n/a")
		print line " |"
	}
	print ""
}
' "$1"
}

awk '$2 != "before" && $2 != "go"' "$raw" >"$tmp/raw-after"
report "$tmp/raw-after" "$rev" >"$tmp/report"
if grep -q '^[^ ]* go ' "$raw"; then
	# libgmp's runs against the Go programs', as if Go were NPTL
	awk '$2 == "go" || $2 == "libgmp"' "$raw" | sed 's/^\([^ ]*\) go /\1 nptl /' >"$tmp/raw-go"
	report "$tmp/raw-go" "$rev" >"$tmp/report-go"
	{
		echo ""
		echo "## Against Go"
		echo ""
		echo "The same run's libgmp repetitions against Go $(go env GOVERSION 2>/dev/null | sed 's/^go//')'s"
		echo "goroutines (bench/go/: the same workloads written in Go, GOMAXPROCS its"
		echo "default), whose runs were interleaved with the ones above. Here the"
		echo "comparison is Go / libgmp for times, libgmp / Go for rates:"
		echo ""
		sed -n '/^| workload | measure/,/^$/p' "$tmp/report-go" | sed '1,2s/NPTL/Go/g'
		echo "Its runs:"
		echo ""
		echo '```'
		awk '$2 == "go"' "$raw"
		echo '```'
	} >"$tmp/go-section"
	awk -v sec="$tmp/go-section" '/^## Raw results/ { while ((getline l < sec) > 0) print l; print "" } { print }' \
		"$tmp/report" >"$tmp/report2"
	mv "$tmp/report2" "$tmp/report"
fi
if [ -n "$before" ]; then
	# the same NPTL runs against the older libgmp, as if it were libgmp
	awk '$2 != "libgmp"' "$raw" | sed 's/^\([^ ]*\) before /\1 libgmp /' >"$tmp/raw-before"
	brev=$(git -C "$before" rev-parse --short HEAD 2>/dev/null || echo unknown)
	report "$tmp/raw-before" "$brev" >"$tmp/report-before"
	{
		echo ""
		echo "## Before the change"
		echo ""
		echo "The same run's NPTL repetitions against the libgmp of $before"
		echo "(source $brev), whose runs were interleaved with the ones above:"
		echo ""
		sed -n '/^| workload/,/^$/p' "$tmp/report-before"
		echo "Its runs:"
		echo ""
		echo '```'
		awk '$2 == "before"' "$raw"
		echo '```'
	} >"$tmp/before-section"
	# before the raw lines of the NPTL and libgmp runs
	awk -v sec="$tmp/before-section" '/^## Raw results/ { while ((getline l < sec) > 0) print l; print "" } { print }' \
		"$tmp/report" >"$tmp/report2"
	mv "$tmp/report2" "$tmp/report"
fi

# echo-latency.svg: each echo workload's first repetitions, latency (log)
# against percentile on a scale of nines (90, 99, 99.9), one panel each
chart=$(dirname "$out")/echo-latency.svg
rm -f "$chart"
if [ -s "$dists" ] && command -v "$gnuplot" >/dev/null 2>&1; then
	ws=$(awk '{print $1}' "$dists" | sort -u)
	{
		echo 'set terminal svg size 1100,460 dynamic noenhanced font "sans,12" background "white"'
		echo "set output \"$chart\""
		echo 'set logscale y; set grid; set key top left Left reverse'
		echo 'set xlabel "percentile"; set ylabel "request latency, µs"'
		echo 'set xtics ("50" 0.301, "90" 1, "99" 2, "99.9" 3, "max" 3.3)'
		echo 'set xrange [0:3.3]'
		echo 'nines(p) = p >= 99.95 ? 3.3 : -log10(1 - p / 100)'
		echo "set multiplot layout 1,$(echo "$ws" | wc -w) title \"echo server: latency distribution, one request outstanding per connection\""
		for w in $ws; do
			echo "set title \"$w ($(echo "$w" | tr -dc 0-9) connections)\""
			sep="plot"
			for m in nptl libgmp go; do
				grep "^$w $m 1 " "$dists" >"$tmp/dist-$w-$m" || continue
				case $m in nptl) t=NPTL c='#1f77b4' ;; libgmp) t=libgmp c='#ff7f0e' ;; go) t=Go c='#2ca02c' ;; esac
				printf '%s "%s" using (nines($4)):5 with lines lw 2 lc rgb "%s" title "%s"' \
					"$sep" "$tmp/dist-$w-$m" "$c" "$t"
				sep=","
			done
			echo ""
		done
		echo 'unset multiplot'
	} >"$tmp/echo.gp"
	if "$gnuplot" "$tmp/echo.gp" 2>"$tmp/gnuplot.err"; then
		printf '\n## Echo latency distribution\n\n![echo latency](echo-latency.svg)\n\n' >"$tmp/chart-section"
		printf '[`echo-latency.svg`](echo-latency.svg): the latency of each request against its\n' >>"$tmp/chart-section"
		printf 'percentile, first repetition of each library; the points in `echo-latency.dat`.\n' >>"$tmp/chart-section"
		awk -v sec="$tmp/chart-section" '/^## Raw results/ { while ((getline l < sec) > 0) print l; print "" } { print }' \
			"$tmp/report" >"$tmp/report2"
		mv "$tmp/report2" "$tmp/report"
	else
		echo "run.sh: $gnuplot failed: $(head -1 "$tmp/gnuplot.err")" >&2
	fi
fi

sed -n '/^| workload/,/^$/{p;/^$/q}' "$tmp/report"
sed -n '/^## Against Go/,/^## /{/^## Against Go/p;/^## [^A]/q;p}' "$tmp/report" | sed '$d'
[ -n "$before" ] && sed -n '/^## Before the change/,/^## Raw/p' "$tmp/report" | sed '$d'
sed -n '/^## Targets/,/^## Raw/p' "$tmp/report" | sed '$d'
cp "$tmp/report" "$out"
echo "wrote $out (raw lines in $raw)"
[ $sweep = 1 ] || exit 0
sweep_args=(-o "$out")
[ -n "$procs" ] && sweep_args+=(-p "$procs")
[ $quick = 1 ] && sweep_args+=(--quick)
"$here/sweep.sh" "${sweep_args[@]}"
