/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_proc.c — the fuzzer's generators for processes, credentials, scheduling, fork and wait families, and the rest
 * (tests/fuzz/fuzz.h).
 */
#include "fuzz.h"

const struct gen gens_proc[] = {
	{NULL, NULL},
};
const size_t ngens_proc = 0;
