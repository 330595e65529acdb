// SPDX-License-Identifier: MIT
/* Multiplex scaling, states and the read() buffer parser, with synthetic values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <tally/counts.h>
#include "evsel_internal.h"

static void test_exact(void **state)
{
	struct tally_counts c = { .val = 12345, .ena = 1000, .run = 1000 };
	struct tally_scaled s;

	tally_counts__scale(&c, &s);
	assert_int_equal(s.state, TALLY_COUNT_COUNTED);
	assert_int_equal(s.val, 12345);
	assert_int_equal(s.raw, 12345);
	assert_true(s.running == 1.0);
}

static void test_run_slightly_above_ena(void **state)
{
	/* The kernel reads the two clocks at different instants. */
	struct tally_counts c = { .val = 7, .ena = 1000, .run = 1003 };
	struct tally_scaled s;

	tally_counts__scale(&c, &s);
	assert_int_equal(s.state, TALLY_COUNT_COUNTED);
	assert_int_equal(s.val, 7);
}

static void test_scaled(void **state)
{
	struct tally_counts c = { .val = 1000, .ena = 300, .run = 100 };
	struct tally_scaled s;

	tally_counts__scale(&c, &s);
	assert_int_equal(s.state, TALLY_COUNT_SCALED);
	assert_int_equal(s.val, 3000);
	assert_int_equal(s.raw, 1000);
	assert_true(s.running > 0.3333 && s.running < 0.3334);
}

static void test_scaled_no_overflow(void **state)
{
	/* val * ena overflows 64 bits; the result does not. */
	struct tally_counts c = { .val = 1ull << 62, .ena = 3ull << 40, .run = 1ull << 41 };
	struct tally_scaled s;

	tally_counts__scale(&c, &s);
	assert_int_equal(s.state, TALLY_COUNT_SCALED);
	assert_true(s.val == (1ull << 62) + (1ull << 61));
}

static void test_scaled_saturates(void **state)
{
	struct tally_counts c = { .val = UINT64_MAX / 2, .ena = 1000, .run = 1 };
	struct tally_scaled s;

	tally_counts__scale(&c, &s);
	assert_int_equal(s.state, TALLY_COUNT_SCALED);
	assert_true(s.val == UINT64_MAX);
}

static void test_not_counted(void **state)
{
	struct tally_counts c = { .val = 55, .ena = 1000, .run = 0 };
	struct tally_scaled s;

	tally_counts__scale(&c, &s);
	assert_int_equal(s.state, TALLY_COUNT_NOT_COUNTED);
	assert_int_equal(s.val, 0);
	c.ena = 0;
	tally_counts__scale(&c, &s);
	assert_int_equal(s.state, TALLY_COUNT_NOT_COUNTED);
}

static void test_sub_add(void **state)
{
	struct tally_counts a = { .val = 10, .ena = 100, .run = 50, .id = 9 };
	struct tally_counts b = { .val = 4, .ena = 40, .run = 60 };
	struct tally_counts d, sum = { 0 };

	tally_counts__sub(&d, &a, &b);
	assert_int_equal(d.val, 6);
	assert_int_equal(d.ena, 60);
	assert_int_equal(d.run, 0);	/* clamped, not wrapped */
	assert_int_equal(d.id, 9);
	tally_counts__sub(&d, &b, &a);
	assert_int_equal(d.val, 0);
	tally_counts__add(&sum, &a);
	tally_counts__add(&sum, &b);
	assert_int_equal(sum.val, 14);
	assert_int_equal(sum.ena, 140);
	sum.val = UINT64_MAX - 1;
	tally_counts__add(&sum, &a);
	assert_true(sum.val == UINT64_MAX);
}

static void test_state_str(void **state)
{
	assert_string_equal(tally_count_state__str(TALLY_COUNT_NOT_SUPPORTED), "<not supported>");
	assert_string_equal(tally_count_state__str(TALLY_COUNT_NOT_COUNTED), "<not counted>");
	assert_string_equal(tally_count_state__str(TALLY_COUNT_COUNTED), "counted");
	assert_string_equal(tally_count_state__str(TALLY_COUNT_SCALED), "scaled");
}

struct got {
	struct tally_counts c[8];
	int n;
};

static void land(void *ctx, int i, const struct tally_counts *c)
{
	struct got *g = ctx;

	assert_int_equal(i, g->n);
	g->c[g->n++] = *c;
}

