/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_sig.c — the fuzzer's generators for signals: dispositions, masks, sending, waiting, signalfd, timers
 * (tests/fuzz/fuzz.h).
 */
#include "fuzz.h"

const struct gen gens_sig[] = {
	{NULL, NULL},
};
const size_t ngens_sig = 0;
