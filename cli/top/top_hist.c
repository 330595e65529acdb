// SPDX-License-Identifier: MIT
/*
 * top's rows: the live session's samples counted in the library's
 * histogram (tally/hist.h), resorted at each refresh and printed as
 * perf top's rows with report's call graphs. See top.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include <tally/hist.h>
#include <tally/stacks.h>
#include "top.h"

struct rate { uint64_t samples, kernel, all; };

struct top_hist {
	struct tally_hist *h;
	struct hist_cells cells;	/* --fields' and --hierarchy's cells */
	struct top_hist_opts o;
	struct rate *rate;	/* per event: the headline's counts */
	int nev;
};

static const enum tally_hist_key hist_key[TK__NR] = {
	[TK_COMM] = TALLY_HIST_COMM, [TK_PID] = TALLY_HIST_PID, [TK_DSO] = TALLY_HIST_DSO,
	[TK_SYM] = TALLY_HIST_SYM, [TK_CPU] = TALLY_HIST_CPU,
};

/* top's key of a histogram key; TK__NR: none */
static enum top_key top_key_of(enum tally_hist_key k)
{
	for (int i = 0; i < TK__NR; i++)
		if (hist_key[i] == k)
			return (enum top_key)i;
	return TK__NR;
}

int top_hist_parse_fields(struct top_hist_opts *o, const char *spec, bool sort_given)
{
	enum tally_hist_key keys[TALLY_HIST_KEY__NR];
	int n = sort_given ? o->nkeys : 0;
	uint64_t allowed = 0;

	for (int i = 0; i < TK__NR; i++)
		allowed |= 1ull << hist_key[i];
	for (int i = 0; i < n; i++)
		keys[i] = hist_key[o->keys[i]];
	if (hist_fields_parse(&o->fields, spec, keys, &n, allowed, "top", "--fields"))
		return -1;
	for (int i = 0; i < n; i++)
		o->keys[i] = top_key_of(keys[i]);
	o->nkeys = n;
	return 0;
}

struct top_hist *top_hist_new(struct tally_session *ss, int nr_events,
			      const struct top_hist_opts *o)
{
	struct top_hist *t = calloc(1, sizeof(*t));
	enum tally_hist_key keys[TK__NR];

	if (!t || !(t->rate = calloc((size_t)nr_events, sizeof(*t->rate)))) {
		free(t);
		return NULL;
	}
	for (int i = 0; i < o->nkeys; i++)
		keys[i] = hist_key[o->keys[i]];
	{
		TALLY_OPTS(tally_hist_opts, ho, .keys = keys, .nr_keys = o->nkeys,
			   .chains = o->chains, .children = o->children,
			   .graph = o->chains && o->cg.mode != CG_NONE,
			   .order = o->cg.caller ? TALLY_HIST_CALLER : TALLY_HIST_CALLEE,
			   .address = o->cg.address, .no_inline = !o->inline_frames,
			   .cpu_util = o->fields.n && hist_fields_cpu_util(&o->fields));

		int order[3 * TALLY_HIST_KEY__NR + 4];

		if (!(t->h = tally_hist__new(ss, &ho)) ||
		    /* --fields: the rows in the fields' order, as report's -F */
		    (o->fields.n && tally_hist__sort(t->h, order, hist_fields_order(&o->fields, keys,
										o->nkeys, order))) ||
		    ((o->filter.comms || o->filter.dsos || o->filter.symbols) &&
		     tally_hist__set_filter(t->h, &o->filter))) {
			tally_hist__free(t->h);
			free(t->rate);
			free(t);
			return NULL;
		}
	}
	t->o = *o;
	t->nev = nr_events;
	t->cells = (struct hist_cells){ .ss = ss, .dsos = o->filter.dsos != NULL };
	return t;
}

void top_hist_free(struct top_hist *t)
{
	if (!t)
		return;
	tally_hist__free(t->h);
	free(t->rate);
	free(t);
}

void top_hist_zero(struct top_hist *t)
{
	tally_hist__zero(t->h);
}

int top_hist_decay(struct top_hist *t)
{
	return tally_hist__decay(t->h);
}

void top_hist_hide(struct top_hist *t, bool kernel, bool user)
{
	t->o.hide_kernel = kernel;
	t->o.hide_user = user;
}

int top_hist_nr_events(const struct top_hist *t)
{
	return t->nev;
}

uint64_t top_hist_samples(const struct top_hist *t, int idx)
{
	TALLY_OPTS(tally_hist_totals, tot);

	return tally_hist__totals(t->h, idx, &tot) ? 0 : tot.samples;
}

