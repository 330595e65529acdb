// SPDX-License-Identifier: MIT
/*
 * The time order (lib/session/ordered.c): records queued from several
 * rings, released a round or a time at a time, come out in time order,
 * stably (equal times keep arrival order), each once and intact; late
 * records are delivered at the next flush and counted. The sort merges a
 * round's ascending runs (one per ring) or radix-sorts many.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ordered.h"

/* ---- the sort alone ------------------------------------------------- */

/* n records in k ascending runs, times drawn from few values (many ties) */
static void fill(struct tally_ordered *o, size_t n, size_t k, unsigned seed)
{
	o->q = calloc(n, sizeof(*o->q));
	o->tmp = calloc(n, sizeof(*o->tmp));
	o->nq = n;
	srand(seed);
	for (size_t r = 0, i = 0; r < k; r++) {
		size_t len = r + 1 == k ? n - i : n / k;
		uint64_t t = (uint64_t)(rand() % 50);

		for (size_t j = 0; j < len; j++, i++) {
			t += (uint64_t)(rand() % 3);	/* ascending, ties included */
			o->q[i].time = t;
			o->q[i].attr = (int)i;		/* arrival order, to see stability */
		}
	}
}

static void check_sorted(const struct tally_ordered *o)
{
	for (size_t i = 1; i < o->nq; i++) {
		assert_true(o->q[i - 1].time <= o->q[i].time);
		if (o->q[i - 1].time == o->q[i].time)
			assert_true(o->q[i - 1].attr < o->q[i].attr);
	}
}

static void sort_free(struct tally_ordered *o)
{
	free(o->q);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}

static void test_sort_runs(void **state)
{
	(void)state;
	/* 1..40 runs: the merge up to 32, the radix sort past it */
	for (size_t k = 1; k <= 40; k++) {
		for (unsigned seed = 1; seed <= 3; seed++) {
			struct tally_ordered o = { 0 };

			fill(&o, 997, k, seed * 131 + (unsigned)k);
			tally__ordered_sort(&o);
			check_sorted(&o);
			sort_free(&o);
		}
	}
}

static void test_sort_shuffled(void **state)
{
	struct tally_ordered o = { 0 };

	(void)state;
	fill(&o, 5000, 1, 7);
	for (size_t i = 0; i < o.nq; i++)	/* every record its own run */
		o.q[i].time = (uint64_t)(rand() % 1000);
	tally__ordered_sort(&o);
	check_sorted(&o);
	sort_free(&o);
}

static void test_sort_tiny(void **state)
{
	struct tally_ordered o = { 0 };

	(void)state;
	tally__ordered_sort(&o);			/* empty */
	fill(&o, 1, 1, 3);
	tally__ordered_sort(&o);
	check_sorted(&o);
	sort_free(&o);
}

/* ---- queue, flush, deliver ------------------------------------------ */

/* A record that says who it is: its arrival number, its ring and time. */
struct rec {
	struct perf_event_header h;
	uint64_t seq, time;
	uint32_t ring, pad;
	unsigned char filler[64];	/* sizes vary: h.size covers part of it */
};

struct got {
	struct tally_ordered *o;
	uint64_t *seq, *time;
	size_t n, cap;
	bool keep;			/* release later, as the session's pipeline does */
	struct ordered_event *kept;
	size_t nkept;
	int fail;			/* returned by the next delivery */
};

static int take(void *ctx, struct ordered_event *e, size_t n)
{
	struct got *g = ctx;

	if (g->fail) {
		int err = g->fail;

		g->fail = 0;
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rec *r = (const struct rec *)e[i].h;

		/* the copy is whole: its own time and its bytes */
		assert_int_equal(r->time, e[i].time);
		assert_int_equal(e[i].attr, (int)r->ring);
		for (size_t b = 0; b + offsetof(struct rec, filler) < r->h.size; b++)
			assert_int_equal(r->filler[b], (unsigned char)(r->seq + b));
		if (g->n == g->cap) {
			g->cap = g->cap ? g->cap * 2 : 1024;
			g->seq = realloc(g->seq, g->cap * sizeof(*g->seq));
			g->time = realloc(g->time, g->cap * sizeof(*g->time));
			assert_non_null(g->seq);
			assert_non_null(g->time);
		}
		g->seq[g->n] = r->seq;
		g->time[g->n++] = e[i].time;
	}
	if (g->keep) {
		g->kept = realloc(g->kept, (g->nkept + n) * sizeof(*g->kept));
		assert_non_null(g->kept);
		memcpy(g->kept + g->nkept, e, n * sizeof(*e));
		g->nkept += n;
	} else {
		tally__ordered_release(g->o, e, n);
	}
	return 0;
}

