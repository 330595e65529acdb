// SPDX-License-Identifier: MIT
/* --stdio's text of an annotation's line: see annotate_text.h. */
#include <inttypes.h>
#include <stdio.h>
#include "annotate_text.h"

int annotate_line_text(const struct tally_annotate_lines *l, int i, int ptype, char *buf, size_t n)
{
	const struct tally_annotate_line *al = &l->v[i];

	if (al->offset >= 0)
		return snprintf(buf, n, " %7.2f :   %*" PRIx64 ":%s", al->percent[ptype], l->addr_width,
				al->addr, al->text);
	if (!*al->text)
		return snprintf(buf, n, " %8s:", " ");
	return snprintf(buf, n, " %8s: %-*d %s", " ", l->addr_width, al->line_nr, al->text);
}
