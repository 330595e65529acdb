// SPDX-License-Identifier: MIT
/*
 * The histogram (tally/hist.h) over a small perf.data written here: two
 * threads, user chains at addresses no map holds (each a row of its own,
 * keyed by address). Shapes merge, children vs self, the orders, zeroing,
 * filters, trees, a resort while samples still come, the stacks view;
 * top's decay, which forgets rows, shapes and at last their addresses;
 * tally_hist__run, a file's histogram in one call.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/tally.h>
#include "stacks_internal.h"
#include "hist_internal.h"
#include "resolve_internal.h"
#include "hist_file.h"

enum { A = 0x1000, B = 0x2000, C = 0x3000, D = 0x4000 };

/* a sample: its thread, its chain leaf first, its period */
struct spec {
	uint32_t pid;
	uint64_t period;
	int nr;
	uint64_t ips[4];
};

/*
 * alpha (100): A<-B<-C three times (one shape), B<-C once;
 * beta (200): A<-D once.
 */
static const struct spec base[] = {
	{ 100, 10, 3, { A, B, C } }, { 100, 10, 3, { A, B, C } }, { 100, 10, 3, { A, B, C } },
	{ 100, 5, 2, { B, C } },
	{ 200, 7, 2, { A, D } },
};

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
		     PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

static void sample(struct tally_data_writer *w, const struct spec *s, uint64_t time)
{
	struct {
		struct perf_event_header h;
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t period, nr, ips[5];
	} r = { { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 }, s->ips[0], s->pid, s->pid, time,
		0, 0, s->period, (uint64_t)s->nr + 1, { PERF_CONTEXT_USER } };

	memcpy(r.ips + 1, s->ips, (size_t)s->nr * sizeof(uint64_t));
	r.h.size = (uint16_t)(offsetof(typeof(r), ips) + (size_t)(s->nr + 1) * sizeof(uint64_t));
	hf_put(w, &r);
}

/* The samples into a fresh file; its path. */
static char *write_file(const struct spec *v, size_t n)
{
	static char path[] = "/tmp/test_hist.XXXXXX";
	struct perf_event_attr a = hf_attr(SAMPLE_TYPE);
	struct tally_data_writer *w;
	int fd;

	strcpy(path, "/tmp/test_hist.XXXXXX");
	w = hf_begin(path, &a, &fd);
	hf_comm(w, 100, "alpha", 1, true);
	hf_comm(w, 200, "beta", 1, true);
	for (size_t i = 0; i < n; i++)
		sample(w, &v[i], 100 + i);
	hf_end(w, fd);
	return path;
}

struct run {
	struct tally_hist *h;
	int at;				/* the sample after which to look (0: none, -1: each) */
	int decays;			/* then age the rows this many times (top's refresh) */
	int seen;
	size_t rows_then;
	uint64_t samples_then;
};

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct run *r = ctx;
	TALLY_OPTS(tally_hist_totals, t);

	assert_int_equal(tally_hist__add(r->h, smp), 0);
	if (++r->seen == r->at || r->at < 0) {	/* a live session's refresh: rows so far */
		assert_int_equal(tally_hist__resort(r->h), 0);
		r->rows_then = tally_hist__nr_rows(r->h, 0);
		assert_int_equal(tally_hist__totals(r->h, 0, &t), 0);
		r->samples_then = t.samples;
		for (int i = 0; i < r->decays; i++)
			assert_int_equal(tally_hist__decay(r->h), 0);
	}
	return 0;
}

/* A histogram of the samples v, opened with opts; *ss to close after. */
static struct tally_hist *hist_of_v(const struct spec *v, size_t nv, const struct tally_hist_opts *o,
				    struct tally_session **ss, struct run *r)
{
	char *path = write_file(v, nv);
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = r);

	*ss = tally_session__open(path, &so);
	assert_non_null(*ss);
	r->h = tally_hist__new(*ss, o);
	assert_non_null(r->h);
	assert_int_equal(tally_session__run(*ss), 0);
	unlink(path);
	assert_int_equal(tally_hist__resort(r->h), 0);
	return r->h;
}

/* The same of the base samples. */
static struct tally_hist *hist_of(const struct tally_hist_opts *o, struct tally_session **ss,
				  struct run *r)
{
	return hist_of_v(base, sizeof(base) / sizeof(base[0]), o, ss, r);
}

static struct tally_hist_row row(const struct tally_hist *h, size_t i)
{
	TALLY_OPTS(tally_hist_row, v);

	assert_int_equal(tally_hist__row(h, 0, i, &v), 0);
	return v;
}

/* the rows as "comm:addr self children samples", in order */
static void expect_rows(const struct tally_hist *h, const char *const *want, size_t n)
{
	assert_int_equal(tally_hist__nr_rows(h, 0), n);
	for (size_t i = 0; i < n; i++) {
		struct tally_hist_row v = row(h, i);
		char got[128];

		assert_null(v.sym);	/* no map: keyed by address */
		snprintf(got, sizeof(got), "%s:%llx %llu %llu %llu", v.comm,
			 (unsigned long long)v.addr, (unsigned long long)v.self,
			 (unsigned long long)v.children, (unsigned long long)v.samples);
		assert_string_equal(got, want[i]);
	}
}

