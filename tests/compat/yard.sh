#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/compat/yard.sh — the compatibility yard: real, unmodified,
# thread-heavy programs run under NPTL and under libgmp.
#
#   tests/compat/yard.sh [--lib PATH] [--only CASE[,CASE...]] [--readme FILE]
#                        [--results FILE] [--list]
#
# For each case the same commands run twice, first under NPTL and then with
# libgmp preloaded into the programs under test (never into this script),
# each under tests/compat/yardmon with the case's timeout. A case passes
# when both runs exit 0 and their outputs agree: lines that begin with
# "figure:" (throughput, times) are left out of the comparison, and a case
# marked "subset" needs only every line of NPTL's output in libgmp's (the
# tests a test suite passed). A failed NPTL run, the reference, is run once
# more (stress-ng once took 14 s and exited 1 under NPTL); libgmp's is
# never run again. A case whose NPTL run prints "skipped: WHY" (what it
# runs is not on this machine) is shown as skipped, neither passed nor
# failed. Each case prints one PASS or FAIL line with
# wall time, peak OS threads and peak resident memory of the programs
# under test under both; the table goes to --results (markdown) and, with
# --readme, between the yard markers of that file.
#
# As root, the Debian packages the cases need are installed with apt-get
# when missing; elsewhere a case whose program is missing fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
lib=${GMP_LIBRARY:-$top/.libs/libgmp.so}
only=""
readme=""
results=""
list=0
while [ $# -gt 0 ]; do
	case "$1" in
	--lib) lib=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--readme) readme=$2; shift 2 ;;
	--results) results=$2; shift 2 ;;
	--list) list=1; shift ;;
	*) echo "usage: yard.sh [--lib PATH] [--only CASE,...] [--readme FILE] [--results FILE] [--list]" >&2
	   exit 2 ;;
	esac
done

PY=/usr/bin/python3

# name|timeout seconds|compare (same or subset)|counted process names|what
CASES="
python_threads|180|same|python3,python3.11|CPython: 1,000 threads with Lock, Condition, Queue, local, ThreadPoolExecutor
python_stdlib|900|subset|python3,python3.11|CPython's test_threading, test_thread, test_threading_local, test_queue
python_async|900|subset|python3,python3.11|CPython's test_asyncio and test_concurrent_futures (subprocesses, process pools)
python_3117|600|subset|python3,python3.11|CPython 3.11.7's own test_threading (pyenv's build, where installed): native thread ids among them
pigz|180|same|pigz|pigz -p 32: compress and decompress 100 MB
pbzip2|240|same|pbzip2|pbzip2 -p32: compress and decompress 100 MB
sysbench_threads|300|same|sysbench|sysbench threads --threads=256
sysbench_mutex|180|same|sysbench|sysbench mutex --threads=64
stress_ng|120|same|stress-ng|stress-ng --pthread 4 --mutex 4 for 5 s
memcached|180|same|memcached,memc_client|memcached -t 4, 200 client threads, every value read back
redis|240|same|redis-server,redis-benchmark|redis-server io-threads 4, redis-benchmark -c 200 --threads 4
rust_threads|120|same|rust_threads|Rust std::thread, Mutex, Condvar, RwLock, mpsc
ripgrep|180|same|rg|rg -j 16 over /usr (regex, all matches)
cxx_threads|120|same|cxx_threads|C++ thread, jthread, async, thread_local, iostreams
"

if [ "$list" = 1 ]; then
	echo "$CASES" | sed '/^$/d' | cut -d'|' -f1,5 | tr '|' '\t'
	exit 0
fi

# ---- set-up -----------------------------------------------------------------
pkgs="pigz pbzip2 sysbench stress-ng memcached redis-server redis-tools ripgrep
      python3 libpython3.11-testsuite g++ rustc"
missing=""
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		echo "yard: installing$missing"
		apt-get update -q >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null ||
			echo "yard: apt-get install failed" >&2
	else
		echo "yard: missing packages:$missing (run as root to install them)" >&2
	fi
