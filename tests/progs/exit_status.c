/* SPDX-License-Identifier: MIT */
/* Ends with the exit status argv[1], or by signal argv[2] when given. */
#include "common.h"
#include <signal.h>

int main(int argc, char **argv)
{
	if (argc > 2)
		raise(atoi(argv[2]));
	return argc > 1 ? atoi(argv[1]) : 0;
}