static void test_parse_single(void **state)
{
	uint64_t buf[] = { 42, 1000, 900, 77 };
	uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
		      PERF_FORMAT_ID;
	struct got g = { 0 };

	assert_int_equal(tally__parse_read(buf, sizeof(buf), rf, land, &g), 1);
	assert_int_equal(g.c[0].val, 42);
	assert_int_equal(g.c[0].ena, 1000);
	assert_int_equal(g.c[0].run, 900);
	assert_int_equal(g.c[0].id, 77);
	/* One word short. */
	assert_int_equal(tally__parse_read(buf, sizeof(buf) - 8, rf, land, &g), -EINVAL);
	/* Not a whole number of words. */
	assert_int_equal(tally__parse_read(buf, 5, rf, NULL, NULL), -EINVAL);
}

static void test_parse_group(void **state)
{
	uint64_t rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
		      PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST;
	uint64_t buf[] = { 3, 500, 250, 10, 101, 0, 20, 102, 1, 30, 103, 2 };
	struct got g = { 0 };

	assert_int_equal(tally__parse_read(buf, sizeof(buf), rf, land, &g), 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(g.c[i].val, 10 * (i + 1));
		assert_int_equal(g.c[i].id, 101 + i);
		assert_int_equal(g.c[i].lost, i);
		/* Every member shares the group's times. */
		assert_int_equal(g.c[i].ena, 500);
		assert_int_equal(g.c[i].run, 250);
	}
	/* nr larger than the buffer: rejected, not read past the end. */
	buf[0] = 1000;
	g.n = 0;
	assert_int_equal(tally__parse_read(buf, sizeof(buf), rf, land, &g), -EINVAL);
	buf[0] = 4;
	g.n = 0;
	assert_int_equal(tally__parse_read(buf, sizeof(buf), rf, land, &g), -EINVAL);
	assert_int_equal(g.n, 0);	/* nothing landed from a short buffer */
}

static void land_count(void *ctx, int i, const struct tally_counts *c)
{
	(*(int *)ctx)++;
}

/*
 * The read parser on random buffers and formats (a kernel read is
 * trusted, but the parser is also fed recorded data later): never reads
 * past len (ASan), never lands more entries than fit.
 */
static void test_parse_random(void **state)
{
	unsigned int seed = 777;

	for (int iter = 0; iter < 20000; iter++) {
		size_t words = (size_t)(rand_r(&seed) % 12);
		uint64_t *buf = malloc(words ? words * 8 : 8);
		uint64_t rf = (uint64_t)(rand_r(&seed) % 32);
		int landed = 0, n;

		assert_non_null(buf);
		for (size_t i = 0; i < words; i++)
			buf[i] = (uint64_t)(rand_r(&seed) % 8);
		n = tally__parse_read(buf, words * 8, rf, land_count, &landed);
		if (n >= 0) {
			assert_int_equal(n, landed);
			assert_true((size_t)n <= words);
		}
		free(buf);
	}
}

/*
 * Regression: the parser returns the entry count as an int; a group read
 * whose nr does not fit one (a buffer of 2^31 words, 16 GiB: recorded
 * data, not a kernel read) came back as a negative count that callers
 * took for an error code, or worse. It is rejected up front now (the
 * memory is a read-only reservation of zero pages: nothing is touched).
 */
static void test_parse_nr_past_int(void **state)
{
	size_t words = ((size_t)1 << 31) + 1, len = words * sizeof(uint64_t);
	uint64_t head[1] = { (uint64_t)1 << 31 };
	void *p;

	if (sizeof(size_t) < 8)
		skip();
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED)
		skip();	/* no 16 GiB of address space here */
	memcpy(p, head, sizeof(head));
	assert_int_equal(mprotect(p, len, PROT_READ), 0);
	/* nr = 2^31 entries of one word each, after the nr word: they fit. */
	assert_int_equal(tally__parse_read(p, len, PERF_FORMAT_GROUP, NULL, NULL), -EINVAL);
	/* The same layout with a sane nr still parses. */
	head[0] = 3;
	assert_int_equal(mprotect(p, 4096, PROT_READ | PROT_WRITE), 0);
	memcpy(p, head, sizeof(head));
	assert_int_equal(tally__parse_read(p, len, PERF_FORMAT_GROUP, NULL, NULL), 3);
	munmap(p, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_run_slightly_above_ena),
		cmocka_unit_test(test_scaled),
		cmocka_unit_test(test_scaled_no_overflow),
		cmocka_unit_test(test_scaled_saturates),
		cmocka_unit_test(test_not_counted),
		cmocka_unit_test(test_sub_add),
		cmocka_unit_test(test_state_str),
		cmocka_unit_test(test_parse_single),
		cmocka_unit_test(test_parse_group),
		cmocka_unit_test(test_parse_random),
		cmocka_unit_test(test_parse_nr_past_int),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