static void test_shapes_merge(void **state)
{
	struct run r = { 0 };
	struct tally_session *ss;
	TALLY_OPTS(tally_hist_totals, t);
	struct tally_hist *h = hist_of(NULL, &ss, &r);

	(void)state;
	assert_int_equal(tally_hist__nr_events(h), 1);
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	assert_int_equal(t.samples, 5);
	assert_int_equal(t.period, 42);
	assert_int_equal(t.shapes, 3);	/* the three equal samples are one shape */
	assert_int_equal(t.time_first, 100);
	assert_int_equal(t.time_last, 104);
	tally_hist__free(h);
	tally_session__close(ss);
}

static void test_self(void **state)
{
	static const char *const want[] = {
		"alpha:1000 30 0 3", "beta:1000 7 0 1", "alpha:2000 5 0 1",
	};
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(NULL, &ss, &r);

	(void)state;
	expect_rows(h, want, 3);	/* self only: the sampled functions, biggest first */
	tally_hist__free(h);
	tally_session__close(ss);
}

static void test_children(void **state)
{
	/* each row once per sample on its chain; equal children: the bigger self first */
	static const char *const want[] = {
		"alpha:2000 5 35 1", "alpha:3000 0 35 0", "alpha:1000 30 30 3",
		"beta:1000 7 7 1", "beta:4000 0 7 0",
	};
	TALLY_OPTS(tally_hist_opts, o, .children = true, .order = TALLY_HIST_CALLER);
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(&o, &ss, &r);

	(void)state;
	expect_rows(h, want, 5);
	tally_hist__free(h);
	tally_session__close(ss);
}

static void test_orders(void **state)
{
	static const int by_samples[] = { TALLY_HIST_BY_SAMPLES, TALLY_HIST_BY_SELF, TALLY_HIST_PID };
	static const int by_pid_self[] = { TALLY_HIST_PID, TALLY_HIST_BY_SELF };
	static const int bad[] = { 99 };
	static const char *const want_samples[] = {
		"alpha:1000 30 30 3", "beta:1000 7 7 1", "alpha:2000 5 35 1",
		"alpha:3000 0 35 0", "beta:4000 0 7 0",
	};
	static const char *const want_pid[] = {
		"alpha:1000 30 30 3", "alpha:2000 5 35 1", "alpha:3000 0 35 0",
		"beta:1000 7 7 1", "beta:4000 0 7 0",
	};
	TALLY_OPTS(tally_hist_opts, o, .children = true, .order = TALLY_HIST_CALLER);
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(&o, &ss, &r);

	(void)state;
	assert_int_equal(tally_hist__sort(h, by_samples, 3), 0);
	expect_rows(h, want_samples, 5);
	assert_int_equal(tally_hist__sort(h, by_pid_self, 2), 0);
	expect_rows(h, want_pid, 5);
	/* the order holds for later resorts */
	assert_int_equal(tally_hist__resort(h), 0);
	expect_rows(h, want_pid, 5);
	assert_int_equal(tally_hist__sort(h, bad, 1), -EINVAL);
	assert_int_equal(tally_hist__sort(h, NULL, 1), -EINVAL);
	expect_rows(h, want_pid, 5);	/* a refused order changes nothing */
	tally_hist__free(h);
	tally_session__close(ss);
}

