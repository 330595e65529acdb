// SPDX-License-Identifier: MIT
/*
 * The call-graph trees' pool (hist_graph.h): nodes in one array that
 * moves as it grows, linked by offsets; a node points at its frame (the
 * resolver's where) instead of keeping a copy; the nodes a decay gives
 * back are taken again before the array grows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include "hist_graph.h"

#define NF 3000

static struct tally_hist_frame fr[NF];

static void frames_init(void)
{
	static char names[NF][16];

	for (int i = 0; i < NF; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		fr[i] = (struct tally_hist_frame){ .sym = names[i], .dso = "x.so", .ip = 0x1000 + 16 * (uint64_t)i,
						   .mapped = true };
	}
}

/* The children of n, in order, as the frames' indexes in fr. */
static int kids(const struct tally_hist_node *n, int *out, int max)
{
	int k = 0;

	for (const struct tally_hist_node *c = tally_hist_node__child(n); c; c = tally_hist_node__next(c)) {
		assert_true(k < max);
		assert_ptr_equal(tally_hist_node__parent(c), n);
		out[k++] = (int)(tally_hist_node__frame(c) - fr);
	}
	return k;
}

/*
 * A root with NF children, each with one below: more nodes than the
 * array's first size, so it moves while the tree is made; the links
 * (offsets) and the frames (pointers into fr, not copies) still hold.
 */
static void test_grow_links_frames(void **state)
{
	struct hist_node_pool pool = { 0 };
	const struct tally_hist_frame *chain[2];
	const struct tally_hist_node *root, *c;
	uint32_t r = 0;
	static int out[NF];
	struct tally_hist_node_info ni = { .sz = sizeof(ni) };

	frames_init();
	for (int i = 0; i < NF; i++) {
		chain[0] = &fr[i];
		chain[1] = &fr[(i + 1) % NF];
		assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 2, 10, 1, false), 0);
	}
	/* the same chains again merge: no node more */
	uint32_t used = pool.used;

	for (int i = 0; i < NF; i++) {
		chain[0] = &fr[i];
		chain[1] = &fr[(i + 1) % NF];
		assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 2, 10, 1, false), 0);
	}
	assert_int_equal(pool.used, used);
	assert_true(pool.used > 2 * NF);	/* the array grew (and moved) on the way */
	assert_true(sizeof(struct tally_hist_node) <= 64);
	root = tally__hist_graph_node(&pool, r);
	assert_int_equal(kids(root, out, NF), NF);
	for (int i = 0; i < NF; i++)
		assert_int_equal(out[i], i);	/* in the order they came */
	c = tally_hist_node__child(root);
	assert_ptr_equal(tally_hist_node__frame(c), &fr[0]);	/* the frame itself, not a copy */
	assert_int_equal(tally_hist_node__info(c, &ni), 0);
	assert_int_equal(ni.below, 20);
	assert_int_equal(ni.nr_children, 1);
	assert_int_equal(ni.frame.ip, fr[0].ip);
	assert_ptr_equal(tally_hist_node__frame(tally_hist_node__child(c)), &fr[1]);
	assert_int_equal(tally_hist_node__info(root, &ni), 0);
	assert_null(ni.frame.sym);	/* the root's frame is a zeroed one */
	assert_int_equal(ni.below, 2 * 10 * NF);
	assert_null(tally_hist_node__parent(root));
	tally__hist_graph_free_all(&pool);
	assert_null(pool.n);
}

/* A frame equal to one in the tree (the same function) merges into its node, which keeps its first. */
static void test_equal_frames_merge(void **state)
{
	struct hist_node_pool pool = { 0 };
	struct tally_hist_frame other;
	const struct tally_hist_frame *chain[1];
	uint32_t r = 0;
	int out[4];

	frames_init();
	other = fr[5];
	other.ip += 4;		/* another address of f5 */
	chain[0] = &fr[5];
	assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 1, 1, 1, false), 0);
	chain[0] = &other;
	assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 1, 1, 1, false), 0);
	assert_int_equal(kids(tally__hist_graph_node(&pool, r), out, 4), 1);
	assert_int_equal(out[0], 5);
	/* keyed by address, the two are two */
	tally__hist_graph_free_all(&pool);
	r = 0;
	chain[0] = &fr[5];
	assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 1, 1, 1, true), 0);
	chain[0] = &other;
	assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 1, 1, 1, true), 0);
	assert_int_equal(tally_hist_node__info(tally__hist_graph_node(&pool, r),
					       &(struct tally_hist_node_info){ .sz = sizeof(struct tally_hist_node_info) }), 0);
	assert_int_equal(tally__hist_graph_node(&pool, r)->nchild, 2);
	tally__hist_graph_free_all(&pool);
}

/*
 * What a decay drops goes to the free list and is taken again before the
 * array grows: a live view's trees stay the size of their last minutes.
 * The tree left is whole: the survivors' links (offsets) and sums.
 */
static void test_decay_reuses_nodes(void **state)
{
	struct hist_node_pool pool = { 0 };
	const struct tally_hist_frame *chain[2];
	uint32_t r = 0, used;
	static int out[NF];
	struct tally_hist_node_info ni = { .sz = sizeof(ni) };

	frames_init();
	/* odd children get period 1 (gone at the first decay), even ones 800 */
	for (int i = 0; i < 1000; i++) {
		chain[0] = &fr[i];
		chain[1] = &fr[i + 1000];
		assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 2, i % 2 ? 1 : 800, 1, false), 0);
	}
	used = pool.used;
	tally__hist_graph_decay(&pool, r);
	assert_int_equal(tally__hist_graph_reindex(&pool), 0);
	assert_int_equal(pool.nput, 0);	/* made again: half the indexed nodes went */
	assert_int_equal(kids(tally__hist_graph_node(&pool, r), out, NF), 500);
	for (int i = 0; i < 500; i++)
		assert_int_equal(out[i], 2 * i);
	assert_int_equal(tally_hist_node__info(tally__hist_graph_node(&pool, r), &ni), 0);
	assert_int_equal(ni.below, 500 * 700);
	/* 1000 nodes back (500 children and theirs below): new chains take them */
	for (int i = 0; i < 500; i++) {
		chain[0] = &fr[2000 + i];
		chain[1] = &fr[i];
		assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 2, 3, 1, false), 0);
	}
	assert_int_equal(pool.used, used);
	assert_int_equal(pool.free, 0);
	assert_int_equal(kids(tally__hist_graph_node(&pool, r), out, NF), 1000);
	assert_int_equal(out[500], 2000);
	/* an old child found again through the index after the reuse */
	chain[0] = &fr[998];
	chain[1] = &fr[1998];
	assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 2, 1, 1, false), 0);
	assert_int_equal(pool.used, used);
	/* a whole tree back */
	tally__hist_graph_put(&pool, r);
	assert_true(pool.free != 0);
	r = 0;
	chain[0] = &fr[7];
	assert_int_equal(tally__hist_graph_add(&pool, &r, chain, 1, 1, 1, false), 0);
	assert_int_equal(pool.used, used);
	tally__hist_graph_free_all(&pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_links_frames),
		cmocka_unit_test(test_equal_frames_merge),
		cmocka_unit_test(test_decay_reuses_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