static void put(struct tally_ordered *o, uint64_t seq, uint32_t ring, uint64_t t, bool copy,
		struct rec *store)
{
	struct rec r = { .seq = seq, .time = t, .ring = ring };

	r.h.type = PERF_RECORD_SAMPLE;
	r.h.size = (uint16_t)(offsetof(struct rec, filler) + seq % (sizeof(r.filler) + 1));
	for (size_t b = 0; b < sizeof(r.filler); b++)
		r.filler[b] = (unsigned char)(seq + b);
	if (!copy) {
		*store = r;	/* the caller's, valid until delivered */
		assert_int_equal(tally__ordered_queue(o, t, (int)ring, &store->h, false), 0);
		return;
	}
	assert_int_equal(tally__ordered_queue(o, t, (int)ring, &r.h, true), 0);
	memset(&r, 0xee, sizeof(r));	/* the queue kept a copy, not this */
}

static void got_free(struct got *g)
{
	free(g->seq);
	free(g->time);
	free(g->kept);
}

/* in time order; ties in arrival (seq) order; each record once */
static void check_order(const struct got *g, size_t nput)
{
	unsigned char *seen = calloc(nput, 1);

	assert_non_null(seen);
	assert_int_equal(g->n, nput);
	for (size_t i = 0; i < g->n; i++) {
		assert_true(g->seq[i] < nput);
		assert_false(seen[g->seq[i]]);
		seen[g->seq[i]] = 1;
		if (i) {
			assert_true(g->time[i - 1] <= g->time[i]);
			if (g->time[i - 1] == g->time[i])
				assert_true(g->seq[i - 1] < g->seq[i]);
		}
	}
	free(seen);
}

/*
 * Rings as the kernel fills them: each in time order, read a pass at a
 * time (a pass takes every record stamped before it), a round flushed
 * after each pass; times random, close enough to tie across rings.
 */
static void rings(unsigned seed, int nrings, bool keep)
{
	struct tally_ordered o = { 0 };
	struct got g = { .o = &o, .keep = keep };
	uint64_t ring_t[48] = { 0 }, pass_end = 0, seq = 0;
	struct rec *mine = calloc(1000000, sizeof(*mine));	/* records not copied */

	assert_non_null(mine);
	srand(seed);
	for (int pass = 0; pass < 200; pass++) {
		pass_end += 1 + (uint64_t)(rand() % 2000);
		for (int r = 0; r < nrings; r++) {
			/* this ring's records up to the pass (times may tie with other rings') */
			while (ring_t[r] < pass_end) {	/* the next record's stamp */
				put(&o, seq, (uint32_t)r, ring_t[r], seq % 5 != 0, &mine[seq]);
				seq++;
				ring_t[r] += (uint64_t)(rand() % 40);
			}
		}
		assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);
		/* what stays is no older than what went */
		for (size_t i = 0; i < o.nq; i++)
			assert_true(o.q[i].time >= o.last_flush);
	}
	assert_int_equal(tally__ordered_flush(&o, UINT64_MAX, take, &g), 0);
	assert_int_equal(o.nq, 0);
	assert_int_equal(tally__ordered_late(&o), 0);
	check_order(&g, seq);
	assert_true(seq > 20000);	/* copies past one 1 MiB chunk */
	if (keep)
		tally__ordered_release(&o, g.kept, g.nkept);
	tally__ordered_exit(&o);
	got_free(&g);
	free(mine);
}

static void test_rings(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 4; seed++)
		rings(seed, 1 + (int)seed * 3, false);
}

/*
 * More rings than the merge takes (TALLY_ORDERED_RUNS): a round's runs as
 * the records came, past what is noted, sorted another way; and rounds
 * of few rings after them (the runs noted afresh after each flush)
 */
static void test_rings_many(void **state)
{
	(void)state;
	rings(21, TALLY_ORDERED_RUNS + 8, false);
	rings(22, TALLY_ORDERED_RUNS - 1, false);
	rings(23, TALLY_ORDERED_RUNS, true);
}

/* the deliveries' chunks given back later, from the other end (the session's pipeline) */
static void test_rings_released_late(void **state)
{
	(void)state;
	rings(11, 8, true);
}

