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
	bool dead;			/* on the pool's free list */
};

/* A node with this many children or more finds them in the pool's index. */
#define INDEX_MIN 4

/*
 * A histogram's nodes come from blocks, all given back at once: a report
 * makes a node per distinct frame under each row (a third of a million on
 * a 4 s -a -g file), and a calloc and a free each were a tenth of its time.
 */
struct hist_node_block;
struct hist_node_pool {
	struct hist_node_block *blocks;
	struct tally_hist_node *free;	/* nodes a decay gave back, for the next */
	/* the children of nodes with INDEX_MIN or more, by (parent, frame): open addressing */
	struct tally_hist_node **index;
	size_t nindex, cap_index;
	size_t nput;			/* nodes given back since the index was made */
	bool address;			/* the index's frames keyed by address */
};

/* Merge frames[0..n-1] (root first) into *root: count samples, period in all. 0 or -ENOMEM. */
int tally__hist_graph_add(struct hist_node_pool *pool, struct tally_hist_node **root,
			  const struct tally_hist_frame *frames, size_t n, uint64_t period,
			  uint64_t count, bool address);
/*
 * perf top's decay_callchain: every node's period times 7/8 (a node's
 * below is its children's sum), nodes at zero given back. Call
 * tally__hist_graph_reindex after the last tree of a decay.
 */
void tally__hist_graph_decay(struct hist_node_pool *pool, struct tally_hist_node *root);
/* A tree's nodes back to the pool (a dropped row's); reindex after. */
void tally__hist_graph_put(struct hist_node_pool *pool, struct tally_hist_node *root);
/* The index made again of the nodes left, once many were given back. 0 or -ENOMEM. */
int tally__hist_graph_reindex(struct hist_node_pool *pool);
/* Every tree of the pool's nodes goes. */
void tally__hist_graph_free_all(struct hist_node_pool *pool);

#endif
