#!/bin/bash
# SPDX-License-Identifier: MIT
# bench/sweep.sh — how NPTL and libgmp scale with the number of threads:
# two workloads, each at five sizes, under both libraries, one point after
# the other (interleaved as in run.sh: odd repetitions NPTL first). It
# writes the points to sweep.dat, charts of them to sweep-sleepers.svg and
# sweep-echo.svg (with gnuplot), every run's raw line to sweep-raw.txt, and
# a section with the tables and the links into the report (results.md),
# all in the report's directory.
#
#   bench/sweep.sh [-r REPS] [-o FILE] [-p PROCS] [--quick] [--report-only]
#
#   -r REPS         runs per point and library (default 3; 1 with --quick);
#                   each measure is the median over the runs that succeeded.
#                   A library that failed at a point is not run there again
#   -o FILE         the report the section goes into (default: results.md
#                   next to this script), before its "## Raw results" (or at
#                   its end), replacing the section of an earlier sweep
#   -p PROCS        GMPMAXPROCS for the libgmp runs (default: libgmp's own)
#   --quick         tiny sizes: a check that it all works, not numbers
#   --report-only   no runs: the data file, the charts and the section again
#                   from the raw lines of the last sweep (sweep-raw.txt)
#
# The points:
#   sleepers  T = 1,000 3,000 10,000 30,000 100,000 threads, all alive at
#             once (bench/sleepers T 20 gate): each sleeps 1 ms 20 times
#             after a start gate. Measures: sleeps completed per second
#             (T x 20 / the time from opening the gate to the last join),
#             that time over the ideal 20 ms, and the peak OS threads.
#             NPTL cannot create more threads than pid_max allows (about
#             32,000 here): such a point is a failed one, with its reason
#             and the OS threads it had reached, not a missing line.
#   echo      C = 100 500 1,000 2,000 5,000 connections to the
#             thread-per-connection bench/echo_server, driven by
#             bench/echo_load for 3 s after 1 s of warm-up, as run.sh
#             does it. Measures: requests per second, latency p50 and p99,
#             and the server's peak OS threads.
#
# Without gnuplot (or GNUPLOT, naming it, not runnable) the data file and
# the tables are written and the section says that the charts were
# skipped. Needs bash, awk, timeout. BUILDDIR names the build tree
# (default: the parent of this script's directory).
set -u
LC_ALL=C
export LC_ALL

here=$(cd "$(dirname "$0")" && pwd)
top=${BUILDDIR:-$(cd "$here/.." && pwd)}
gmprun="$top/gmprun"
gnuplot=${GNUPLOT:-gnuplot}
reps=
out="$here/results.md"
procs=
quick=0
report_only=0

usage() { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
	case $1 in
	-r) reps=$2; shift ;;
	-o) out=$2; shift ;;
	-p) procs=$2; shift ;;
	--quick) quick=1 ;;
	--report-only) report_only=1 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "sweep.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
[ -n "$reps" ] || reps=$((quick ? 1 : 3))
case $reps in ''|*[!0-9]*|0) echo "sweep.sh: -r wants a positive count" >&2; exit 2 ;; esac
[ -n "$procs" ] && export GMPMAXPROCS=$procs

dir=$(cd "$(dirname "$out")" && pwd) || exit 2
raw=$dir/sweep-raw.txt
dat=$dir/sweep.dat

# workload | sizes | arguments after the size | timeout (s)
if [ $quick = 1 ]; then
	rounds=5 echo_secs=0.3 echo_warm=0.2
	plan="sleepers|100 300 1000|$rounds gate|60
echo|10 50 100|$echo_secs $echo_warm|30"
else
	rounds=20 echo_secs=3 echo_warm=1
	plan="sleepers|1000 3000 10000 30000 100000|$rounds gate|120
echo|100 500 1000 2000 5000|$echo_secs $echo_warm|90"
fi

# make_tmp, run_one, run_echo, source_rev, awk_median
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"
make_tmp gmp-sweep

