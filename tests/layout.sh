#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/layout.sh — the source layout README.md and core/HACKING.md
# describe: data flows one way, arch -> core -> preload and shim, so no
# file of arch/ or core/ includes a header from above it; nothing of the
# library includes the launcher's (tools/); and no function of the
# library or the launcher is over 100 lines (a body between a '{' and a
# '}' in the first column, as every function here is written).
src=${abs_top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$src" || exit 1
rc=0
up=$(grep -ln '#include "\(preload\|shim\|tools\)/' arch/*/*.[chS] core/*.[ch] 2>/dev/null)
if [ -n "$up" ]; then
	echo "FAIL: arch/ or core/ includes from preload/, shim/ or tools/:" $up
	rc=1
fi
# and no symbol of the core is one preload/ or shim/ defines (its start
# steps are registered in a section instead: GMP_START_STEP)
bld=${abs_top_builddir:-$src}
if ls "$bld"/core/.libs/*.o "$bld"/preload/.libs/*.o >/dev/null 2>&1; then
	tmp=$(mktemp -d)
	nm -u "$bld"/core/.libs/*.o "$bld"/arch/x86_64/.libs/*.o 2>/dev/null |
		awk '$1 == "U" { print $2 }' | sort -u >"$tmp/core"
	nm -g --defined-only "$bld"/preload/.libs/*.o "$bld"/shim/.libs/*.o |
		awk 'NF == 3 { print $3 }' | sort -u >"$tmp/upper"
	upsyms=$(comm -12 "$tmp/core" "$tmp/upper")
	rm -rf "$tmp"
	if [ -n "$upsyms" ]; then
		echo "FAIL: the core uses symbols of preload/ or shim/:" $upsyms
		rc=1
	fi
else
	echo "layout.sh: no objects built in $bld: the symbol check is skipped"
fi
lib_tools=$(grep -ln '#include "tools/' preload/*.[ch] shim/*.[ch] 2>/dev/null)
if [ -n "$lib_tools" ]; then
	echo "FAIL: the library includes the launcher's headers:" $lib_tools
	rc=1
fi
long=$(for f in arch/*/*.c core/*.c preload/*.c shim/*.c tools/*/*.c; do
	awk -v F="$f" '/^\{/ { start = NR; name = prev }
		/^\}/ && start { n = NR - start - 1; if (n > 100) print F ": " n " lines: " name; start = 0 }
		{ prev = $0 }' "$f"
done)
if [ -n "$long" ]; then
	echo "FAIL: functions over 100 lines:"
	echo "$long"
	rc=1
fi
[ $rc -ne 0 ] || echo "layout: arch -> core -> preload/shim, tools apart, no function over 100 lines"
exit $rc
