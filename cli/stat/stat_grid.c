// SPDX-License-Identifier: MIT
/*
 * tally stat's result grid: every event x every aggregate, folded from
 * the evlist's aggregated counts across runs (running statistics per
 * cell), turned into rows with their metrics and printed in perf's order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <tally/tally.h>
#include "stat.h"

static bool no_scale;		/* --no-scale */

void stat_grid_set_scale(bool scale)
{
	no_scale = !scale;
}

_Static_assert((int)STAT_AGGR_NODE == (int)TALLY_AGGR_NODE &&
	       (int)STAT_AGGR_CORE == (int)TALLY_AGGR_CORE &&
	       (int)STAT_AGGR_THREAD == (int)TALLY_AGGR_THREAD,
	       "enum stat_aggr mirrors enum tally_aggr_mode");

struct stat_cell *stat_grid_cell(struct stat_grid *g, int e, int a)
{
	return &g->cells[(size_t)e * (size_t)g->agcap + (size_t)a];
}

void stat_grid_free(struct stat_grid *g)
{
	for (int i = 0; i < g->nev; i++) {
		free(g->ev[i].name);
		free(g->ev[i].cgroup);
		free(g->ev[i].unit);
	}
	free(g->ev);
	free(g->run_s);
	free(g->ag);
	free(g->cells);
	memset(g, 0, sizeof(*g));
}

static int grid_find_ag(struct stat_grid *g, const struct tally_aggr *a)
{
	for (int i = 0; i < g->nag; i++)
		if (g->ag[i].key == a->key && g->ag[i].socket == a->socket &&
		    g->ag[i].die == a->die && g->ag[i].core == a->core)
			return i;
	return -1;
}

/* Add an aggregate column, growing every event's row. */
static int grid_add_ag(struct stat_grid *g, const struct tally_aggr *a)
{
	if (g->nag == g->agcap) {
		int cap = g->agcap ? g->agcap * 2 : 4;
		struct stat_cell *c = calloc((size_t)g->nev * (size_t)cap, sizeof(*c));
		struct stat_agkey *k = reallocarray(g->ag, (size_t)cap, sizeof(*k));

		if (!c || !k) {
			free(c);
			if (k)
				g->ag = k;
			return -ENOMEM;
		}
		for (int e = 0; e < g->nev && g->nag; e++)
			memcpy(&c[(size_t)e * (size_t)cap], &g->cells[(size_t)e * (size_t)g->agcap],
			       (size_t)g->nag * sizeof(*c));
		free(g->cells);
		g->cells = c;
		g->ag = k;
		g->agcap = cap;
	}
	g->ag[g->nag] = (struct stat_agkey){ .key = a->key, .socket = a->socket,
					.die = a->die, .core = a->core, .nr = a->nr };
	return g->nag++;
}

/* The first run fixes the events; later runs must have the same ones. */
static int grid_init_events(struct stat_grid *g, struct tally_evlist *l)
{
	struct tally_evsel *e;
	int i = 0, n = tally_evlist__nr(l);

	if (g->ev)
		return g->nev == n ? 0 : -EINVAL;
	g->ev = calloc((size_t)(n ? n : 1), sizeof(*g->ev));
	if (!g->ev)
		return -ENOMEM;
	g->nev = n;
	tally_evlist__for_each_evsel(l, e) {
		const struct perf_event_attr *attr = tally_evsel__attr(e);
		const char *u = tally_evsel__unit(e);
		struct stat_grid_ev *ge = &g->ev[i++];

		ge->supported = true;
		ge->name = strdup(tally_evsel__name(e));
		if (tally_evsel__cgroup(e) && !(ge->cgroup = strdup(tally_evsel__cgroup(e))))
			return -ENOMEM;
		ge->kind = stat_kind_of(attr->type, attr->config);
		ge->scale = tally_evsel__scale(e);
		if (!(ge->scale > 0))
			ge->scale = 1.0;
		/* msec of a clock; RAPL's 2.3e-10 Joules: what perf prints as %.2f */
		ge->frac = ge->kind == STAT_K_CLOCK || floor(ge->scale) != ge->scale;
		if (ge->kind == STAT_K_CLOCK)
			u = "msec";
		ge->unit = strdup(u ? u : "");
		if (!ge->name || !ge->unit)
			return -ENOMEM;
	}
	return 0;
}

