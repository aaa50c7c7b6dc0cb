#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/fuzz/run.sh — runs tests/fuzz/fuzz for each seed plainly (NPTL)
# and with libgmp preloaded, and compares the two transcripts and exit
# statuses. At the first difference it prints the seed, the calls that
# led to it and the two lines, and exits 1.
#
#   run.sh [--seeds "1 2 3"] [--calls N] [--seconds S] [--budget S]
#
#   --seeds LIST   these seeds (default 1 to 200)
#   --calls N      calls per seed (default 3,000)
#   --seconds S    instead of --seeds: random seeds until S seconds have
#                  passed
#   --budget S     stop starting seeds after S seconds (default 110; the
#                  seeds not run are counted and said)
#
# BUILDDIR names the build tree (default: two levels above this script).
set -u
here=$(cd "$(dirname "$0")" && pwd)
bld=${abs_top_builddir:-${BUILDDIR:-$(cd "$here/../.." && pwd)}}
fuzz=$bld/tests/fuzz/fuzz
lib=$bld/.libs/libgmp.so
seeds=$(seq 1 200)
calls=3000
seconds=0
budget=110
while [ $# -gt 0 ]; do
	case $1 in
	--seeds) seeds=$2; shift 2 ;;
	--calls) calls=$2; shift 2 ;;
	--seconds) seconds=$2; budget=$2; shift 2 ;;
	--budget) budget=$2; shift 2 ;;
	*) echo "usage: run.sh [--seeds LIST] [--calls N] [--seconds S] [--budget S]" >&2; exit 2 ;;
	esac
done
for f in "$fuzz" "$lib"; do
	[ -e "$f" ] || { echo "run.sh: $f is missing (build first)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# one SEED: 0 when both libraries wrote the same
one() {
	local seed=$1 rn rg
	timeout 60 "$fuzz" "$seed" "$calls" >"$tmp/nptl" 2>"$tmp/nptl.err"
	rn=$?
	timeout 60 env LD_PRELOAD="$lib" "$fuzz" "$seed" "$calls" >"$tmp/gmp" 2>"$tmp/gmp.err"
	rg=$?
	cat "$tmp/nptl" >>"$tmp/all"
	if [ "$rn" = "$rg" ] && cmp -s "$tmp/nptl" "$tmp/gmp"; then
		return 0
	fi
	echo "fuzz: seed $seed: the transcripts differ (exit status NPTL $rn, libgmp $rg;" \
		"124 is a timeout)"
	local n
	n=$(cmp "$tmp/nptl" "$tmp/gmp" 2>/dev/null | awk '{print $NF}')
	if [ -z "$n" ]; then
		n=$(($(wc -l <"$tmp/nptl") + 1))
		[ "$(wc -l <"$tmp/gmp")" -lt "$n" ] && n=$(($(wc -l <"$tmp/gmp") + 1))
	fi
	echo "the calls before it (NPTL's transcript):"
	head -n $((n - 1)) "$tmp/nptl" | tail -n 20 | sed 's/^/    /'
	echo "NPTL:   $(sed -n "${n}p" "$tmp/nptl")"
	echo "libgmp: $(sed -n "${n}p" "$tmp/gmp")"
	# a run a signal ended (128 + its number), and what each wrote on
	# stderr: libgmp's warnings say why
	local st
	for st in "NPTL $rn" "libgmp $rg"; do
		set -- $st
		[ "$2" -gt 128 ] && [ "$2" != 124 ] && echo "$1's run ended by signal $(($2 - 128)) ($(kill -l $(($2 - 128)) 2>/dev/null))"
	done
	[ -s "$tmp/nptl.err" ] && { echo "NPTL's stderr:"; tail -n 5 "$tmp/nptl.err" | sed 's/^/    /'; }
	[ -s "$tmp/gmp.err" ] && { echo "libgmp's stderr:"; tail -n 5 "$tmp/gmp.err" | sed 's/^/    /'; }
	echo "again: $fuzz $seed $calls (FUZZ_VERBOSE=1 prints each call before it is made)"
	return 1
}

start=$(date +%s)
ran=0
left=0
rc=0
if [ "$seconds" -gt 0 ]; then
	seeds=""
	while [ $(($(date +%s) - start)) -lt "$seconds" ]; do
		s=$(( (RANDOM << 15 | RANDOM) + 41 ))
		ran=$((ran + 1))
		one "$s" || { rc=1; break; }
	done
else
	for s in $seeds; do
		if [ $(($(date +%s) - start)) -ge "$budget" ]; then
			left=$((left + 1))
			continue
		fi
		ran=$((ran + 1))
		one "$s" || { rc=1; break; }
	done
fi
made=$(grep -c '^[0-9]' "$tmp/all" 2>/dev/null || echo 0)
fns=$(grep '^[0-9]' "$tmp/all" 2>/dev/null | awk '{sub(/\(.*/, "", $2); print $2}' | sort -u | wc -l)
notrun=""
[ "$left" -gt 0 ] && notrun=", $left seeds not run (time budget)"
echo "fuzz: $ran seeds of $calls calls, $made calls made over $fns functions," \
	"$(($(date +%s) - start)) s$notrun:" \
	"$([ $rc = 0 ] && echo "no difference" || echo "a difference")"
exit $rc
