// SPDX-License-Identifier: MIT
/*
 * The histogram's call-graph trees: the chains of a row's samples merged
 * into a trie, one frame per node (a frame is its function, or its
 * address when unresolved or keyed by address). perf keeps runs of
 * frames in one node until a chain branches or ends inside them; a
 * printer groups runs of nodes with one child and no samples of their
 * own to show what perf shows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "hist_graph.h"

/*
 * Whether a and b are one frame: one function of a loaded DSO (its name's
 * one copy), or without a function (or keyed by address) one address of
 * one DSO. A frame with a function and one without never merge.
 */
static bool same_frame(const struct tally_hist_frame *a, const struct tally_hist_frame *b,
		       bool address)
{
	if (a == b)
		return true;	/* one address's interned frame */
	if (!address && (a->sym || b->sym))
		return a->sym == b->sym;	/* one name per symbol of a loaded DSO */
	if (a->ip != b->ip)
		return false;
	if (!a->dso || !b->dso)
		return a->dso == b->dso;
	return a->dso == b->dso || !strcmp(a->dso, b->dso);
}

/* Consistent with same_frame: the function's copy, else the address (DSOs compare on a hit). */
static uint64_t child_hash(uint32_t parent, const struct tally_hist_frame *f, bool address)
{
	uint64_t k = !address && f->sym ? (uint64_t)(uintptr_t)f->sym : f->ip * 0x9e3779b97f4a7c15ULL;

	k ^= (uint64_t)parent * 0xff51afd7ed558ccdULL;
	return k ^ (k >> 29);
}

static const struct tally_hist_frame no_frame;	/* the root's */

bool tally__hist_graph_is_root(const struct tally_hist_frame *f)
{
	return f == &no_frame;
}

/* A relative of n at offset d (0: none). */
static inline struct tally_hist_node *rel(const struct tally_hist_node *n, int32_t d)
{
	return d ? (struct tally_hist_node *)(uintptr_t)(n + d) : NULL;
}

/* Node to's offset from node from (0: none). */
static inline int32_t off(const struct tally_hist_node *from, const struct tally_hist_node *to)
{
	return to ? (int32_t)(to - from) : 0;
}

static inline uint32_t id_of(const struct hist_node_pool *pool, const struct tally_hist_node *n)
{
	return (uint32_t)(n - pool->n);
}

#define NODE_FIRST 4096

/* A zeroed node's index, 0 without memory; the array may move. */
static uint32_t node_new(struct hist_node_pool *pool, const struct tally_hist_frame *f)
{
	uint32_t i = pool->free;

	if (i) {	/* one a decay gave back */
		pool->free = (uint32_t)pool->n[i].next;
	} else {
		if (pool->used == pool->cap) {
			/* offsets are int32: so many nodes at most */
			size_t cap = pool->cap ? (size_t)pool->cap * 2 : NODE_FIRST;
			struct tally_hist_node *v;

			if (cap > INT32_MAX)
				cap = INT32_MAX;
			if (cap <= pool->cap || !(v = realloc(pool->n, cap * sizeof(*v))))
				return 0;
			pool->n = v;
			if (pool->branch) {	/* the counts beside the nodes, as many */
				struct hist_node_br *b = realloc(pool->br, cap * sizeof(*b));

				if (!b)
					return 0;
				pool->br = b;
			}
			pool->cap = (uint32_t)cap;
		}
		if (!pool->used)
			pool->used = 1;	/* index 0 is none */
		i = pool->used++;
	}
	memset(&pool->n[i], 0, sizeof(pool->n[i]));
	pool->n[i].f = f;
	if (pool->branch)
		memset(&pool->br[i], 0, sizeof(pool->br[i]));
	return i;
}

static void node_put(struct hist_node_pool *pool, struct tally_hist_node *n)
{
	n->dead = 1;
	pool->nput++;
	n->next = (int32_t)pool->free;	/* an index on the free list */
	pool->free = id_of(pool, n);
}

