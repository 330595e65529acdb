// SPDX-License-Identifier: MIT
/*
 * perf's --branch-history: a sample's call-graph chain made of its
 * branch stack (perf 6.1's thread__resolve_callchain_sample with
 * branch_callstack): each branch's target then its source, the newest
 * branch first in callee order, the oldest in caller order, loops taken
 * out first (machine.c's remove_loops), each end counted in the node it
 * passes (hist_graph.c's br_count), then the sample's call chain where it
 * has one (its frames count no branch); and the counts' reading.
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
/* perf report's max_stack (the kernel's perf_event_max_stack default) */
#define STACK_MAX 127

/* a context marker's level (as tally__chain_modes) */
static enum tally_cpumode marker_mode(uint64_t ip)
{
	return ip == PERF_CONTEXT_KERNEL ? TALLY_CPUMODE_KERNEL : TALLY_CPUMODE_USER;
}

/* perf's find_prev_cpumode: the level of the last marker before ent, else m */
static enum tally_cpumode prev_mode(const struct shape *x, int ent, enum tally_cpumode m)
{
	while (--ent >= 0)
		if (x->ips[ent] >= PERF_CONTEXT_MAX)
			return marker_mode(x->ips[ent]);
	return m;
}

/*
 * The call chain after the branches (perf 6.1's check_calls): in callee
 * order from first_call, in caller order from the root, both without the
 * chain's last kept-branches entries (perf's chain_nr -= nr). The levels
 * as perf's walk sets them: in callee order from user on, by the markers
 * it passes (a kernel part whose marker first_call skipped is looked up
 * as user); in caller order by the marker before each part. The frames
 * added to n, or -ENOMEM.
 */
static int brhist_calls(struct tally_hist *h, const struct shape *x, uint32_t first_call, int kept,
			const struct where **wh, struct hist_brnode *bi, int n)
{
	enum tally_cpumode m = TALLY_CPUMODE_USER;
	uint32_t uw = tally__chain_unwound_at(x->ips, x->nr);
	int chain_nr = (int)x->nr - kept, entries = 0;

	if (h->caller)
		m = prev_mode(x, (int)(x->nr - first_call), m);
	for (int i = (int)first_call; i < chain_nr && entries < STACK_MAX; i++) {
		uint32_t j = h->caller ? x->nr - 1 - (uint32_t)i : (uint32_t)i;
		struct where *fw[INL_MAX];
		int nf;

		if (x->ips[j] >= PERF_CONTEXT_MAX) {
			m = h->caller ? prev_mode(x, (int)j, m) : marker_mode(x->ips[j]);
			continue;
		}
		entries++;
		nf = tally__resolver_frames(h->res, x->pid, x->tid, x->ips[j], m, j > uw, fw);
		if (!nf)
			return -ENOMEM;
		for (int k = 0; k < nf && n < CHAIN_MAX; k++) {
			wh[n] = fw[h->caller ? nf - 1 - k : k];
			bi[n++] = (struct hist_brnode){ .call = true };
		}
	}
	return n;
}

int tally__hist_brhist_chain(struct tally_hist *h, const struct shape *x, const struct where **wh)
{
	struct hist_brent *be = h->scr->be;
	struct hist_iter *it = h->scr->iter;
	struct hist_brnode *bi = h->scr->bi;
	int nr = (int)x->nbr, n = 0;
	uint32_t first_call = 0;

	if (!x->nbr || x->nbr > BR_DEPTH_MAX)	/* perf: the chain alone (too long a stack: corrupt) */
		return brhist_calls(h, x, 0, 0, wh, bi, 0);
	for (int i = 0; i < nr; i++) {
		be[i] = x->br[h->caller ? nr - 1 - i : i];
		/*
		 * perf's overlap: a chain entry that is a context marker, or
		 * the return address (up to 8 bytes on) of the branch's source,
		 * is skipped; one past the chain perf reads beyond it, here no more
		 */
		if (h->caller || first_call >= x->nr)
			continue;
		if (x->ips[first_call] >= PERF_CONTEXT_MAX ||
		    (be[i].from < x->ips[first_call] && be[i].from >= x->ips[first_call] - 8))
			first_call++;
	}
	memset(it, 0, (size_t)nr * sizeof(*it));
	nr = tally__hist_remove_loops(be, nr, it);
	for (int i = 0; i < nr; i++) {
		char level;
		const struct where *to = tally__session_branch_where(h->res, x->pid, x->tid, be[i].to, &level);
		const struct where *from = tally__session_branch_where(h->res, x->pid, x->tid, be[i].from,
								       &level);

		if (!to || !from)
			return -ENOMEM;
		wh[n] = to;
		bi[n++] = (struct hist_brnode){ .from = be[i].from, .flags = be[i].flags };
		wh[n] = from;
		bi[n++] = (struct hist_brnode){ .flags = be[i].flags, .iters = it[i].nr,
						.iter_cycles = it[i].cycles };
	}
	if (!x->nr)
		return n;
	return brhist_calls(h, x, first_call, nr, wh, bi, n);
}

int tally__hist_brhist_add(struct tally_hist *h, struct entry *self, struct entry *const *ents,
			   const struct where *const *wh, int n, uint64_t period, uint64_t count)
{
	const struct tally_hist_frame **frames = h->scr->frames;
	struct hist_brnode *bi = h->scr->bi;
	uint64_t walk;
	int err;

	if (!self || n <= 0)
		return 0;
	for (int i = 0; i < n; i++)
		frames[i] = &wh[i]->frame;
	walk = ++h->walks;
	self->graphed = true;
	self->walk = walk;
	if ((uint32_t)n > self->max_depth)
		self->max_depth = (uint32_t)n;
	if ((err = tally__hist_graph_add_br(&h->nodes, &self->cg, frames, bi, (size_t)n, period, count)))
		return err;
	/* perf's cumulative entries: each one's first place, the chain from there (self's seen) */
	for (int k = 0; ents && k < n; k++) {
		struct entry *e = ents[k];

		if (!e || e->walk == walk)
			continue;
		e->walk = walk;
		e->graphed = true;
		if ((uint32_t)(n - k) > e->max_depth)
			e->max_depth = (uint32_t)(n - k);
		if ((err = tally__hist_graph_add_br(&h->nodes, &e->cg, frames + k, bi + k, (size_t)(n - k),
						    period, count)))
			return err;
	}
	return 0;
}

int tally__hist_brhist_note(struct tally_hist *h, struct entry *self, const struct shape *x,
			    uint64_t period, uint64_t count)
{
	const struct where **wh = h->scr->wheres;
	int n;

	if (!self)
		return 0;
	if ((n = tally__hist_brhist_chain(h, x, wh)) <= 0)
		return n;
	return tally__hist_brhist_add(h, self, NULL, wh, n, period, count);
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
