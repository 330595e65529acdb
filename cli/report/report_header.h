/* SPDX-License-Identifier: MIT */
/*
 * perf report's --header: what the file says about itself, as perf 6.1
 * prints it; and report's account of the DWARF unwinding.
 */
#ifndef TALLY_CLI_REPORT_HEADER_H
#define TALLY_CLI_REPORT_HEADER_H

#include <stdbool.h>
#include <stdio.h>
#include <tally/tally.h>

void print_file_header(FILE *fp, const struct tally_data_reader *rd, const char *path);
/* --call-graph dwarf: how many chains ended early, and why (perf does not say); not with quiet. */
void report_print_unwind(const struct tally_session *ss, bool quiet);

#endif
