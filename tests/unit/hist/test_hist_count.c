// SPDX-License-Identifier: MIT
/*
 * tally_hist__add_count: one sample standing for count samples of its
 * shape (a store's aggregated row) counts as those samples would. Two
 * files: one with each shape k times (each of period p), one with it
 * once (period k*p) added with count k; their rows, totals and trees
 * must be equal, with children and graphs and without.
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
#include "hist_file.h"

enum { A = 0x1000, B = 0x2000, C = 0x3000, D = 0x4000 };

/* a shape: its thread, chain leaf first, each sample's period, how many */
struct spec {
	uint32_t pid;
	uint64_t period;
	uint64_t count;
	int nr;
	uint64_t ips[4];
};

static const struct spec shapes[] = {
	{ 100, 10, 3, 3, { A, B, C } },
	{ 100, 5, 1, 2, { B, C } },
	{ 200, 7, 4, 2, { A, D } },
	{ 200, 2, 2, 3, { C, B, A } },
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* one sample of s, of period; its count in WEIGHT, after the chain (the add_count run reads it) */
static void sample(struct tally_data_writer *w, const struct spec *s, uint64_t period,
		   uint64_t count, uint64_t time)
{
	uint64_t r[16];
	size_t n = 1;

	r[n++] = s->ips[0];
	r[n++] = (uint64_t)s->pid << 32 | s->pid;	/* pid, tid */
	r[n++] = time;
	r[n++] = period;
	r[n++] = (uint64_t)s->nr + 1;
	r[n++] = PERF_CONTEXT_USER;
	for (int i = 0; i < s->nr; i++)
		r[n++] = s->ips[i];
	r[n++] = count;
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				       (uint16_t)(n * sizeof(uint64_t)) };

	memcpy(r, &h, sizeof(h));
	hf_put(w, r);
}

/* the shapes into a fresh file: each k times, or once with its count (aggregated) */
static char *write_file(bool aggregated)
{
	static char path[64];
	struct perf_event_attr a = hf_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					   PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_CALLCHAIN);
	uint64_t t = 100;
	struct tally_data_writer *w;
	int fd;

	strcpy(path, "/tmp/test_hist_count.XXXXXX");
	w = hf_begin(path, &a, &fd);
	hf_comm(w, 100, "alpha", 1, false);
	hf_comm(w, 200, "beta", 1, false);
	/* interleaved as a live run would be: each shape's samples apart */
	for (uint64_t k = 0; k < 4; k++)
		for (size_t i = 0; i < NSHAPES; i++) {
			const struct spec *s = &shapes[i];

			if (aggregated && !k)
				sample(w, s, s->period * s->count, s->count, t++);
			else if (!aggregated && k < s->count)
				sample(w, s, s->period, 1, t++);
		}
	hf_end(w, fd);
	return path;
}

static int on_sample(struct tally_session *ss, const struct tally_session_sample *smp, void *ctx)
{
	struct tally_hist *h = *(struct tally_hist **)ctx;

	return smp->sample->weight > 1 ? tally_hist__add_count(h, smp, smp->sample->weight) :
					 tally_hist__add(h, smp);
}

/* the tree under n as text, depth first */
static void tree_text(const struct tally_hist_node *n, int depth, FILE *out)
{
	TALLY_OPTS(tally_hist_node_info, in);

	assert_int_equal(tally_hist_node__info(n, &in), 0);
	fprintf(out, "%*s%llx %llu/%llu %llu/%llu\n", depth, "",
		(unsigned long long)in.frame.ip, (unsigned long long)in.self,
		(unsigned long long)in.self_samples, (unsigned long long)in.below,
		(unsigned long long)in.below_samples);
	for (const struct tally_hist_node *c = tally_hist_node__child(n); c;
	     c = tally_hist_node__next(c))
		tree_text(c, depth + 1, out);
}

