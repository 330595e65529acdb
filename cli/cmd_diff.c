// SPDX-License-Identifier: MIT
/*
 * tally diff: perf diff's rows for two perf.data files: per (shared
 * object, symbol) the baseline's share and the change in the other
 * file, ordered by the size of the change, as perf diff 6.1 prints them.
 * Each file's rows are a histogram's (tally/hist.h), the pictures its
 * stacks view; here they are paired, ordered and printed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/hist.h>
#include <tally/stacks.h>
#include <tally/tally.h>
#include "cli.h"
#include "pager.h"
#include "parse_options.h"
#include "read_file.h"
#include "sample_filter.h"
#include "store_read.h"

/* A row of the comparison: a row of either file's histogram, or of both. */
struct drow {
	const char *comm;		/* -s comm: the thread's name (the histograms' string) */
	const char *dso, *sym;		/* the histograms' strings */
	bool nomap;			/* dso "[unknown]": no map held the address */
	uint64_t addr1;			/* the new file's lowest address of a merged row */
	uint64_t addr;
	char mode;
	bool object;			/* a data object's: shown as perf's "name+0xOFF", OFF the first file's */
	uint64_t object_off;
	uint64_t period[2];
	bool in[2];
	double pct[2], delta;
	double ratio;			/* -c ratio: new period / baseline's */
	bool comm_in[2];		/* -C, --pid, --tid: each file's row is a listed thread's (its first sample's) */
	int64_t wdiff;			/* -c wdiff: new * w2 - baseline * w1 */
};

/* perf diff's -c: what the compared column holds, and how rows sort by it */
enum compute { C_DELTA_ABS, C_DELTA, C_RATIO, C_WDIFF };

struct diff {
	struct tally_hist *h[2];	/* one per file, keyed as perf diff's rows: dso, sym */
	int side;
	struct drow *rows;
	size_t n;
	uint64_t total[2];
	int err;			/* the first the histograms met */
	int attr_of[2];			/* the event compared, per file */
	const char *flamegraph;		/* a differential flame graph, to this file */
	const char *html;		/* the comparison's page */
	const char *symfs;		/* --symfs */
	const char *kallsyms;		/* --kallsyms */
	struct cli_from from[2];	/* --from: each side a store's profile */
	enum compute compute;		/* -c */
	int64_t w1, w2;			/* -c wdiff:w1,w2 */
	bool period, formula;		/* -p, -F: the periods' and the formula's columns */
	bool baseline_only, quiet;	/* -b, -q */
	const char *comms, *dsos, *symbols;	/* -C, -d, -S: only these rows */
	const char *pids, *tids;	/* --pid, --tid: so are these (perf's thread filter) */
	const char *cpu_list;		/* --cpu: only the samples on these CPUs */
	struct cli_sample_filter sf[2];	/* --cpu's, per file */
	int order;			/* -o: 1 the compared column (perf's default), 0 the baseline's */
	uint64_t ftotal0;		/* the baseline's whole in a formula: -b's rows' alone */
	enum tally_hist_key keys[3];	/* -s: the rows' keys in their order (default dso, sym) */
	int nkeys;
};

/* the keys of the comparison being made, for the comparators (one at a time) */
static const struct diff *cur;

/* Each sample of the compared event counts in its file's histogram. */
static int on_sample(struct tally_session *ss, const struct tally_session_sample *ts, void *arg)
{
	struct diff *d = arg;
	int err;

	(void)ss;
	/* perf's diff__process_sample_event drops them before anything counts */
	if (cli_sample_filter_skip(&d->sf[d->side], ts->sample))
		return 0;
	if ((err = tally_hist__add_count(d->h[d->side], ts, cli_from_count(&d->from[d->side], ts))) &&
	    !d->err)
		d->err = err;
	return 0;
}

/* a pid or tid in a comma list */
static bool id_in(const char *list, int32_t id)
{
	char n[16];

	snprintf(n, sizeof(n), "%d", (int)id);
	return session_in_list(list, n);
}

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b ? 0 : (!a ? 1 : -1);
	return strcmp(a, b);
}