fi
if [ ! -f "$lib" ]; then
	echo "yard: $lib not found: build libgmp first" >&2
	exit 2
fi

work=$(mktemp -d /tmp/gmp-yard.XXXXXX)
trap 'rm -rf "$work"' EXIT
bin=$work/bin
mkdir -p "$bin" "$work/out"
build_log=$work/build.log
cc -O2 -Wall -I "$here/../.." -o "$bin/yardmon" "$here/yardmon.c" 2>>"$build_log" ||
	{ echo "yard: cannot build yardmon" >&2; cat "$build_log" >&2; exit 2; }
cc -O2 -Wall -pthread -o "$bin/memc_client" "$here/memc_client.c" 2>>"$build_log"
g++ -std=c++20 -O2 -pthread -o "$bin/cxx_threads" "$here/cxx_threads.cc" 2>>"$build_log"
MAKEFLAGS= rustc -O -o "$bin/rust_threads" "$here/rust_threads.rs" 2>>"$build_log"

# a free TCP port on 127.0.0.1, below the kernel's range for outgoing
# connections (32768-60999), where the many client sockets of a case
# cannot take it first
free_port() {
	$PY - <<'EOF'
import random, socket
for _ in range(200):
    p = random.randint(20000, 29999)
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    print(p)
    break
EOF
}

# wait until something listens on 127.0.0.1:$1 (10 s at most)
wait_port() {
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# 100 MB of text-like data, the same on every machine
data=$work/data
gen_data() {
	[ -f "$data" ] && return
	$PY - "$data" <<'EOF'
import random, sys
r = random.Random(20261203)
words = [''.join(r.choice('etaoinshrdlucmfwypvbgkjqxz') for _ in range(r.randint(1, 12)))
         for _ in range(5000)]
size = 100 * 1000 * 1000
with open(sys.argv[1], 'w') as f:
    n = 0
    while n < size:
        line = ' '.join(r.choices(words, k=2000)) + '\n'
        f.write(line)
        n += len(line)
EOF
	truncate -s 100000000 "$data"
}

# ---- the cases ----------------------------------------------------------------
# Each runs the programs under test as $PRE program ...; $PRE preloads
# libgmp in the second run. Lines on stdout are compared (except figure:).

case_python_threads() {
	$PRE $PY "$here/py_threads.py"
}

# py_suite LOG TEST...: CPython's regression tests TEST... in verbose mode,
# their output in $OUTDIR/LOG and their results in $OUTDIR/LOG.xml; one
# line per test that passed, the summary as a figure. With PY_TIMEOUT=S,
# a test module that runs S seconds has hung: Python's faulthandler prints
# every thread's stack and ends the run (set for the suite that has hung,
# python_async; the others run as they always have)
py_suite() {
	local log=$OUTDIR/$1
	shift
	local rc=0
	$PRE $PY -m test -v ${PY_TIMEOUT:+--timeout $PY_TIMEOUT} --junit-xml "$log.xml" "$@" \
		>"$log" 2>&1 || rc=$?
	# a suite killed by a signal or stopped as hung writes no report:
	# show where it was
	if [ "$rc" -gt 128 ] || { [ "$rc" != 0 ] && ! [ -s "$log.xml" ]; }; then
		echo "$PY -m test $*: exit $rc, no report; its last lines:" >&2
		tail -n 60 "$log" >&2
	fi
	/usr/bin/python3 "$here/junit_passed.py" "$log.xml"
	return 0
}

# pyenv's CPython 3.11.7, whose test_threading checks that
# threading.get_native_id() gives every thread its own id: where it is not
# installed, the case says so and is skipped
PY3117=${PYENV_ROOT:-$HOME/.pyenv}/versions/3.11.7/bin/python3.11
case_python_3117() {
	if ! [ -x "$PY3117" ]; then
		echo "skipped: no CPython 3.11.7 at $PY3117"
		return 0
	fi
	PY=$PY3117 py_suite py3117.log test_threading
}

case_python_stdlib() {
	py_suite stdlib.log test_threading test_thread test_threading_local test_queue
}

# asyncio's subprocess transports and multiprocessing's process pools: forked
# children sharing pipes and sockets with the parent
case_python_async() {
	PY_TIMEOUT=300 py_suite async.log test_asyncio test_concurrent_futures
}

warm_pigz() {
	gen_data
	cat "$data" >/dev/null
}
warm_pbzip2() {
	warm_pigz
}

# compress $data with "$@" -c, decompress with "$@" -dc: the compressed
# bytes' digest, whether the round trip gave the data back, and both times
roundtrip() {
	local t0 t1 t2 z=$OUTDIR/data.z
	t0=$(date +%s.%N)
	$PRE "$@" -c "$data" >"$z" || return 1
	t1=$(date +%s.%N)
	echo "compressed: $(sha256sum <"$z" | cut -c1-16)"
	$PRE "$@" -dc "$z" | cmp - "$data" && echo "decompressed: identical"
	t2=$(date +%s.%N)
	echo "figure: compress $(secs "$t0" "$t1") s, decompress $(secs "$t1" "$t2") s"
	rm -f "$z"
}

case_pigz() {
	roundtrip pigz -p 32
}

case_pbzip2() {
	roundtrip pbzip2 -p32
}

# seconds from $1 to $2 (date +%s.%N)
secs() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'
}