static void index_put(struct hist_node_pool *pool, uint32_t ci)
{
	const struct tally_hist_node *c = &pool->n[ci];
	size_t m = pool->cap_index - 1,
	       i = child_hash(ci + (uint32_t)c->parent, c->f, pool->address) & m;

	while (pool->index[i])
		i = (i + 1) & m;
	pool->index[i] = ci;
	pool->nindex++;
}

/* Whether the slot's node is still one to index: alive, under a node with INDEX_MIN children or more. */
static bool indexed(const struct hist_node_pool *pool, uint32_t ci)
{
	const struct tally_hist_node *c = &pool->n[ci];

	return ci && !c->dead && c->parent && rel(c, c->parent)->nchild >= INDEX_MIN;
}

/*
 * The index made again at cap slots of the nodes the old one holds: every
 * child of a node with INDEX_MIN children or more is there (with stale
 * slots, and a node taken again elsewhere may have two: one is kept).
 */
static int index_build(struct hist_node_pool *pool, size_t cap)
{
	uint32_t *old = pool->index, *v = calloc(cap, sizeof(*v));
	size_t old_cap = pool->cap_index, m = cap - 1;

	if (!v)
		return -ENOMEM;
	pool->index = v;
	pool->cap_index = cap;
	pool->nindex = pool->nput = 0;
	for (size_t k = 0; k < old_cap; k++) {
		uint32_t ci = old[k];
		const struct tally_hist_node *c = &pool->n[ci];
		size_t i;

		if (!indexed(pool, ci))
			continue;
		for (i = child_hash(ci + (uint32_t)c->parent, c->f, pool->address) & m;
		     v[i] && v[i] != ci; i = (i + 1) & m)
			;
		if (!v[i]) {
			v[i] = ci;
			pool->nindex++;
		}
	}
	free(old);
	return 0;
}

/* A node's children in the index: n more to come. */
static int index_room(struct hist_node_pool *pool, size_t n)
{
	size_t cap = pool->cap_index ? pool->cap_index : 1024;

	while ((pool->nindex + n) * 4 >= cap * 3)
		cap *= 2;
	return cap != pool->cap_index ? index_build(pool, cap) : 0;
}

/*
 * The child of node ni for frame f, 0: none yet. Few children (most
 * nodes: chains rarely branch) are walked; a node's many (the syscalls
 * under the kernel's entry, a program's callees under main) are found in
 * the pool's index by (node, frame), where walking them was a cache miss
 * each, a fifth of top -g's time.
 */
static uint32_t child_of(struct hist_node_pool *pool, uint32_t ni, const struct tally_hist_frame *f,
			 bool address)
{
	const struct tally_hist_node *node = &pool->n[ni], *c;
	uint32_t ci;

	if (node->nchild < INDEX_MIN) {
		for (c = rel(node, node->first); c && !same_frame(c->f, f, address); c = rel(c, c->next))
			;
		return c ? id_of(pool, c) : 0;
	}
	size_t m = pool->cap_index - 1, i = child_hash(ni, f, address) & m;

	/*
	 * A slot may be stale (a node given back, or taken again elsewhere):
	 * a live node whose parent and frame match is the child all the same.
	 */
	for (; (ci = pool->index[i]); i = (i + 1) & m) {
		c = &pool->n[ci];
		if (!c->dead && ci + (uint32_t)c->parent == ni && same_frame(c->f, f, address))
			return ci;
	}
	return 0;
}

static uint32_t child_add(struct hist_node_pool *pool, uint32_t ni, const struct tally_hist_frame *f)
{
	struct tally_hist_node *node, *c;
	uint32_t ci, nchild = pool->n[ni].nchild;

	/* the node's children go into the index when it reaches INDEX_MIN */
	if (nchild + 1 >= INDEX_MIN && index_room(pool, nchild + 1 == INDEX_MIN ? INDEX_MIN : 1))
		return 0;
	if (!(ci = node_new(pool, f)))
		return 0;
	node = &pool->n[ni];	/* after the array moved */
	c = &pool->n[ci];
	c->parent = off(c, node);
	if (node->last)
		rel(node, node->last)->next = off(rel(node, node->last), c);
	else
		node->first = off(node, c);
	node->last = off(node, c);
	if (++node->nchild == INDEX_MIN)
		for (struct tally_hist_node *s = rel(node, node->first); s; s = rel(s, s->next))
			index_put(pool, id_of(pool, s));
	else if (node->nchild > INDEX_MIN)
		index_put(pool, ci);
	return ci;
}

