/* SPDX-License-Identifier: MIT */
/*
 * tests/fuzz/fuzz_io.c — the fuzzer's generators for descriptors and files: open, read and write families, epoll, inotify, locks, sync
 * (tests/fuzz/fuzz.h).
 */
#include "fuzz.h"

const struct gen gens_io[] = {
	{NULL, NULL},
};
const size_t ngens_io = 0;
