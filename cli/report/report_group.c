// SPDX-License-Identifier: MIT
/*
 * perf report's group view: the events of a group recorded together
 * ({a,b}: the file's GROUP_DESC), or with --group every event of a file
 * without groups, shown as one table. Each count column holds one value
 * per member, the leader's first, each a share of its own event's total;
 * the rows are the leader's and its members' keys, paired and ordered by
 * the library (tally_hist__set_group). The '#' lines sum the members'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report_ctx.h"

int report_group_setup(struct report *r, struct tally_data_reader *rd, int nr_events, int group,
		       int sort_idx)
{
	int n = tally_data_reader__groups(rd, NULL, 0);
	struct tally_event_group g[n > 0 ? n : 1];

	if (!(r->gnr = calloc((size_t)nr_events + 1, sizeof(*r->gnr))) ||
	    !(r->gname = calloc((size_t)nr_events + 1, sizeof(*r->gname)))) {
		fprintf(stderr, "tally report: %s\n", strerror(ENOMEM));
		return 1;
	}
	for (int i = 0; i < nr_events; i++)
		r->gnr[i] = 1;
	if (n < 0 || (n > 0 && tally_data_reader__groups(rd, g, n) != n)) {
		fprintf(stderr, "tally report: the file's event groups (GROUP_DESC) are damaged: "
			"each event is shown alone\n");
		n = 0;
	}
	for (int i = 0; i < n; i++) {
		if (g[i].leader + g[i].nr_members > nr_events)
			continue;
		r->gnr[g[i].leader] = g[i].nr_members;
		r->gname[g[i].leader] = g[i].name;
		for (int k = 1; k < g[i].nr_members; k++)
			r->gnr[g[i].leader + k] = 0;
	}
	/*
	 * perf's --group on a file without groups: its first event leads them
	 * all; --no-group too (perf's group_set), though each shows alone then
	 */
	if (!n && group != -1 && nr_events > 1) {
		r->group_forced = true;
		r->gnr[0] = nr_events;
		for (int i = 1; i < nr_events; i++)
			r->gnr[i] = 0;
	}
	if (sort_idx && !n && !r->group_forced) {
		fprintf(stderr, "tally report: --group-sort-idx %d: the file has no event groups "
			"(record -e '{a,b}', or --group to show its events as one)\n", sort_idx);
		return 129;
	}
	/* perf 6.1 shows a recorded group together unless --no-group */
	r->group_view = group == 1 || (group == -1 && n > 0);
	if (!n && !r->group_forced)
		r->group_view = false;
	/* not shown together: the members are their own tables */
	for (int i = 0; !r->group_view && i < nr_events; i++)
		if (!r->gnr[i])
			r->gnr[i] = 1;
	if (r->group_view && r->hierarchy) {
		fprintf(stderr, "tally report: the group view is not drawn with --hierarchy: "
			"each event is shown alone\n");
		r->group_view = false;
	}
	if (r->group_view)
		tally_hist__set_group_sort(r->hist, sort_idx);
	for (int i = 0; r->group_view && i < nr_events; i++)
		if (r->gnr[i] > 1 && tally_hist__set_group(r->hist, i, r->gnr[i])) {
			fprintf(stderr, "tally report: %s\n", strerror(ENOMEM));
			return 1;
		}
	return 0;
}

void report_group_free(struct report *r)
{
	free(r->gnr);
	free(r->gname);
}

/* perf's evsel__group_desc: "anon group { a, b }", a forced group's names alone */
static void group_desc(const struct report *r, int idx, char *buf, size_t len)
{
	size_t n = 0;

	if (!r->group_forced)
		n += (size_t)snprintf(buf + n, len - n, "%s { ",
				      r->gname[idx] ? r->gname[idx] : "anon group");
	for (int k = 0; k < r->gnr[idx] && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : "",
				      tally_session__event_name(r->ss, idx + k));
	if (!r->group_forced && n < len)
		snprintf(buf + n, len - n, " }");
}

/* A count column's members: each " %.2f%%" (or " %llu") as -t prints them, padded to width */
static void sep_cells(struct line *ln, const char *sep, bool first, const double *pct,
		      const uint64_t *num, int nr, int width)
{
	char buf[64];
	int w = 0;

	if (!first)
		line_put(ln, sep, strlen(sep));
	for (int k = 0; k < nr; k++) {
		int n = pct ? tally_hist__fmt_pct(buf + 1, sizeof(buf) - 3, pct[k]) + 2 :
			      snprintf(buf, sizeof(buf), " %llu", (unsigned long long)num[k]);

		buf[0] = ' ';
		if (pct)
			buf[n - 1] = '%';
		line_put(ln, buf, (size_t)n);
		w += n;
	}
	for (; w < width; w++)
		line_putc(ln, ' ');
}