/* perf's cross_area: the two addresses in different aligned blocks of size */
static bool cross(uint64_t a, uint64_t b, uint64_t size)
{
	return (a & ~(size - 1)) != (b & ~(size - 1));
}

/*
 * One branch end into its node's counts: perf 6.1's match_chain (an end
 * merged into a node there) and fill_node (the end that made it: the
 * same, but for from_count), k samples' ends at once.
 */
static void br_count(struct hist_node_br *c, const struct hist_brnode *b, uint64_t ip, uint64_t k,
		     bool made)
{
	unsigned type = b->flags >> 20 & 15, new_type = b->flags >> 26 & 15;

	if (b->call)
		return;
	c->branches += k;
	if (!b->from) {		/* a source (a target from address 0 too, as perf) */
		c->target = false;
		c->cycles += k * (b->flags >> 4 & 0xffff);
		c->iters += k * b->iters;
		c->iter_cycles += k * b->iter_cycles;
		c->froms += k - made;
		return;
	}
	c->target = true;
	c->predicted += k * (b->flags >> 1 & 1);
	c->aborts += k * (b->flags >> 3 & 1);
	/* util/branch.c's branch_type_count */
	if (type == PERF_BR_UNKNOWN)
		return;
	if (type == PERF_BR_EXTEND_ABI) {
		if (new_type < 8)
			c->new_types[new_type] += (uint32_t)k;
	} else {
		c->types[type] += (uint32_t)k;
	}
	if (type == PERF_BR_COND) {
		if (ip > b->from)
			c->cond_fwd += (uint32_t)k;
		else
			c->cond_bwd += (uint32_t)k;
	}
	if (cross(b->from, ip, 2 << 20))
		c->cross_2m += (uint32_t)k;
	else if (cross(b->from, ip, 4096))
		c->cross_4k += (uint32_t)k;
}

static int add_chain(struct hist_node_pool *pool, uint32_t *root,
		     const struct tally_hist_frame *const *frames, const struct hist_brnode *bi,
		     size_t n, uint64_t period, uint64_t count, bool address)
{
	uint32_t ni;

	if (pool->address != address) {	/* a pool keys its index one way: its trees are made again when it changes */
		pool->address = address;
		if (pool->cap_index && index_build(pool, pool->cap_index))
			return -ENOMEM;
	}
	if (!*root && !(*root = node_new(pool, &no_frame)))
		return -ENOMEM;
	ni = *root;
	for (size_t i = 0; i < n; i++) {
		struct tally_hist_node *node = &pool->n[ni];
		uint32_t c;

		node->children_hit += period;
		node->children_count += count;
		bool made = false;

		if (!(c = child_of(pool, ni, frames[i], address))) {
			if (!(c = child_add(pool, ni, frames[i])))
				return -ENOMEM;
			made = true;
		}
		/* a shape of count samples: each sample's end counted, as perf's */
		if (bi)
			br_count(&pool->br[c], &bi[i], frames[i]->ip, count, made);
		ni = c;
	}
	pool->n[ni].hit += period;
	pool->n[ni].count += count;
	return 0;
}

int tally__hist_graph_add(struct hist_node_pool *pool, uint32_t *root,
			  const struct tally_hist_frame *const *frames, size_t n, uint64_t period,
			  uint64_t count, bool address)
{
	return add_chain(pool, root, frames, NULL, n, period, count, address);
}

int tally__hist_graph_add_br(struct hist_node_pool *pool, uint32_t *root,
			     const struct tally_hist_frame *const *frames, const struct hist_brnode *bi,
			     size_t n, uint64_t period, uint64_t count)
{
	if (!pool->branch)
		return -EINVAL;
	return add_chain(pool, root, frames, bi, n, period, count, true);
}

