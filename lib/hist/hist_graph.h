/* SPDX-License-Identifier: MIT */
/*
 * The histogram's call-graph trees (tally/hist.h's nodes): a row's chains
 * merged into a trie, one frame per node, in the order they first came.
 */
#ifndef TALLY_HIST_GRAPH_H
#define TALLY_HIST_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/hist.h>

struct tally_hist_node {
	struct tally_hist_frame f;
	uint64_t hit, children_hit;	/* period ending here, below here */
	uint64_t count, children_count;
	struct tally_hist_node *first, *last, *next, *parent;
	unsigned nchild;
};

/*
 * A histogram's nodes come from blocks, all given back at once: a report
 * makes a node per distinct frame under each row (a third of a million on
 * a 4 s -a -g file), and a calloc and a free each were a tenth of its time.
 */
struct hist_node_block;
struct hist_node_pool {
	struct hist_node_block *blocks;
};

/* Merge frames[0..n-1] (root first) into *root: count samples, period in all. 0 or -ENOMEM. */
int tally__hist_graph_add(struct hist_node_pool *pool, struct tally_hist_node **root,
			  const struct tally_hist_frame *frames, size_t n, uint64_t period,
			  uint64_t count, bool address);
/* Every tree of the pool's nodes goes. */
void tally__hist_graph_free_all(struct hist_node_pool *pool);

#endif