static void test_filters(void **state)
{
	static const char *const want_beta[] = { "beta:1000 7 7 1", "beta:4000 0 7 0" };
	TALLY_OPTS(tally_hist_opts, o, .children = true, .order = TALLY_HIST_CALLER);
	TALLY_OPTS(tally_hist_filter, beta, .comms = "gamma,beta");
	TALLY_OPTS(tally_hist_filter, tid, .tids = "100");
	TALLY_OPTS(tally_hist_filter, sym, .symbols = "main");
	TALLY_OPTS(tally_hist_filter, dso, .dsos = "[unknown]");
	TALLY_OPTS(tally_hist_filter, text, .symbol_filter = "a");
	TALLY_OPTS(tally_hist_totals, t);
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(&o, &ss, &r);

	(void)state;
	assert_int_equal(tally_hist__set_filter(h, &beta), 0);
	assert_int_equal(tally_hist__resort(h), 0);
	expect_rows(h, want_beta, 2);
	/* the shares stay those of every sample */
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	assert_int_equal(t.period, 42);
	assert_int_equal(tally_hist__set_filter(h, &tid), 0);
	assert_int_equal(tally_hist__resort(h), 0);
	assert_int_equal(tally_hist__nr_rows(h, 0), 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(row(h, i).tid, 100);
	/* no symbol resolved: no row is that function */
	assert_int_equal(tally_hist__set_filter(h, &sym), 0);
	assert_int_equal(tally_hist__resort(h), 0);
	assert_int_equal(tally_hist__nr_rows(h, 0), 0);
	/* no map: perf's [unknown] */
	assert_int_equal(tally_hist__set_filter(h, &dso), 0);
	assert_int_equal(tally_hist__resort(h), 0);
	assert_int_equal(tally_hist__nr_rows(h, 0), 5);
	/* --symbol-filter tests each row: one without a symbol never holds the text */
	assert_int_equal(tally_hist__set_filter(h, &text), 0);
	assert_int_equal(tally_hist__resort(h), 0);
	assert_int_equal(tally_hist__nr_rows(h, 0), 0);
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	assert_int_equal(t.period, 42);
	/* zoomed out */
	assert_int_equal(tally_hist__set_filter(h, NULL), 0);
	assert_int_equal(tally_hist__resort(h), 0);
	assert_int_equal(tally_hist__nr_rows(h, 0), 5);
	tally_hist__free(h);
	tally_session__close(ss);
}

static void test_zero(void **state)
{
	TALLY_OPTS(tally_hist_opts, o, .children = true, .graph = true);
	TALLY_OPTS(tally_hist_totals, t);
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(&o, &ss, &r);

	(void)state;
	assert_int_equal(tally_hist__nr_rows(h, 0), 5);
	tally_hist__zero(h);
	assert_int_equal(tally_hist__nr_rows(h, 0), 0);
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	assert_int_equal(t.samples, 0);
	assert_int_equal(t.period, 0);
	assert_int_equal(t.shapes, 0);
	assert_int_equal(tally_hist__resort(h), 0);
	assert_int_equal(tally_hist__nr_rows(h, 0), 0);
	tally_hist__free(h);
	tally_session__close(ss);
}

/* A resort while samples still come (top's refresh), then the rest. */
static void test_incremental(void **state)
{
	static const char *const want[] = {
		"alpha:1000 30 0 3", "beta:1000 7 0 1", "alpha:2000 5 0 1",
	};
	struct run r = { .at = 3 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(NULL, &ss, &r);

	(void)state;
	assert_int_equal(r.rows_then, 1);	/* alpha's A, three samples of one shape */
	assert_int_equal(r.samples_then, 3);
	expect_rows(h, want, 3);
	tally_hist__free(h);
	tally_session__close(ss);
}

/* a tree as text: each node's frame and counts, children indented */
static void dump_tree(const struct tally_hist_node *n, int depth, char **p, size_t *left)
{
	TALLY_OPTS(tally_hist_node_info, ni);
	int w;

	assert_int_equal(tally_hist_node__info(n, &ni), 0);
	w = snprintf(*p, *left, "%*s%llx %llu/%llu %llu/%llu %u\n", 2 * depth, "",
		     (unsigned long long)ni.frame.ip, (unsigned long long)ni.self,
		     (unsigned long long)ni.self_samples, (unsigned long long)ni.below,
		     (unsigned long long)ni.below_samples, ni.nr_children);
	assert_true(w > 0 && (size_t)w < *left);
	*p += w;
	*left -= (size_t)w;
	for (const struct tally_hist_node *c = tally_hist_node__child(n); c; c = tally_hist_node__next(c))
		dump_tree(c, depth + 1, p, left);
}

static int dump_decays;		/* decays at the sample at */
static bool dump_trees_only;	/* the trees' lines alone */

/* Every row and its tree as text, the samples of v counted with a resort after each (at -1) or once. */
static void dump_hist(const struct spec *v, size_t nv, const struct tally_hist_opts *o, int at,
		      char *buf, size_t size)
{
	char *path = write_file(v, nv);
	struct run r = { .at = at, .decays = dump_decays };
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &r);
	struct tally_session *ss = tally_session__open(path, &so);
	char *p = buf;
	size_t left = size;

	assert_non_null(ss);
	assert_non_null(r.h = tally_hist__new(ss, o));
	assert_int_equal(tally_session__run(ss), 0);
	unlink(path);
	assert_int_equal(tally_hist__resort(r.h), 0);
	for (size_t i = 0; i < tally_hist__nr_rows(r.h, 0); i++) {
		struct tally_hist_row x = row(r.h, i);
		int w = dump_trees_only ? 0 :
			snprintf(p, left, "%s:%llx %llu %llu %llu %u\n", x.comm,
				 (unsigned long long)x.addr, (unsigned long long)x.self,
				 (unsigned long long)x.children, (unsigned long long)x.samples,
				 x.max_depth);

		assert_true(w >= 0 && (size_t)w < left);
		p += w;
		left -= (size_t)w;
		if (x.graph)
			dump_tree(x.graph, 1, &p, &left);
	}
	tally_hist__free(r.h);
	tally_session__close(ss);
}

/*
 * Rows count only what came since the last resort (top's refresh): a
 * resort after every sample, shapes coming back between, ends with the
 * rows and trees of one resort at the end.
 */
static void test_resort_each(void **state)
{
	static const struct spec v[] = {
		{ 100, 10, 3, { A, B, C } }, { 200, 7, 2, { A, D } }, { 100, 10, 3, { A, B, C } },
		{ 100, 5, 2, { B, C } }, { 100, 3, 4, { C, D, B, C } }, { 200, 7, 2, { A, D } },
		{ 100, 10, 3, { A, B, C } }, { 200, 2, 3, { D, B, A } }, { 100, 5, 2, { B, C } },
	};
	TALLY_OPTS(tally_hist_opts, caller, .children = true, .graph = true,
		   .order = TALLY_HIST_CALLER);
	TALLY_OPTS(tally_hist_opts, callee, .graph = true, .order = TALLY_HIST_CALLEE);
	const struct tally_hist_opts *opts[] = { NULL, &caller, &callee };
	static char once[8192], each[8192];

	(void)state;
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		dump_hist(v, sizeof(v) / sizeof(v[0]), opts[i], 0, once, sizeof(once));
		dump_hist(v, sizeof(v) / sizeof(v[0]), opts[i], -1, each, sizeof(each));
		assert_true(strlen(once) > 40);
		assert_string_equal(each, once);
	}
}

