# SPDX-License-Identifier: MIT
# tests/compat/junit_passed.py XML — the tests a CPython regression run
# (python -m test --junit-xml XML) passed, one name a line, sorted, then a
# "figure:" line with the counts. Reading the XML, not the verbose log,
# counts every test, also those that print while they run (their "ok"
# is then on a line of its own). No XML (the run crashed): no names.
import sys
import xml.etree.ElementTree as ET

passed, failed, skipped = [], 0, 0
try:
    root = ET.parse(sys.argv[1]).getroot()
except (OSError, ET.ParseError):
    root = None
for tc in root.iter("testcase") if root is not None else ():
    tags = {child.tag for child in tc}
    if tags & {"failure", "error"}:
        failed += 1
    elif "skipped" in tags:
        skipped += 1
    else:
        passed.append(tc.get("name"))
for name in sorted(passed):
    print(name)
print(f"figure: {len(passed)} passed, {failed} failed, {skipped} skipped")