struct gcols {
	int nr;
	const double *tot;		/* each member's total */
	struct tally_hist_row *m;	/* the row's members */
};

/* the members' shares of what pick gives, or their counts */
static void shares(const struct gcols *g, int what, double *pct, uint64_t *num)
{
	for (int k = 0; k < g->nr; k++) {
		const struct tally_hist_row *e = &g->m[k];
		uint64_t v = what == 0 ? e->children : what == 1 ? e->self : what == 2 ? e->period_sys :
			     what == 3 ? e->period_us : what == 4 ? e->samples : e->self;

		num[k] = v;
		pct[k] = g->tot[k] ? 100.0 * (double)v / g->tot[k] : 0.0;
	}
}

static void print_row(const struct report *r, const struct gcols *g, const int *width, int last)
{
	struct line ln = { .fp = stdout };
	double pct[g->nr];
	uint64_t num[g->nr];
	bool first = true;
	/* the columns: children, self, sys, usr (shares), samples, period (counts) */
	bool on[6] = { r->children, true, r->cpu_util, r->cpu_util, r->show_nr, r->show_period };
	char cell[32];

	for (int c = 0; c < 6; c++) {
		if (!on[c])
			continue;
		shares(g, c, pct, num);
		if (r->sep) {
			sep_cells(&ln, r->sep, first, c < 4 ? pct : NULL, num, g->nr,
				  g->nr * (c < 4 ? 8 : 12));
		} else {
			line_put(&ln, "  ", 2);
			for (int k = 0; k < g->nr; k++)
				if (c < 4)
					line_pct(&ln, pct[k], 7);
				else
					line_put(&ln, cell, (size_t)snprintf(cell, sizeof(cell), "%12llu",
									     (unsigned long long)num[k]));
		}
		first = false;
	}
	for (int i = 0; i < r->nsort; i++)
		if (i == r->ipc_at) {
			char ipc[] = "-      -            ";	/* perf's ipc_null */

			if (r->sep)
				line_sep_text(&ln, r->sep, false, ipc, sizeof(ipc) - 1);
			else
				line_put(&ln, "  -      -            ", 22);
		} else if (!r->elide[r->sort[i]]) {
			if (r->sep)
				hist_key_put_sep(&ln, r->sep, false, &r->cells, &g->m[0], r->sort[i],
						 width[i], i == last);
			else
				hist_key_put(&ln, &r->cells, &g->m[0], r->sort[i], width[i], i == last);
		}
	if (r->sep) {
		/* perf's line buffer: the columns' widths, their separators and 4 (print_row_sep) */
		size_t w = (size_t)((r->children ? 10 : 0) + 8 + (r->cpu_util ? 20 : 0) +
				    (r->show_nr ? 14 : 0) + (r->show_period ? 14 : 0)) +
			   (size_t)(g->nr - 1) * (size_t)((r->children ? 8 : 0) + 8 +
							  (r->cpu_util ? 16 : 0) +
							  (r->show_nr ? 12 : 0) +
							  (r->show_period ? 12 : 0));

		for (int i = 0; i < r->nsort; i++)
			if (i == r->ipc_at)
				w += 22;
			else if (!r->elide[r->sort[i]])
				w += 2 + (size_t)width[i];
		if (ln.n > w + 3)
			ln.n = w + 3;
	}
	line_putc(&ln, '\n');
	line_flush(&ln);
}