/* The histogram of one file as text: totals, then each row and its tree. */
static char *hist_text(bool aggregated, const struct tally_hist_opts *o)
{
	char *path = write_file(aggregated), *text = NULL;
	size_t len = 0;
	struct tally_hist *h = NULL;
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &h);
	TALLY_OPTS(tally_hist_totals, t);
	struct tally_session *ss = tally_session__open(path, &so);
	FILE *out = open_memstream(&text, &len);

	assert_non_null(ss);
	assert_non_null(out);
	h = tally_hist__new(ss, o);
	assert_non_null(h);
	assert_int_equal(tally_session__run(ss), 0);
	unlink(path);
	assert_int_equal(tally_hist__resort(h), 0);
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	fprintf(out, "samples %llu period %llu shapes %llu\n", (unsigned long long)t.samples,
		(unsigned long long)t.period, (unsigned long long)t.shapes);
	for (size_t i = 0; i < tally_hist__nr_rows(h, 0); i++) {
		TALLY_OPTS(tally_hist_row, v);

		assert_int_equal(tally_hist__row(h, 0, i, &v), 0);
		fprintf(out, "%s:%llx self %llu children %llu samples %llu\n", v.comm,
			(unsigned long long)v.addr, (unsigned long long)v.self,
			(unsigned long long)v.children, (unsigned long long)v.samples);
		if (v.graph)
			tree_text(v.graph, 1, out);
	}
	fclose(out);
	tally_hist__free(h);
	tally_session__close(ss);
	return text;
}

static void expect_same(const struct tally_hist_opts *o)
{
	char *each = hist_text(false, o), *counted = hist_text(true, o);

	/* the whole sums: 30+5+28+4 of period, 3+1+4+2 samples */
	assert_non_null(strstr(each, "samples 10 period 67 shapes 4\n"));
	assert_string_equal(counted, each);
	free(each);
	free(counted);
}

static void test_self_rows(void **state)
{
	(void)state;
	expect_same(NULL);
}

static void test_children_graphs(void **state)
{
	TALLY_OPTS(tally_hist_opts, o, .children = true, .graph = true, .order = TALLY_HIST_CALLER);

	(void)state;
	expect_same(&o);
}

static void test_self_graphs_callee(void **state)
{
	TALLY_OPTS(tally_hist_opts, o, .graph = true, .order = TALLY_HIST_CALLEE);

	(void)state;
	expect_same(&o);
}

/*
 * Past the shape table's first sizes (8192 slots, then twice as many each
 * time it is half full): 10,000 shapes, each sampled once, then each once
 * more. Every second sample finds its shape after the table grew: 10,000
 * shapes of 2 samples each, no shape made twice.
 */
static void test_many_shapes(void **state)
{
	struct perf_event_attr a = hf_attr(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
					   PERF_SAMPLE_PERIOD | PERF_SAMPLE_WEIGHT |
					   PERF_SAMPLE_CALLCHAIN);
	char path[] = "/tmp/test_hist_count.many.XXXXXX";
	struct tally_hist *h = NULL;
	TALLY_OPTS(tally_session_opts, so, .sample = on_sample, .ctx = &h);
	TALLY_OPTS(tally_hist_totals, t);
	struct tally_data_writer *w;
	struct tally_session *ss;
	uint64_t time = 100;
	int fd;

	(void)state;
	w = hf_begin(path, &a, &fd);
	hf_comm(w, 100, "alpha", 1, false);
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t i = 0; i < 10000; i++) {
			struct spec sp = { 100, 1, 1, 2, { A + i * 16, B + (i % 7) * 16 } };

			sample(w, &sp, 1, 1, time++);
		}
	hf_end(w, fd);
	ss = tally_session__open(path, &so);
	assert_non_null(ss);
	h = tally_hist__new(ss, NULL);
	assert_non_null(h);
	assert_int_equal(tally_session__run(ss), 0);
	unlink(path);
	assert_int_equal(tally_hist__totals(h, 0, &t), 0);
	assert_int_equal(t.samples, 20000);
	assert_int_equal(t.shapes, 10000);
	tally_hist__free(h);
	tally_session__close(ss);
}

static void test_count_zero(void **state)
{
	struct tally_hist *h = NULL;

	(void)state;
	assert_int_equal(tally_hist__add_count(h, NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_rows),
		cmocka_unit_test(test_children_graphs),
		cmocka_unit_test(test_self_graphs_callee),
		cmocka_unit_test(test_many_shapes),
		cmocka_unit_test(test_count_zero),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
