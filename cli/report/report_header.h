/* SPDX-License-Identifier: MIT */
/*
 * report's account of the DWARF unwinding (the file's header block:
 * cli/file_header.h).
 */
#ifndef TALLY_CLI_REPORT_HEADER_H
#define TALLY_CLI_REPORT_HEADER_H

#include <stdbool.h>
#include <stdio.h>
#include <tally/tally.h>

/* --call-graph dwarf: how many chains ended early, and why (perf does not say); not with quiet. */
void report_print_unwind(const struct tally_session *ss, bool quiet);

#endif
