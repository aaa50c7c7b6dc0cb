/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_net.c — the fuzzer's generators for sockets, name lookups and System V IPC
 * (tests/fuzz/fuzz.h).
 */
#include "fuzz.h"

const struct gen gens_net[] = {
	{NULL, NULL},
};
const size_t ngens_net = 0;
