/* SPDX-License-Identifier: MIT */
/*
 * The report's cells without printf: a report of a real program prints
 * tens of thousands of percentages, and glibc's float formatting was a
 * sixth of its time. Each writes exactly what the printf format named
 * beside it writes. A row's cells go into a line in memory, written at
 * once: a stdio call per cell was a fifth of the rows' instructions.
 */
#ifndef TALLY_CLI_REPORT_FMT_H
#define TALLY_CLI_REPORT_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* fprintf(fp, "%*.2f%%", width, v) */
void put_pct(FILE *fp, double v, int width);

/* A line being made for fp: written when full and at line_flush (fp NULL: cut when full). */
struct line {
	FILE *fp;
	size_t n;
	char b[2048];
};

void line_flush(struct line *l);
void line_put(struct line *l, const char *s, size_t n);

static inline void line_putc(struct line *l, char c)
{
	if (l->n == sizeof(l->b)) {
		if (!l->fp)
			return;
		line_flush(l);
	}
	l->b[l->n++] = c;
}

/* "%*.2f%%", width, v */
void line_pct(struct line *l, double v, int width);

/* "%-*s", width, of s's first len bytes */
void line_left(struct line *l, const char *s, size_t len, int width);

/*
 * -t SEP (perf's --field-separator): SEP before each cell but the first,
 * no column padding after the last. A share " %.2f%%", a count " %llu",
 * each padded to width when not last.
 */
void line_sep_pct(struct line *l, const char *sep, bool first, double v, int width, bool last);
void line_sep_u64(struct line *l, const char *sep, bool first, unsigned long long v, int width,
		  bool last);
/* a key's cell s[0..n), SEP's first character in it made '.' (perf's repsep) */
void line_sep_text(struct line *l, const char *sep, bool first, char *s, size_t n);

#endif
