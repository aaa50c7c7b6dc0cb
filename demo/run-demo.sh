#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs demo/threads under NPTL (plain) and under libgmp (gmprun), and prints
# what each run reported side by side.
set -e
top=${BUILDDIR:-$(cd "$(dirname "$0")/.." && pwd)}
prog="$top/demo/threads"
n=${1:-10000}

echo "demo: $n threads, each sleeping 5 ms and computing, ten times over"
echo
echo "== NPTL (glibc's threads: one OS thread per thread)"
"$prog" "$n" | tee /tmp/gmp-demo-nptl.$$
echo
echo "== libgmp (LD_PRELOAD via gmprun: threads are user-level, on few OS threads)"
"$top/gmprun" --stats -- "$prog" "$n" | tee /tmp/gmp-demo-gmp.$$
echo
nw=$(awk '/wall time/ {print $3}' /tmp/gmp-demo-nptl.$$)
gw=$(awk '/wall time/ {print $3}' /tmp/gmp-demo-gmp.$$)
nt=$(awk '/peak OS threads/ {print $4}' /tmp/gmp-demo-nptl.$$)
gt=$(awk '/peak OS threads/ {print $4}' /tmp/gmp-demo-gmp.$$)
nc=$(awk '/checksum/ {print $2}' /tmp/gmp-demo-nptl.$$)
gc=$(awk '/checksum/ {print $2}' /tmp/gmp-demo-gmp.$$)
rm -f /tmp/gmp-demo-nptl.$$ /tmp/gmp-demo-gmp.$$
echo "== summary"
printf '%-18s %12s %12s\n' "" "NPTL" "libgmp"
printf '%-18s %12s %12s\n' "peak OS threads" "$nt" "$gt"
printf '%-18s %12s %12s\n' "wall time (s)" "$nw" "$gw"
awk -v a="$nw" -v b="$gw" 'BEGIN { if (b > 0) printf "libgmp ran %.1fx faster, with %s instead of %s OS threads\n", a / b, "'"$gt"'", "'"$nt"'" }'
if [ "$nc" = "$gc" ]; then echo "same checksum: $gc"; else echo "CHECKSUMS DIFFER: $nc vs $gc"; exit 1; fi
echo
echo "== gmprun --compare: 3 runs each, interleaved, on 1 and 2 processors"
"$top/gmprun" --compare -n 3 --procs 1,2 -- "$prog" "$n" -q 2>/dev/null
