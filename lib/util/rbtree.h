/* SPDX-License-Identifier: MIT */
/*
 * A red-black tree of nodes held by index in the caller's array (-1: none),
 * balanced exactly as Linux's lib/rbtree.c balances its trees: the classic
 * insert and erase. For replaying perf's trees, whose shape decides what
 * perf finds or prints where its comparisons do not give one answer. The
 * caller walks down by its own key and links; no comparison here.
 */
#ifndef TALLY_RBTREE_H
#define TALLY_RBTREE_H

#include <stdbool.h>
#include <stdint.h>

struct tally__rbn {
	int32_t l, r, p;
	bool red;
};

struct tally__rbt {
	struct tally__rbn *n;
	int32_t root;			/* -1: empty */
};

/* Puts node z below parent (-1: as the root) on its left or right, and rebalances. */
void tally__rb_link(struct tally__rbt *t, int32_t z, int32_t parent, bool left);
/* Takes node z out, as rb_erase (a node with two children gives way to its successor). */
void tally__rb_erase(struct tally__rbt *t, int32_t z);
/* In order: the first node, and the one after x; -1 past the end. */
int32_t tally__rb_first(const struct tally__rbt *t);
int32_t tally__rb_next(const struct tally__rbt *t, int32_t x);

#endif
