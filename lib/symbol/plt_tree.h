/* SPDX-License-Identifier: MIT */
/*
 * plt_tree: perf's symbol tree, replayed to learn which PLT entries its lookup
 * names: perf inserts a file's symbols (functions, objects and text
 * labels, in table order) into a red-black tree, runs each sizeless one
 * on to the next symbol's start (_init over the whole .plt), then inserts
 * the PLT entries; symbols__find walks from the root and returns the
 * first node holding the address, so an entry that stays below _init is
 * _init's (seen: the first of three or more entries, both of two).
 * Nodes by index; the insert is the classic one (Linux's lib/rbtree.c).
 */
#ifndef TALLY_PLT_TREE_H
#define TALLY_PLT_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ptree_node { uint64_t start, end; int32_t l, r, p; bool red; };
struct ptree { struct ptree_node *n; int32_t root; };

/* Node z (its start and end set) into the tree, as perf's rb insert. */
void tally__ptree_insert(struct ptree *t, int32_t z);
/* The node perf's symbols__find returns for ip, or -1. */
int32_t tally__ptree_find(const struct ptree *t, uint64_t ip);
/* perf's symbols__fixup_end over nodes 0..nn-1 (ord: room for nn pointers). */
void tally__ptree_fixup_end(struct ptree *t, struct ptree_node **ord, size_t nn);

#endif