# sysbench's summary: the event count is fixed by --events; its time is a figure
sysbench_summary() {
	grep -E 'total number of events' "$1" | sed 's/  */ /g'
	echo "figure: $(grep -E 'total time:' "$1" | sed 's/  */ /g')"
}

case_sysbench_threads() {
	$PRE sysbench threads --threads=256 --events=256 --time=0 run >"$OUTDIR/sb.log" 2>&1 ||
		{ cat "$OUTDIR/sb.log" >&2; return 1; }
	sysbench_summary "$OUTDIR/sb.log"
}

case_sysbench_mutex() {
	$PRE sysbench mutex --threads=64 --mutex-locks=10000 run >"$OUTDIR/sb.log" 2>&1 ||
		{ cat "$OUTDIR/sb.log" >&2; return 1; }
	sysbench_summary "$OUTDIR/sb.log"
}

case_stress_ng() {
	$PRE stress-ng --pthread 4 --mutex 4 -t 5 --metrics-brief >"$OUTDIR/sng.log" 2>&1 ||
		{ cat "$OUTDIR/sng.log" >&2; return 1; }
	grep -q 'successful run completed' "$OUTDIR/sng.log" && echo "successful run completed"
	# a stressor's own checks (the pthread stressor compares gettid()
	# with set_tid_address's answer) report "fail:" lines
	echo "fail lines: $(grep -c ' fail: ' "$OUTDIR/sng.log")"
	grep -E 'pthread .*% of .* pthreads created' "$OUTDIR/sng.log" | sed 's/.*pthread *//; s/(geo.*//'
	# stress-ng: metrc: [pid] NAME bogo-ops real usr sys ops/s(real) ops/s(cpu)
	awk '$2 == "metrc:" && NF == 10 && $5 ~ /^[0-9]+$/ { printf "figure: %s %s bogo ops/s\n", $4, $9 }' \
		"$OUTDIR/sng.log"
	# a stressor that failed its checks fails the run, shown on stderr:
	# under NPTL, the reference, such a run is run again (stress-ng's
	# pthread stressor once printed one there, with 1,600 threads)
	if grep -q ' fail: ' "$OUTDIR/sng.log"; then
		grep ' fail: ' "$OUTDIR/sng.log" >&2
		return 1
	fi
}

case_memcached() {
	local port pid rc
	port=$(free_port)
	$PRE memcached -t 4 -p "$port" -l 127.0.0.1 -U 0 -u root -c 4096 &
	pid=$!
	wait_port "$port" || { kill "$pid"; echo "memcached did not start" >&2; return 1; }
	$PRE "$bin/memc_client" 127.0.0.1 "$port" 200 500
	rc=$?
	kill "$pid"
	wait "$pid"
	echo "memcached stopped by SIGTERM: exit $?"
	return $rc
}

