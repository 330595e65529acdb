// SPDX-License-Identifier: MIT
/*
 * Statistics for -r and --compare: a running mean/variance (Welford, so a
 * thousand runs of large counts do not lose precision), Student's t
 * distribution, and the confidence interval of a ratio of two means.
 *
 * The ratio interval uses the delta method: for R = mB / mA,
 *   Var(R) ~= R^2 * (sB^2 / (nB mB^2) + sA^2 / (nA mA^2))
 * with Welch-Satterthwaite degrees of freedom for the t quantile. It is
 * accurate while mA is many standard errors away from 0, which holds for
 * event counts and times; when it does not (the interval of mA touches 0)
 * the ratio is reported as not valid rather than with a wrong interval.
 */
#include <math.h>
#include "stat.h"

void stat_acc_add(struct stat_acc *a, double x)
{
	double d = x - a->mean;

	a->n += 1;
	a->mean += d / a->n;
	a->m2 += d * (x - a->mean);
}

double stat_acc_mean(const struct stat_acc *a)
{
	return a->mean;
}

double stat_acc_var(const struct stat_acc *a)
{
	if (a->n < 2)
		return 0.0;
	return a->m2 / (a->n - 1);
}

double stat_acc_sem(const struct stat_acc *a)
{
	if (a->n < 2)
		return 0.0;
	return sqrt(stat_acc_var(a) / a->n);
}

double stat_acc_rel_pct(const struct stat_acc *a)
{
	if (a->mean == 0)
		return 0.0;
	return 100.0 * stat_acc_sem(a) / a->mean;
}

/* One modified-Lentz update with coefficient aa; returns the factor d * c. */
static double lentz_step(double aa, double *c, double *d)
{
	const double tiny = 1e-300;

	*d = 1 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1 / *d;
	return *d * *c;
}

/* Continued fraction of the regularized incomplete beta (modified Lentz). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		int m2 = 2 * m;
		double del;

		/* even then odd term of the fraction */
		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d);
		del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	double bt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double stat_t_cdf(double t, double df)
{
	double p;

	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	p = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? 1 - p : p;
}

/* The t with CDF(t) = p, by bisection (monotone, so it always converges). */
double stat_t_quantile(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (stat_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
		if (hi - lo < 1e-12 * (1 + fabs(mid)))
			break;
	}
	return (lo + hi) / 2;
}

void stat_ratio_ci(const struct stat_acc *a, const struct stat_acc *b,
		   double level, struct stat_ratio *out)
{
	double ma = a->mean, mb = b->mean;
	double va = stat_acc_var(a) / a->n, vb = stat_acc_var(b) / b->n;
	double se, q;

	*out = (struct stat_ratio){ .ratio = NAN, .lo = NAN, .hi = NAN,
				    .t = NAN, .df = NAN, .p = NAN };
	if (a->n < 2 || b->n < 2)
		return;
	if (ma != 0)
		out->ratio = mb / ma;
	/* Welch's t and Welch-Satterthwaite degrees of freedom. */
	if (va + vb > 0) {
		out->t = (mb - ma) / sqrt(va + vb);
		out->df = (va + vb) * (va + vb) /
			  (va * va / (a->n - 1) + vb * vb / (b->n - 1));
		out->p = 2 * (1 - stat_t_cdf(fabs(out->t), out->df));
	} else {
		/* No variance at all: equal means are the same, others differ. */
		out->t = mb == ma ? 0 : INFINITY;
		out->df = a->n + b->n - 2;
		out->p = mb == ma ? 1 : 0;
	}
	if (ma == 0)
		return;
	q = stat_t_quantile(1 - (1 - level) / 2, out->df);
	/* mA's own interval must stay away from 0 for the delta method. */
	if (va > 0 && fabs(ma) <= q * sqrt(va))
		return;
	se = fabs(out->ratio) * sqrt(va / (ma * ma) + (mb != 0 ? vb / (mb * mb) : 0));
	if (mb == 0)
		se = sqrt(vb) / fabs(ma);
	out->lo = out->ratio - q * se;
	out->hi = out->ratio + q * se;
	out->valid = true;
	out->significant = (out->lo > 1 || out->hi < 1) && out->p < 1 - level;
}

int stat_precision(double sd)
{
	if (sd > 1 || sd <= 0)
		return 0;
	return (int)lround(ceil(-log10(sd)));
}