/*
 * The rows' key: -s's keys in turn (shared object, then symbol by
 * default). As perf diff's collapse, the addresses of a shared object
 * that no symbol holds are one row (shown at the lowest of them):
 * unresolved code pairs by its file alone.
 */
static int cmp_key(const void *pa, const void *pb)
{
	const struct drow *a = pa, *b = pb;
	int c = 0;

	for (int i = 0; i < cur->nkeys && !c; i++)
		c = cur->keys[i] == TALLY_HIST_COMM ? cmp_str(a->comm, b->comm) :
		    cur->keys[i] == TALLY_HIST_DSO ? cmp_str(a->dso, b->dso) : cmp_str(a->sym, b->sym);
	return c;
}

/* cmp_key, then the address: a shared object's unresolved rows, lowest first */
static int cmp_key_addr(const void *pa, const void *pb)
{
	const struct drow *a = pa, *b = pb;
	int c = cmp_key(a, b);

	return c ? c : a->addr < b->addr ? -1 : a->addr > b->addr;
}

/*
 * perf's sort of the keys among equal counts: the shared object's name
 * (no map last, perf's cmp_null), then the symbol's
 */
static int cmp_order_key(const struct drow *a, const struct drow *b)
{
	for (int i = 0; i < cur->nkeys; i++) {
		int c;

		if (cur->keys[i] == TALLY_HIST_DSO && a->nomap != b->nomap)
			return a->nomap ? 1 : -1;
		c = cur->keys[i] == TALLY_HIST_COMM ? cmp_str(a->comm, b->comm) :
		    cur->keys[i] == TALLY_HIST_DSO ? cmp_str(a->dso, b->dso) : cmp_str(a->sym, b->sym);
		if (c)
			return c;
	}
	return 0;
}

/* rows[from..n) sorted by key and address, a shared object's unresolved ones merged into the first */
static void merge_rows(struct diff *d, size_t from)
{
	size_t k = from;

	if (d->n - from > 1)
		qsort(d->rows + from, d->n - from, sizeof(*d->rows), cmp_key_addr);
	for (size_t i = from; i < d->n; i++) {
		struct drow *r = &d->rows[i];

		if (k > from && !cmp_key(&d->rows[k - 1], r)) {
			for (int f = 0; f < 2; f++) {
				d->rows[k - 1].period[f] += r->period[f];
				d->rows[k - 1].in[f] |= r->in[f];
			}
			continue;
		}
		d->rows[k++] = *r;
	}
	d->n = k;
}

/*
 * perf diff's order: rows in both files (or only in the new one) by the
 * computed value, biggest first (a delta by its size with -c delta-abs);
 * for a ratio or a weighted diff, which need the baseline, the rows only
 * in the new file below those (perf's dummies); the rows only in the
 * baseline last. Ties by the baseline's share (the new one's for rows
 * only there), then shared object and symbol.
 */
static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct drow *a = pa, *b = pb;
	const struct diff *d = arg;
	enum compute c = d->compute;

	/* -o 0: the baseline's share first (perf's baseline column sort), the rest as ever */
	if (d->order == 0 && a->period[0] != b->period[0])
		return a->period[0] > b->period[0] ? -1 : 1;

	if (a->in[1] != b->in[1])
		return a->in[1] ? -1 : 1;
	if (a->in[1] && (c == C_RATIO || c == C_WDIFF) && a->in[0] != b->in[0])
		return a->in[0] ? -1 : 1;
	if (a->in[1]) {	/* both in the new file; for a ratio or a weighted diff, both in the baseline too */
		switch (c) {
		case C_DELTA_ABS:
			if (fabs(a->delta) != fabs(b->delta))
				return fabs(a->delta) > fabs(b->delta) ? -1 : 1;
			break;
		case C_DELTA:
			if (a->delta != b->delta)
				return a->delta > b->delta ? -1 : 1;
			break;
		case C_RATIO:
			if (a->in[0] && a->ratio != b->ratio)
				return a->ratio > b->ratio ? -1 : 1;
			break;
		case C_WDIFF:
			if (a->in[0] && a->wdiff != b->wdiff)
				return a->wdiff > b->wdiff ? -1 : 1;
			break;
		}
	}
	if (a->period[0] != b->period[0])
		return a->period[0] > b->period[0] ? -1 : 1;
	if (!a->in[0] && a->period[1] != b->period[1])
		return a->period[1] > b->period[1] ? -1 : 1;
	return cmp_order_key(a, b);
}

