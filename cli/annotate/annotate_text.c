// SPDX-License-Identifier: MIT
/* --stdio's text of an annotation's line: see annotate_text.h. */
#include <inttypes.h>
#include <stdio.h>
#include "annotate_text.h"

int annotate_line_text(const struct tally_annotate_lines *l, int i, int ptype, char *buf, size_t n)
{
	return annotate_line_text_col(l, i, ptype, ANNOT_PERCENT, buf, n);
}

int annotate_line_text_col(const struct tally_annotate_lines *l, int i, int ptype,
			   enum annot_col col, char *buf, size_t n)
{
	const struct tally_annotate_line *al = &l->v[i];
	/* perf's: a period is 11 wide and its blank 12, a count or a share 7 and 8 */
	int w = col == ANNOT_PERIOD ? 12 : 8;

	if (al->offset >= 0) {
		char v[32];

		if (col == ANNOT_PERIOD)
			snprintf(v, sizeof(v), "%11" PRIu64, al->period);
		else if (col == ANNOT_SAMPLES)
			snprintf(v, sizeof(v), "%7" PRIu64, al->nr_samples);
		else
			snprintf(v, sizeof(v), "%7.2f", al->percent[ptype]);
		return snprintf(buf, n, " %s :   %*" PRIx64 ":%s", v, l->addr_width, al->addr,
				al->text);
	}
	if (!*al->text)
		return snprintf(buf, n, " %*s:", w, " ");
	return snprintf(buf, n, " %*s: %-*d %s", w, " ", l->addr_width, al->line_nr, al->text);
}