static void test_graph(void **state)
{
	TALLY_OPTS(tally_hist_opts, o, .graph = true, .order = TALLY_HIST_CALLER);
	TALLY_OPTS(tally_hist_node_info, ni);
	static const uint64_t path[] = { C, B, A };
	const struct tally_hist_node *n;
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(&o, &ss, &r);
	struct tally_hist_row v = row(h, 0);	/* alpha's A */

	(void)state;
	assert_int_equal(v.addr, A);
	assert_int_equal(v.max_depth, 3);
	n = v.graph;
	assert_non_null(n);
	assert_null(tally_hist_node__parent(n));
	assert_int_equal(tally_hist_node__info(n, &ni), 0);
	assert_int_equal(ni.below, 30);
	/* root first: C, B, A, the samples ending at A */
	for (int i = 0; i < 3; i++) {
		const struct tally_hist_node *c = tally_hist_node__child(n);

		assert_non_null(c);
		assert_null(tally_hist_node__next(c));	/* one chain: no sibling */
		assert_ptr_equal(tally_hist_node__parent(c), n);
		assert_int_equal(tally_hist_node__frame(c)->ip, path[i]);
		n = c;
	}
	assert_int_equal(tally_hist_node__info(n, &ni), 0);
	assert_int_equal(ni.self, 30);
	assert_int_equal(ni.self_samples, 3);
	assert_int_equal(ni.below, 0);
	assert_int_equal(ni.nr_children, 0);
	assert_null(tally_hist_node__child(n));
	/* the other way round from the next resort: leaf first */
	assert_int_equal(tally_hist__set_graph(h, true, TALLY_HIST_CALLEE, false), 0);
	assert_int_equal(tally_hist__resort(h), 0);
	v = row(h, 0);
	n = v.graph;
	for (int i = 0; i < 3; i++) {
		n = tally_hist_node__child(n);
		assert_non_null(n);
		assert_int_equal(tally_hist_node__frame(n)->ip, path[2 - i]);
	}
	assert_int_equal(tally_hist__set_graph(h, false, TALLY_HIST_CALLEE, false), 0);
	assert_int_equal(tally_hist__resort(h), 0);
	assert_null(row(h, 0).graph);
	tally_hist__free(h);
	tally_session__close(ss);
}

/* A row's tree as text ("" for none). */
static void tree_text(const struct tally_hist_row *x, char *buf, size_t size)
{
	char *p = buf;
	size_t left = size;

	buf[0] = '\0';
	if (x->graph)
		dump_tree(x->graph, 1, &p, &left);
}

/*
 * graph_min: rows under the threshold (perf's, an integer of the event's
 * whole period) get no tree; the others the very tree they get without
 * it, and every row its place, counts and longest chain.
 */
