// SPDX-License-Identifier: MIT
/* Placeholder until the cmd_stat work lands; replaced wholesale by its owner. */
#include <stdio.h>
#include "cli.h"

int cmd_stat(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "tally stat: not built yet\n");
	return 1;
}