if [ $report_only = 0 ]; then
	for p in "$gmprun" "$top/bench/sleepers" "$top/bench/echo_server" "$top/bench/echo_load"; do
		[ -x "$p" ] || { echo "sweep.sh: $p is not built (make bench builds it)" >&2; exit 2; }
	done
	# echo_server and echo_load each hold one descriptor per connection and
	# raise their soft limit to the hard one: the hard one must cover the
	# largest point (raising it takes privilege; without, a point beyond it
	# fails, and says so)
	need=$(($(echo "$plan" | awk -F'|' '$1 == "echo" {n = split($2, s, " "); print s[n]}') + 64))
	hard=$(ulimit -Hn)
	if [ "$hard" != unlimited ] && [ "$hard" -lt "$need" ]; then
		ulimit -Hn "$need" 2>/dev/null || echo "sweep.sh: open files limited to $hard" >&2
	fi
	echo "# started $(date -u '+%Y-%m-%d %H:%M UTC'), source $(source_rev)" >"$raw"
	wprocs=''	# for run_one: no GMPMAXPROCS of the workload's own
	echo "$plan" | while IFS='|' read -r w sizes args to; do
		for size in $sizes; do
			failed=' '	# the libraries that failed at this point
			for rep in $(seq 1 "$reps"); do
				if [ $((rep % 2)) = 1 ]; then order="nptl libgmp"; else order="libgmp nptl"; fi
				for mode in $order; do
					# a library that failed at a point is not run there again
					case $failed in *" $mode "*) continue ;; esac
					# shellcheck disable=SC2086
					run_one "$w@$size" "$mode" "$rep" "$to" "$size" $args
					tail -1 "$raw" | grep -q '^[^ ]* [a-z]* [0-9]* rc=0 ' || failed="$failed$mode "
				done
			done
		done
	done
elif [ ! -s "$raw" ]; then
	echo "sweep.sh: no $raw to report from" >&2
	exit 2
else
	reps=$(awk '!/^#/ && $3 + 0 > m {m = $3 + 0} END {print m}' "$raw")
fi

rounds=$(awk '$1 ~ /^sleepers@/ {for (i = 5; i <= NF; i++) if ($i ~ /^rounds=/) {print substr($i, 8); exit}}' "$raw")
echo_secs=$(awk '$1 ~ /^echo@/ {for (i = 5; i <= NF; i++) if ($i ~ /^seconds=/) {print substr($i, 9) + 0; exit}}' "$raw")
gp=$(awk '$2 == "libgmp" {for (i = 5; i <= NF; i++) if ($i ~ /^gomaxprocs=/) {print substr($i, 12); exit}}' "$raw")

# ------------------------------------------------------------- data file
# One line per workload, size and library, the NPTL lines of a workload
# before its libgmp ones (so that a chart's line is one run of rows):
#   workload size library runs rate aux1 aux2 peak_os_threads rss_kib status "failure"
# rate, aux1, aux2: sleeps per second, wall / ideal, seconds to create all
# the threads (sleepers); requests per second, p50 and p99 latency in µs
# (echo). runs: succeeded/made. A point with no run that succeeded is
# "failed", with the figures its last run had (NaN where it had none).
awk -v rounds="${rounds:-?}" \
	-v echo_secs="${echo_secs:-?}" "$awk_median"'