static void test_graph_min(void **state)
{
	/* 42 in all: 50% is 21; alpha's A, B, C are at 30, 35, 35, beta's rows at 7 */
	TALLY_OPTS(tally_hist_opts, full, .children = true, .graph = true,
		   .order = TALLY_HIST_CALLER);
	TALLY_OPTS(tally_hist_opts, half, .children = true, .graph = true,
		   .order = TALLY_HIST_CALLER, .graph_min = 50);
	TALLY_OPTS(tally_hist_opts, self, .graph = true, .order = TALLY_HIST_CALLEE,
		   .graph_min = 50);
	TALLY_OPTS(tally_hist_opts, self_full, .graph = true, .order = TALLY_HIST_CALLEE);
	const struct tally_hist_opts *pairs[][2] = { { &full, &half }, { &self_full, &self } };
	char a[4096], b[4096];

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct run ra = { 0 }, rb = { 0 };
		struct tally_session *sa, *sb;
		struct tally_hist *ha = hist_of(pairs[k][0], &sa, &ra), *hb = hist_of(pairs[k][1], &sb, &rb);
		size_t with = 0, without = 0;

		assert_int_equal(tally_hist__nr_rows(ha, 0), tally_hist__nr_rows(hb, 0));
		for (size_t i = 0; i < tally_hist__nr_rows(ha, 0); i++) {
			struct tally_hist_row x = row(ha, i), y = row(hb, i);
			uint64_t share = k == 0 ? y.children : y.self;

			assert_int_equal(x.addr, y.addr);
			assert_string_equal(x.comm, y.comm);
			assert_int_equal(x.self, y.self);
			assert_int_equal(x.children, y.children);
			assert_int_equal(x.max_depth, y.max_depth);
			if (share < 21) {
				assert_null(y.graph);
				without++;
				continue;
			}
			tree_text(&x, a, sizeof(a));
			tree_text(&y, b, sizeof(b));
			assert_true(strlen(a) > 0);
			assert_string_equal(a, b);
			with++;
		}
		assert_true(with > 0 && without > 0);
		tally_hist__free(ha);
		tally_hist__free(hb);
		tally_session__close(sa);
		tally_session__close(sb);
	}
}

enum { X = 0x5000 };	/* X + 0x100 * i: the leaves of a wide tree */

/*
 * A node with many children (found through the pool's index): a resort
 * after each sample ends with the trees of one resort at the end.
 */
static void test_wide_tree(void **state)
{
	static const enum tally_hist_key comm_key[] = { TALLY_HIST_COMM };
	TALLY_OPTS(tally_hist_opts, caller, .keys = comm_key, .nr_keys = 1, .graph = true,
		   .order = TALLY_HIST_CALLER);
	TALLY_OPTS(tally_hist_opts, callee, .keys = comm_key, .nr_keys = 1, .graph = true,
		   .children = true, .order = TALLY_HIST_CALLEE);
	const struct tally_hist_opts *opts[] = { &caller, &callee };
	struct spec v[40];
	static char once[32768], each[32768];

	(void)state;
	for (int i = 0; i < 40; i++)	/* 20 leaves under B, each twice, some with D between */
		v[i] = (struct spec){ 100, 1 + (uint64_t)i % 3, 3,
				      { X + 0x100 * (uint64_t)(i % 20), i % 7 ? B : D, C } };
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		dump_hist(v, 40, opts[i], 0, once, sizeof(once));
		dump_hist(v, 40, opts[i], -1, each, sizeof(each));
		assert_true(strlen(once) > 400);
		assert_string_equal(each, once);
	}
}

/*
 * A decay prunes a wide node's children at zero while it keeps many (it
 * still finds them through the pool's index, stale slots and all), then
 * the pruned ones come back with new samples: the tree is the one of the aged
 * samples and the new ones counted at once.
 */
static void test_decay_wide_tree(void **state)
{
	static const enum tally_hist_key comm_key[] = { TALLY_HIST_COMM };
	TALLY_OPTS(tally_hist_opts, o, .keys = comm_key, .nr_keys = 1, .graph = true,
		   .order = TALLY_HIST_CALLER);
	struct spec aged_v[36], fresh[28];
	static char got[16384], want[16384];

	(void)state;
	/*
	 * under B: 8 leaves of period 1 (zero after a decay), 20 of 80 (70
	 * after: too many for the index to be made again), the 8 again
	 */
	for (int i = 0; i < 8; i++) {
		aged_v[i] = (struct spec){ 100, 1, 3, { X + 0x100 * (uint64_t)i, B, C } };
		aged_v[28 + i] = (struct spec){ 100, 2, 3, { X + 0x100 * (uint64_t)i, B, C } };
		fresh[20 + i] = aged_v[28 + i];
	}
	for (int i = 0; i < 20; i++) {
		aged_v[8 + i] = (struct spec){ 100, 80, 3, { X + 0x1000 + 0x100 * (uint64_t)i, B, C } };
		fresh[i] = (struct spec){ 100, 70, 3, { X + 0x1000 + 0x100 * (uint64_t)i, B, C } };
	}
	dump_trees_only = true;
	dump_decays = 1;
	dump_hist(aged_v, 36, &o, 28, got, sizeof(got));
	dump_decays = 0;
	dump_hist(fresh, 28, &o, 0, want, sizeof(want));
	dump_trees_only = false;
	assert_true(strlen(want) > 400);
	assert_string_equal(got, want);
}

/* perf's he_stat__decay, k times */
static uint64_t aged(uint64_t v, int k)
{
	while (k-- > 0)
		v = v * 7 / 8;
	return v;
}

/* the row of comm at addr, -1: none */
static int find_row(const struct tally_hist *h, const char *comm, uint64_t addr)
{
	for (size_t i = 0; i < tally_hist__nr_rows(h, 0); i++) {
		struct tally_hist_row v = row(h, i);

		if (!strcmp(v.comm, comm) && v.addr == addr)
			return (int)i;
	}
	return -1;
}

