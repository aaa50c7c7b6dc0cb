#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/check.sh — make check's share of the fuzzer: the fixed seeds
# (tests/fuzz/run.sh), within 2 minutes.
exec "$(dirname "$0")/run.sh" --budget 110
