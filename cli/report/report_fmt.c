// SPDX-License-Identifier: MIT
/*
 * The report's cells without printf (the shares through
 * tally_hist__fmt_pct). The writes are stdio's unlocked ones: one thread
 * prints a stream.
 */
#include <stdbool.h>
#include <string.h>
#include <tally/hist.h>
#include "report_fmt.h"

static const char spaces[] = "                                ";

/* "%.2f" of the largest double, and a '%' */
#define PCT_MAX 336

void put_pct(FILE *fp, double v, int width)
{
	char buf[PCT_MAX];
	int n = tally_hist__fmt_pct(buf, sizeof(buf) - 1, v);

	if (n < 0 || n > (int)sizeof(buf) - 2)
		n = n < 0 ? 0 : (int)sizeof(buf) - 2;

	for (int pad = width - n; pad > 0; pad -= (int)sizeof(spaces) - 1)
		fwrite_unlocked(spaces, 1, pad < (int)sizeof(spaces) - 1 ? (size_t)pad :
				sizeof(spaces) - 1, fp);
	fwrite_unlocked(buf, 1, (size_t)n, fp);
	fputc_unlocked('%', fp);
}

void line_flush(struct line *l)
{
	if (!l->fp)
		return;	/* a cell made in memory: cut at the line's size */
	if (l->n)
		fwrite_unlocked(l->b, 1, l->n, l->fp);
	l->n = 0;
}

void line_put(struct line *l, const char *s, size_t n)
{
	while (n) {
		size_t room = sizeof(l->b) - l->n, k = n < room ? n : room;

		memcpy(l->b + l->n, s, k);
		l->n += k;
		s += k;
		n -= k;
		if (l->n == sizeof(l->b)) {
			if (!l->fp)
				return;
			line_flush(l);
		}
	}
}

static void line_spaces(struct line *l, int n)
{
	for (; n > 0; n -= (int)sizeof(spaces) - 1)
		line_put(l, spaces, n < (int)sizeof(spaces) - 1 ? (size_t)n : sizeof(spaces) - 1);
}

void line_pct(struct line *l, double v, int width)
{
	char buf[PCT_MAX];
	int n = tally_hist__fmt_pct(buf, sizeof(buf) - 1, v);

	if (n < 0 || n > (int)sizeof(buf) - 2)
		n = n < 0 ? 0 : (int)sizeof(buf) - 2;
	line_spaces(l, width - n);
	buf[n] = '%';
	line_put(l, buf, (size_t)n + 1);
}

void line_left(struct line *l, const char *s, size_t len, int width)
{
	line_put(l, s, len);
	if ((int)len < width)
		line_spaces(l, width - (int)len);
}

/*
 * -t's cells (perf's field_sep): sep before all but the first; a share
 * " %.2f%%" and a count " %llu", each padded to its column's width
 * unless it is the last.
 */
void line_sep_pct(struct line *l, const char *sep, bool first, double v, int width, bool last)
{
	char buf[PCT_MAX];
	int n = tally_hist__fmt_pct(buf, sizeof(buf) - 1, v);

	if (n < 0 || n > (int)sizeof(buf) - 2)
		n = n < 0 ? 0 : (int)sizeof(buf) - 2;
	if (!first)
		line_put(l, sep, strlen(sep));
	line_putc(l, ' ');
	buf[n] = '%';
	line_put(l, buf, (size_t)n + 1);
	if (!last)
		line_spaces(l, width - n - 2);
}

void line_sep_u64(struct line *l, const char *sep, bool first, unsigned long long v, int width,
		  bool last)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), " %llu", v);

	if (!first)
		line_put(l, sep, strlen(sep));
	line_put(l, buf, (size_t)n);
	if (!last)
		line_spaces(l, width - n);
}

void line_sep_text(struct line *l, const char *sep, bool first, char *s, size_t n)
{
	/* perf's repsep_snprintf: the separator's first character in a cell becomes '.' */
	for (size_t i = 0; i < n; i++)
		if (s[i] == sep[0])
			s[i] = '.';
	if (!first)
		line_put(l, sep, strlen(sep));
	line_put(l, s, n);
}