case_redis() {
	local port pid rc
	port=$(free_port)
	$PRE redis-server --port "$port" --bind 127.0.0.1 --io-threads 4 --io-threads-do-reads yes \
		--save "" --appendonly no --daemonize no --logfile "$OUTDIR/redis.log" &
	pid=$!
	wait_port "$port" || { kill "$pid"; echo "redis-server did not start" >&2; return 1; }
	$PRE redis-benchmark -h 127.0.0.1 -p "$port" -c 200 --threads 4 -n 20000 \
		-t set,get,incr,lpush,lpop -q >"$OUTDIR/rb.log" 2>&1
	rc=$?
	# INCR and LPUSH/LPOP of the fixed keys leave exact counts behind
	echo "incr counter: $(redis-cli -p "$port" get counter:__rand_int__)"
	echo "list length: $(redis-cli -p "$port" llen mylist)"
	echo "keys: $(redis-cli -p "$port" dbsize)"
	tr '\r' '\n' <"$OUTDIR/rb.log" | grep -E '^[A-Z]+: [0-9.]+ requests per second' |
		sed 's/^\([A-Z]*\): \([0-9.]*\) requests per second.*/figure: \1 \2 req\/s/'
	redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || kill "$pid"
	wait "$pid"
	echo "redis-server stopped: exit $?"
	return $rc
}

case_rust_threads() {
	$PRE "$bin/rust_threads"
}

rg_tree="/usr/include /usr/lib/python3.11 /usr/share/perl"
warm_ripgrep() {
	rg -j 16 --no-messages -c thread $rg_tree
}

case_ripgrep() {
	local out=$OUTDIR/rg.out
	$PRE rg -j 16 --no-messages -n -e 'pthread_[a-z]+_(lock|wait)' -e 'def [a-z_]+thread' \
		$rg_tree >"$out"
	echo "matching lines: $(wc -l <"$out")"
	echo "matches, sorted: $(sort "$out" | sha256sum | cut -c1-16)"
}

case_cxx_threads() {
	$PRE "$bin/cxx_threads"
}

export -f secs roundtrip gen_data free_port wait_port sysbench_summary py_suite
for f in $(echo "$CASES" | sed '/^$/d' | cut -d'|' -f1); do
	export -f "case_$f"
done
export here bin data PY PY3117 rg_tree

# ---- running them ----------------------------------------------------------------
pass=0
fail=0
nskip=0
rows=""
human() {	# KiB -> "12.3 MiB"
	awk -v k="$1" 'BEGIN { if (k >= 1048576) printf "%.1f GiB", k / 1048576;
	                       else if (k >= 1024) printf "%.1f MiB", k / 1024;
	                       else printf "%d KiB", k }'
}
stat_of() {	# file key
	sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" "$1"
}

