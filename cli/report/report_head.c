// SPDX-License-Identifier: MIT
/*
 * tally report's '#' lines around an event's table: the preamble once,
 * then each table's Samples and Event count (its totals, of every sample
 * or with --percentage relative of the rows the filters keep).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "report_ctx.h"

/* Once, before the first event's block, as perf. */
void report_print_preamble(const struct report *r, uint64_t lost)
{
	if (r->quiet)
		return;
	if (!r->header)
		printf("# To display the perf.data header info, please use --header/--header-only options.\n#\n");
	/* a key one filter value elides: perf names the value (its sort__setup_elide) */
	for (int i = 0; i < r->nsort; i++) {
		enum sort_key k = r->sort[i];
		const char *one = k == K_COMM ? r->filter.comms : k == K_DSO ? r->filter.dsos :
				  k == K_SYM ? r->filter.symbols : NULL;

		if (one && !strchr(one, ','))
			printf("# %s: %s\n", k == K_COMM ? "comm" : k == K_DSO ? "dso" : "symbol",
			       k == K_COMM ? r->filter.comms : k == K_DSO ? r->filter.dsos :
			       r->filter.symbols);
	}
	printf("#\n");
	printf("# Total Lost Samples: %llu\n#\n", (unsigned long long)lost);
}

/* An event's totals (every sample, shown or not). */
struct tally_hist_totals report_totals(const struct report *r, int idx)
{
	TALLY_OPTS(tally_hist_totals, t);

	tally_hist__totals(r->hist, idx, &t);
	return t;
}

/*
 * What the percentages are of: every sample, or with --percentage
 * relative the rows the filters keep (perf's non-filtered totals: each
 * sample's own row, so the rows' self and samples add up to them)
 */
static void sum_rows(const struct report *r, int idx, struct tally_hist_totals *t)
{
	size_t n = tally_hist__nr_rows(r->hist, idx);
	struct tally_hist_row win[64];

	t->period = t->samples = 0;
	for (size_t from = 0; from < n; from += 64) {
		size_t k = n - from < 64 ? n - from : 64;

		hist_rows_at(r->hist, idx, from, k, win);
		for (size_t i = 0; i < k; i++) {
			t->period += win[i].self;
			t->samples += win[i].samples;
		}
	}
}

/* the rows without --symbol-filter (on: false) or with it again: 0, or -errno */
int report_symbol_filter_on(struct report *r, bool on)
{
	struct tally_hist_filter f = r->filter;

	if (!on)
		f.symbol_filter = NULL;
	return tally_hist__set_filter(r->hist, &f) ? -ENOMEM : tally_hist__resort(r->hist);
}

struct tally_hist_totals report_shown(struct report *r, int idx)
{
	struct tally_hist_totals t = report_totals(r, idx), all;

	r->graph_base = t.period;
	if (!r->relative)
		return t;
	sum_rows(r, idx, &t);
	r->graph_base = t.period;
	/*
	 * perf's nr_non_filtered_samples are counted as the samples come,
	 * before --symbol-filter tests the rows: the Samples line is of
	 * the rows without it, the Event count of those with it
	 */
	if (r->filter.symbol_filter && !r->sf_other && !report_symbol_filter_on(r, false)) {
		sum_rows(r, idx, &all);
		t.samples = all.samples;
		r->graph_base = all.period;	/* and the graphs are pruned by those rows' total */
		report_symbol_filter_on(r, true);
	}
	return t;
}

void report_print_head(const struct report *r, const char *name, bool plural)
{
	struct tally_hist_totals t = r->head;
	uint64_t ns = t.samples;
	char unit = ' ';

	if (r->quiet)
		return;
	if (ns > 1000) { ns /= 1000; unit = 'K'; }	/* perf's convert_unit */
	if (ns > 1000) { ns /= 1000; unit = 'M'; }
	/* perf's: "events" for a group's leader (its members' summed in group view) */
	printf("# Samples: %llu%c of event%s '%s'", (unsigned long long)ns, unit, plural ? "s" : "",
	       name);
	if (r->time_str)
		printf(" (time slices: %s)", r->time_str);
	putchar('\n');
	if (r->mem_mode) {	/* perf's: the weights' sum and the keys as given */
		printf("# Total weight : %llu\n", (unsigned long long)t.period);
		printf("# Sort order   : %s%s\n#\n", r->sort_spec ? r->sort_spec :
		       "local_weight,mem,sym,dso,symbol_daddr,dso_daddr,snoop,tlb,locked,blocked,"
		       "local_ins_lat,local_p_stage_cyc",	/* perf 6.1's default, -F's rows aside */
		       r->ipc_at >= 0 ? ",ipc_null" : "");
		return;
	}
	printf("# Event count (approx.): %llu\n#\n", (unsigned long long)t.period);
}
