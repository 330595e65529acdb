/* SPDX-License-Identifier: MIT */
/*
 * perf's header block (report and script --header, --header-only): the
 * file's layout, its feature sections in perf's words, the features it
 * lacks.
 */
#ifndef TALLY_CLI_FILE_HEADER_H
#define TALLY_CLI_FILE_HEADER_H

#include <stdbool.h>
#include <stdio.h>
#include <tally/tally.h>

void print_file_header(FILE *fp, const struct tally_data_reader *rd, const char *path);
/*
 * The same; without features, a pipe's layout block alone (script
 * --header-only stops there: a pipe's features are records after it);
 * with info (-I) the sections perf only names without it, in full
 */
void print_file_header_part(FILE *fp, const struct tally_data_reader *rd, const char *path,
			    bool features, bool info);
/* -I's sections (file_header_info.c): feat printed, or false for one it does not print */
bool print_header_info(FILE *fp, const struct tally_data_reader *rd, int feat);

#endif