while IFS='|' read -r name timeout cmp names what; do
	[ -n "$name" ] || continue
	if [ -n "$only" ] && ! echo ",$only," | grep -q ",$name,"; then
		continue
	fi
	# what both runs need, made before either is timed (data, a warm
	# page cache)
	if declare -F "warm_$name" >/dev/null; then
		OUTDIR=$work/out "warm_$name" >/dev/null 2>&1
	fi
	for mode in nptl gmp; do
		d=$work/out/$name.$mode
		if [ $mode = gmp ]; then pre="env LD_PRELOAD=$lib"; else pre=""; fi
		for try in 1 2; do
			rm -rf "$d"
			mkdir -p "$d"
			PRE=$pre OUTDIR=$d "$bin/yardmon" -t "$timeout" -c "$names" -o "$d/stat" -- \
				bash -c "case_$name" >"$d/out" 2>"$d/err" </dev/null
			echo $? >"$d/code"
			# the reference run, only, gets a second chance: a
			# failure under NPTL says nothing about libgmp
			[ $mode = nptl ] && [ "$(cat "$d/code")" != 0 ] && [ $try = 1 ] || break
			echo "note $name: the NPTL run failed (exit $(cat "$d/code")): running it again"
		done
	done
	n=$work/out/$name.nptl
	g=$work/out/$name.gmp
	grep -v '^figure:' "$n/out" >"$n/check"
	grep -v '^figure:' "$g/out" >"$g/check"
	why=""
	[ "$(cat "$n/code")" = 0 ] || why="exit $(cat "$n/code") under NPTL"
	[ -n "$why" ] || [ "$(cat "$g/code")" = 0 ] || why="exit $(cat "$g/code") under libgmp"
	if [ -z "$why" ]; then
		if [ "$cmp" = subset ]; then
			lost=$(sort "$n/check" | comm -23 - <(sort "$g/check") | head -5)
			[ -z "$lost" ] || why="passed under NPTL only: $(echo $lost)"
		elif ! cmp -s "$n/check" "$g/check"; then
			why="output differs: $(diff "$n/check" "$g/check" | grep '^[<>]' | head -4 | tr '\n' ' ')"
		fi
	fi
	[ -s "$n/check" ] || [ -n "$why" ] || why="no output"
	skipped=$(grep -m1 '^skipped: ' "$n/check")
	fig_n=$(grep '^figure:' "$n/out" | sed 's/^figure: *//' | paste -sd';' | sed 's/;/; /g')
	fig_g=$(grep '^figure:' "$g/out" | sed 's/^figure: *//' | paste -sd';' | sed 's/;/; /g')
	wn=$(stat_of "$n/stat" wall); wg=$(stat_of "$g/stat" wall)
	tn=$(stat_of "$n/stat" threads); tg=$(stat_of "$g/stat" threads)
	rn=$(stat_of "$n/stat" rss_kb); rg_=$(stat_of "$g/stat" rss_kb)
	if [ -n "$skipped" ] && [ -z "$why" ]; then
		verdict=SKIP
		nskip=$((nskip + 1))
	elif [ -z "$why" ]; then
		verdict=PASS
		pass=$((pass + 1))
	else
		verdict=FAIL
		fail=$((fail + 1))
	fi
	echo "$verdict $name: wall ${wn}s vs ${wg}s, peak OS threads $tn vs $tg, peak RSS $(human "${rn:-0}") vs $(human "${rg_:-0}") (NPTL vs libgmp)${why:+ — $why}"
	[ -n "$fig_g" ] && echo "    figures: NPTL $fig_n | libgmp $fig_g"
	if [ $verdict = FAIL ]; then
		for m in nptl gmp; do
			echo "    --- $m stderr (last lines):"
			tail -40 "$work/out/$name.$m/err" | sed 's/^/    /'
		done
	fi
	works=yes
	[ $verdict = SKIP ] && works="skipped (${skipped#skipped: })"
	[ $verdict = FAIL ] && works="**no**: $why"
	rows="$rows| $name | $what | $works | ${wn} s | ${wg} s | $tn | $tg | $(human "${rn:-0}") | $(human "${rg_:-0}") | ${fig_n:-} | ${fig_g:-} |
"
done <<<"$CASES"

table="| case | what runs | works | wall NPTL | wall libgmp | peak OS threads NPTL | libgmp | peak RSS NPTL | libgmp | figures NPTL | figures libgmp |
|---|---|---|---|---|---|---|---|---|---|---|
$rows
Generated by \`make compat\` (tests/compat/yard.sh) on $(nproc) CPUs, $(date -u +%Y-%m-%d); libgmp with its default processors."

if [ -n "$results" ]; then
	printf '%s\n' "$table" >"$results"
fi
if [ -n "$readme" ] && [ -z "$only" ] && grep -q '<!-- yard:begin -->' "$readme"; then
	tmp=$readme.yard.tmp
	TABLE=$table awk '
		/<!-- yard:begin -->/ { print; print ENVIRON["TABLE"]; skip = 1; next }
		/<!-- yard:end -->/ { skip = 0 }
		!skip { print }' "$readme" >"$tmp" && mv "$tmp" "$readme"
fi
skipnote=""
[ "$nskip" -gt 0 ] && skipnote=", $nskip skipped"
echo "yard: $pass passed, $fail failed$skipnote"
[ "$fail" -eq 0 ]