/* equal times from every ring: arrival order, whatever the rings */
static void test_equal_times(void **state)
{
	struct tally_ordered o = { 0 };
	struct got g = { .o = &o };
	struct rec mine[600];
	uint64_t seq = 0;

	(void)state;
	for (int k = 0; k < 3; k++)
		for (uint32_t r = 0; r < 4; r++)
			for (int i = 0; i < 50; i++, seq++)
				put(&o, seq, r, 1000 + (uint64_t)k, seq & 1, &mine[seq]);
	assert_int_equal(tally__ordered_flush(&o, UINT64_MAX, take, &g), 0);
	check_order(&g, seq);
	for (size_t i = 0; i < g.n; i++)	/* times 1000, 1001, 1002: all in arrival order */
		assert_int_equal(g.seq[i], i);
	tally__ordered_exit(&o);
	got_free(&g);
}

/* a flush takes what is at its limit and nothing after */
static void test_flush_limit(void **state)
{
	struct tally_ordered o = { 0 };
	struct got g = { .o = &o };
	const uint64_t t[] = { 30, 10, 20, 20, 40, 10, 21 };
	struct rec mine[7];

	(void)state;
	for (uint64_t i = 0; i < 7; i++)
		put(&o, i, (uint32_t)(i % 2), t[i], true, &mine[i]);
	assert_int_equal(tally__ordered_flush(&o, 9, take, &g), 0);
	assert_int_equal(g.n, 0);
	assert_int_equal(tally__ordered_flush(&o, 20, take, &g), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.seq[0], 1);	/* 10 */
	assert_int_equal(g.seq[1], 5);	/* 10 */
	assert_int_equal(g.seq[2], 2);	/* 20 */
	assert_int_equal(g.seq[3], 3);	/* 20 */
	assert_int_equal(o.nq, 3);
	/* a record at the limit just flushed is not late: its time's others came before it */
	put(&o, 7, 0, 20, true, NULL);
	assert_int_equal(tally__ordered_late(&o), 0);
	assert_int_equal(tally__ordered_flush(&o, UINT64_MAX, take, &g), 0);
	check_order(&g, 8);
	assert_int_equal(g.seq[4], 7);	/* 20, then 21, 30, 40 */
	assert_int_equal(g.seq[5], 6);
	tally__ordered_exit(&o);
	got_free(&g);
}

/*
 * A record older than a flush's limit: perf counts it and delivers it
 * with the next flush. So do we: in order among what is queued then,
 * after the newer records already gone.
 */
static void test_late(void **state)
{
	struct tally_ordered o = { 0 };
	struct got g = { .o = &o };

	(void)state;
	put(&o, 0, 0, 10, true, NULL);
	put(&o, 1, 1, 20, true, NULL);
	put(&o, 2, 0, 30, true, NULL);
	assert_int_equal(tally__ordered_flush(&o, 20, take, &g), 0);
	assert_int_equal(g.n, 2);
	put(&o, 3, 1, 15, true, NULL);	/* late */
	put(&o, 4, 1, 25, true, NULL);
	put(&o, 5, 0, 5, true, NULL);	/* late */
	assert_int_equal(tally__ordered_late(&o), 2);
	assert_int_equal(tally__ordered_flush(&o, UINT64_MAX, take, &g), 0);
	assert_int_equal(g.n, 6);
	const uint64_t want[] = { 0, 1, 5, 3, 4, 2 };

	for (size_t i = 0; i < 6; i++)
		assert_int_equal(g.seq[i], want[i]);
	tally__ordered_exit(&o);
	got_free(&g);
}

/* late means older than a record delivered, not than the flush's limit (perf's rule) */
static void test_late_is_past_delivered(void **state)
{
	struct tally_ordered o = { 0 };
	struct got g = { .o = &o };

	(void)state;
	put(&o, 0, 0, 10, true, NULL);
	assert_int_equal(tally__ordered_flush(&o, 100, take, &g), 0);
	put(&o, 1, 1, 50, true, NULL);	/* below the limit, after nothing newer */
	put(&o, 2, 1, 9, true, NULL);	/* older than 10, delivered */
	put(&o, 3, 0, 0, true, NULL);	/* no time (perf's LOST_SAMPLES): not late, as perf */
	assert_int_equal(tally__ordered_late(&o), 1);
	assert_int_equal(tally__ordered_flush(&o, UINT64_MAX, take, &g), 0);
	assert_int_equal(g.n, 4);
	assert_int_equal(g.seq[1], 3);
	assert_int_equal(g.seq[2], 2);
	assert_int_equal(g.seq[3], 1);
	tally__ordered_exit(&o);
	got_free(&g);
}

