// SPDX-License-Identifier: MIT
/*
 * Reading the histogram (tally/hist.h): its events' totals, its rows as the
 * public row struct, and the shapes, timeline and events the views below
 * the commands read (hist_internal.h). hist.c builds what these read.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/session.h>
#include "fmt.h"
#include "internal.h"
#include "hist_internal.h"
#include "rbtree.h"
#include "hist_priv.h"
#include "resolved_internal.h"

int tally_hist__nr_events(const struct tally_hist *h)
{
	return h ? h->nev : 0;
}

int tally_hist__totals(const struct tally_hist *h, int event, struct tally_hist_totals *out)
{
	size_t sz;

	if (!h || event < 0 || event >= h->nev || !out || out->sz < sizeof(size_t))
		return -EINVAL;
	sz = out->sz < sizeof(*out) ? out->sz : sizeof(*out);
	struct tally_hist_totals v = {
		.sz = sz, .samples = h->ev[event].samples, .period = h->ev[event].total,
		.shapes = h->ev[event].nshapes, .time_first = h->t_first, .time_last = h->t_last,
	};

	memcpy(out, &v, sz);
	return 0;
}

size_t tally_hist__nr_rows(const struct tally_hist *h, int event)
{
	return h && event >= 0 && event < h->nev ? h->ev[event].nrows : 0;
}

static void row_of(const struct tally_hist *h, const struct entry *e, struct tally_hist_row *out);

int tally_hist__row(const struct tally_hist *h, int event, size_t i, struct tally_hist_row *out)
{
	const struct entry *e;

	if (!h || event < 0 || event >= h->nev || i >= h->ev[event].nrows || !out ||
	    out->sz < sizeof(size_t))
		return -EINVAL;
	e = h->ev[event].rows[i];
	/*
	 * The rows are asked for in order, their entries lie anywhere: each
	 * step of the way fetched ahead from what the one before brought in
	 * (an entry's three lines, then its where's, then the where's map),
	 * so no prefetch waits on a load (one did: a third of the copies'
	 * time was the wait for rows[i + 4]->w).
	 */
	size_t nr = h->ev[event].nrows;

	if (i + 16 < nr) {
		const char *a = (const char *)h->ev[event].rows[i + 16];

		__builtin_prefetch(a);
		__builtin_prefetch(a + 64);
		__builtin_prefetch(a + 128);
		__builtin_prefetch(a + offsetof(struct entry, max_depth));
	}
	if (i + 8 < nr) {
		const char *w = (const char *)h->ev[event].rows[i + 8]->w;

		__builtin_prefetch(w + offsetof(struct where, map));	/* a where is three lines */
		__builtin_prefetch(w + offsetof(struct where, object_symoff));
	}
	if (i + 4 < nr && h->ev[event].rows[i + 4]->w->map)
		__builtin_prefetch(h->ev[event].rows[i + 4]->w->map);
	row_of(h, e, out);
	return 0;
}

int tally_hist__row_member(const struct tally_hist *h, int event, size_t i, int k,
			   struct tally_hist_row *out)
{
	const struct hist_ev *hs;
	const struct entry *m;

	if (!h || event < 0 || event >= h->nev || i >= h->ev[event].nrows || !out ||
	    out->sz < sizeof(size_t) || k < 0)
		return -EINVAL;
	hs = &h->ev[event];
	if (!k)
		return tally_hist__row(h, event, i, out);
	if (!hs->gpair || k > hs->gnm)
		return -EINVAL;
	if (hs->rows[i]->seq < hs->gd_to &&
	    (m = hs->gpair[hs->rows[i]->seq * (size_t)hs->gnm + (size_t)(k - 1)])) {
		row_of(h, m, out);
		return 0;
	}
	/* none of its key: the leader's keys, no counts */
	row_of(h, hs->rows[i], out);
	size_t sz = out->sz;
	struct tally_hist_row zero = { .sz = sz };

	memcpy(&zero, out, sz < sizeof(zero) ? sz : sizeof(zero));
	zero.self = zero.children = zero.samples = 0;
	zero.period_sys = zero.period_us = zero.period_guest_sys = zero.period_guest_us = 0;
	zero.graph = NULL;
	zero.max_depth = 0;
	memcpy(out, &zero, sz < sizeof(zero) ? sz : sizeof(zero));
	return 0;
}

