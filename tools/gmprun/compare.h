/* SPDX-License-Identifier: MIT */
/*
 * tools/gmprun/compare.h — gmprun --compare (compare.c): the program
 * under NPTL and under libgmp, REPS times each, interleaved, and a report
 * of the medians side by side.
 */
#ifndef GMP_TOOLS_GMPRUN_COMPARE_H
#define GMP_TOOLS_GMPRUN_COMPARE_H

/* argv as gmprun got it (argv[1] is "--compare"); lib: libgmp.so's path.
 * Returns gmprun's exit status: 0 when every run ended the same way and
 * printed the same output (unless --no-output-check), 1 when they did
 * not, 2 for a bad option, 127 when the program could not be run or a
 * --json or --svg file not written. */
int gmprun_compare(int argc, char **argv, const char *lib);

/* (main.c) Set the environment of a program run on libgmp: lib
 * first in LD_PRELOAD, and GMPMAXPROCS=procs unless procs is 0. 0, or -1
 * out of memory. */
int gmprun_preload(const char *lib, int procs);

#endif