/*
 * The comparison's rows: the baseline's, each paired with the new file's
 * row of its key (a key is one row in a file: the histograms pair
 * functions by name), then the new file's alone. 0 or -ENOMEM.
 */
static int pair_rows(struct diff *d)
{
	size_t nr[2] = { 0, 0 }, n0;

	free(d->rows);
	d->rows = NULL;
	d->n = 0;
	for (int k = 0; k < 2; k++) {
		TALLY_OPTS(tally_hist_totals, t);

		d->total[k] = 0;
		if (d->attr_of[k] < 0)
			continue;	/* no such event in the new file: the baseline's rows alone */
		tally_hist__totals(d->h[k], d->attr_of[k], &t);
		d->total[k] = t.period;	/* every sample's, shown or not */
		nr[k] = tally_hist__nr_rows(d->h[k], d->attr_of[k]);
	}
	if (!(d->rows = calloc(nr[0] + nr[1] + 1, sizeof(*d->rows))))
		return -ENOMEM;
	for (int k = 0; k < 2; k++) {
		n0 = d->n;
		for (size_t i = 0; i < nr[k]; i++) {
			TALLY_OPTS(tally_hist_row, row);
			struct drow key, *r;

			tally_hist__row(d->h[k], d->attr_of[k], i, &row);
			key = (struct drow){ .comm = row.comm,
					     .dso = row.dso ? row.dso : "[unknown]", .nomap = !row.dso,
					     .sym = row.sym, .addr = row.sym ? 0 : row.addr,
					     .mode = row.level, .object = row.object,
					     .object_off = row.object_off };
			bool pass = (!d->comms || (row.comm && session_in_list(d->comms, row.comm))) &&
				    (!d->pids || id_in(d->pids, row.pid)) &&
				    (!d->tids || id_in(d->tids, row.tid));

			r = k ? bsearch(&key, d->rows, n0, sizeof(*d->rows), cmp_key) : NULL;
			if (!r) {
				*(r = &d->rows[d->n++]) = key;
				r->comm_in[k] = pass;
			} else if (!r->in[1] || key.addr < r->addr1) {
				r->comm_in[1] = pass;	/* a merged row's: its lowest address's */
			}
			if (k)
				r->addr1 = r->in[1] && r->addr1 < key.addr ? r->addr1 : key.addr;
			r->period[k] += row.self;
			r->in[k] = true;
		}
		/* the baseline's, then the new file's own: sorted, unresolved ones merged */
		merge_rows(d, n0);
	}
	return 0;
}

static int sym_text(const struct drow *r, char *buf, size_t len)
{
	if (r->sym && r->object)
		return snprintf(buf, len, "[%c] %s+0x%llx", r->mode, r->sym,
				(unsigned long long)r->object_off);
	if (r->sym)
		return snprintf(buf, len, "[%c] %s", r->mode, r->sym);
	return snprintf(buf, len, r->addr ? "[%c] 0x%016llx" : "[%c] %016llx", r->mode,
			(unsigned long long)r->addr);
}

/* The compared column's heading and width (perf's: the values' widest) */
static const char *const compute_head[] = { "Delta Abs", "Delta", "Ratio", "Weighted diff" };
static const int compute_width[] = { 9, 7, 14, 14 };

