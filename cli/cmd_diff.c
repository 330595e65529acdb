// SPDX-License-Identifier: MIT
/*
 * tally diff: perf diff's rows for two perf.data files: per (shared
 * object, symbol) the baseline's share and the change in the other
 * file, ordered by the size of the change, as perf diff 6.1 prints them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/stacks.h>
#include <tally/tally.h>
#include "cli.h"
#include "pager.h"
#include "parse_options.h"
#include "read_file.h"
#include "resolve_internal.h"

struct drow {
	const char *dso, *sym;		/* copies */
	uint64_t addr;
	char mode;
	uint64_t period[2];
	bool in[2];
	double pct[2], delta;
	struct drow *next;
};

struct diff {
	struct resolver res[2];
	int side;
	struct drow **tab, **rows;
	size_t nb, n;
	uint64_t total[2];
	int attr_of[2];			/* the event compared, per file */
	const char *flamegraph;		/* a differential flame graph, to this file */
	const char *html;		/* the comparison's page */
	struct tally_stacks *st[2];
};

/* The sample's stack in the model: its chain root first, or its own address. */
static void add_stack(struct diff *d, const struct tally_sample *smp, enum tally_cpumode mode,
		      uint64_t period, const char *comm)
{
	static enum tally_cpumode modes[CHAIN_MAX];
	struct tally_stacks *st = d->st[d->side];
	struct resolver *res = &d->res[d->side];
	int t = tally_stacks__thread(st, (int32_t)smp->pid, (int32_t)smp->tid, comm), node = -1;
	uint64_t nr = smp->callchain.nr < CHAIN_MAX ? smp->callchain.nr : CHAIN_MAX;

	if (t < 0)
		return;
	if (nr && tally_session__chain_corrupt(smp))
		nr = 0;		/* perf drops such a chain: the ip alone */
	tally__chain_modes(smp, modes);
	for (uint64_t i = nr + 1; i > 0 && node >= -1; i--) {
		/* without a chain: the ip alone */
		uint64_t ip = nr ? smp->callchain.ips[i - 1] : smp->ip;
		const struct where *w;
		struct tally_stack_frame f;
		int fi;

		if (nr && i == nr + 1)
			continue;
		if (ip >= PERF_CONTEXT_MAX)
			continue;
		w = tally__resolver_get(res, (int32_t)smp->pid, (int32_t)smp->tid, ip, nr ? modes[i - 1] : mode);
		if (!w)
			return;
		f = (struct tally_stack_frame){ .name = w->sym, .dso = w->dso,
						.addr = w->mapped ? w->addr : ip, .kernel = w->mode == 'k' };
		fi = tally_stacks__frame(st, &f);
		node = fi < 0 ? -2 : tally_stacks__push(st, node, fi);
		if (!nr)
			break;
	}
	if (node >= 0)
		tally_stacks__sample(st, t, node, 1, period);
}

