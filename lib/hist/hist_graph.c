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
#include "hist_graph.h"

/*
 * Whether a and b are one frame: one function of a loaded DSO (its name's
 * one copy), or without a function (or keyed by address) one address of
 * one DSO. A frame with a function and one without never merge.
 */
static bool same_frame(const struct tally_hist_frame *a, const struct tally_hist_frame *b,
		       bool address)
{
	if (!address && (a->sym || b->sym))
		return a->sym == b->sym;	/* one name per symbol of a loaded DSO */
	if (a->ip != b->ip)
		return false;
	if (!a->dso || !b->dso)
		return a->dso == b->dso;
	return a->dso == b->dso || !strcmp(a->dso, b->dso);
}

/* Consistent with same_frame: the function's copy, else the address (DSOs compare on a hit). */
static uint64_t child_hash(const struct tally_hist_node *parent, const struct tally_hist_frame *f,
			   bool address)
{
	uint64_t k = !address && f->sym ? (uint64_t)(uintptr_t)f->sym : f->ip * 0x9e3779b97f4a7c15ULL;

	k ^= (uint64_t)(uintptr_t)parent * 0xff51afd7ed558ccdULL;
	return k ^ (k >> 29);
}

struct hist_node_block {
	struct hist_node_block *next;
	size_t used;
	struct tally_hist_node n[];
};

#define NODE_BLOCK 4096

static struct tally_hist_node *node_new(struct hist_node_pool *pool)
{
	struct hist_node_block *b = pool->blocks;
	struct tally_hist_node *n = pool->free;

	if (n) {	/* one a decay gave back */
		pool->free = n->next;
		memset(n, 0, sizeof(*n));
		return n;
	}
	if (!b || b->used == NODE_BLOCK) {
		if (!(b = calloc(1, sizeof(*b) + NODE_BLOCK * sizeof(b->n[0]))))
			return NULL;
		b->next = pool->blocks;
		pool->blocks = b;
	}
	return &b->n[b->used++];
}

static void node_put(struct hist_node_pool *pool, struct tally_hist_node *n)
{
	n->dead = true;
	pool->nput++;
	n->next = pool->free;
	pool->free = n;
}

static void index_put(struct hist_node_pool *pool, struct tally_hist_node *c)
{
	size_t m = pool->cap_index - 1, i = child_hash(c->parent, &c->f, pool->address) & m;

	while (pool->index[i])
		i = (i + 1) & m;
	pool->index[i] = c;
	pool->nindex++;
}

/* Whether the slot's node is still one to index: alive, under a node with INDEX_MIN children or more. */
static bool indexed(const struct tally_hist_node *c)
{
	return c && !c->dead && c->parent && c->parent->nchild >= INDEX_MIN;
}

/*
 * The index made again at cap slots of the nodes the old one holds: every
 * child of a node with INDEX_MIN children or more is there (with stale
 * slots, and a node taken again elsewhere may have two: one is kept).
 */
