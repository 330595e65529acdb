// SPDX-License-Identifier: MIT
/*
 * "%.1f" and "%.2f" by integer tenths or hundredths: below 10^4, v * 10^p
 * is within half an ulp (< 2^-32) of the exact product, so rounding it to
 * the nearest integer gives glibc's digits unless it lies near a tie,
 * where glibc rounds the exact binary value half to even: there, and
 * outside [0, 10^4), printf itself decides.
 */
#include <math.h>
#include <stdio.h>
#include "fmt.h"

int tally__fmt_u64(char *buf, size_t len, uint64_t v)
{
	char tmp[24];
	int k = 0, n = 0;

	if (len < 21)
		return snprintf(buf, len, "%llu", (unsigned long long)v);
	do
		tmp[k++] = (char)('0' + v % 10);
	while (v /= 10);
	while (k)
		buf[n++] = tmp[--k];
	buf[n] = '\0';
	return n;
}

int tally__fmt_fixed(char *buf, size_t len, double v, int prec)
{
	double t = v * (prec == 1 ? 10.0 : 100.0), f = floor(t);
	uint64_t h, scale = prec == 1 ? 10 : 100;
	int n;

	if ((prec != 1 && prec != 2) || !(v >= 0 && v < 1e4) || signbit(v) || len < 32 ||
	    fabs(t - f - 0.5) < 1e-6)
		return snprintf(buf, len, "%.*f", prec, v);
	h = (uint64_t)f + (t - f > 0.5);
	n = tally__fmt_u64(buf, len, h / scale);
	buf[n++] = '.';
	if (prec == 2)
		buf[n++] = (char)('0' + h / 10 % 10);
	buf[n++] = (char)('0' + h % 10);
	buf[n] = '\0';
	return n;
}