/*
 * perf top's decay: after k decays each row's self, children and samples
 * are perf's floor(x * 7 / 8) k times, its tree's too, the total period
 * loses what the rows lost; a row goes when its self reaches zero, a
 * caller's row of children alone at the first; at the end nothing is left.
 */
/*
 * A shape keeps the session's answers for its addresses (no second
 * lookup when the rows are made), so a decay's sweep keeps them too:
 * sorted by comm, alpha's row holds the where of A alone, its other
 * shape's ip (B) is held by that shape only; two decays later (the first
 * clears the marks of the samples' own lookups) every shape's answer is
 * still its own address's, not a freed entry.
 */
static void test_decay_keeps_shapes_wheres(void **state)
{
	enum tally_hist_key key = TALLY_HIST_COMM;
	TALLY_OPTS(tally_hist_opts, o, .keys = &key, .nr_keys = 1);
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(&o, &ss, &r);
	struct shape *const *x;
	size_t n, cached = 0;

	(void)state;
	assert_int_equal(tally_hist__nr_rows(h, 0), 2);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(tally_hist__decay(h), 0);
		assert_int_equal(tally_hist__resort(h), 0);
	}
	assert_int_equal(tally_hist__nr_rows(h, 0), 2);
	x = tally__hist_shapes(h, &n);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++) {
		const struct where *w = x[i]->wh[x[i]->key_nr];

		if (!w)
			continue;
		cached++;
		assert_int_equal(w->ip, x[i]->ip);
		assert_null(w->dso);	/* no map */
	}
	assert_int_equal(cached, 3);
	tally_hist__free(h);
	tally_session__close(ss);
}

static void test_decay(void **state)
{
	TALLY_OPTS(tally_hist_opts, o, .children = true, .graph = true, .order = TALLY_HIST_CALLER);
	TALLY_OPTS(tally_hist_totals, t);
	TALLY_OPTS(tally_hist_node_info, ni);
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(&o, &ss, &r);
	struct tally_hist_row before[5];
	size_t n0 = tally_hist__nr_rows(h, 0);
	int k;

	(void)state;
	assert_int_equal(n0, 5);
	for (size_t i = 0; i < n0; i++)
		before[i] = row(h, i);
	for (k = 1; tally_hist__nr_rows(h, 0); k++) {
		uint64_t total = 0;
		size_t left = 0;

		assert_true(k < 64);
		assert_int_equal(tally_hist__decay(h), 0);
		assert_int_equal(tally_hist__nr_rows(h, 0), 0);	/* read again after a resort */
		assert_int_equal(tally_hist__resort(h), 0);
		for (size_t i = 0; i < n0; i++) {
			int at = find_row(h, before[i].comm, before[i].addr);
			uint64_t self = aged(before[i].self, k);

			total += self;
			if (!self || !before[i].self) {	/* at zero, or children alone: gone */
				assert_int_equal(at, -1);
				continue;
			}
			left++;
			assert_true(at >= 0);
			struct tally_hist_row v = row(h, (size_t)at);

			assert_int_equal(v.self, self);
			assert_int_equal(v.children, aged(before[i].children, k));
			assert_int_equal(v.samples, aged(before[i].samples, k));
			if (before[i].addr == A && !strcmp(before[i].comm, "alpha")) {
				/* one chain C, B, A: the root's below and A's self are the row's */
				const struct tally_hist_node *n = v.graph;

				assert_int_equal(tally_hist_node__info(n, &ni), 0);
				assert_int_equal(ni.below, self);
				while (tally_hist_node__child(n))
					n = tally_hist_node__child(n);
				assert_int_equal(tally_hist_node__frame(n)->ip, A);
				assert_int_equal(tally_hist_node__info(n, &ni), 0);
				assert_int_equal(ni.self, self);
			}
		}
		assert_int_equal(tally_hist__nr_rows(h, 0), left);
		assert_int_equal(tally_hist__totals(h, 0, &t), 0);
		assert_int_equal(t.period, total);
		if (k == 1) {
			assert_int_equal(left, 3);	/* alpha's C and beta's D had no self */
			assert_int_equal(row(h, (size_t)find_row(h, "alpha", A)).self, 26);	/* 30 * 7 / 8 */
		}
	}
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	assert_int_equal(t.period, 0);
	assert_int_equal(t.shapes, 0);	/* shapes at zero forgotten */
	assert_int_equal(t.samples, 5);	/* samples seen stay counted, as perf's */
	/* and their addresses, once no row or node points at them (top on a busy machine) */
	assert_int_equal(tally__hist_resolver(h)->live, 0);
	assert_int_equal(tally_hist__decay(NULL), -EINVAL);
	tally_hist__free(h);
	tally_session__close(ss);
}

/*
 * Samples that come after a decay join the aged rows unaged; a shape
 * forgotten at zero comes back as a new one.
 */
