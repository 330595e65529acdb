// SPDX-License-Identifier: MIT
/*
 * --branch-history's pure parts: perf 6.1's remove_loops (the repeats of
 * a run of sources taken out, their passes counted at the entry after
 * the run) and each branch end's counts in the node it passes (a
 * target's predicted, abort and types; a source's cycles and loops; the
 * end that made a node not among the sources' from_count; a call
 * chain's frame after them, none).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "hist_graph.h"

/* perf_branch_entry's flags word: cycles (bits 4-19), type (20-23), predicted (1), abort (3) */
#define CYC(c) ((uint64_t)(c) << 4)
#define TYPE(t) ((uint64_t)(t) << 20)

static struct hist_brent br(uint64_t from, uint64_t to, uint64_t flags)
{
	return (struct hist_brent){ from, to, flags };
}

/* no source seen twice: nothing goes */
static void test_no_loop(void **state)
{
	struct hist_brent l[3] = { br(0x100, 0x200, 0), br(0x300, 0x400, 0), br(0x500, 0x600, 0) };
	struct hist_iter it[3] = { 0 };

	assert_int_equal(tally__hist_remove_loops(l, 3, it), 3);
	assert_int_equal(l[2].from, 0x500);
	assert_int_equal(it[0].nr + it[1].nr + it[2].nr, 0);
}

/*
 * A B A B C: the second A B is a pass of the loop A B; it goes, C
 * moves up to its place and carries the pass (its cycles: the pass's).
 */
static void test_loop_counted(void **state)
{
	struct hist_brent l[5] = {
		br(0xa000, 1, CYC(1)), br(0xb000, 2, CYC(2)), br(0xa000, 3, CYC(10)),
		br(0xb000, 4, CYC(20)), br(0xc000, 5, CYC(7)),
	};
	struct hist_iter it[5] = { 0 };

	assert_int_equal(tally__hist_remove_loops(l, 5, it), 3);
	assert_int_equal(l[0].from, 0xa000);
	assert_int_equal(l[1].from, 0xb000);
	assert_int_equal(l[2].from, 0xc000);
	assert_int_equal(l[2].to, 5);
	assert_int_equal(it[2].nr, 1);
	assert_int_equal(it[2].cycles, 30);
	assert_int_equal(it[0].nr + it[1].nr, 0);
}

/*
 * Three passes: perf's scan goes on past the entries it moved up, so
 * one pass goes (counted at the third pass's first entry, now at its
 * place) and the third stays.
 */
static void test_loop_passes(void **state)
{
	struct hist_brent l[7] = {
		br(0xa000, 1, CYC(1)), br(0xb000, 2, CYC(1)), br(0xa000, 3, CYC(3)), br(0xb000, 4, CYC(4)),
		br(0xa000, 5, CYC(5)), br(0xb000, 6, CYC(6)), br(0xc000, 7, 0),
	};
	struct hist_iter it[7] = { 0 };

	assert_int_equal(tally__hist_remove_loops(l, 7, it), 5);
	assert_int_equal(l[2].to, 5);
	assert_int_equal(l[4].to, 7);
	assert_int_equal(it[2].nr, 1);
	assert_int_equal(it[2].cycles, 7);
	assert_int_equal(it[3].nr + it[4].nr, 0);
}

/* a loop that ends the stack: it goes, nothing after it carries a pass */
static void test_loop_at_end(void **state)
{
	struct hist_brent l[4] = { br(0xa000, 1, 0), br(0xb000, 2, 0), br(0xa000, 3, 0), br(0xb000, 4, 0) };
	struct hist_iter it[4] = { 0 };

	assert_int_equal(tally__hist_remove_loops(l, 4, it), 2);
	assert_int_equal(l[1].to, 2);
	assert_int_equal(it[0].nr + it[1].nr, 0);
}

/* A repeated source whose run differs is no loop. */
static void test_not_a_loop(void **state)
{
	struct hist_brent l[4] = { br(0xa000, 1, 0), br(0xb000, 2, 0), br(0xa000, 3, 0), br(0xd000, 4, 0) };
	struct hist_iter it[4] = { 0 };

	assert_int_equal(tally__hist_remove_loops(l, 4, it), 4);
}

/*
 * perf's hash has no collision handling: 0x401120 takes 0x401000's slot
 * (hash_64(from, 7) % 127, 13 for both), so it is never found again and
 * its loop stays; 0x402000's run (slot 81) is no loop there.
 */
static void test_hash_collision(void **state)
{
	struct hist_brent l[6] = {
		br(0x401000, 1, 0), br(0x401120, 2, 0), br(0x402000, 3, 0),
		br(0x401120, 4, 0), br(0x402000, 5, 0), br(0x403000, 6, 0),
	};
	struct hist_iter it[6] = { 0 };

	assert_int_equal(tally__hist_remove_loops(l, 6, it), 6);
	/* without the collision the same run is a loop */
	l[0].from = 0x404000;
	assert_int_equal(tally__hist_remove_loops(l, 6, it), 4);
	assert_int_equal(l[3].to, 6);
	assert_int_equal(it[3].nr, 1);
}

static struct hist_node_br *counts_of(struct hist_node_pool *p, uint32_t root, int depth)
{
	const struct tally_hist_node *n = tally__hist_graph_node(p, root);

	while (depth--)
		n = tally_hist_node__child(n);
	return &p->br[n - p->n];
}

/*
 * Two samples' chains (a target, then its source) through the same two
 * nodes: the target node counts both ends' flags and types, the source
 * node their cycles, loops and (past the end that made it) from_count.
 */