/* The formula of a row's value (-F), as perf prints it; "" for a row only in the baseline. */
static void formula(const struct diff *d, const struct drow *r, char *buf, size_t len)
{
	unsigned long long b = r->period[0], n = r->period[1];

	*buf = '\0';
	if (!r->in[1])
		return;
	switch (d->compute) {
	case C_DELTA_ABS:
	case C_DELTA:
		snprintf(buf, len, "(%llu * 100 / %llu) - (%llu * 100 / %llu)", n,
			 (unsigned long long)d->total[1], b, (unsigned long long)d->ftotal0);
		break;
	case C_RATIO:
		snprintf(buf, len, "%llu / %llu", n, b);
		break;
	case C_WDIFF:
		snprintf(buf, len, "(%llu * %lld) - (%llu * %lld)", n, (long long)d->w2, b,
			 (long long)d->w1);
		break;
	}
}

/* The compared column of a row: blank for a row only in the baseline, N/A where the value needs one. */
static void computed(const struct diff *d, const struct drow *r, int w)
{
	if (!r->in[1]) {
		printf("  %*s", w, "");
		return;
	}
	switch (d->compute) {
	case C_DELTA_ABS:
	case C_DELTA:
		printf("  %+*.2f%%", w - 1, r->delta);
		break;
	case C_RATIO:
		if (r->in[0])
			printf("  %*.6f", w, r->ratio);
		else
			printf("  %*s", w, "N/A");
		break;
	case C_WDIFF:
		if (r->in[0])
			printf("  %*lld", w, (long long)r->wdiff);
		else
			printf("  %*s", w, "N/A");
		break;
	}
}

/*
 * -C, -d, -S as perf's filters of its entries: a row shows where the
 * baseline's passes (the new file's where the baseline has none), paired
 * with the other file's whatever that one's command; a function's row is
 * its first sample's command's.
 */
static bool shown(const struct diff *d, const struct drow *r)
{
	return (r->in[0] ? r->comm_in[0] : r->comm_in[1]) &&
	       (!d->dsos || session_in_list(d->dsos, r->dso)) &&
	       (!d->symbols || (r->sym && session_in_list(d->symbols, r->sym)));
}

/*
 * Each row's shares and delta on the wholes, then the rows kept: -b's
 * (both files'; the baseline's shares, and its whole in a formula, of
 * those, every one counted, shown or not, as perf's; the deltas as they
 * were), then the filters'.
 */
static void settle_rows(struct diff *d)
{
	size_t k = 0;

	d->ftotal0 = d->baseline_only ? 0 : d->total[0];
	for (size_t i = 0; i < d->n; i++) {
		struct drow *r = &d->rows[i];

		for (int f = 0; f < 2; f++)
			r->pct[f] = d->total[f] ? 100.0 * (double)r->period[f] / (double)d->total[f] : 0;
		r->delta = r->pct[1] - r->pct[0];
		if (d->baseline_only && !(r->in[0] && r->in[1]))
			continue;
		if (d->baseline_only)
			d->ftotal0 += r->period[0];
		if (shown(d, r))
			d->rows[k++] = *r;
	}
	d->n = k;
	for (size_t i = 0; d->baseline_only && i < d->n; i++)
		d->rows[i].pct[0] = d->ftotal0 ? 100.0 * (double)d->rows[i].period[0] /
						 (double)d->ftotal0 : 0;
}

static void dots(int n)
{
	printf("  ");
	for (int i = 0; i < n; i++)
		putchar('.');
}

/* the key's column of row r: padded to w unless a symbol last (perf's "%.*s") */
static void key_cell(const struct drow *r, enum tally_hist_key k, int w, bool last)
{
	char buf[4096];

	if (k == TALLY_HIST_SYM) {
		sym_text(r, buf, sizeof(buf));
		if (last)
			printf("  %s", buf);
		else
			printf("  %-*s", w, buf);
		return;
	}
	printf("  %-*s", w, k == TALLY_HIST_COMM ? (r->comm ? r->comm : "") : r->dso);
}