static void test_decay_then_samples(void **state)
{
	static const struct spec v[] = {
		{ 100, 10, 3, { A, B, C } }, { 100, 10, 3, { A, B, C } }, { 100, 10, 3, { A, B, C } },
		{ 100, 10, 3, { A, B, C } }, { 100, 5, 2, { B, C } },
	};
	static const char *const once[] = { "alpha:1000 36 0 3", "alpha:2000 5 0 1" };
	static const char *const gone[] = { "alpha:1000 10 0 1", "alpha:2000 5 0 1" };
	TALLY_OPTS(tally_hist_totals, t);
	struct run r = { .at = 3, .decays = 1 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of_v(v, 5, NULL, &ss, &r);

	(void)state;
	expect_rows(h, once, 2);	/* 30 aged to 26, then 10 more; 3 samples aged to 2, then 1 */
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	assert_int_equal(t.period, 41);
	tally_hist__free(h);
	tally_session__close(ss);
	r = (struct run){ .at = 3, .decays = 40 };
	h = hist_of_v(v, 5, NULL, &ss, &r);
	expect_rows(h, gone, 2);
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	assert_int_equal(t.period, 15);
	assert_int_equal(t.shapes, 2);
	tally_hist__free(h);
	tally_session__close(ss);
}

static void test_stacks_view(void **state)
{
	TALLY_OPTS(tally_hist_opts, o, .chains = true, .timeline = true);
	struct tally_stacks_info info;
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(&o, &ss, &r);
	struct tally_stacks *st = tally_stacks__from_hist(h, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(st);
	assert_int_equal(tally_stacks__samples(st), 5);
	assert_int_equal(tally_stacks__info(st, &info), 0);
	assert_string_equal(info.unit, "nanoseconds");	/* cpu-clock */
	assert_int_equal(info.period, 10);
	assert_int_equal(info.duration_ns, 4);
	assert_int_equal(tally_stacks__write_folded(st, m), 0);
	fclose(m);
	/* one line per (thread, stack), root first; no map: perf script's [unknown] */
	assert_string_equal(buf, "alpha;[unknown];[unknown] 1\n"
				 "alpha;[unknown];[unknown];[unknown] 3\n"
				 "beta;[unknown];[unknown] 1\n");
	free(buf);
	tally_stacks__free(st);
	assert_null(tally_stacks__from_hist(h, 7));
	assert_int_equal(errno, EINVAL);
	tally_hist__free(h);
	tally_session__close(ss);
}

/* A file whose one map (path) the header gives build id byte b, samples in it. */
static char *write_mapped(const char *path, uint8_t b)
{
	static char fpath[] = "/tmp/test_hist.XXXXXX";
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = 10, .sample_type = SAMPLE_TYPE, .sample_id_all = 1,
	};
	struct {
		struct perf_event_header h;
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		char name[32];
		uint32_t id_pid, id_tid;
		uint64_t time;
		uint32_t cpu, res;
	} m = { { PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, sizeof(m) }, 100, 100, 0x400000,
		0x100000, 0, "", 100, 100, 1, 0, 0 };
	const struct spec sp = { 100, 10, 2, { 0x401000, 0x402000 } };
	uint8_t id[20];
	struct tally_data_writer *w;
	int fd;

	memset(id, b, sizeof(id));
	strncpy(m.name, path, sizeof(m.name) - 1);
	strcpy(fpath, "/tmp/test_hist.XXXXXX");
	w = hf_begin(fpath, &a, &fd);
	hf_comm(w, 100, "alpha", 1, true);
	hf_put(w, &m);
	sample(w, &sp, 10);
	assert_int_equal(tally_data_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, id,
							 sizeof(id), path), 0);
	hf_end(w, fd);
	return fpath;
}

/*
 * The stacks view names each frame's file by the build id its recording
 * noted: two recordings of one path, one after the other, each their own
 * (a one-entry cache kept in statics, keyed by reader and path pointers,
 * gave the second file the first one's id when both came back alike).
 */
static void test_stacks_build_ids(void **state)
{
	TALLY_OPTS(tally_hist_opts, o, .chains = true);
	static const char *const want[] = { "1111111111111111111111111111111111111111",
					    "2222222222222222222222222222222222222222" };

	(void)state;
	for (int k = 0; k < 2; k++) {
		char *path = write_mapped("/nonexistent/libx.so", k ? 0x22 : 0x11);
		struct run r = { 0 };
		TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &r);
		struct tally_session *ss = tally_session__open(path, &so);
		struct tally_stacks *st;
		size_t seen = 0;

		assert_non_null(ss);
		r.h = tally_hist__new(ss, &o);
		assert_non_null(r.h);
		assert_int_equal(tally_session__run(ss), 0);
		unlink(path);
		assert_int_equal(tally_hist__resort(r.h), 0);
		st = tally_stacks__from_hist(r.h, 0);
		assert_non_null(st);
		for (size_t i = 0; i < st->nframes; i++)
			if (st->frames[i].dso && !strcmp(st->frames[i].dso, "/nonexistent/libx.so")) {
				assert_non_null(st->frames[i].build_id);
				assert_string_equal(st->frames[i].build_id, want[k]);
				seen++;
			}
		assert_int_equal(seen, 2);
		tally_stacks__free(st);
		tally_hist__free(r.h);
		tally_session__close(ss);
	}
}