void report_print_columns(const struct report *r, int nr, const int *width)
{
	static const char *const name[6] = { "Children", "Self", "sys", "usr", "Samples", "Period" };
	bool on[6] = { r->children, true, r->cpu_util, r->cpu_util, r->show_nr, r->show_period };
	bool first = true;

	if (r->quiet)
		return;
	printf("# ");
	for (int c = 0; c < 6; c++)
		if (on[c]) {
			printf("%s%*s", first ? "" : r->sep ? r->sep : "  ", nr * (c < 4 ? 8 : 12),
			       c == 1 && !r->children ? "Overhead" : name[c]);
			first = false;
		}
	for (int i = 0; i < r->nsort; i++)
		if (i == r->ipc_at)
			printf("%s%-*s", r->sep ? r->sep : "  ", width[i], "IPC   [IPC Coverage]");
		else if (!r->elide[r->sort[i]])
			printf("%s%-*s", r->sep ? r->sep : "  ", width[i], hist_keys[r->sort[i]].header);
	putchar('\n');
	if (r->sep)
		return;
	printf("# ");
	first = true;
	for (int c = 0; c < 6; c++)
		if (on[c]) {
			printf("%s", first ? "" : "  ");
			for (int k = 0; k < nr * (c < 4 ? 8 : 12); k++)
				putchar('.');
			first = false;
		}
	for (int i = 0; i < r->nsort; i++) {
		if (r->elide[r->sort[i]])
			continue;
		printf("  ");
		for (int k = 0; k < width[i]; k++)
			putchar('.');
	}
	printf("\n#\n");
}

#define GROUP_WIN 1024

/* -F's table of a group: every row and its members' rows, then hist_fields_print */
static void fields_table(struct report *r, int idx, int nr, const double *tot, const char *desc)
{
	size_t n = tally_hist__nr_rows(r->hist, idx);
	struct tally_hist_row *rows = calloc(n + 1, sizeof(*rows));
	struct tally_hist_row *m = calloc(n * (size_t)nr + 1, sizeof(*m));
	struct hist_table t = { .fp = stdout, .cells = &r->cells, .total = (uint64_t)tot[0],
				.header = !r->quiet, .children = r->children,
				.percent_limit = r->percent_limit, .sep = r->sep,
				.graph = r->cg.mode != CG_NONE ? report_table_graph : NULL, .arg = r,
				.gnr = nr, .grows = m, .gtot = tot };

	if (!rows || !m) {
		fprintf(stderr, "tally report: %s\n", strerror(ENOMEM));
		free(rows);
		free(m);
		return;
	}
	hist_rows_at(r->hist, idx, 0, n, rows);
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < nr; k++) {
			m[i * (size_t)nr + (size_t)k].sz = sizeof(*m);
			tally_hist__row_member(r->hist, idx, i, k, &m[i * (size_t)nr + (size_t)k]);
		}
	report_print_head(r, desc, true);
	hist_fields_print(&r->fields, &t, rows, n);
	printf("\n\n");
	free(rows);
	free(m);
}

void report_group_print(struct report *r, int idx)
{
	int nr = r->gnr[idx], width[K__NR] = { 0 };
	size_t n = tally_hist__nr_rows(r->hist, idx);
	struct tally_hist_totals head = { 0 };
	double tot[nr];
	struct tally_hist_row *win = malloc(GROUP_WIN * sizeof(*win)), m[nr];
	char desc[1024];

	if (!win) {
		fprintf(stderr, "tally report: %s\n", strerror(ENOMEM));
		return;
	}
	/* the members' shown totals, the leader's last: its graphs' base stays */
	for (int k = nr - 1; k >= 0; k--) {
		struct tally_hist_totals t = report_shown(r, idx + k);

		tot[k] = (double)t.period;
		head.samples += t.samples;
		head.period += t.period;
	}
	r->head = head;
	r->graph_total = report_totals(r, idx).period;
	group_desc(r, idx, desc, sizeof(desc));
	if (r->fields.n) {
		free(win);
		fields_table(r, idx, nr, tot, desc);
		return;
	}
	hist_key_widths(&r->cells, r->hist, idx, r->sort, r->nsort, r->ipc_at, win, GROUP_WIN, width);
	free(win);
	report_print_head(r, desc, true);
	report_print_columns(r, nr, width);
	for (size_t i = 0; i < n; i++) {
		struct gcols g = { nr, tot, m };

		for (int k = 0; k < nr; k++) {
			m[k].sz = sizeof(m[k]);
			tally_hist__row_member(r->hist, idx, i, k, &m[k]);
		}
		/* --percent-limit: the leader's share (perf's hist_entry__get_percent_limit) */
		if (100.0 * (double)(r->children ? m[0].children : m[0].self) / (tot[0] ? tot[0] : 1) <
		    r->percent_limit)
			continue;
		print_row(r, &g, width, r->nsort - 1);
		report_print_graph(stdout, r, (uint64_t)tot[0], &m[0]);
	}
	printf("\n\n");
}
