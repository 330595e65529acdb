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

static bool same_frame(const struct tally_hist_frame *a, const struct tally_hist_frame *b,
		       bool address)
{
	if (!address && a->sym && b->sym)
		return a->sym == b->sym;	/* one name per symbol of a loaded DSO */
	if (a->ip != b->ip)
		return false;
	if (!a->dso || !b->dso)
		return a->dso == b->dso;
	return a->dso == b->dso || !strcmp(a->dso, b->dso);
}

int tally__hist_graph_add(struct tally_hist_node **root, const struct tally_hist_frame *frames,
			  size_t n, uint64_t period, uint64_t count, bool address)
{
	struct tally_hist_node *node;

	if (!*root && !(*root = calloc(1, sizeof(**root))))
		return -ENOMEM;
	node = *root;
	for (size_t i = 0; i < n; i++) {
		struct tally_hist_node *c;

		node->children_hit += period;
		node->children_count += count;
		for (c = node->first; c && !same_frame(&c->f, &frames[i], address); c = c->next)
			;
		if (!c) {
			if (!(c = calloc(1, sizeof(*c))))
				return -ENOMEM;
			c->f = frames[i];
			c->parent = node;
			if (node->last)
				node->last->next = c;
			else
				node->first = c;
			node->last = c;
			node->nchild++;
		}
		node = c;
	}
	node->hit += period;
	node->count += count;
	return 0;
}

void tally__hist_graph_free(struct tally_hist_node *root)
{
	while (root) {
		struct tally_hist_node *c = root->first;

		if (c) {		/* unlink the first child, free it later */
			root->first = c->next;
			c->next = NULL;
			c->parent = root;
			/* descend: free the subtree iteratively */
			root = c;
			continue;
		}
		c = root->parent;
		free(root);
		root = c;
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
