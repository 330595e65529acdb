/* SPDX-License-Identifier: MIT */
/*
 * The report's cells without printf: a report of a real program prints
 * tens of thousands of percentages, and glibc's float formatting was a
 * sixth of its time. Each writes exactly what the printf format named
 * beside it writes.
 */
#ifndef TALLY_CLI_REPORT_FMT_H
#define TALLY_CLI_REPORT_FMT_H

#include <stddef.h>
#include <stdio.h>

/* fprintf(fp, "%*.2f%%", width, v) */
void put_pct(FILE *fp, double v, int width);

/* fprintf(fp, "%-*s", width, s) of s's first len bytes */
void put_left(FILE *fp, const char *s, size_t len, int width);

#endif
