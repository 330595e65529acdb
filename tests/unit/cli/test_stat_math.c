// SPDX-License-Identifier: MIT
/*
 * tally stat's statistics: Welford mean/variance, perf's "+- x%" (standard
 * error of the mean), Student t quantiles against published table values,
 * and the delta-method confidence interval of a ratio of means (--compare).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <cmocka.h>
#include "stat.h"

static void add_all(struct stat_acc *a, const double *v, int n)
{
	for (int i = 0; i < n; i++)
		stat_acc_add(a, v[i]);
}

static void test_welford(void **state)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct stat_acc a = { 0 };

	(void)state;
	add_all(&a, v, 8);
	assert_true(fabs(stat_acc_mean(&a) - 5.0) < 1e-12);
	/* sample variance: sum of squares 32 / 7 */
	assert_true(fabs(stat_acc_var(&a) - 32.0 / 7) < 1e-12);
	assert_true(fabs(stat_acc_sem(&a) - sqrt(32.0 / 7 / 8)) < 1e-12);
	assert_true(fabs(stat_acc_rel_pct(&a) - 100 * sqrt(32.0 / 7 / 8) / 5) < 1e-9);
}

static void test_welford_large_counts(void **state)
{
	struct stat_acc a = { 0 };

	(void)state;
	/* 1e12 + small noise: the naive sum-of-squares formula loses it all. */
	for (int i = 0; i < 1000; i++)
		stat_acc_add(&a, 1e12 + (i % 2 ? 1 : -1));
	assert_true(fabs(stat_acc_var(&a) - 1000.0 / 999) < 1e-6);
}

static void test_single_sample(void **state)
{
	struct stat_acc a = { 0 };

	(void)state;
	stat_acc_add(&a, 42);
	assert_true(stat_acc_var(&a) == 0);
	assert_true(stat_acc_sem(&a) == 0);
	assert_true(stat_acc_rel_pct(&a) == 0);
	struct stat_acc z = { 0 };
	stat_acc_add(&z, 0);
	stat_acc_add(&z, 0);
	assert_true(stat_acc_rel_pct(&z) == 0);	/* mean 0: no division */
}

static void test_t_quantile(void **state)
{
	/* two-sided 95%: t_{0.975, df} from any t table */
	static const struct { double df, t; } tab[] = {
		{ 1, 12.7062 }, { 2, 4.3027 }, { 4, 2.7764 }, { 9, 2.2622 },
		{ 10, 2.2281 }, { 30, 2.0423 }, { 120, 1.9799 }, { 1e6, 1.9600 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		double q = stat_t_quantile(0.975, tab[i].df);

		assert_true(fabs(q - tab[i].t) < 5e-4);
		assert_true(fabs(stat_t_cdf(q, tab[i].df) - 0.975) < 1e-9);
	}
	assert_true(fabs(stat_t_cdf(0, 5) - 0.5) < 1e-12);
	assert_true(fabs(stat_t_cdf(-2.5706, 5) - 0.025) < 1e-4);
	assert_true(isnan(stat_t_quantile(0, 5)));
	assert_true(isnan(stat_t_quantile(0.5, 0)));
}

static void test_ratio_significant(void **state)
{
	const double a[] = { 100, 102, 98, 101, 99 };
	const double b[] = { 200, 204, 196, 202, 198 };
	struct stat_acc sa = { 0 }, sb = { 0 };
	struct stat_ratio r;

	(void)state;
	add_all(&sa, a, 5);
	add_all(&sb, b, 5);
	stat_ratio_ci(&sa, &sb, 0.95, &r);
	assert_true(r.valid);
	assert_true(fabs(r.ratio - 2.0) < 1e-12);
	assert_true(r.lo < 2.0 && r.hi > 2.0);
	assert_true(r.lo > 1.9 && r.hi < 2.1);
	assert_true(r.significant);
	assert_true(r.p < 1e-6);
	/* Welch df with equal variances and sizes: ... between n-1 and 2n-2 */
	assert_true(r.df >= 4 && r.df <= 8);
}

static void test_ratio_not_significant(void **state)
{
	const double a[] = { 100, 110, 90, 105, 95 };
	const double b[] = { 101, 108, 92, 104, 97 };
	struct stat_acc sa = { 0 }, sb = { 0 };
	struct stat_ratio r;

	(void)state;
	add_all(&sa, a, 5);
	add_all(&sb, b, 5);
	stat_ratio_ci(&sa, &sb, 0.95, &r);
	assert_true(r.valid);
	assert_true(r.lo < 1 && r.hi > 1);
	assert_false(r.significant);
	assert_true(r.p > 0.5);
}

/* The delta-method half width, computed by hand for one case. */
static void test_ratio_delta_formula(void **state)
{
	const double a[] = { 10, 12 }, b[] = { 30, 34 };
	struct stat_acc sa = { 0 }, sb = { 0 };
	struct stat_ratio r;
	double R = 32.0 / 11, va = 2.0 / 2, vb = 8.0 / 2;	/* var/n */
	double se = R * sqrt(va / (11.0 * 11) + vb / (32.0 * 32));
	double df = (va + vb) * (va + vb) / (va * va / 1 + vb * vb / 1);

	(void)state;
	add_all(&sa, a, 2);
	add_all(&sb, b, 2);
	stat_ratio_ci(&sa, &sb, 0.95, &r);
	assert_true(fabs(r.df - df) < 1e-9);
	if (!r.valid) {	/* mA's own interval may touch 0 at df ~1 */
		assert_true(11.0 <= stat_t_quantile(0.975, df) * sqrt(va));
		return;
	}
	assert_true(fabs((r.hi - r.lo) / 2 - stat_t_quantile(0.975, df) * se) < 1e-9);
}

static void test_ratio_degenerate(void **state)
{
	struct stat_acc a = { 0 }, b = { 0 };
	struct stat_ratio r;

	(void)state;
	stat_acc_add(&a, 5);
	stat_acc_add(&b, 5);
	stat_ratio_ci(&a, &b, 0.95, &r);
	assert_false(r.valid);	/* one run each */
	stat_acc_add(&a, 5);
	stat_acc_add(&b, 5);
	stat_ratio_ci(&a, &b, 0.95, &r);	/* exact counts, equal */
	assert_true(r.valid);
	assert_true(r.ratio == 1 && r.lo == 1 && r.hi == 1);
	assert_false(r.significant);
	struct stat_acc c = { 0 }, d = { 0 };
	stat_acc_add(&c, 1000); stat_acc_add(&c, 1000);
	stat_acc_add(&d, 2000); stat_acc_add(&d, 2000);
	stat_ratio_ci(&c, &d, 0.95, &r);	/* exact counts, different */
	assert_true(r.valid && r.significant && r.ratio == 2);
	struct stat_acc z = { 0 };
	stat_acc_add(&z, 0); stat_acc_add(&z, 0);
	stat_ratio_ci(&z, &d, 0.95, &r);	/* A is zero: no ratio */
	assert_false(r.valid);
}

static void test_precision(void **state)
{
	(void)state;
	/* perf's get_precision(): ceil(-log10(sd)), 0 above 1 */
	assert_int_equal(stat_precision(0.000253), 4);
	assert_int_equal(stat_precision(0.0000618), 5);
	assert_int_equal(stat_precision(2.5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_welford),
		cmocka_unit_test(test_welford_large_counts),
		cmocka_unit_test(test_single_sample),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_ratio_significant),
		cmocka_unit_test(test_ratio_not_significant),
		cmocka_unit_test(test_ratio_delta_formula),
		cmocka_unit_test(test_ratio_degenerate),
		cmocka_unit_test(test_precision),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
