// SPDX-License-Identifier: MIT
/*
 * tally__fmt_fixed and tally__fmt_u64 against snprintf, byte for byte:
 * the shares and coordinates pictures compute, every exact binary tie of
 * a tenth or hundredth and its neighbours (glibc rounds those half to
 * even), the 0 and 100 edges, and what falls back to printf.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "fmt.h"

static void check(double v, int prec)
{
	char want[512], got[512];
	int nw = snprintf(want, sizeof(want), "%.*f", prec, v);
	int ng = tally__fmt_fixed(got, sizeof(got), v, prec);

	if (strcmp(want, got) || nw != ng)
		fail_msg("%.17g %%.%df: printf \"%s\" (%d), ours \"%s\" (%d)", v, prec, want, nw, got, ng);
}

static void test_shares(void **state)
{
	(void)state;
	for (int p = 1; p <= 2; p++) {
		for (uint64_t b = 1; b <= 1500; b++)
			for (uint64_t a = 0; a <= b; a++) {
				check(100.0 * (double)a / (double)b, p);
				check(10.0 + 1180.0 * (double)a / (double)b, p);	/* an SVG's x */
			}
		srand(19);
		for (int i = 0; i < 200000; i++) {
			uint64_t b = ((uint64_t)rand() << 20 ^ (uint64_t)rand()) + 1, a = (uint64_t)rand() % (b + 1);

			check(100.0 * (double)a / (double)b, p);
			check((double)rand() / RAND_MAX * 9999.0, p);
		}
	}
}

static void test_ties_and_edges(void **state)
{
	static const double v[] = {
		0.0, 100.0, 99.995, 99.95, 0.05, 0.25, 0.35, 0.005, 0.015, 0.125, 2.675, 1.45, 1.55,
		9999.94, 9999.96, 9999.95, 1e4, 12345.678, 1e300, -0.0, -1.5, -0.04, 5e-324,
		INFINITY, -INFINITY, NAN,
	};

	(void)state;
	for (int p = 1; p <= 2; p++) {
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
			check(v[i], p);
		for (int k = 0; k < 400000; k++) {
			double t = k / (p == 1 ? 40.0 : 400.0);

			check(t, p);
			check(nextafter(t, 0), p);
			check(nextafter(t, 1e9), p);
		}
	}
	/* other precisions are printf's */
	char b[64];

	assert_int_equal(tally__fmt_fixed(b, sizeof(b), 1.23456, 3), 5);
	assert_string_equal(b, "1.235");
}

static void test_u64(void **state)
{
	static const uint64_t v[] = { 0, 1, 9, 10, 99, 100, 1234567890, UINT64_MAX - 1, UINT64_MAX };
	char want[32], got[32];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(want, sizeof(want), "%llu", (unsigned long long)v[i]);
		assert_int_equal(tally__fmt_u64(got, sizeof(got), v[i]), (int)strlen(want));
		assert_string_equal(got, want);
	}
	/* every count of digits, both parities, and the powers of ten's edges */
	for (uint64_t p = 1, k = 0; k < 20; k++, p *= 10)
		for (uint64_t d = 0; d < 3; d++) {
			uint64_t x = p - 1 + d;

			snprintf(want, sizeof(want), "%llu", (unsigned long long)x);
			assert_int_equal(tally__fmt_u64(got, sizeof(got), x), (int)strlen(want));
			assert_string_equal(got, want);
		}
	for (uint64_t x = 0; x < 100000; x += 7) {
		snprintf(want, sizeof(want), "%llu", (unsigned long long)x);
		tally__fmt_u64(got, sizeof(got), x);
		assert_string_equal(got, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_ties_and_edges),
		cmocka_unit_test(test_u64),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
