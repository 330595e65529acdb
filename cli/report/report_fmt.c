// SPDX-License-Identifier: MIT
/*
 * The report's cells without printf (the shares through
 * tally_hist__fmt_pct). The writes are stdio's unlocked ones: one thread
 * prints.
 */
#include <string.h>
#include <tally/hist.h>
#include "report_fmt.h"

static void put_spaces(FILE *fp, int n)
{
	static const char sp[] = "                                ";

	for (; n > 0; n -= (int)sizeof(sp) - 1)
		fwrite_unlocked(sp, 1, n < (int)sizeof(sp) - 1 ? (size_t)n : sizeof(sp) - 1, fp);
}

void put_pct(FILE *fp, double v, int width)
{
	char buf[64];
	int n = tally_hist__fmt_pct(buf, sizeof(buf), v);

	put_spaces(fp, width - n);
	fwrite_unlocked(buf, 1, (size_t)n, fp);
	fputc_unlocked('%', fp);
}

void put_left(FILE *fp, const char *s, size_t len, int width)
{
	fwrite_unlocked(s, 1, len, fp);
	if ((int)len < width)
		put_spaces(fp, width - (int)len);
}
