// SPDX-License-Identifier: MIT
/*
 * perf's --branch-history: a sample's call-graph chain made of its
 * branch stack (perf 6.1's thread__resolve_callchain_sample with
 * branch_callstack): each branch's target then its source, the newest
 * branch first in callee order, the oldest in caller order, loops taken
 * out first (machine.c's remove_loops), each end counted in the node it
 * passes (hist_graph.c's br_count); and the counts' reading.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "hist_priv.h"
#include "hist_graph.h"
#include "resolved_internal.h"

/* perf 6.1's chain hash: 127 slots over hash_64(from, 7), no collision handling */
#define CHASHSZ 127
#define CHASHBITS 7
#define NO_ENTRY 0xff

static unsigned chash(uint64_t v)
{
	return (unsigned)((v * 0x61C8864680B583EBull) >> (64 - CHASHBITS)) % CHASHSZ;
}

/* save_iterations: one more pass of the loop, its cycles those of the last one */
static void save_iterations(struct hist_iter *it, const struct hist_brent *be, int nr)
{
	it->nr++;
	it->cycles = 0;
	for (int i = 0; i < nr; i++)
		it->cycles += be[i].flags >> 4 & 0xffff;
}

int tally__hist_remove_loops(struct hist_brent *l, int nr, struct hist_iter *iter)
{
	unsigned char slot[CHASHSZ];

	memset(slot, NO_ENTRY, sizeof(slot));
	for (int i = 0; i < nr; i++) {
		unsigned h = chash(l[i].from);
		int j, off = 0;
		bool loop = true;

		if (slot[h] == NO_ENTRY) {
			slot[h] = (unsigned char)i;
			continue;
		}
		/* perf keeps the first index of a hash, stale after a removal: so here */
		if (l[slot[h]].from != l[i].from)
			continue;
		for (j = slot[h]; j < i && i + off < nr; j++, off++)
			if (l[j].from != l[i + off].from) {
				loop = false;
				break;
			}
		if (!loop)
			continue;
		j = nr - (i + off);
		if (j > 0) {
			save_iterations(iter + i + off, l + i, off);
			memmove(iter + i, iter + i + off, (size_t)j * sizeof(*iter));
			memmove(l + i, l + i + off, (size_t)j * sizeof(*l));
		}
		nr -= off;
	}
	return nr;
}

/* perf's PERF_MAX_BRANCH_DEPTH: a longer stack is skipped as corrupt */
#define BR_DEPTH_MAX 127

/*
 * The shape's chain: frames and their ends, 2 a branch kept. The
 * number of frames, or -ENOMEM.
 */
static int brhist_chain(struct tally_hist *h, const struct shape *x,
			const struct tally_hist_frame **frames, struct hist_brnode *bi)
{
	struct hist_brent *be = h->scr->be;
	struct hist_iter *it = h->scr->iter;
	int nr = (int)x->nbr, n = 0;

	if (x->nbr > BR_DEPTH_MAX)
		return 0;
	for (int i = 0; i < nr; i++)
		be[i] = x->br[h->caller ? nr - 1 - i : i];
	memset(it, 0, (size_t)nr * sizeof(*it));
	nr = tally__hist_remove_loops(be, nr, it);
	for (int i = 0; i < nr; i++) {
		char level;
		const struct where *to = tally__session_branch_where(h->res, x->pid, x->tid, be[i].to, &level);
		const struct where *from = tally__session_branch_where(h->res, x->pid, x->tid, be[i].from,
								       &level);

		if (!to || !from)
			return -ENOMEM;
		frames[n] = &to->frame;
		bi[n++] = (struct hist_brnode){ .from = be[i].from, .flags = be[i].flags };
		frames[n] = &from->frame;
		bi[n++] = (struct hist_brnode){ .flags = be[i].flags, .iters = it[i].nr,
						.iter_cycles = it[i].cycles };
	}
	return n;
}

int tally__hist_brhist_note(struct tally_hist *h, struct entry *self, const struct shape *x,
			    uint64_t period, uint64_t count)
{
	const struct tally_hist_frame **frames = h->scr->frames;
	struct hist_brnode *bi = h->scr->bi;
	int n;

	if (!self || !x->nbr)
		return 0;
	if ((n = brhist_chain(h, x, frames, bi)) <= 0)
		return n;
	self->graphed = true;
	self->walk = ++h->walks;
	if ((uint32_t)n > self->max_depth)
		self->max_depth = (uint32_t)n;
	return tally__hist_graph_add_br(&h->nodes, &self->cg, frames, bi, (size_t)n, period, count);
}

int tally_hist__node_branch(const struct tally_hist *h, const struct tally_hist_node *n,
			    struct tally_hist_node_branch *out)
{
	const struct hist_node_br *c;
	const struct where *w;
	const char *srcline;
	size_t sz;

	if (!h || !n || !out || out->sz < offsetof(struct tally_hist_node_branch, branches))
		return -EINVAL;
	if (!h->nodes.branch)
		return -ENOENT;
	if (!h->nodes.n || n <= h->nodes.n || n >= h->nodes.n + h->nodes.used)
		return -EINVAL;
	if (tally__hist_graph_is_root(n->f))
		return -ENOENT;
	c = &h->nodes.br[n - h->nodes.n];
	w = (const struct where *)n->f;	/* a tree's frame is its where's first fields */
	srcline = w->srcline;
	/* the srcline key's "sym+OFF" where no line is known: none (perf's chains show "+OFF") */
	if (srcline && w->sym) {
		size_t l = strlen(w->sym);

		if (!strncmp(srcline, w->sym, l) && srcline[l] == '+')
			srcline = NULL;
	}
	sz = out->sz < sizeof(*out) ? out->sz : sizeof(*out);
	struct tally_hist_node_branch v = {
		.sz = sz, .branches = c->branches, .predicted = c->predicted, .aborts = c->aborts,
		.cycles = c->cycles, .iters = c->iters, .iter_cycles = c->iter_cycles,
		.froms = c->froms, .target = c->target,
		.cond_fwd = c->cond_fwd, .cond_bwd = c->cond_bwd,
		.cross_4k = c->cross_4k, .cross_2m = c->cross_2m,
		.srcline = srcline, .sym_off = w->sym ? w->object_symoff : 0,
	};

	for (int i = 0; i < 16; i++)
		v.types[i] = c->types[i];
	for (int i = 0; i < 8; i++)
		v.new_types[i] = c->new_types[i];
	memcpy(out, &v, sz);
	return 0;
}
