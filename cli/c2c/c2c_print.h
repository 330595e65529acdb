/* SPDX-License-Identifier: MIT */
/* tally c2c report's text: perf c2c report --stdio's sections and tables. */
#ifndef TALLY_CLI_C2C_PRINT_H
#define TALLY_CLI_C2C_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include <tally/tally.h>

struct c2c_print {
	struct tally_c2c *c;
	struct tally_session *ss;
	enum tally_c2c_display display;
	const char *coalesce;		/* -c as given (perf's "Cacheline data grouping") */
	int node_info;			/* -N's count */
	bool stats_only, full_symbols, show_all;
	bool show_pid, show_tid, show_iaddr, show_dso, show_src;
};

/* Every section; 0, or -1 when stdout failed. */
int c2c_print(const struct c2c_print *p, FILE *fp);

#endif
