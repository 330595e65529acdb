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
	/* interned: the resolver's where of the frame (the root's: a zeroed one) */
	const struct tally_hist_frame *f;
	uint64_t hit, children_hit;	/* period ending here, below here */
	uint64_t count, children_count;
	/*
	 * The relatives as offsets in the pool's array from this node (0:
	 * none), so that the array may move as it grows and a node is 64
	 * bytes (112 with a copy of its frame and pointers).
	 */
	int32_t first, last, next, parent;
	uint32_t nchild : 31;
	uint32_t dead : 1;		/* on the pool's free list */
};

/*
 * A node's branch counts (branch_history trees: tally/hist.h's
 * tally_hist_node_branch, the types' counts narrower).
 */
struct hist_node_br {
	uint64_t branches, predicted, aborts, cycles, iters, iter_cycles, froms;
	uint32_t types[16], new_types[8];
	uint32_t cond_fwd, cond_bwd, cross_4k, cross_2m;
	bool target;
};

/*
 * What one end of a branch brings to the node it passes (a frame of a
 * branch_history chain): from, the branch's source where the end is its
 * target (0: a source, as perf's cursor node's branch_from); the
 * branch's flags word; a source's removed loop iterations and cycles;
 * call, a frame of the call chain after them (perf's non-branch node).
 */
struct hist_brnode {
	uint64_t from, flags;
	uint64_t iters, iter_cycles;
	bool call;			/* a frame of the call chain after the branches: no counts */
};

/* A branch of a stack as a shape keeps it: perf_branch_entry's words (flags: its bit fields). */
struct hist_brent {
	uint64_t from, to, flags;
};

/* A kept branch's source's removed loop (perf's struct iterations). */
struct hist_iter {
	uint64_t nr, cycles;
};

/*
 * perf 6.1's remove_loops (util/machine.c) on l[0..nr-1], iter zeroed
 * as many: each repeat of a run of sources that began at an earlier
 * entry of the same source (found in a 127-slot hash, no collision
 * handling) goes, its pass counted at the entry after the run, with the
 * last pass's cycles. The entries left. hist_brhist.c.
 */
int tally__hist_remove_loops(struct hist_brent *l, int nr, struct hist_iter *iter);

/* A node with this many children or more finds them in the pool's index. */
#define INDEX_MIN 4

/*
 * A histogram's nodes sit in one array, all given back at once: a report
 * makes a node per distinct frame under each row (a third of a million on
 * a 4 s -a -g file), and a calloc and a free each were a tenth of its
 * time. Nodes are named by their index there (0: none).
 */
struct hist_node_pool {
	struct tally_hist_node *n;	/* n[0] unused */
	uint32_t used, cap;
	uint32_t free;			/* a node a decay gave back, for the next (its next: the one after) */
	/* the children of nodes with INDEX_MIN or more, by (parent, frame): open addressing */
	uint32_t *index;
	size_t nindex, cap_index;
	size_t nput;			/* nodes given back since the index was made */
	bool address;			/* the index's frames keyed by address */
	struct hist_node_br *br;	/* branch_history: node i's counts at br[i] (cap of them) */
	bool branch;			/* keep br */
};

/* Node i of the pool (0: NULL); valid until the next add. */
static inline struct tally_hist_node *tally__hist_graph_node(const struct hist_node_pool *pool, uint32_t i)
{
	return i ? &pool->n[i] : NULL;
}

/* Whether f is the roots' frame (no where's: the others are the resolver's). */
bool tally__hist_graph_is_root(const struct tally_hist_frame *f);

/*
 * Merge frames[0..n-1] (root first) into the tree *root (0: none yet):
 * count samples, period in all. The frames are kept by pointer: they
 * must outlive the pool. 0 or -ENOMEM.
 */
int tally__hist_graph_add(struct hist_node_pool *pool, uint32_t *root,
			  const struct tally_hist_frame *const *frames, size_t n, uint64_t period,
			  uint64_t count, bool address);
/* The same with each frame's branch end (bi[0..n-1]) counted in its node (pool->branch). */
int tally__hist_graph_add_br(struct hist_node_pool *pool, uint32_t *root,
			     const struct tally_hist_frame *const *frames, const struct hist_brnode *bi,
			     size_t n, uint64_t period, uint64_t count);
/*
 * perf top's decay_callchain: every node's period times 7/8 (a node's
 * below is its children's sum), nodes at zero given back. Call
 * tally__hist_graph_reindex after the last tree of a decay.
 */
void tally__hist_graph_decay(struct hist_node_pool *pool, uint32_t root);
/* A tree's nodes back to the pool (a dropped row's); reindex after. */
void tally__hist_graph_put(struct hist_node_pool *pool, uint32_t root);
/* The index made again of the nodes left, once many were given back. 0 or -ENOMEM. */
int tally__hist_graph_reindex(struct hist_node_pool *pool);
/* Every tree of the pool's nodes goes. */
void tally__hist_graph_free_all(struct hist_node_pool *pool);

#endif