static void comm_of(struct tally_thread_map *m, pid_t tid, char *buf, size_t len)
{
	for (int i = 0; i < tally_thread_map__nr(m); i++)
		if (tally_thread_map__pid(m, i) == tid) {
			snprintf(buf, len, "%s", tally_thread_map__comm(m, i));
			return;
		}
	snprintf(buf, len, "?");
}

/*
 * Fold the evlist's stored counts (delta: the last interval) into g.
 * With reset, the cells are cleared first (intervals).
 */
int stat_grid_fold(struct stat_grid *g, struct tally_evlist *l, enum stat_aggr mode,
		   const struct tally_topology *topo, bool delta, bool reset)
{
	struct tally_evsel *e;
	int i = 0, err;

	err = grid_init_events(g, l);
	if (err)
		return err;
	if (reset)
		for (int k = 0; k < g->nev * g->agcap; k++)
			memset(&g->cells[k], 0, sizeof(g->cells[k]));
	tally_evlist__for_each_evsel(l, e) {
		struct tally_aggr *a = NULL;
		int n = tally_evsel__aggregate(e, (enum tally_aggr_mode)mode, topo, delta, &a);
		int ev = i++;

		if (!tally_evsel__supported(e))
			g->ev[ev].supported = false;
		if (n < 0)
			return n;
		for (int j = 0; j < n; j++) {
			int ag = grid_find_ag(g, &a[j]);
			struct stat_cell *c;
			double s = g->ev[ev].scale;

			if (ag < 0)
				ag = grid_add_ag(g, &a[j]);
			if (ag < 0) {
				free(a);
				return ag;
			}
			if (mode == STAT_AGGR_THREAD && !g->ag[ag].comm[0] && g->wl_tid &&
			    a[j].key == g->wl_tid)
				snprintf(g->ag[ag].comm, sizeof(g->ag[ag].comm), "%s", g->wl_comm);
			else if (mode == STAT_AGGR_THREAD && !g->ag[ag].comm[0])
				comm_of(tally_evsel__threads(e) ? tally_evsel__threads(e) :
					tally_evlist__threads(l), a[j].key,
					g->ag[ag].comm, sizeof(g->ag[ag].comm));
			c = stat_grid_cell(g, ev, ag);
			c->present = true;
			if (a[j].scaled.state == TALLY_COUNT_COUNTED ||
			    a[j].scaled.state == TALLY_COUNT_SCALED) {
				c->counted = true;
				c->scaled |= a[j].scaled.state == TALLY_COUNT_SCALED;
			}
			stat_acc_add(&c->val, (double)(no_scale ? a[j].counts.val : a[j].scaled.val) * s);
			stat_acc_add(&c->run, (double)a[j].counts.run);
			stat_acc_add(&c->ena, (double)a[j].counts.ena);
		}
		free(a);
	}
	return 0;
}

static void cell_row(struct stat_grid *g, int e, int a, bool noise, struct stat_row *r)
{
	struct stat_cell *c = stat_grid_cell(g, e, a);
	struct stat_agkey *k = &g->ag[a];

	memset(r, 0, sizeof(*r));
	r->event = g->ev[e].name;
	r->cgroup = g->ev[e].cgroup;
	r->unit = g->ev[e].unit;
	r->kind = g->ev[e].kind;
	r->frac = g->ev[e].frac;
	if (!g->ev[e].supported)
		r->state = STAT_S_NOT_SUPPORTED;
	else if (!c->counted)
		r->state = STAT_S_NOT_COUNTED;
	else
		r->state = c->scaled ? STAT_S_SCALED : STAT_S_COUNTED;
	r->key = k->key;
	r->socket = k->socket;
	r->die = k->die;
	r->core = k->core;
	r->nr = k->nr;
	r->comm = k->comm;
	r->val = stat_acc_mean(&c->val);
	r->run = stat_acc_mean(&c->run);
	r->ena = stat_acc_mean(&c->ena);
	r->has_noise = noise;
	r->noise_pct = stat_acc_rel_pct(&c->val);
}

static int cmp_row_val_desc(const void *x, const void *y)
{
	const struct stat_row *a = x, *b = y;

	return (a->val < b->val) - (a->val > b->val);
}

/*
 * Print the grid in perf's order: event-major for global, per-CPU and
 * per-thread (threads by count, largest first); aggregate-major for
 * core/die/socket/node.
 */