static void print(struct diff *d, const char *event, bool first)
{
	int wd = (int)strlen("Shared Object"), ws = (int)strlen("Symbol"), wm = (int)strlen("Command");
	int wc = compute_width[d->compute], wf = 70, width[3], last = -1;
	char buf[4096];
	/* a filter of one value hides its column, as perf's (all of them: none) */
	bool elide[3], all = true;

	for (int i = 0; i < d->nkeys; i++) {
		const char *f = d->keys[i] == TALLY_HIST_COMM ? d->comms :
				d->keys[i] == TALLY_HIST_DSO ? d->dsos : d->symbols;

		elide[i] = f && !strchr(f, ',');
		all &= elide[i];
	}
	for (int i = 0; i < d->nkeys; i++) {
		if (all)
			elide[i] = false;
		if (!elide[i])
			last = i;
	}
	settle_rows(d);
	for (size_t i = 0; i < d->n; i++) {
		struct drow *r = &d->rows[i];

		/* perf's ratio divides by the baseline's period (1 where none: not shown) */
		r->ratio = (double)r->period[1] / (double)(r->period[0] ? r->period[0] : 1);
		r->wdiff = (int64_t)r->period[1] * d->w2 - (int64_t)r->period[0] * d->w1;
		if (r->comm && (int)strlen(r->comm) > wm)
			wm = (int)strlen(r->comm);
		if ((int)strlen(r->dso) > wd)
			wd = (int)strlen(r->dso);
		/* perf's hists__set_unres_dso_col_len: a row without a symbol, an address's 16 */
		if (!r->sym && !d->dsos && wd < 16)
			wd = 16;
		/* perf's width of an object's is its name's: the "+0x..." overflows */
		if (r->sym && r->object && (int)strlen(r->sym) + 4 > ws)
			ws = (int)strlen(r->sym) + 4;
		else if (!(r->sym && r->object) && sym_text(r, buf, sizeof(buf)) > ws)
			ws = (int)strlen(buf);
		if (d->formula) {
			formula(d, r, buf, sizeof(buf));
			if ((int)strlen(buf) > wf)
				wf = (int)strlen(buf);
		}
	}
	for (int i = 0; i < d->nkeys; i++)
		width[i] = d->keys[i] == TALLY_HIST_COMM ? wm : d->keys[i] == TALLY_HIST_DSO ? wd : ws;
	if (d->n)
		qsort_r(d->rows, d->n, sizeof(*d->rows), cmp_rows, d);
	if (!d->quiet) {
		printf("%s# Event '%s'\n#\n# Baseline", first ? "" : "\n", event);
		if (d->period)
			printf("  %14s", "Base period");
		printf("  %*s", wc, compute_head[d->compute]);
		if (d->formula)
			printf("  %*s", wf, "Formula");
		if (d->period)
			printf("  %14s", "Period");
		for (int i = 0; i < d->nkeys; i++)
			if (!elide[i])
				printf("  %-*s", width[i], d->keys[i] == TALLY_HIST_COMM ? "Command" :
				       d->keys[i] == TALLY_HIST_DSO ? "Shared Object" : "Symbol");
		printf("\n# ........");
		if (d->period)
			dots(14);
		dots(wc);
		if (d->formula)
			dots(wf);
		if (d->period)
			dots(14);
		for (int i = 0; i < d->nkeys; i++)
			if (!elide[i])
				dots(width[i]);
		printf("\n#\n");
	}
	for (size_t i = 0; i < d->n; i++) {
		const struct drow *r = &d->rows[i];

		if (r->in[0])
			printf("  %7.2f%%", r->pct[0]);
		else
			printf("  %8s", "");
		/* a row only in the new file: a baseline period of 0 */
		if (d->period)
			printf("  %14llu", (unsigned long long)r->period[0]);
		computed(d, r, wc);
		if (d->formula) {
			formula(d, r, buf, sizeof(buf));
			printf("  %*s", wf, buf);
		}
		if (d->period) {
			if (r->in[1])
				printf("  %14llu", (unsigned long long)r->period[1]);
			else
				printf("  %14s", "");
		}
		for (int k = 0; k < d->nkeys; k++)
			if (!elide[k])
				key_cell(r, d->keys[k], width[k], k == last);
		putchar('\n');
	}
}

