// SPDX-License-Identifier: MIT
/*
 * "%.2f" by integer hundredths. v * 100 is within half an ulp (< 2^-32
 * below 10^4) of the exact product, so rounding it to the nearest integer
 * gives glibc's digits unless it lies near a tie, where glibc rounds the
 * exact binary value half to even: there, and outside [0, 10^4), printf
 * itself decides. The writes are stdio's unlocked ones: one thread
 * prints.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "report_fmt.h"

int fmt_2f(char *buf, size_t len, double v)
{
	double t = v * 100.0, f = floor(t);
	char tmp[16];
	int n = 0, k = 0;
	uint64_t h;

	if (!(v >= 0 && v < 1e4) || signbit(v) || len < 32 || fabs(t - f - 0.5) < 1e-6)
		return snprintf(buf, len, "%.2f", v);
	h = (uint64_t)f + (t - f > 0.5);
	tmp[k++] = (char)('0' + h % 10);
	tmp[k++] = (char)('0' + h / 10 % 10);
	tmp[k++] = '.';
	h /= 100;
	do
		tmp[k++] = (char)('0' + h % 10);
	while (h /= 10);
	while (k)
		buf[n++] = tmp[--k];
	buf[n] = '\0';
	return n;
}

static void put_spaces(FILE *fp, int n)
{
	static const char sp[] = "                                ";

	for (; n > 0; n -= (int)sizeof(sp) - 1)
		fwrite_unlocked(sp, 1, n < (int)sizeof(sp) - 1 ? (size_t)n : sizeof(sp) - 1, fp);
}

void put_pct(FILE *fp, double v, int width)
{
	char buf[64];
	int n = fmt_2f(buf, sizeof(buf), v);

	put_spaces(fp, width - n);
	fwrite_unlocked(buf, 1, (size_t)n, fp);
	fputc_unlocked('%', fp);
}

void put_left(FILE *fp, const char *s, size_t len, int width)
{
	fwrite_unlocked(s, 1, len, fp);
	if ((int)len < width)
		put_spaces(fp, width - (int)len);
}