void top_hist_take_rate(struct top_hist *t, int idx, struct top_rate *r)
{
	struct rate *e = &t->rate[idx];

	r->samples = e->samples;
	r->kernel = e->kernel;
	r->total_samples = e->all;
	e->samples = e->kernel = 0;
}

int top_hist_add(struct top_hist *t, const struct tally_session_sample *smp)
{
	if (smp->attr < 0 || smp->attr >= t->nev)
		return 0;
	t->rate[smp->attr].samples++;
	t->rate[smp->attr].all++;
	if (smp->mode == TALLY_CPUMODE_KERNEL)
		t->rate[smp->attr].kernel++;
	return tally_hist__add(t->h, smp);
}

int top_hist_resort(struct top_hist *t)
{
	return tally_hist__resort(t->h);
}

static const char *const headers[TK__NR] = { "Command", "Pid:Command", "Shared Object", "Symbol", "CPU" };

static int key_text(const struct tally_hist_row *r, enum top_key k, char *buf, size_t n)
{
	switch (k) {
	case TK_COMM: return snprintf(buf, n, "%s", r->comm ? r->comm : ":-1");
	case TK_PID: return snprintf(buf, n, "%7d:%s", r->tid, r->comm ? r->comm : "");
	case TK_DSO: return snprintf(buf, n, "%s", r->dso ? r->dso : "[unknown]");
	case TK_SYM:
		if (r->sym)
			return snprintf(buf, n, "[%c] %s", r->level, r->sym);
		return snprintf(buf, n, "[%c] 0x%016llx", r->level, (unsigned long long)r->addr);
	case TK_CPU: return snprintf(buf, n, "%03d", r->cpu);
	default: return snprintf(buf, n, "?");
	}
}

static int digits(long v)
{
	int n = v < 0 ? 2 : 1;

	for (v = v < 0 ? -v : v; v >= 10; v /= 10)
		n++;
	return n;
}

/* key_text's length without the text: the widths pass reads every row at each refresh */
static int key_width(const struct tally_hist_row *r, enum top_key k)
{
	int n;

	switch (k) {
	case TK_COMM: return (int)strlen(r->comm ? r->comm : ":-1");
	case TK_PID:
		n = digits(r->tid);
		return (n > 7 ? n : 7) + 1 + (int)(r->comm ? strlen(r->comm) : 0);
	case TK_DSO: return (int)strlen(r->dso ? r->dso : "[unknown]");
	case TK_SYM: return 4 + (r->sym ? (int)strlen(r->sym) : 18);
	case TK_CPU: return (n = digits(r->cpu)) > 3 ? n : 3;
	default: return 1;
	}
}

static bool hidden(const struct top_hist *t, const struct tally_hist_row *r)
{
	return (t->o.hide_kernel && r->level == 'k') || (t->o.hide_user && r->level != 'k');
}

/* one --comms, --dsos or --symbols value: its column says nothing, perf drops it (sort__setup_elide) */
static bool elided(const struct top_hist *t, enum top_key k)
{
	const char *l = k == TK_COMM ? t->o.filter.comms : k == TK_DSO ? t->o.filter.dsos :
			k == TK_SYM ? t->o.filter.symbols : NULL;

	return l && !strchr(l, ',');
}

static void table_graph(FILE *fp, const struct tally_hist_row *r, uint64_t total, void *arg)
{
	const struct top_hist *t = arg;

	if (r->graph)
		cg_print(fp, r->graph, &t->o.cg, total, t->o.children ? r->children : r->self, false);
}

/* --fields and --hierarchy: report's tables of the rows shown */
static void print_table(struct top_hist *t, int idx, FILE *fp, bool hash, uint64_t total)
{
	size_t n = tally_hist__nr_rows(t->h, idx), nv = 0;
	struct tally_hist_row *rows = malloc((n + 1) * sizeof(*rows));
	enum tally_hist_key keys[TK__NR];
	struct hist_table tb = { .fp = fp, .cells = &t->cells, .total = total, .header = hash,
				 .children = t->o.children, .percent_limit = t->o.percent_limit,
				 .entries = t->o.entries, .show_nr = t->o.show_nr,
				 .show_period = t->o.show_period,
				 .graph = t->o.cg.mode != CG_NONE ? table_graph : NULL, .arg = t };

	if (!rows) {
		fprintf(stderr, "tally top: %s\n", strerror(ENOMEM));
		return;
	}
	for (size_t k = 0; k < n; k++) {
		rows[nv].sz = sizeof(rows[nv]);
		/* as perf top's: rows hidden by -K/-U or aged to nothing are not counted */
		if (!tally_hist__row(t->h, idx, k, &rows[nv]) && !hidden(t, &rows[nv]) &&
		    (t->o.children ? rows[nv].children : rows[nv].self))
			nv++;
	}
	for (int i = 0; i < t->o.nkeys; i++)
		keys[i] = hist_key[t->o.keys[i]];
	if (t->o.fields.n)
		hist_fields_print(&t->o.fields, &tb, rows, nv);
	else if (hist_hier_print(&tb, keys, t->o.nkeys, rows, nv))
		fprintf(stderr, "tally top: %s\n", strerror(ENOMEM));
	free(rows);
}