int stat_grid_print(struct stat_grid *g, struct stat_out *o, enum stat_aggr mode,
		    double wall_ns, bool noise)
{
	struct stat_row *rows = calloc((size_t)(g->nev * g->nag + 1), sizeof(*rows));
	struct stat_row *col = calloc((size_t)(g->nev + 1), sizeof(*col));
	int *colidx = calloc((size_t)(g->nev + 1), sizeof(*colidx));

	if (!rows || !col || !colidx) {
		free(rows);
		free(col);
		free(colidx);
		return -ENOMEM;
	}
	/* Metrics look across the events of one aggregate. */
	for (int a = 0; a < g->nag; a++) {
		int n = 0;

		for (int e = 0; e < g->nev; e++) {
			if (!stat_grid_cell(g, e, a)->present)
				continue;
			cell_row(g, e, a, noise, &col[n]);
			colidx[n++] = e;
		}
		stat_metrics_compute(col, n, wall_ns);
		for (int i = 0; i < n; i++)
			rows[colidx[i] * g->nag + a] = col[i];
		/* --metric-only: one line per aggregate, in the grid's order */
		if (o->metric_only && o->format != STAT_FMT_OPENMETRICS)
			stat_out_metric_line(o, col, n);
	}
	if (o->metric_only && o->format != STAT_FMT_OPENMETRICS) {
		/* nothing else */
	} else if (mode == STAT_AGGR_CORE || mode == STAT_AGGR_DIE || mode == STAT_AGGR_SOCKET ||
	    mode == STAT_AGGR_NODE) {
		for (int a = 0; a < g->nag; a++)
			for (int e = 0; e < g->nev; e++)
				if (stat_grid_cell(g, e, a)->present)
					stat_out_row(o, &rows[e * g->nag + a]);
	} else {
		for (int e = 0; e < g->nev; e++) {
			struct stat_row *r = &rows[e * g->nag];
			int n = 0;

			for (int a = 0; a < g->nag; a++)
				if (stat_grid_cell(g, e, a)->present &&
				    !(g->skip_zero && rows[e * g->nag + a].val == 0))
					r[n++] = rows[e * g->nag + a];
			if (mode == STAT_AGGR_THREAD)
				qsort(r, (size_t)n, sizeof(*r), cmp_row_val_desc);
			for (int i = 0; i < n; i++)
				stat_out_row(o, &r[i]);
		}
	}
	free(rows);
	free(col);
	free(colidx);
	return 0;
}

/*
 * One run's elapsed time (and, for a workload counted alone, its rusage)
 * into the footer's statistics.
 */
void stat_grid_add_run(struct stat_grid *g, double elapsed_s, const struct rusage *ru)
{
	stat_acc_add(&g->elapsed, elapsed_s);
	if (g->nrun_s == g->run_cap) {
		int cap = g->run_cap ? g->run_cap * 2 : 8;
		double *n = reallocarray(g->run_s, (size_t)cap, sizeof(*n));

		if (n) {
			g->run_s = n;
			g->run_cap = cap;
		}
	}
	if (g->nrun_s < g->run_cap)
		g->run_s[g->nrun_s++] = elapsed_s;
	if (ru) {
		g->rusage = true;
		g->user_s = ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
		g->sys_s = ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
	}
}

/* The totals: header, the grid, footer (one exposition for OpenMetrics). */
void stat_grid_print_totals(struct stat_grid *g, struct stat_out *o,
			    const struct stat_config *cfg, const char *target)
{
	struct stat_footer f = {
		.runs = (int)g->elapsed.n,	/* fewer than -r after Ctrl-C */
		.elapsed_s = stat_acc_mean(&g->elapsed),
		.elapsed_sd = stat_acc_sem(&g->elapsed),
		.show_rusage = g->rusage && g->elapsed.n == 1,
		.user_s = g->user_s,
		.sys_s = g->sys_s,
		.null_run = cfg->null_run,
		.table = cfg->table ? g->run_s : NULL,
		.ntable = g->nrun_s,
	};

	o->interval = false;
	if (o->format == STAT_FMT_OPENMETRICS) {
		stat_out_om_begin(o);
		stat_grid_print(g, o, cfg->aggr, f.elapsed_s * 1e9, f.runs > 1);
		stat_out_om_end(o, &f);
		return;
	}
	stat_out_header(o, target, f.runs);
	stat_grid_print(g, o, cfg->aggr, f.elapsed_s * 1e9, f.runs > 1);
	stat_out_footer(o, &f);
}
