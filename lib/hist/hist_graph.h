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

/* Merge frames[0..n-1] (root first) into *root: count samples, period in all. 0 or -ENOMEM. */
int tally__hist_graph_add(struct tally_hist_node **root, const struct tally_hist_frame *frames,
			  size_t n, uint64_t period, uint64_t count, bool address);
void tally__hist_graph_free(struct tally_hist_node *root);

#endif