/*
 * A subtree's periods times 7/8 (perf's decay_callchain_node); what falls
 * to zero goes back to the pool, its samples with it. Its period left.
 * perf sums only the children's own hits into a node's below (their
 * children's are lost): here below stays the sum of what is under it.
 */
static uint64_t decay_node(struct hist_node_pool *pool, struct tally_hist_node *n)
{
	struct tally_hist_node *prev = NULL, *c, *next;
	uint64_t below = 0, below_count = 0;

	n->last = 0;
	for (c = rel(n, n->first); c; c = next) {
		uint64_t v = decay_node(pool, c);

		next = rel(c, c->next);
		if (!v) {	/* its children went before it: a leaf now */
			if (prev)
				prev->next = off(prev, next);
			else
				n->first = off(n, next);
			n->nchild--;
			node_put(pool, c);
			continue;
		}
		below += v;
		below_count += c->count + c->children_count;
		n->last = off(n, c);
		prev = c;
	}
	n->hit = n->hit * 7 / 8;
	n->children_hit = below;
	n->children_count = below_count;
	return n->hit + below;
}

void tally__hist_graph_decay(struct hist_node_pool *pool, uint32_t root)
{
	if (root)
		decay_node(pool, &pool->n[root]);
}

static void put_tree(struct hist_node_pool *pool, struct tally_hist_node *n)
{
	struct tally_hist_node *c, *next;

	for (c = rel(n, n->first); c; c = next) {
		next = rel(c, c->next);
		put_tree(pool, c);
	}
	node_put(pool, n);
}

void tally__hist_graph_put(struct hist_node_pool *pool, uint32_t root)
{
	if (root)
		put_tree(pool, &pool->n[root]);
}

int tally__hist_graph_reindex(struct hist_node_pool *pool)
{
	size_t cap = 1024, n = 0;

	/* stale slots only cost probes: made again once they may be half the table */
	if (!pool->cap_index || pool->nput * 2 < pool->nindex)
		return 0;
	for (size_t k = 0; k < pool->cap_index; k++)
		n += indexed(pool, pool->index[k]);
	while (n * 4 >= cap * 3)
		cap *= 2;
	return index_build(pool, cap);
}

void tally__hist_graph_free_all(struct hist_node_pool *pool)
{
	free(pool->index);
	free(pool->n);
	free(pool->br);
	pool->index = NULL;
	pool->n = NULL;
	pool->br = NULL;
	pool->cap_index = pool->nindex = pool->nput = 0;
	pool->used = pool->cap = pool->free = 0;
}

int tally_hist_node__info(const struct tally_hist_node *n, struct tally_hist_node_info *out)
{
	size_t sz;

	if (!n || !out || out->sz < offsetof(struct tally_hist_node_info, frame))
		return -EINVAL;
	/* a printer asks this of every node: no copy through a buffer for callers of this size */
	if (out->sz == sizeof(*out)) {
		out->frame = *n->f;
		out->self = n->hit;
		out->self_samples = n->count;
		out->below = n->children_hit;
		out->below_samples = n->children_count;
		out->nr_children = n->nchild;
		return 0;
	}
	sz = out->sz < sizeof(*out) ? out->sz : sizeof(*out);
	struct tally_hist_node_info v = {
		.sz = sz, .frame = *n->f, .self = n->hit, .self_samples = n->count,
		.below = n->children_hit, .below_samples = n->children_count,
		.nr_children = n->nchild,
	};

	memcpy(out, &v, sz);
	return 0;
}

const struct tally_hist_node *tally_hist_node__child(const struct tally_hist_node *n)
{
	return n ? rel(n, n->first) : NULL;
}

const struct tally_hist_node *tally_hist_node__next(const struct tally_hist_node *n)
{
	return n ? rel(n, n->next) : NULL;
}

const struct tally_hist_node *tally_hist_node__parent(const struct tally_hist_node *n)
{
	return n ? rel(n, n->parent) : NULL;
}

const struct tally_hist_frame *tally_hist_node__frame(const struct tally_hist_node *n)
{
	return n ? n->f : NULL;
}