static int count_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	++*(int *)ctx;
	return 0;
}

/*
 * tally_hist__run: the histogram of a file in one call, the rows as a
 * callback adding each sample makes them; the session's own callback
 * still gets every sample.
 */
static void test_run(void **state)
{
	static const char *const want[] = {
		"alpha:2000 5 35 1", "alpha:3000 0 35 0", "alpha:1000 30 30 3",
		"beta:1000 7 7 1", "beta:4000 0 7 0",
	};
	TALLY_OPTS(tally_hist_opts, o, .children = true, .order = TALLY_HIST_CALLER);
	char *path = write_file(base, sizeof(base) / sizeof(base[0]));
	int mine = 0;
	TALLY_OPTS(tally_session_opts, so, .sample = count_sample, .ctx = &mine);
	struct tally_session *ss = tally_session__open(path, &so);
	struct tally_hist *h;

	(void)state;
	unlink(path);
	assert_non_null(ss);
	h = tally_hist__new(ss, &o);
	assert_non_null(h);
	assert_int_equal(tally_hist__run(h), 0);
	expect_rows(h, want, 5);
	assert_int_equal(mine, 5);
	/* once: the session does not run again, the rows stay */
	assert_int_equal(tally_hist__run(h), -EALREADY);
	expect_rows(h, want, 5);
	assert_int_equal(mine, 5);
	assert_int_equal(tally_hist__run(NULL), -EINVAL);
	tally_hist__free(h);
	tally_session__close(ss);
}

static void test_bad_input(void **state)
{
	static const enum tally_hist_key bad_key[] = { TALLY_HIST_KEY__NR };
	TALLY_OPTS(tally_hist_opts, o, .keys = bad_key, .nr_keys = 1);
	TALLY_OPTS(tally_hist_row, v);
	struct run r = { 0 };
	struct tally_session *ss;
	struct tally_hist *h = hist_of(NULL, &ss, &r);

	(void)state;
	errno = 0;
	assert_null(tally_hist__new(NULL, NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(tally_hist__new(ss, &o));
	assert_int_equal(errno, EINVAL);
	/* the order values the keys are numbered around are no keys */
	for (int k = TALLY_HIST_BY_SELF; k <= TALLY_HIST_BY_SAMPLES; k++) {
		enum tally_hist_key ok = TALLY_HIST_SYM, order_val = (enum tally_hist_key)k;
		TALLY_OPTS(tally_hist_opts, ko, .keys = &order_val, .nr_keys = 1);
		TALLY_OPTS(tally_hist_opts, kk, .keys = &ok, .nr_keys = 1);
		struct tally_hist *hk;

		errno = 0;
		assert_null(tally_hist__new(ss, &ko));
		assert_int_equal(errno, EINVAL);
		assert_non_null(hk = tally_hist__new(ss, &kk));
		tally_hist__free(hk);
	}
	/* a key past them is one */
	{
		enum tally_hist_key past = TALLY_HIST_TRANSACTION;
		TALLY_OPTS(tally_hist_opts, kp, .keys = &past, .nr_keys = 1);
		struct tally_hist *hp;

		assert_true((int)TALLY_HIST_TRANSACTION > (int)TALLY_HIST_BY_SAMPLES);
		assert_non_null(hp = tally_hist__new(ss, &kp));
		tally_hist__free(hp);
	}
	assert_int_equal(tally_hist__row(h, 0, 3, &v), -EINVAL);
	assert_int_equal(tally_hist__row(h, 1, 0, &v), -EINVAL);
	assert_int_equal(tally_hist__add(h, NULL), -EINVAL);
	/* no chain kept (self rows only): no tree to build */
	assert_int_equal(tally_hist__set_graph(h, true, TALLY_HIST_CALLER, false), -EINVAL);
	assert_int_equal(tally_hist__nr_rows(h, -1), 0);
	tally_hist__free(h);
	tally_hist__free(NULL);
	tally_session__close(ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes_merge),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_orders),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_incremental),
		cmocka_unit_test(test_resort_each),
		cmocka_unit_test(test_graph),
		cmocka_unit_test(test_graph_min),
		cmocka_unit_test(test_wide_tree),
		cmocka_unit_test(test_decay),
		cmocka_unit_test(test_decay_keeps_shapes_wheres),
		cmocka_unit_test(test_decay_wide_tree),
		cmocka_unit_test(test_decay_then_samples),
		cmocka_unit_test(test_stacks_view),
		cmocka_unit_test(test_stacks_build_ids),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
