// SPDX-License-Identifier: MIT
/*
 * Which rows a histogram shows (tally/hist.h's tally_hist_filter): its
 * lists copied in, the rows made again at the next resort.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "hist_priv.h"

void tally__hist_free_filter(struct tally_hist *h)
{
	for (size_t i = 0; i < sizeof(h->filter_str) / sizeof(h->filter_str[0]); i++) {
		free(h->filter_str[i]);
		h->filter_str[i] = NULL;
	}
	memset(&h->filter, 0, sizeof(h->filter));
}

int tally_hist__set_filter(struct tally_hist *h, const struct tally_hist_filter *f)
{
	const char *in[6];
	char *out[6] = { NULL };

	if (!h || !TALLY_OPTS_VALID(f, tally_hist_filter))
		return -EINVAL;
	in[0] = TALLY_OPTS_GET(f, comms, NULL);
	in[1] = TALLY_OPTS_GET(f, pids, NULL);
	in[2] = TALLY_OPTS_GET(f, tids, NULL);
	in[3] = TALLY_OPTS_GET(f, dsos, NULL);
	in[4] = TALLY_OPTS_GET(f, symbols, NULL);
	in[5] = TALLY_OPTS_GET(f, symbol_filter, NULL);
	for (int i = 0; i < 6; i++)
		if (in[i] && !(out[i] = strdup(in[i]))) {
			while (i--)
				free(out[i]);
			return -ENOMEM;
		}
	tally__hist_free_filter(h);
	memcpy(h->filter_str, out, sizeof(out));
	h->filter.comms = out[0];
	h->filter.pids = out[1];
	h->filter.tids = out[2];
	h->filter.dsos = out[3];
	h->filter.symbols = out[4];
	h->filter.symbol_filter = out[5];
	h->filter.exclude_other = TALLY_OPTS_GET(f, exclude_other, false);
	h->rows_stale = true;
	return 0;
}