static int index_build(struct hist_node_pool *pool, size_t cap)
{
	struct tally_hist_node **old = pool->index, **v = calloc(cap, sizeof(*v));
	size_t old_cap = pool->cap_index, m = cap - 1;

	if (!v)
		return -ENOMEM;
	pool->index = v;
	pool->cap_index = cap;
	pool->nindex = pool->nput = 0;
	for (size_t k = 0; k < old_cap; k++) {
		struct tally_hist_node *c = old[k];
		size_t i;

		if (!indexed(c))
			continue;
		for (i = child_hash(c->parent, &c->f, pool->address) & m; v[i] && v[i] != c; i = (i + 1) & m)
			;
		if (!v[i]) {
			v[i] = c;
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
 * The child of node for frame f, NULL: none yet. Few children (most
 * nodes: chains rarely branch) are walked; a node's many (the syscalls
 * under the kernel's entry, a program's callees under main) are found in
 * the pool's index by (node, frame), where walking them was a cache miss
 * each, a fifth of top -g's time.
 */
static struct tally_hist_node *child_of(struct hist_node_pool *pool, struct tally_hist_node *node,
					const struct tally_hist_frame *f, bool address)
{
	struct tally_hist_node *c;

	if (node->nchild < INDEX_MIN) {
		for (c = node->first; c && !same_frame(&c->f, f, address); c = c->next)
			;
		return c;
	}
	size_t m = pool->cap_index - 1, i = child_hash(node, f, address) & m;

	/*
	 * A slot may be stale (a node given back, or taken again elsewhere):
	 * a live node whose parent and frame match is the child all the same.
	 */
	for (; (c = pool->index[i]); i = (i + 1) & m)
		if (c->parent == node && !c->dead && same_frame(&c->f, f, address))
			return c;
	return NULL;
}

static struct tally_hist_node *child_add(struct hist_node_pool *pool, struct tally_hist_node *node,
					 const struct tally_hist_frame *f)
{
	struct tally_hist_node *c;

	/* the node's children go into the index when it reaches INDEX_MIN */
	if (node->nchild + 1 >= INDEX_MIN &&
	    index_room(pool, node->nchild + 1 == INDEX_MIN ? INDEX_MIN : 1))
		return NULL;
	if (!(c = node_new(pool)))
		return NULL;
	c->f = *f;
	c->parent = node;
	if (node->last)
		node->last->next = c;
	else
		node->first = c;
	node->last = c;
	if (++node->nchild == INDEX_MIN)
		for (struct tally_hist_node *s = node->first; s; s = s->next)
			index_put(pool, s);
	else if (node->nchild > INDEX_MIN)
		index_put(pool, c);
	return c;
}

int tally__hist_graph_add(struct hist_node_pool *pool, struct tally_hist_node **root,
			  const struct tally_hist_frame *frames, size_t n, uint64_t period,
			  uint64_t count, bool address)
{
	struct tally_hist_node *node;

	if (pool->address != address) {	/* a pool keys its index one way: its trees are made again when it changes */
		pool->address = address;
		if (pool->cap_index && index_build(pool, pool->cap_index))
			return -ENOMEM;
	}
	if (!*root && !(*root = node_new(pool)))
		return -ENOMEM;
	node = *root;
	for (size_t i = 0; i < n; i++) {
		struct tally_hist_node *c;

		node->children_hit += period;
		node->children_count += count;
		if (!(c = child_of(pool, node, &frames[i], address)) &&
		    !(c = child_add(pool, node, &frames[i])))
			return -ENOMEM;
		node = c;
	}
	node->hit += period;
	node->count += count;
	return 0;
}

/*
 * A subtree's periods times 7/8 (perf's decay_callchain_node); what falls
 * to zero goes back to the pool, its samples with it. Its period left.
 * perf sums only the children's own hits into a node's below (their
 * children's are lost): here below stays the sum of what is under it.
 */
static uint64_t decay_node(struct hist_node_pool *pool, struct tally_hist_node *n)
{
	struct tally_hist_node **link = &n->first, *c;
	uint64_t below = 0, below_count = 0;

	n->last = NULL;
	while ((c = *link)) {
		uint64_t v = decay_node(pool, c);

		if (!v) {	/* its children went before it: a leaf now */
			*link = c->next;
			n->nchild--;
			node_put(pool, c);
			continue;
		}
		below += v;
		below_count += c->count + c->children_count;
		n->last = c;
		link = &c->next;
	}
	n->hit = n->hit * 7 / 8;
	n->children_hit = below;
	n->children_count = below_count;
	return n->hit + below;
}

void tally__hist_graph_decay(struct hist_node_pool *pool, struct tally_hist_node *root)
{
	if (root)
		decay_node(pool, root);
}

void tally__hist_graph_put(struct hist_node_pool *pool, struct tally_hist_node *root)
{
	struct tally_hist_node *c, *next;

	if (!root)
		return;
	for (c = root->first; c; c = next) {
		next = c->next;
		tally__hist_graph_put(pool, c);
	}
	node_put(pool, root);
}

int tally__hist_graph_reindex(struct hist_node_pool *pool)
{
	size_t cap = 1024, n = 0;

	/* stale slots only cost probes: made again once they may be half the table */
	if (!pool->cap_index || pool->nput * 2 < pool->nindex)
		return 0;
	for (size_t k = 0; k < pool->cap_index; k++)
		n += indexed(pool->index[k]);
	while (n * 4 >= cap * 3)
		cap *= 2;
	return index_build(pool, cap);
}

void tally__hist_graph_free_all(struct hist_node_pool *pool)
{
	free(pool->index);
	pool->index = NULL;
	pool->cap_index = pool->nindex = pool->nput = 0;
	pool->free = NULL;
	while (pool->blocks) {
		struct hist_node_block *b = pool->blocks;

		pool->blocks = b->next;
		free(b);
	}
}

int tally_hist_node__info(const struct tally_hist_node *n, struct tally_hist_node_info *out)
{
	size_t sz;

	if (!n || !out || out->sz < offsetof(struct tally_hist_node_info, frame))
		return -EINVAL;
	/* a printer asks this of every node: no copy through a buffer for callers of this size */
	if (out->sz == sizeof(*out)) {
		out->frame = n->f;
		out->self = n->hit;
		out->self_samples = n->count;
		out->below = n->children_hit;
		out->below_samples = n->children_count;
		out->nr_children = n->nchild;
		return 0;
	}
	sz = out->sz < sizeof(*out) ? out->sz : sizeof(*out);
	struct tally_hist_node_info v = {
		.sz = sz, .frame = n->f, .self = n->hit, .self_samples = n->count,
		.below = n->children_hit, .below_samples = n->children_count,
		.nr_children = n->nchild,
	};

	memcpy(out, &v, sz);
	return 0;
}

const struct tally_hist_node *tally_hist_node__child(const struct tally_hist_node *n)
{
	return n ? n->first : NULL;
}

const struct tally_hist_node *tally_hist_node__next(const struct tally_hist_node *n)
{
	return n ? n->next : NULL;
}

const struct tally_hist_node *tally_hist_node__parent(const struct tally_hist_node *n)
{
	return n ? n->parent : NULL;
}

const struct tally_hist_frame *tally_hist_node__frame(const struct tally_hist_node *n)
{
	return n ? &n->f : NULL;
}
