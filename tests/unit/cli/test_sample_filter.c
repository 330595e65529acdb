// SPDX-License-Identifier: MIT
/*
 * --time's ranges (sample_filter.h) as perf 6.1's time-utils reads them:
 * seconds to the nanosecond, open ends, several ranges in order, the
 * percent forms over a recording's span (a slice ends 1 ns short unless
 * at the last sample), and the strings perf refuses; which times a set
 * of ranges keeps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "sample_filter.h"

#define S 1000000000ull

static int parse(const char *s, uint64_t first, uint64_t last, struct cli_time_range **tr)
{
	char why[256];
	int n = -1;

	if (cli_time_ranges_parse(s, first, last, tr, &n, why, sizeof(why)))
		return -1;
	return n;
}

static void test_seconds(void **state)
{
	struct cli_time_range *tr;

	(void)state;
	assert_int_equal(parse("12.5,13", 0, 0, &tr), 1);
	assert_int_equal(tr[0].start, 12 * S + 500000000ull);
	assert_int_equal(tr[0].end, 13 * S);
	free(tr);
	/* nine digits at most: the nanosecond */
	assert_int_equal(parse("1.000000001,", 0, 0, &tr), 1);
	assert_int_equal(tr[0].start, S + 1);
	assert_int_equal(tr[0].end, 0);
	free(tr);
	assert_int_equal(parse(",7", 0, 0, &tr), 1);
	assert_int_equal(tr[0].start, 0);
	assert_int_equal(tr[0].end, 7 * S);
	free(tr);
	/* several: separated by blanks, in order */
	assert_int_equal(parse("1,2  3,4", 0, 0, &tr), 2);
	assert_int_equal(tr[1].start, 3 * S);
	assert_int_equal(tr[1].end, 4 * S);
	free(tr);
	/* what perf refuses */
	assert_int_equal(parse("12", 0, 0, &tr), -1);		/* no comma */
	assert_int_equal(parse("2,1", 0, 0, &tr), -1);		/* stop before start */
	assert_int_equal(parse("1.0000000001,", 0, 0, &tr), -1);	/* ten digits */
	assert_int_equal(parse("3,4 1,2", 0, 0, &tr), -1);	/* out of order */
	assert_int_equal(parse("1,2,3", 0, 0, &tr), -1);	/* a stop with a comma */
	assert_int_equal(parse("x,2", 0, 0, &tr), -1);
}

static void test_percents(void **state)
{
	uint64_t first = 100 * S, last = 110 * S;	/* a 10 s span */
	struct cli_time_range *tr;

	(void)state;
	/* the second tenth: [101 s, 102 s - 1 ns] */
	assert_int_equal(parse("10%/2", first, last, &tr), 1);
	assert_int_equal(tr[0].start, 101 * S);
	assert_int_equal(tr[0].end, 102 * S - 1);
	free(tr);
	/* the last slice ends on the last sample itself */
	assert_int_equal(parse("50%/2", first, last, &tr), 1);
	assert_int_equal(tr[0].end, last);
	free(tr);
	assert_int_equal(parse("0%-10%,30%-40%", first, last, &tr), 2);
	assert_int_equal(tr[0].start, first);
	assert_int_equal(tr[1].start, 103 * S);
	assert_int_equal(tr[1].end, 104 * S - 1);
	free(tr);
	assert_int_equal(parse("25%", first, last, &tr), 1);
	assert_int_equal(tr[0].start, first);
	assert_int_equal(tr[0].end, 102 * S + 500000000ull - 1);
	free(tr);
	assert_int_equal(parse("10%/0", first, last, &tr), -1);	/* before the span */
	assert_int_equal(parse("101%", first, last, &tr), -1);
	assert_int_equal(parse("5%x", first, last, &tr), -1);	/* '%' not last */
	assert_int_equal(parse("0%/1", first, last, &tr), -1);
	/* no span known (no SAMPLE_TIME header) */
	assert_int_equal(parse("10%/1", 0, 0, &tr), -1);
}

static void test_skip(void **state)
{
	struct cli_time_range one = { 10, 20 }, open_end = { 10, 0 };
	struct cli_time_range two[2] = { { 10, 20 }, { 30, 0 } };

	(void)state;
	assert_false(cli_time_ranges_skip(&one, 1, 10));
	assert_false(cli_time_ranges_skip(&one, 1, 20));
	assert_true(cli_time_ranges_skip(&one, 1, 9));
	assert_true(cli_time_ranges_skip(&one, 1, 21));
	assert_false(cli_time_ranges_skip(&one, 1, 0));	/* untimed: kept */
	assert_false(cli_time_ranges_skip(&open_end, 1, 1000));
	assert_false(cli_time_ranges_skip(two, 2, 15));
	assert_true(cli_time_ranges_skip(two, 2, 25));
	assert_false(cli_time_ranges_skip(two, 2, 1000));
	assert_false(cli_time_ranges_skip(NULL, 0, 5));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_percents),
		cmocka_unit_test(test_skip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
