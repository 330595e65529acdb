// SPDX-License-Identifier: MIT
/* tally trace -i: the syscalls a perf.data file recorded. */
#include <stdio.h>
#include "trace.h"

int trace_file(const struct trace_config *cfg)
{
	fprintf(stderr, "tally trace: -i %s: reading files is not supported yet\n", cfg->input);
	return 1;
}
