// SPDX-License-Identifier: MIT
/* Placeholder until the cmd_list work lands; replaced wholesale by its owner. */
#include <stdio.h>
#include "cli.h"

int cmd_list(int argc, char **argv)
{
	(void)argc; (void)argv;
	fprintf(stderr, "tally list: not built yet\n");
	return 1;
}
