/* SPDX-License-Identifier: MIT */
/* perf report's --header: what the file says about itself, as perf 6.1 prints it. */
#ifndef TALLY_CLI_REPORT_HEADER_H
#define TALLY_CLI_REPORT_HEADER_H

#include <stdio.h>
#include <tally/tally.h>

void print_file_header(FILE *fp, const struct tally_data_reader *rd, const char *path);

#endif
