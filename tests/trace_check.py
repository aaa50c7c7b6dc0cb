#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tests/trace_check.py FILE CREATES: check an event trace written with
GMPTRACE: it is valid JSON in Chrome's trace-event format, each M's running
spans never overlap, and it records CREATES thread creations and as many
thread exits (CREATES "-": any number, for a process killed by a signal).
Prints what it found; exits 0 when all holds, 1 otherwise."""
import json
import sys
from collections import defaultdict

path = sys.argv[1]
creates = None if sys.argv[2] == "-" else int(sys.argv[2])
with open(path) as f:
    trace = json.load(f)
events = trace["traceEvents"]
spans = defaultdict(list)
counts = defaultdict(int)
for e in events:
    for key in ("name", "ph", "pid", "tid"):
        if key not in e:
            sys.exit(f"event without {key}: {e}")
    if e["ph"] == "X":
        spans[e["tid"]].append((float(e["ts"]), float(e["dur"])))
    elif e["ph"] == "i":
        counts[e["name"]] += 1
bad = 0
for tid, s in spans.items():
    s.sort()
    for (t0, d0), (t1, _) in zip(s, s[1:]):
        if t0 + d0 > t1 + 0.001:
            print(f"M {tid}: span at {t0} us lasting {d0} us overlaps the next at {t1} us")
            bad += 1
nspans = sum(len(s) for s in spans.values())
print(f"{len(events)} events, {nspans} running spans on {len(spans)} Ms, "
      f"{counts['create']} creates, {counts['exit']} exits, {bad} overlaps")
ok = bad == 0 and nspans > 0 and (creates is None or
                                  counts["create"] == creates == counts["exit"])
print("PASS" if ok else "FAIL")
sys.exit(0 if ok else 1)