BEGIN { CONVFMT = "%.10g" }
function median(k, c,    n, i, a) {
	n = nv[k, c]
	if (n == 0) return "NaN"
	for (i = 1; i <= n; i++) a[i] = v[k, c, i]
	return sorted_median(a, n)
}
function num(x) { return x ~ /^-?[0-9.]+$/ ? x : "" }
# why a run failed: the error that stopped the threads, the connections
# left without a reply, or what the run line says before its RESULT fields
function reason(rc,    i, s) {
	if (f["create_error"] != "" && f["create_error"] != "none")
		return "pthread_create " f["create_error"] " after " f["reached"] " threads"
	if (f["starved"] + 0 > 0)
		return f["starved"] " of " f["conns"] " connections got no reply"
	s = ""
	for (i = 5; i <= NF && $i !~ /^name=/; i++) s = s (s == "" ? "" : " ") $i
	gsub(/"/, "", s)
	if (length(s) > 100) s = substr(s, 1, 97) "..."
	if (rc + 0 == 124) return s
	return "exit status " rc (rc + 0 > 128 ? " (signal " rc - 128 ")" : "") (s != "" ? ": " s : "")
}
# the first line says when the sweep started, and the source
NR == 1 && /^# / { sub(/^# /, ""); when = $0; next }
/^#/ { next }
{
	split($1, pw, "@"); w = pw[1]; sz = pw[2]; m = $2; rc = substr($4, 4)
	if (!(w in nsz)) { ws[++nw] = w; nsz[w] = 0 }
	if (!((w, sz) in seen)) { seen[w, sz] = 1; szs[w, ++nsz[w]] = sz }
	k = w SUBSEP sz SUBSEP m
	tot[k]++
	split("", f)
	for (i = 5; i <= NF; i++) if ((e = index($i, "=")) > 1) f[substr($i, 1, e - 1)] = substr($i, e + 1)
	if (w == "sleepers") {
		x[1] = num(f["seconds"]) + 0 > 0 ? sprintf("%.0f", f["n"] * f["rounds"] / f["seconds"]) : ""
		x[2] = num(f["x_ideal"]); x[3] = num(f["create_seconds"])
		x[4] = num(f["peak_os_threads"]); x[5] = num(f["rss_kib"])
	} else {
		x[1] = num(f["rps"]); x[2] = num(f["p50_us"]); x[3] = num(f["p99_us"])
		x[4] = num(f["peak_threads"]); x[5] = num(f["rss_kb"])
	}
	if (rc == "0" && f["name"] != "") {
		okn[k]++
		for (c = 1; c <= 5; c++) if (x[c] != "") v[k, c, ++nv[k, c]] = x[c]
	} else {
		nfail[k]++; why[k] = reason(rc)
		for (c = 1; c <= 5; c++) last[k, c] = x[c] != "" ? x[c] : "NaN"
	}
}
END {
	print "# gmpsched: NPTL and libgmp against the number of threads (bench/sweep.sh)"
	print "# " when
	print "# One line per point and library: the median over the runs that succeeded"
	print "# (runs: succeeded/made). A failed point (no run succeeded) has the figures"
	print "# of its last run, NaN where it had none, and says why in the last column."
	for (i = 1; i <= nw; i++) {
		w = ws[i]
		print ""
		print ""
		if (w == "sleepers") {
			print "# sleepers: T threads alive at once, each sleeping 1 ms " rounds " times after a start gate"
			print "# workload threads library runs sleeps_per_sec wall_over_ideal create_seconds peak_os_threads rss_kib status failure"
		} else {
			print "# echo: C connections to a thread-per-connection server, one 64-byte request outstanding on each, " echo_secs " s"
			print "# workload connections library runs requests_per_sec p50_us p99_us peak_os_threads rss_kib status failure"
		}
		for (l = 1; l <= 2; l++) {
			m = l == 1 ? "nptl" : "libgmp"
			for (j = 1; j <= nsz[w]; j++) {
				sz = szs[w, j]; k = w SUBSEP sz SUBSEP m
				if (!tot[k]) continue
				line = w " " sz " " m " " okn[k] + 0 "/" tot[k]
				if (okn[k]) {
					for (c = 1; c <= 5; c++) line = line " " median(k, c)
					fl = nfail[k] ? nfail[k] " of " tot[k] " runs failed: " why[k] : "-"
					print line " ok \"" fl "\""
				} else {
					for (c = 1; c <= 5; c++) line = line " " last[k, c]
					print line " failed \"" why[k] "\""
				}
			}
		}
	}
}' "$raw" >"$dat"

# ----------------------------------------------------------------- charts
# sweep-W.svg: for workload W (index I of sweep.dat), its rate (left) and
# peak OS threads (right) against its size, one line per library, over
# the points that succeeded; a failed point is a cross with its reason, at
# the figure it had (the OS threads it reached) or near the bottom.
charts='' skipped=''
if command -v "$gnuplot" >/dev/null 2>&1; then
	{
		cat <<EOF
set terminal svg size 1100,460 dynamic noenhanced font "sans,12" background "white"
set datafile commentschars "#"
set logscale x
set format x "%.0s%c"
set grid
set key top left Left reverse
set pointsize 1.3
set lmargin 12
ok(l, c) = (strcol(3) eq l && strcol(10) eq "ok") ? column(c) : NaN
EOF
		awk -v d="$(basename "$dat")" -v rounds="${rounds:-?}" -v echo_secs="${echo_secs:-?}" -v gp="${gp:-?}" '
		function q(s) { gsub(/"/, "", s); return "\"" s "\"" }
		# s cut into lines of about 32 characters at its spaces
		function wrap(s,    n, i, a, l, r) {
			n = split(s, a, " "); r = ""; l = ""
			for (i = 1; i <= n; i++) {
				if (l != "" && length(l) + 1 + length(a[i]) > 32) { r = r l "\\n"; l = "" }
				l = l (l == "" ? "" : " ") a[i]
			}
			return r l
		}
		# the failed points of workload w as labels, in the panel of column c:
		# at the figure the point had, with the text below it, or near the
		# bottom, with the text ending there; the text to the left of a
		# point in the right half, else to its right
		function marks(w, c,    i, y, dy, right) {
			for (i = 1; i <= nf; i++) if (fw[i] == w) {
				y = fv[i, c] != "NaN" ? "first " fv[i, c] : "graph 0.1"
				dy = fv[i, c] != "NaN" ? -3 : 2.2
				right = log(fs[i]) * 2 > log(lo[w]) + log(hi[w])
				printf "set label %d %s at first %s, %s %s offset %s,%s point pt 2 ps 2 lw 2 lc rgb \"black\" front\n",
					i, q(fl[i] " failed at " fs[i] ":\\n" wrap(fwhy[i])), fs[i], y,
					right ? "right" : "left", right ? -1 : 1, dy
			}
		}
		function panel(w, ix, c, ylab, lin) {
			print "unset label"
			marks(w, c)
			print "set ylabel " q(ylab)
			print (lin ? "unset logscale y; set yrange [0:*]" : "set logscale y; set yrange [*:*]")
			print "set format y \"%.0s%c\""
			printf "plot \"%s\" index %d using 2:(ok(\"nptl\", %d)) with linespoints lw 2 pt 7 lc rgb \"#1f77b4\" title \"NPTL\", ", d, ix, c
			printf "\"\" index %d using 2:(ok(\"libgmp\", %d)) with linespoints lw 2 pt 5 lc rgb \"#ff7f0e\" title \"libgmp%s\"", ix, c, gp != "?" ? " (GMPMAXPROCS=" gp ")" : ""
			if (nfw[w]) printf ", keyentry with points pt 2 ps 2 lw 2 lc rgb \"black\" title \"failed point\""
			print ""
		}
		$0 !~ /^#/ && NF >= 11 {
			if (!($1 in idx)) { idx[$1] = n; ws[++n] = $1; sizes[$1] = "" }
			if (!(($1, $2) in seen)) { seen[$1, $2] = 1; sizes[$1] = sizes[$1] (sizes[$1] == "" ? "" : ", ") $2 }
			if (!($1 in lo) || $2 + 0 < lo[$1]) lo[$1] = $2 + 0
			if (!($1 in hi) || $2 + 0 > hi[$1]) hi[$1] = $2 + 0
			if ($10 == "failed") {
				fw[++nf] = $1; fs[nf] = $2; fl[nf] = $3 == "nptl" ? "NPTL" : "libgmp"
				fv[nf, 5] = $5; fv[nf, 8] = $8; nfw[$1]++
				fwhy[nf] = substr($0, index($0, "\"") + 1); sub(/"$/, "", fwhy[nf])
			}
		}
		END {
			for (i = 1; i <= n; i++) {
				w = ws[i]
				print "set output " q("sweep-" w ".svg")
				print "set xtics (" sizes[w] ")"
				print "set xrange [" lo[w] / 1.4 ":" hi[w] * 1.4 "]"
				print "set multiplot layout 1,2 title " q(w == "sleepers" ? \
					"sleepers: threads alive at once, each sleeping 1 ms " rounds " times" : \
					"echo: thread-per-connection server, one request outstanding per connection, " echo_secs " s")
				if (w == "sleepers") {
					print "set xlabel \"threads (all alive at once)\""
					panel(w, idx[w], 5, "sleeps completed per second", 0)
				} else {
					print "set xlabel \"connections\""
					panel(w, idx[w], 5, "requests per second", 1)
				}
				panel(w, idx[w], 8, w == "echo" ? "server peak OS threads" : "peak OS threads", 0)
				print "unset multiplot"
				print "set output"
			}
		}' "$dat"
	} >"$tmp/plot.gp"
	if (cd "$dir" && "$gnuplot" "$tmp/plot.gp") 2>"$tmp/gnuplot.err"; then
		for w in $(awk '!/^#/ && NF {print $1}' "$dat" | uniq); do
			[ -s "$dir/sweep-$w.svg" ] && charts="${charts}sweep-$w.svg "
		done
	else
		skipped="Charts skipped: $gnuplot failed ($(grep -m1 . "$tmp/gnuplot.err"))."
		cat "$tmp/gnuplot.err" >&2
	fi
else
	skipped="Charts skipped: $gnuplot was not found."
fi

# ---------------------------------------------------------------- section
awk -v reps="$reps" -v gp="${gp:-}" -v charts="$charts" -v skipped="$skipped" -v rounds="${rounds:-?}" \
	-v echo_secs="${echo_secs:-?}" -v when="$(sed -n 2p "$dat" | sed 's/^# //')" -v raw="$raw" '
function cell(w, s, m, c, f, d,    k) {
	k = w SUBSEP s SUBSEP m
	if (!(k in st)) return "not run"
	if (st[k] == "failed" && (c == 5 || val[k, c] == "NaN")) return c == 5 ? "**failed**: " why[k] : "n/a"
	if (val[k, c] == "NaN") return "n/a"
	return sprintf(f, val[k, c] / d) (st[k] == "failed" ? " (at failure)" : "")
}
function pair(w, s, c, f, d) { return cell(w, s, "nptl", c, f, d) " / " cell(w, s, "libgmp", c, f, d) }
function ratio(w, s,    a, b) {
	a = w SUBSEP s SUBSEP "nptl"; b = w SUBSEP s SUBSEP "libgmp"
	if (st[a] != "ok" || st[b] != "ok" || val[a, 5] == "NaN" || val[b, 5] == "NaN" || val[a, 5] <= 0) return ""
	return sprintf("%.1fx", val[b, 5] / val[a, 5])
}
function table(w, szlabel, ratelabel, a1label, a1f, a2label, a2f,    i, s) {
	print "| " szlabel " | " ratelabel ", NPTL | " ratelabel ", libgmp | libgmp / NPTL | " a1label ", NPTL / libgmp | " \
		a2label ", NPTL / libgmp | peak OS threads, NPTL / libgmp | peak RSS MiB, NPTL / libgmp |"
	print "|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= nsz[w]; i++) {
		s = szs[w, i]
		print "| " s " | " cell(w, s, "nptl", 5, "%.1f", 1e3) " | " cell(w, s, "libgmp", 5, "%.1f", 1e3) " | " ratio(w, s) \
			" | " pair(w, s, 6, a1f, 1) " | " pair(w, s, 7, a2f, 1) " | " pair(w, s, 8, "%d", 1) " | " pair(w, s, 9, "%.1f", 1024) " |"
	}
	print ""
}
function chart(w, what) {
	if (!index(" " charts, " sweep-" w ".svg ")) return
	print "![" what "](sweep-" w ".svg)"
	print ""
	print "[`sweep-" w ".svg`](sweep-" w ".svg): " what "."
	print ""
}
/^#/ || NF < 11 { next }
{
	k = $1 SUBSEP $2 SUBSEP $3
	if (!(($1, $2) in seen)) { seen[$1, $2] = 1; szs[$1, ++nsz[$1]] = $2 }
	st[k] = $10; runs[k] = $4
	for (c = 5; c <= 9; c++) val[k, c] = $c
	why[k] = substr($0, index($0, "\"") + 1); sub(/"$/, "", why[k])
	if (why[k] != "-" && $10 == "ok") notes[++nn] = "- " $1 " at " $2 " under " ($3 == "nptl" ? "NPTL" : "libgmp") ": " why[k]
}
END {
	print "## Thread-count sweep"
	print ""
	print "`bench/sweep.sh` (" when "): two workloads, each at " nsz["sleepers"] + 0 \
		(nsz["echo"] != nsz["sleepers"] ? " and " nsz["echo"] + 0 : "") " sizes,"
	print "under NPTL and under libgmp" (gp != "" ? " (GMPMAXPROCS=" gp ")" : "") ", one point after the other."
	print "Each figure is the median over at most " reps " run" (reps == 1 ? "" : "s") " per point and library"
	print "(a library that failed at a point is not run there again). The points are"
	print "in [`sweep.dat`](sweep.dat), every run'"'"'s raw line at the end of this section."
	print ""
	if (skipped != "") {
		print skipped
		print ""
	}
	if (nsz["sleepers"]) {
		print "### Sleepers"
		print ""
		print "T threads alive at once (`sleepers T " rounds " gate`): each waits at a start gate,"
		print "then sleeps 1 ms " rounds " times; throughput is T x " rounds " sleeps over the time from opening"
		print "the gate to the last join, and wall / ideal that time over " rounds " ms. NPTL makes one OS"
		print "thread per thread, and stops where the machine'"'"'s process IDs run out."
		print ""
		table("sleepers", "threads", "thousand sleeps per second", "wall / ideal", "%.1fx", "create all, s", "%.2f")
		chart("sleepers", "sleeps completed per second and peak OS threads against threads alive at once")
	}
	if (nsz["echo"]) {
		print "### Echo"
		print ""
		print "C connections to `echo_server` (one thread per connection), each with one"
		print "64-byte request outstanding, driven by `echo_load` for " echo_secs " s after a warm-up,"
		print "as in run.sh; the OS threads and RSS are the server'"'"'s."
		print ""
		table("echo", "connections", "thousand requests per second", "p50 latency, µs", "%.0f", "p99 latency, µs", "%.0f")
		chart("echo", "requests per second and the server'"'"'s peak OS threads against connections")
	}
	if (nn) {
		print "Runs that failed at points where others succeeded (not in the medians):"
		print ""
		for (i = 1; i <= nn; i++) print notes[i]
		print ""
	}
	print "The sweep'"'"'s runs, one line each: point, library, repetition, exit status,"
	print "the RESULT fields (and for libgmp what `gmprun --stats` counted):"
	print ""
	print "```"
	while ((getline l < raw) > 0) print l
	print "```"
	print ""
}' "$dat" >"$tmp/section"

# the section goes before "## Raw results", replacing an earlier one
if [ -f "$out" ]; then
	awk -v sec="$tmp/section" '
	function put() { if (!done) { while ((getline l < sec) > 0) print l; done = 1 } }
	/^## Thread-count sweep$/ { skip = 1; next }
	skip && /^## / { skip = 0 }
	skip { next }
	/^## Raw results$/ { put() }
	{ print }
	END { if (!done) { print ""; put() } }' "$out" >"$tmp/report"
	cp "$tmp/report" "$out"
else
	cp "$tmp/section" "$out"
fi
sed -n '/^| /p' "$tmp/section"
[ -z "$skipped" ] || echo "$skipped"
echo "wrote $dat, $raw${charts:+, $charts(charts)} and the section in $out"
