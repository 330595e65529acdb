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
#include <string.h>
#include "fmt.h"

/* two digits at a time: a flame graph writes 40k numbers */
static const char pairs[] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

int tally__fmt_u64(char *buf, size_t len, uint64_t v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	int n;

	if (len < 21)
		return snprintf(buf, len, "%llu", (unsigned long long)v);
	while (v >= 100) {
		p -= 2;
		memcpy(p, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	n = (int)(tmp + sizeof(tmp) - p);
	memcpy(buf, p, (size_t)n);
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