static uint64_t row_hash(const char *dso, const char *sym, uint64_t addr)
{
	return hash_mix(tally__fnv_str(tally__fnv_str(FNV_BASIS, dso), sym) ^ (sym ? 0 : addr));
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static struct drow *row_find(struct diff *d, const struct where *w, uint64_t addr)
{
	const char *dso = w->dso ? w->dso : "[unknown]";
	uint64_t h = row_hash(dso, w->sym, addr);
	struct drow *r;

	if (d->n >= d->nb) {
		size_t nb = d->nb ? d->nb * 2 : 1024;
		struct drow **t = calloc(nb, sizeof(*t));
		void *v = realloc(d->rows, nb * sizeof(*d->rows));

		if (!t || !v) {
			free(t);
			if (v)
				d->rows = v;
			return NULL;
		}
		d->rows = v;
		for (size_t i = 0; i < d->n; i++) {
			struct drow *x = d->rows[i];
			uint64_t k = row_hash(x->dso, x->sym, x->addr) & (nb - 1);

			x->next = t[k];
			t[k] = x;
		}
		free(d->tab);
		d->tab = t;
		d->nb = nb;
	}
	for (r = d->tab[h & (d->nb - 1)]; r; r = r->next)
		if (same(r->dso, dso) && same(r->sym, w->sym) && (w->sym || r->addr == addr))
			return r;
	r = calloc(1, sizeof(*r));
	if (!r || !(r->dso = strdup(dso)) || (w->sym && !(r->sym = strdup(w->sym)))) {
		if (r)
			free((char *)r->dso);
		free(r);
		return NULL;
	}
	r->addr = addr;
	r->mode = w->mode;
	r->next = d->tab[h & (d->nb - 1)];
	d->tab[h & (d->nb - 1)] = r;
	d->rows[d->n++] = r;
	return r;
}

static int on_sample(struct tally_session *ss, const struct tally_session_sample *ts, void *arg)
{
	struct diff *d = arg;
	int idx = ts->attr;
	const struct tally_sample *smp = ts->sample;
	enum tally_cpumode mode = ts->mode;
	uint64_t period = ts->period;
	const struct where *w;
	struct drow *r;

	if (idx != d->attr_of[d->side])
		return 0;
	d->total[d->side] += period;
	w = tally__resolver_get(&d->res[d->side], (int32_t)smp->pid, (int32_t)smp->tid, smp->ip, mode);
	if (!w || !(r = row_find(d, w, w->sym ? 0 : w->addr)))
		return 0;
	r->period[d->side] += period;
	r->in[d->side] = true;
	if (d->flamegraph || d->html)
		add_stack(d, smp, mode, period, tally_session__comm(ss, ts));
	return 0;
}

static const struct diff *sort_ctx;

static int cmp_str(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b ? 0 : (!a ? 1 : -1);
	return strcmp(a, b);
}

/*
 * perf diff's order: rows in both files (or only in the new one) by the
 * size of the change, then the baseline's share; rows only in the
 * baseline last, by their share; then shared object and symbol.
 */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct drow *a = *(const struct drow *const *)pa, *b = *(const struct drow *const *)pb;
	int c;

	if (a->in[1] != b->in[1])
		return a->in[1] ? -1 : 1;
	if (a->in[1] && fabs(a->delta) != fabs(b->delta))
		return fabs(a->delta) > fabs(b->delta) ? -1 : 1;
	if (a->period[0] != b->period[0])
		return a->period[0] > b->period[0] ? -1 : 1;
	if ((c = cmp_str(a->dso, b->dso)))
		return c;
	if (a->sym || b->sym)
		return cmp_str(a->sym, b->sym);
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static int sym_text(const struct drow *r, char *buf, size_t len)
{
	if (r->sym)
		return snprintf(buf, len, "[%c] %s", r->mode, r->sym);
	return snprintf(buf, len, r->addr ? "[%c] 0x%016llx" : "[%c] %016llx", r->mode,
			(unsigned long long)r->addr);
}

static void print(struct diff *d, const char *event)
{
	int wd = (int)strlen("Shared Object"), ws = (int)strlen("Symbol");
	char buf[4096];

	for (size_t i = 0; i < d->n; i++) {
		struct drow *r = d->rows[i];

		for (int k = 0; k < 2; k++)
			r->pct[k] = d->total[k] ? 100.0 * (double)r->period[k] / (double)d->total[k] : 0;
		r->delta = r->pct[1] - r->pct[0];
		if ((int)strlen(r->dso) > wd)
			wd = (int)strlen(r->dso);
		if (sym_text(r, buf, sizeof(buf)) > ws)
			ws = (int)strlen(buf);
	}
	sort_ctx = d;
	if (d->n)
		qsort(d->rows, d->n, sizeof(*d->rows), cmp_rows);
	printf("# Event '%s'\n#\n# Baseline  Delta Abs  %-*s  %-*s\n# ........  .........  ", event,
	       wd, "Shared Object", ws, "Symbol");
	for (int i = 0; i < wd; i++)
		putchar('.');
	printf("  ");
	for (int i = 0; i < ws; i++)
		putchar('.');
	printf("\n#\n");
	for (size_t i = 0; i < d->n; i++) {
		const struct drow *r = d->rows[i];

		if (r->in[0])
			printf("  %7.2f%%", r->pct[0]);
		else
			printf("  %8s", "");
		if (r->in[1])
			printf("  %+8.2f%%", r->delta);
		else
			printf("  %9s", "");
		sym_text(r, buf, sizeof(buf));
		printf("  %-*s  %s\n", wd, r->dso, buf);
	}
}

static const char *const diff_usage[] = {
	"tally diff [BASELINE [NEW]]",
	"",
	"perf diff's rows: each (shared object, symbol) with its share in the baseline",
	"file (default perf.data.old) and the change in the new one (default perf.data),",
	"the biggest change first.",
	NULL,
};

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

int cmd_diff(int argc, char **argv)
{
	struct tally_session *ss[2] = { NULL, NULL };
	struct diff d = { 0 };
	bool help = false;
	const struct cli_option opts[] = {
		CLI_STRING(0, "flamegraph", &d.flamegraph, "FILE.svg",
			   "a differential flame graph: the new file's stacks, red grew, blue shrank"),
		CLI_STRING(0, "html", &d.html, "FILE",
			   "one offline page: the functions' changes and the differential flame graph"),
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
	if (n > 2) {
		fprintf(stderr, "tally diff: two files at most (baseline, new)\n");
		return 129;
	}
	/* the parse leaves the file names first in argv */
	if (n == 1)
		files[1] = argv[0];
	if (n == 2) {
		files[0] = argv[0];
		files[1] = argv[1];
	}
	pager_start();
	if ((d.flamegraph || d.html) &&
	    (!(d.st[0] = tally_stacks__new()) || !(d.st[1] = tally_stacks__new()))) {
		fprintf(stderr, "tally diff: %s\n", strerror(ENOMEM));
		ret = 1;
	}
	for (int k = 0; k < 2 && !ret; k++) {
		d.side = k;
		/* the comm is looked up for the pictures alone */
		TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &d, .no_comm = true);

		if (!(ss[k] = cli_session_open("diff", files[k], &so, &ret)))
			break;
		tally__resolver_bind(&d.res[k], ss[k]);
		/* the baseline's first event, found by name in the new file */
		d.attr_of[k] = 0;
		for (int i = 0; k == 1 && i < tally_session__nr_events(ss[1]); i++)
			if (!strcmp(tally_session__event_name(ss[0], 0),
				    tally_session__event_name(ss[1], i))) {
				d.attr_of[1] = i;
				break;
			}
		ret = cli_session_run(ss[k], "diff", files[k]);
	}
	if (!ret)
		print(&d, tally_session__event_name(ss[0], 0));
	for (int k = 0; !ret && k < 2; k++) {
		const char *path = k ? d.html : d.flamegraph;
		struct diff_picture p = { .base = d.st[0], .s = d.st[1], .html = k == 1 };
		int err;

		if (!path)
			continue;
		snprintf(p.title, sizeof(p.title), "%s against %s (red grew, blue shrank)", files[1],
			 files[0]);
		/* all or nothing: a full disk leaves no half picture */
		err = tally_stacks__write_file(path, diff_draw, &p);
		if (err) {
			fprintf(stderr, "tally diff: %s: %s\n", path, strerror(-err));
			ret = 1;
		}
	}
	tally_stacks__free(d.st[0]);
	tally_stacks__free(d.st[1]);
	for (size_t i = 0; i < d.n; i++) {
		free((char *)d.rows[i]->dso);
		free((char *)d.rows[i]->sym);
		free(d.rows[i]);
	}
	free(d.rows);
	free(d.tab);
	for (int k = 0; k < 2; k++) {
		tally__resolver_free(&d.res[k]);
		tally_session__close(ss[k]);
	}
	return ret;
}