/* entry e as the public row, out->sz bytes of it */
static void row_of(const struct tally_hist *h, const struct entry *e, struct tally_hist_row *out)
{
	size_t sz = out->sz < sizeof(*out) ? out->sz : sizeof(*out);
	struct tally_hist_row v = {
		.sz = sz, .self = e->self, .children = e->children, .samples = e->nself,
		.comm = e->comm, .pid = e->pid, .tid = e->tid, .cpu = e->cpu,
		.dso = e->dso, .path = e->w->map ? e->w->map->path : NULL, .sym = e->sym, .addr = e->addr,
		.sym_start = e->sym_start, .level = e->mode, .inlined = e->inlined,
		.srcline = entry_srcline(e), .parent = e->parent, .trace = e->trace,
		.graph = tally__hist_graph_node(&h->nodes, e->cg), .max_depth = e->max_depth,
		.object = e->sym && e->w->object && !e->inlined,
		/* perf's he->ip: a frame's absolute ip, the sample's own map-relative */
		.object_off = e->from_chain ? e->w->object_symoff : e->w->object_off,
		.data_src = e->m->data_src, .phys_addr = e->m->phys_addr, .data_page_size = e->m->dpage,
		.code_page_size = e->m->cpage, .weight = e->m->weight, .ins_lat = e->m->ins_lat,
		.daddr = e->m->addr, .data_sym = e->dw ? e->dw->sym : NULL,
		.data_dso = e->dw ? e->dw->dso : NULL, .data_object = e->dw && e->dw->object,
		.data_off = e->dw ? e->dw->object_symoff : 0,
		.data_cacheline = cl_of(e), .data_mapped = e->dw && e->dw->map,
		.br_flags = e->m->bflags,
		.iaddr = e->m->ip, .iaddr_sym = e->iw ? e->iw->sym : NULL,
		.iaddr_object = e->iw && e->iw->sym && e->iw->object,
		.iaddr_off = e->iw ? e->iw->object_symoff : 0,
		.transaction = e->m->txn, .cgroup = e->m->cgroup,
		.cgroup_name = tally__session_cgroup_name(h->ss, e->m->cgroup),
		.cgroup_dev = e->m->cg_dev, .cgroup_ino = e->m->cg_ino, .time = e->m->time,
		.ip = e->w->ip, .dso_size = map_size(e->w), .sym_size = e->w->sym_size,
		.socket = e->socket,
	};
	size_t sf;

	(void)tally__hist_srcfile(e, &sf);
	v.srcfile_len = (uint32_t)sf;
	v.period_sys = e->m->p_sys;
	v.period_us = e->m->p_us;
	v.period_guest_sys = e->m->p_gsys;
	v.period_guest_us = e->m->p_gus;

	if (e->bf && e->bt) {
		v.br_from = (struct tally_hist_branch_end){ .sym = e->bf->sym, .dso = e->bf->dso,
			.srcline = e->bf->srcline, .addr = e->bf->addr, .raw = e->m->bfrom, .level = e->blf };
		v.br_to = (struct tally_hist_branch_end){ .sym = e->bt->sym, .dso = e->bt->dso,
			.srcline = e->bt->srcline, .addr = e->bt->addr, .raw = e->m->bto, .level = e->blt };
		v.br_from_off = e->bf->object_symoff;
		v.br_to_off = e->bt->object_symoff;
	}

	memcpy(out, &v, sz);
}

/* ---- the views' access (hist_internal.h) ---- */

struct shape *const *tally__hist_shapes(const struct tally_hist *h, size_t *n)
{
	*n = h->nshapes;
	return h->shapes;
}

const struct hist_timed *tally__hist_timeline(const struct tally_hist *h, size_t *n, bool *shorted)
{
	*n = h->ntimed;
	*shorted = h->timed_short;
	return h->timed;
}

const struct hist_event_info *tally__hist_event(const struct tally_hist *h, int event)
{
	return event >= 0 && event < h->nev ? &h->ev[event].info : NULL;
}

struct resolver *tally__hist_resolver(struct tally_hist *h)
{
	return h->res;
}

struct tally_session *tally__hist_session(const struct tally_hist *h)
{
	return h->ss;
}

int tally_hist__fmt_pct(char *buf, size_t len, double pct)
{
	return buf ? tally__fmt_fixed(buf, len, pct, 2) : -EINVAL;
}