static const char *const diff_usage[] = {
	"tally diff [BASELINE [NEW]]",
	"",
	"perf diff's rows: each (shared object, symbol) with its share in the baseline",
	"file (default perf.data.old) and the change in the new one (default perf.data),",
	"the biggest change first.",
	"tally diff --from URL A B: two selections of a store's rows, each",
	"KEY=VALUE,...: since=, until= (as report --since) and --where's keys",
	"(host=, comm=, build=...), e.g. 'since=2h,until=1h' 'since=1h'.",
	NULL,
};

/* -c's method, as perf's: delta, delta-abs, ratio or wdiff:W1,W2 (integers); 0 or -1 said */
/* -s: perf diff's keys this diff pairs rows by (comm, dso, symbol), in their order */
static int parse_sort(struct diff *d, const char *spec)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", spec);
	d->nkeys = 0;
	for (char *k = strtok_r(buf, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		enum tally_hist_key key;
		bool dup = false;

		if (!strcmp(k, "comm"))
			key = TALLY_HIST_COMM;
		else if (!strcmp(k, "dso"))
			key = TALLY_HIST_DSO;
		else if (!strcmp(k, "sym") || !strcmp(k, "symbol"))
			key = TALLY_HIST_SYM;
		else {
			fprintf(stderr, "tally diff: -s '%s': the keys are comm, dso and sym "
				"(perf's pid, cpu, srcline, parent are not compared yet)\n", k);
			return -1;
		}
		for (int i = 0; i < d->nkeys; i++)
			dup |= d->keys[i] == key;
		if (!dup)
			d->keys[d->nkeys++] = key;
	}
	if (!d->nkeys) {
		fprintf(stderr, "tally diff: -s needs a key: comm, dso, sym\n");
		return -1;
	}
	return 0;
}

static int parse_compute(struct diff *d, const char *s)
{
	static const char *const names[] = { "delta-abs", "delta", "ratio" };
	char *end;

	for (int i = 0; i < 3; i++)
		if (!strcmp(s, names[i])) {
			d->compute = (enum compute)i;
			return 0;
		}
	if (!strncmp(s, "wdiff", 5) && (!s[5] || s[5] == ':')) {
		const char *p = s + 5 + (s[5] == ':');

		errno = 0;
		d->w1 = strtoll(p, &end, 10);
		if (end != p && *end == ',' && !errno) {
			p = end + 1;
			d->w2 = strtoll(p, &end, 10);
			if (end != p && !*end && !errno) {
				d->compute = C_WDIFF;
				return 0;
			}
		}
		fprintf(stderr, "tally diff: -c %s: wdiff takes two integer weights: wdiff:W1,W2\n", s);
		return -1;
	}
	fprintf(stderr, "tally diff: -c %s: not a method (delta, delta-abs, ratio or wdiff:W1,W2)\n", s);
	return -1;
}

struct diff_picture {
	const struct tally_stacks *base, *s;
	bool html;
	char title[600];
};

static int diff_draw(FILE *fp, void *arg)
{
	const struct diff_picture *p = arg;

	return p->html ? tally_stacks__write_html_diff(p->base, p->s, fp, p->title) :
			 tally_stacks__write_svg_diff(p->base, p->s, fp, p->title);
}

/*
 * The new file's event for the baseline's event e, as perf's evsel_match:
 * the first of the same type and config ("cpu-clock:ppp" is "cpu-clock");
 * -1 when none.
 */
