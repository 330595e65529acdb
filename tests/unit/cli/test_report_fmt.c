// SPDX-License-Identifier: MIT
/*
 * report's cells without printf (report_fmt.h, and the shares through
 * tally_hist__fmt_pct): each must write what its
 * printf format writes, byte for byte, over the shares a report computes
 * (every a/b of small totals), the ties glibc rounds half to even, the
 * 0.00 and 100.00 edges, and what falls back to printf.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/hist.h>
#include "report_fmt.h"

static void check_2f(double v)
{
	char want[512], got[512];
	int nw = snprintf(want, sizeof(want), "%.2f", v);
	int ng = tally_hist__fmt_pct(got, sizeof(got), v);

	if (strcmp(want, got) || nw != ng)
		fail_msg("%.17g: printf \"%s\" (%d), tally_hist__fmt_pct \"%s\" (%d)", v, want, nw, got, ng);
}

static void test_shares(void **state)
{
	(void)state;
	/* what report computes: 100.0 * a / b and a * 100.0 / b */
	for (uint64_t b = 1; b <= 2000; b++)
		for (uint64_t a = 0; a <= b; a++) {
			check_2f(100.0 * (double)a / (double)b);
			check_2f((double)a * 100.0 / (double)b);
		}
	/* periods of real files: large totals */
	srand(19);
	for (int i = 0; i < 200000; i++) {
		uint64_t b = ((uint64_t)rand() << 20 ^ (uint64_t)rand()) + 1, a = (uint64_t)rand() % (b + 1);

		check_2f(100.0 * (double)a / (double)b);
	}
}

static void test_ties_and_edges(void **state)
{
	static const double v[] = {
		0.0, 100.0, 99.995, 99.994999999999, 99.99500000001, 0.005, 0.015, 0.025, 0.125, 0.375,
		1.005, 2.675, 12.345, 50.5, 0.0049999999, 0.00500000001, 9999.994, 9999.996, 1e4,
		12345.678, 1e300, -0.0, -1.5, -0.001, 5e-324, 1e-300, 0.994999999999, 9.995, 10.0,
		INFINITY, -INFINITY, NAN,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check_2f(v[i]);
	/* every exact binary tie of k/8 hundredths, and a neighbour each side */
	for (int k = 0; k < 800000; k++) {
		double t = k / 800.0;

		check_2f(t);
		check_2f(nextafter(t, 0));
		check_2f(nextafter(t, 1e9));
	}
}

static void test_put(void **state)
{
	static const double v[] = { 0.0, 3.14159, 100.0, 12345.678, -2.5, 0.125, 1e300 };
	static const int w[] = { 0, 1, 6, 7, 12 };
	char *a = NULL, *b = NULL, *c = NULL;
	size_t na = 0, nb = 0, nc = 0;
	FILE *fa = open_memstream(&a, &na), *fb = open_memstream(&b, &nb),
	     *fc = open_memstream(&c, &nc);
	struct line ln = { .fp = fb };
	char big[5000];

	(void)state;
	assert_non_null(fa);
	assert_non_null(fb);
	assert_non_null(fc);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (size_t j = 0; j < sizeof(w) / sizeof(w[0]); j++) {
			fprintf(fa, "[%*.2f%%]", w[j], v[i]);
			line_putc(&ln, '[');
			line_pct(&ln, v[i], w[j]);
			line_putc(&ln, ']');
			fputc('[', fc);
			put_pct(fc, v[i], w[j]);
			fputc(']', fc);
			fprintf(fa, "[%-*s]", w[j], "sym");
			fprintf(fc, "[%-*s]", w[j], "sym");
			line_putc(&ln, '[');
			line_left(&ln, "symbol", 3, w[j]);
			line_putc(&ln, ']');
		}
	/* more than the line holds: written as it fills, in order */
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fprintf(fa, "%-6000s|", big);
	fprintf(fc, "%-6000s|", big);
	line_left(&ln, big, strlen(big), 6000);
	line_putc(&ln, '|');
	line_flush(&ln);
	fclose(fa);
	fclose(fb);
	fclose(fc);
	assert_string_equal(a, b);
	assert_string_equal(a, c);
	free(a);
	free(b);
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_ties_and_edges),
		cmocka_unit_test(test_put),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