/* the rounds' rule: a round releases what is no newer than the round before's newest */
static void test_round_rule(void **state)
{
	struct tally_ordered o = { 0 };
	struct got g = { .o = &o };

	(void)state;
	put(&o, 0, 0, 100, true, NULL);
	put(&o, 1, 1, 150, true, NULL);
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);
	assert_int_equal(g.n, 0);		/* no round before: nothing */
	put(&o, 2, 0, 120, true, NULL);		/* a ring read late, still in time */
	put(&o, 3, 1, 200, true, NULL);
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);
	assert_int_equal(g.n, 3);		/* up to 150: 100, 120, 150 */
	assert_int_equal(g.seq[1], 2);
	assert_int_equal(o.nq, 1);
	assert_int_equal(tally__ordered_late(&o), 0);
	tally__ordered_exit(&o);		/* what is left goes with the queue */
	got_free(&g);
}

/*
 * perf's round limit is the time of the record last put at its queue's
 * tail or into it empty, not the newest ever: once the queue ran empty,
 * a late record lowers it, and the next round delivers less (perf
 * 6.1's queue_event). Records dropped unqueued (tally__ordered_seen)
 * count as queued, as perf queues them.
 */
static void test_round_limit_after_empty(void **state)
{
	struct tally_ordered o = { 0 };
	struct got g = { .o = &o };
	const uint64_t want[] = { 100, 90, 93, 95, 150 };

	(void)state;
	put(&o, 0, 0, 100, true, NULL);
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);	/* limit 100 next */
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);	/* 100: empty */
	assert_int_equal(g.n, 1);
	put(&o, 1, 0, 90, true, NULL);		/* into the empty queue: the limit 90 */
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);	/* 90 out */
	put(&o, 2, 0, 95, true, NULL);
	put(&o, 3, 0, 150, true, NULL);
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);	/* up to 90: none */
	assert_int_equal(g.n, 2);
	put(&o, 4, 1, 93, true, NULL);		/* late for 95 only where 95 went */
	assert_int_equal(tally__ordered_flush(&o, UINT64_MAX, take, &g), 0);
	assert_int_equal(g.n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(g.time[i], want[i]);
	tally__ordered_exit(&o);
	got_free(&g);

	/* a dropped record keeps perf's queue busy: the limit is not lowered */
	memset(&g, 0, sizeof(g));
	g.o = &o;
	put(&o, 0, 0, 100, true, NULL);
	tally__ordered_seen(&o, 300);		/* dropped, but in perf's queue */
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);	/* limit 300 next */
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);	/* 100 and the 300 */
	put(&o, 1, 0, 250, true, NULL);		/* perf's queue is empty again: limit 250 */
	put(&o, 2, 0, 260, true, NULL);
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);	/* up to 300: both */
	assert_int_equal(g.n, 3);
	tally__ordered_seen(&o, 280);		/* dropped into an empty queue: limit 280 */
	put(&o, 3, 0, 290, true, NULL);
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);	/* up to 260: none */
	assert_int_equal(g.n, 3);
	assert_int_equal(tally__ordered_flush_round(&o, take, &g), 0);	/* up to 290 */
	assert_int_equal(g.n, 4);
	tally__ordered_exit(&o);
	got_free(&g);
}

/* a delivery that fails: the flush says so and the records stay queued */
static void test_delivery_fails(void **state)
{
	struct tally_ordered o = { 0 };
	struct got g = { .o = &o, .fail = -ENOMEM };

	(void)state;
	put(&o, 0, 0, 10, true, NULL);
	put(&o, 1, 0, 20, true, NULL);
	assert_int_equal(tally__ordered_flush(&o, UINT64_MAX, take, &g), -ENOMEM);
	assert_int_equal(o.nq, 2);
	assert_int_equal(tally__ordered_flush(&o, UINT64_MAX, take, &g), 0);
	check_order(&g, 2);
	tally__ordered_exit(&o);
	tally__ordered_exit(&o);		/* twice: an empty queue */
	got_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_runs),
		cmocka_unit_test(test_sort_shuffled),
		cmocka_unit_test(test_sort_tiny),
		cmocka_unit_test(test_rings),
		cmocka_unit_test(test_rings_many),
		cmocka_unit_test(test_rings_released_late),
		cmocka_unit_test(test_equal_times),
		cmocka_unit_test(test_flush_limit),
		cmocka_unit_test(test_late),
		cmocka_unit_test(test_late_is_past_delivered),
		cmocka_unit_test(test_round_rule),
		cmocka_unit_test(test_round_limit_after_empty),
		cmocka_unit_test(test_delivery_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