static void test_node_counts(void **state)
{
	struct tally_hist_frame to = { .sym = "t", .dso = "x", .ip = 0x401000, .mapped = true };
	struct tally_hist_frame from = { .sym = "f", .dso = "x", .ip = 0x400ff0, .mapped = true };
	const struct tally_hist_frame *chain[2] = { &to, &from };
	struct hist_node_pool pool = { .branch = true };
	struct hist_brnode a[2] = {
		{ .from = 0x400ff0, .flags = TYPE(PERF_BR_COND) | 2 /* predicted */ },
		{ .flags = CYC(10), .iters = 2, .iter_cycles = 40 },
	};
	struct hist_brnode b[2] = {
		{ .from = 0x400ff0, .flags = TYPE(PERF_BR_CALL) | 8 /* abort */ },
		{ .flags = CYC(20) },
	};
	uint32_t r = 0;
	struct hist_node_br *t, *f;

	assert_int_equal(tally__hist_graph_add_br(&pool, &r, chain, a, 2, 100, 1), 0);
	assert_int_equal(tally__hist_graph_add_br(&pool, &r, chain, b, 2, 100, 1), 0);
	t = counts_of(&pool, r, 1);
	f = counts_of(&pool, r, 2);
	assert_int_equal(t->branches, 2);
	assert_true(t->target);
	assert_int_equal(t->predicted, 1);
	assert_int_equal(t->aborts, 1);
	assert_int_equal(t->types[PERF_BR_COND], 1);
	assert_int_equal(t->types[PERF_BR_CALL], 1);
	assert_int_equal(t->cond_fwd, 1);	/* to above from */
	assert_int_equal(t->cond_bwd, 0);
	assert_int_equal(t->cross_4k, 2);	/* 0x400ff0 -> 0x401000: another page, the same 2M */
	assert_int_equal(t->cross_2m, 0);
	assert_int_equal(f->branches, 2);
	assert_false(f->target);
	assert_int_equal(f->cycles, 30);
	assert_int_equal(f->iters, 2);
	assert_int_equal(f->iter_cycles, 40);
	assert_int_equal(f->froms, 1);		/* the second source alone: the first made the node */
	/* a shape of 3 samples at once counts as 3 ends, the first making nothing new */
	assert_int_equal(tally__hist_graph_add_br(&pool, &r, chain, b, 2, 300, 3), 0);
	f = counts_of(&pool, r, 2);
	assert_int_equal(f->branches, 5);
	assert_int_equal(f->froms, 4);
	assert_int_equal(f->cycles, 90);
	tally__hist_graph_free_all(&pool);
}

/*
 * A call chain's frame after the branches (perf's non-branch cursor
 * node): its node counts no branch, even where a branch's end passed it
 * (the same address: one node), so it shows " (calltrace)" alone.
 */
static void test_call_frames(void **state)
{
	struct tally_hist_frame to = { .sym = "t", .dso = "x", .ip = 0x401000, .mapped = true };
	struct tally_hist_frame from = { .sym = "f", .dso = "x", .ip = 0x400ff0, .mapped = true };
	struct tally_hist_frame caller = { .sym = "c", .dso = "x", .ip = 0x402000, .mapped = true };
	const struct tally_hist_frame *chain[3] = { &to, &from, &caller };
	const struct tally_hist_frame *calls[2] = { &to, &caller };
	struct hist_node_pool pool = { .branch = true };
	struct hist_brnode a[3] = {
		{ .from = 0x400ff0, .flags = TYPE(PERF_BR_CALL) },
		{ .flags = CYC(10) },
		{ .call = true, .flags = CYC(99) },
	};
	struct hist_brnode c[2] = { { .call = true }, { .call = true } };
	uint32_t r = 0;
	struct hist_node_br *t, *k;

	assert_int_equal(tally__hist_graph_add_br(&pool, &r, chain, a, 3, 100, 1), 0);
	k = counts_of(&pool, r, 3);
	assert_int_equal(k->branches, 0);
	assert_int_equal(k->cycles, 0);
	assert_int_equal(counts_of(&pool, r, 2)->cycles, 10);
	/* a chain of call frames alone through the target's node: its counts stay one branch's */
	assert_int_equal(tally__hist_graph_add_br(&pool, &r, calls, c, 2, 100, 1), 0);
	t = counts_of(&pool, r, 1);
	assert_int_equal(t->branches, 1);
	assert_int_equal(t->types[PERF_BR_CALL], 1);
	tally__hist_graph_free_all(&pool);
}

/* a pool that keeps no counts takes no branch ends */
static void test_no_branch_pool(void **state)
{
	struct tally_hist_frame x = { .sym = "x", .ip = 1 };
	const struct tally_hist_frame *chain[1] = { &x };
	struct hist_brnode b = { 0 };
	struct hist_node_pool pool = { 0 };
	uint32_t r = 0;

	assert_int_equal(tally__hist_graph_add_br(&pool, &r, chain, &b, 1, 1, 1), -EINVAL);
	tally__hist_graph_free_all(&pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_loop),
		cmocka_unit_test(test_loop_counted),
		cmocka_unit_test(test_loop_passes),
		cmocka_unit_test(test_loop_at_end),
		cmocka_unit_test(test_not_a_loop),
		cmocka_unit_test(test_hash_collision),
		cmocka_unit_test(test_node_counts),
		cmocka_unit_test(test_call_frames),
		cmocka_unit_test(test_no_branch_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