static int event_match(struct tally_session *ss[2], int e)
{
	const struct perf_event_attr *a = tally_data_reader__attr(tally_session__reader(ss[0]), e), *b;

	for (int i = 0; a && i < tally_session__nr_events(ss[1]); i++) {
		b = tally_data_reader__attr(tally_session__reader(ss[1]), i);
		if (b && b->type == a->type && b->config == a->config)
			return i;
	}
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	struct tally_session *ss[2] = { NULL, NULL };
	struct diff d = { .order = 1 };
	bool help = false, demangle = true;
	const char *compute = NULL, *sort = NULL;
	const struct cli_option opts[] = {
		CLI_STRING('s', "sort", &sort, "KEYS", "the rows' keys: comm, dso, sym, in any order (default dso,sym)"),
		CLI_STRING('c', "compute", &compute, "delta|delta-abs|ratio|wdiff:W1,W2",
			   "the compared column (default delta-abs: the change of share, by its size)"),
		CLI_BOOL('p', "period", &d.period, "the baseline's and the new file's periods too"),
		CLI_BOOL('F', "formula", &d.formula, "how each value was computed"),
		CLI_BOOL('b', "baseline-only", &d.baseline_only, "only the rows of both files (the baseline's shares of those)"),
		CLI_BOOL('q', "quiet", &d.quiet, "the rows alone, no heading"),
		CLI_INT('o', "order", &d.order, "N", "the rows by column N: 0 the baseline's share, 1 the compared one (default)", 0, 0),
		CLI_STRING('C', "comms", &d.comms, "LIST", "only the rows of these commands (a row's first sample's)"),
		CLI_STRING('d', "dsos", &d.dsos, "LIST", "only the rows of these shared objects"),
		CLI_STRING('S', "symbols", &d.symbols, "LIST", "only the rows of these symbols"),
		CLI_STRING(0, "pid", &d.pids, "LIST", "only the rows of these processes (a row's first sample's)"),
		CLI_STRING(0, "tid", &d.tids, "LIST", "only the rows of these threads (a row's first sample's)"),
		CLI_STRING(0, "cpu", &d.cpu_list, "LIST", "only the samples on these CPUs (0-3,7)"),
		CLI_STRING(0, "symfs", &d.symfs, "DIR", "look for files with symbols relative to DIR"),
		CLI_BOOL_F(0, "demangle", &demangle, "C++ and Rust symbols demangled (default; --no-demangle: their linkage names)", CLI_OPT_NEG),
		CLI_STRING(0, "kallsyms", &d.kallsyms, "FILE", "the kernel's symbols from FILE (a copy of /proc/kallsyms)"),
		CLI_STRING(0, "flamegraph", &d.flamegraph, "FILE.svg",
			   "a differential flame graph: the new file's stacks, red grew, blue shrank"),
		CLI_STRING(0, "html", &d.html, "FILE",
			   "one offline page: the functions' changes and the differential flame graph"),
		CLI_STRING(0, "from", &d.from[0].url, "URL", "compare two selections of a store's rows (A B: KEY=VALUE,...)"),
		CLI_STRING(0, "where", &d.from[0].where, "K=V,...", "--from: for both sides, before each side's own"),
		CLI_STRING(0, "store-auth-file", &d.from[0].auth_file, "FILE", "--from: user=NAME and password=SECRET lines"),
		CLI_HELP(&help, "this text"),
		CLI_END(),
	};
	const char *files[2] = { "perf.data.old", "perf.data" };
	int n, ret = 0;

	n = cli_parse("diff", opts, argc, argv, stderr, CLI_PARSE_KEEP_GOING);
	if (n < 0)
		return 129;
	if (help) {
		cli_usage(stdout, diff_usage, opts);
		return 0;
	}
	if (compute && parse_compute(&d, compute))
		return 129;
	if (parse_sort(&d, sort ? sort : "dso,sym"))
		return 129;
	cur = &d;
	/* perf's words and status (-EINVAL's 255) for a column two files do not have */
	if (d.order > 1) {
		fprintf(stderr, "Order option out of limit.\n");
		return 255;
	}
	if (n > 2) {
		fprintf(stderr, "tally diff: two %s at most (baseline, new)\n",
			d.from[0].url ? "selections" : "files");
		return 129;
	}
	if (d.from[0].url && n != 2) {
		fprintf(stderr, "tally diff: --from compares two selections: A B (KEY=VALUE,...)\n");
		return 129;
	}
	if (!d.from[0].url && (d.from[0].where || d.from[0].auth_file)) {
		fprintf(stderr, "tally diff: --where and --store-auth-file go with --from\n");
		return 129;
	}
	d.from[1] = d.from[0];
	/* the parse leaves the file names first in argv */
	if (n == 1)
		files[1] = argv[0];
	if (n == 2) {
		files[0] = argv[0];
		files[1] = argv[1];
	}
	/* each side's store profile, as a perf.data in memory; its selection names it */
	const char *names[2] = { files[0], files[1] };

	for (int k = 0; k < 2 && d.from[k].url && !ret; k++)
		ret = cli_from_read(&d.from[k], "diff", names[k], &files[k]);
	if (ret)
		goto out;
	pager_start();
	for (int k = 0; k < 2 && !ret; k++) {
		/*
		 * perf diff's rows; the pictures keep the chains, their frames
		 * functions alone, as the old stacks were
		 */
		TALLY_OPTS(tally_hist_opts, ho, .keys = d.keys, .nr_keys = (size_t)d.nkeys,
			   .sym_by_name = true,
			   .chains = d.flamegraph || d.html, .no_inline = true);
		TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &d, .symfs = d.symfs,
			   .kallsyms = d.kallsyms, .no_demangle = !demangle);

		d.side = k;
		if (!(ss[k] = cli_session_open("diff", files[k], &so, &ret)))
			break;
		if ((ret = cli_sample_filter_init(&d.sf[k], "diff", ss[k], NULL, d.cpu_list)))
			break;
		if (d.from[k].url && (ret = tally_store_profile__apply(d.from[k].profile, ss[k]))) {
			fprintf(stderr, "tally diff: %s\n", strerror(-ret));
			ret = 1;
			break;
		}
		if (!(d.h[k] = tally_hist__new(ss[k], &ho))) {
			fprintf(stderr, "tally diff: %s\n", strerror(errno));
			ret = 1;
			break;
		}

		ret = cli_session_run(ss[k], "diff", files[k]);
	}
	for (int k = 0; k < 2 && !ret; k++)
		if (tally_hist__resort(d.h[k]))
			d.err = -ENOMEM;
	/* a block per event of the baseline, as perf: its rows paired with its match's */
	for (int e = 0; !ret && ss[0] && e < tally_session__nr_events(ss[0]); e++) {
		d.attr_of[0] = e;
		d.attr_of[1] = event_match(ss, e);
		if (d.err || (d.err = pair_rows(&d))) {
			fprintf(stderr, "tally diff: %s\n", strerror(-d.err));
			ret = 1;
			break;
		}
		print(&d, tally_session__event_name(ss[0], e), e == 0);
	}
	/* the pictures: the first event's, paired as before */
	d.attr_of[0] = 0;
	d.attr_of[1] = ret ? 0 : event_match(ss, 0);
	if (d.attr_of[1] < 0)
		d.attr_of[1] = 0;
	for (int k = 0; !ret && k < 2; k++) {
		const char *path = k ? d.html : d.flamegraph;
		struct diff_picture p = { .html = k == 1 };
		struct tally_stacks *st[2] = { NULL, NULL };
		int err = 0;

		if (!path)
			continue;
		/* the histograms' stacks, functions alone (no source lines to look up) */
		for (int f = 0; f < 2 && !err; f++)
			if (!(st[f] = tally_stacks__from_hist_flags(d.h[f], d.attr_of[f],
								    TALLY_STACKS_FUNCTIONS)))
				err = -errno;
		p.base = st[0];
		p.s = st[1];
		snprintf(p.title, sizeof(p.title), "%s against %s (red grew, blue shrank)", names[1],
			 names[0]);
		/* all or nothing: a full disk leaves no half picture */
		if (!err)
			err = tally_stacks__write_file(path, diff_draw, &p);
		if (err) {
			fprintf(stderr, "tally diff: %s: %s\n", path, strerror(-err));
			ret = 1;
		}
		tally_stacks__free(st[0]);
		tally_stacks__free(st[1]);
	}
out:
	free(d.rows);
	for (int k = 0; k < 2; k++) {
		tally_hist__free(d.h[k]);
		tally_session__close(ss[k]);
		cli_sample_filter_free(&d.sf[k]);
		cli_from_free(&d.from[k]);
	}
	return ret;
}