void top_hist_print(struct top_hist *t, int idx, FILE *fp, bool hash)
{
	size_t n = tally_hist__nr_rows(t->h, idx);
	int width[TK__NR] = { 0 }, printed = 0, last = -1;
	TALLY_OPTS(tally_hist_totals, tot);
	double total;
	char buf[1024];

	if (tally_hist__totals(t->h, idx, &tot))
		return;
	if (t->o.fields.n || t->o.hierarchy) {
		print_table(t, idx, fp, hash, tot.period);
		return;
	}
	total = tot.period ? (double)tot.period : 1;
	for (int i = 0; i < t->o.nkeys; i++) {
		width[i] = (int)strlen(headers[t->o.keys[i]]);
		if (!elided(t, t->o.keys[i]))
			last = i;
	}
	for (size_t k = 0; k < n; k++) {
		TALLY_OPTS(tally_hist_row, r);

		if (tally_hist__row(t->h, idx, k, &r) || hidden(t, &r))
			continue;
		for (int i = 0; i < t->o.nkeys; i++) {
			int w = key_width(&r, t->o.keys[i]);

			if (w > width[i])
				width[i] = w;
		}
	}
	if (hash) {
		fprintf(fp, "# %s%s%s", t->o.children ? "Children      Self" : "Overhead",
			t->o.show_nr ? "       Samples" : "", t->o.show_period ? "        Period" : "");
		for (int i = 0; i < t->o.nkeys; i++)
			if (!elided(t, t->o.keys[i]))
				fprintf(fp, "  %-*s", width[i], headers[t->o.keys[i]]);
		fprintf(fp, "\n# %s%s%s", t->o.children ? "........  ........" : "........",
			t->o.show_nr ? "  ............" : "", t->o.show_period ? "  ............" : "");
		for (int i = 0; i < t->o.nkeys; i++) {
			if (elided(t, t->o.keys[i]))
				continue;
			fprintf(fp, "  ");
			for (int k = 0; k < width[i]; k++)
				fputc('.', fp);
		}
		fprintf(fp, "\n#\n");
	}
	for (size_t k = 0; k < n; k++) {
		TALLY_OPTS(tally_hist_row, r);
		uint64_t v;

		if (tally_hist__row(t->h, idx, k, &r) || hidden(t, &r))
			continue;
		v = t->o.children ? r.children : r.self;
		if (!v || 100.0 * (double)v / total < t->o.percent_limit)
			continue;
		if (t->o.entries && printed++ >= t->o.entries)
			break;
		if (t->o.children)
			fprintf(fp, "  %7.2f%%  %7.2f%%", 100.0 * (double)r.children / total,
				100.0 * (double)r.self / total);
		else
			fprintf(fp, "  %7.2f%%", 100.0 * (double)r.self / total);
		/* report's columns (perf top's -n and --show-total-period) */
		if (t->o.show_nr)
			fprintf(fp, "  %12llu", (unsigned long long)r.samples);
		if (t->o.show_period)
			fprintf(fp, "  %12llu", (unsigned long long)r.self);
		for (int i = 0; i < t->o.nkeys; i++) {
			if (elided(t, t->o.keys[i]))
				continue;
			key_text(&r, t->o.keys[i], buf, sizeof(buf));
			/* the last column unpadded, as perf's */
			fprintf(fp, "  %-*s", i < last ? width[i] : 0, buf);
		}
		fputc('\n', fp);
		if (t->o.cg.mode != CG_NONE && r.graph)
			cg_print(fp, r.graph, &t->o.cg, tot.period, v, false);
	}
}

void top_hist_folded(struct top_hist *t, int idx, FILE *fp)
{
	struct tally_stacks *st = tally_stacks__from_hist(t->h, idx);

	if (st)
		tally_stacks__write_folded(st, fp);
	tally_stacks__free(st);
}
