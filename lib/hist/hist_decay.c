// SPDX-License-Identifier: MIT
/*
 * A live view's histogram over time (perf top): its rows aged at each
 * refresh (tally_hist__decay), the shapes with them, and the addresses
 * no row holds any more let go.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <tally/session.h>
#include "internal.h"
#include "hist_internal.h"
#include "rbtree.h"
#include "hist_priv.h"
#include "resolved_internal.h"

/*
 * A live view's addresses: each process's own (pid, ip) entries, so a
 * machine that starts processes all the time (a build) grew them without
 * end. After a decay, those not asked for since the last one go unless a
 * row or a tree's node still points at them (a process that exited is
 * out of the new samples: its rows keep their own).
 */
static void sweep_resolver(struct tally_hist *h)
{
	for (int i = 0; i < h->nev; i++)
		for (size_t b = 0; b < h->ev[i].nbuckets; b++)
			for (const struct entry *e = h->ev[i].tab[b]; e; e = e->next)
				((struct where *)e->w)->held = true;
	/* the shapes' answers, looked up again otherwise */
	for (size_t i = 0; i < h->nshapes; i++)
		for (uint32_t k = 0; k <= h->shapes[i]->key_nr; k++)
			if (h->shapes[i]->wh[k])
				h->shapes[i]->wh[k]->held = true;
	/* a node's frame is its where's first fields, but the root's */
	for (uint32_t i = 1; i < h->nodes.used; i++)
		if (!h->nodes.n[i].dead && !tally__hist_graph_is_root(h->nodes.n[i].f))
			((struct where *)h->nodes.n[i].f)->held = true;
	/* the session's, shared: swept only when this histogram is its one holder */
	if (h->res->users == 1)
		tally__resolver_sweep(h->res);
}

/*
 * perf top's hists__decay_entries: what the rows counted loses an eighth
 * (their periods, samples, trees and the totals), and a row whose own
 * period is zero after, or was before (a caller's row of children
 * alone), goes. The shapes age the same way so that rows made again
 * (a filter, the flame view) agree, and go at zero: a long run's memory
 * stays that of its last minutes.
 */
int tally_hist__decay(struct tally_hist *h)
{
	size_t kept = 0;
	int err;

	if (!h)
		return -EINVAL;
	h->shape_own = true;	/* shapes come and go from now on: each its own */
	for (int i = 0; i < h->nev; i++) {
		struct hist_ev *hs = &h->ev[i];
		struct entry *dead = NULL;

		for (size_t b = 0; b < hs->nbuckets; b++)
			for (struct entry **link = &hs->tab[b], *e; (e = *link);) {
				uint64_t prev = e->self;

				if (prev) {
					e->self = prev * 7 / 8;
					e->nself = e->nself * 7 / 8;
					e->children = e->children * 7 / 8;
					tally__hist_graph_decay(&h->nodes, e->cg);
					hs->total -= prev - e->self;
				}
				if (e->self) {
					link = &e->next;
					continue;
				}
				*link = e->next;
				tally__hist_graph_put(&h->nodes, e->cg);
				e->dead = true;
				e->next = dead;
				dead = e;
				hs->n--;
			}
		/* out of the kept order, then freed */
		if (hs->in) {
			size_t k = 0;

			for (size_t j = 0; j < hs->nin; j++)
				if (!hs->in[j]->dead)
					hs->in[k++] = hs->in[j];
			hs->nin = k;
		}
		while (dead) {
			struct entry *e = dead;

			dead = e->next;
			tally__hist_entry_put(h, e);
		}
		/* the rows are made again at the next resort */
		free(hs->rows);
		hs->rows = NULL;
		hs->nrows = 0;
	}
	if ((err = tally__hist_graph_reindex(&h->nodes)))
		return err;
	/* the part of a shape the rows have ages; what came since joins them at the next resort */
	for (size_t i = 0; i < h->nshapes; i++) {
		struct shape *x = h->shapes[i];
		uint64_t new_period = x->period - x->rows_period, new_count = x->count - x->rows_count;

		x->rows_period = x->rows_period * 7 / 8;
		x->rows_count = x->rows_count * 7 / 8;
		x->period = x->rows_period + new_period;
		x->count = x->rows_count + new_count;
		if (x->count || x->period || h->timeline) {	/* the timeline's samples name their shapes' indexes */
			x->seq = kept;
			h->shapes[kept++] = x;
			continue;
		}
		h->ev[x->idx].nshapes--;
		if (x->own)	/* a block's stays till the blocks go (at a zero or the end) */
			free(x);
	}
	if (kept != h->nshapes) {
		h->nshapes = kept;
		memset(h->stab, 0, h->sbuckets * sizeof(*h->stab));
		tally__hist_stab_fill(h);
	}
	sweep_resolver(h);
	return 0;
}
