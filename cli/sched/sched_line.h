/* SPDX-License-Identifier: MIT */
/*
 * One output line built by hand, as printf would write it, then written
 * at once: timehist prints a line per sched_switch (half a million on a
 * busy machine's few seconds), and printf's parsing and padding were
 * most of its time. Each function names the printf conversion it does.
 */
#ifndef TALLY_SCHED_LINE_H
#define TALLY_SCHED_LINE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct sched_line {
	FILE *f;
	size_t n, cap;
	char *b;		/* own, or a caller's larger one (sched_line_init_buf) */
	char own[1024];
};

/*
 * The fast paths' slack: short pads and copies store this many bytes
 * whole (two vector stores), past what they count, where there is room:
 * libc's or an inlined `rep stos` of a few bytes costs more than the line
 */
#define SCHED_LINE_SLACK 32
static const char sched_line_spaces[SCHED_LINE_SLACK + 1] = "                                ";

/* Not an initializer: that would zero the whole buffer, at every line. */
static inline void sched_line_init(struct sched_line *l, FILE *f)
{
	l->f = f;
	l->n = 0;
	l->b = l->own;
	l->cap = sizeof(l->own);
}

/*
 * Lines into buf (cap bytes, at least sizeof(own)), written when it is
 * full or flushed: many lines a write (timehist's half a million).
 */
static inline void sched_line_init_buf(struct sched_line *l, FILE *f, char *buf, size_t cap)
{
	l->f = f;
	l->n = 0;
	l->b = buf;
	l->cap = cap;
}

/*
 * What is built so far written out (a line wider than b goes in pieces);
 * a line of no FILE (a string built in b) keeps its first bytes instead.
 */
static inline void sched_line_flush(struct sched_line *l)
{
	if (!l->f)
		return;
	if (l->n)
		fwrite_unlocked(l->b, 1, l->n, l->f);
	l->n = 0;
}

/* Room for k more bytes; k at most sizeof(b). */
static inline char *sched_line_room(struct sched_line *l, size_t k)
{
	if (l->n + k > l->cap) {
		sched_line_flush(l);
		if (l->n + k > l->cap)	/* no FILE: its end is written over */
			l->n = l->cap - k;
	}
	return l->b + l->n;
}

static inline void sched_line_chr(struct sched_line *l, char c)
{
	*sched_line_room(l, 1) = c;
	l->n++;
}

/* n spaces. */
static inline void sched_line_pad(struct sched_line *l, long n)
{
	if (n > 0 && n <= SCHED_LINE_SLACK && l->n + SCHED_LINE_SLACK <= l->cap) {
		memcpy(l->b + l->n, sched_line_spaces, SCHED_LINE_SLACK);
		l->n += (size_t)n;
		return;
	}
	if (!l->f && n > (long)(l->cap - l->n))
		n = (long)(l->cap - l->n);	/* no FILE: up to the buffer's end */
	while (n > 0) {
		size_t k = (size_t)n < l->cap ? (size_t)n : l->cap;

		memset(sched_line_room(l, k), ' ', k);
		l->n += k;
		n -= (long)k;
	}
}

static inline void sched_line_mem(struct sched_line *l, const char *s, size_t len)
{
	if (!l->f && len > l->cap - l->n)
		len = l->cap - l->n;	/* no FILE: up to the buffer's end */
	while (len) {
		size_t k = len < l->cap ? len : l->cap;

		memcpy(sched_line_room(l, k), s, k);
		l->n += k;
		s += k;
		len -= k;
	}
}

/* "%s" */
static inline void sched_line_str(struct sched_line *l, const char *s)
{
	sched_line_mem(l, s, strlen(s));
}

/* "%-*s" */
static inline void sched_line_left(struct sched_line *l, const char *s, int width)
{
	size_t len = strlen(s);

	sched_line_mem(l, s, len);
	sched_line_pad(l, (long)width - (long)len);
}

/* "%*s" */
static inline void sched_line_right(struct sched_line *l, const char *s, int width)
{
	size_t len = strlen(s);

	sched_line_pad(l, (long)width - (long)len);
	sched_line_mem(l, s, len);
}

static const char sched_line_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* 10^i, i < 20 */
static const uint64_t sched_line_p10[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull,
};

/* The digits of v written backwards, two at a time, ending at end. */
static inline void sched_line_digits_to(char *end, uint64_t v)
{
	const char *pairs = sched_line_pairs;

	while (v >= 100) {
		end -= 2;
		memcpy(end, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(end - 2, pairs + 2 * v, 2);
	else
		end[-1] = (char)('0' + v);
}

/* How many digits v has. */
static inline int sched_line_ndigits(uint64_t v)
{
	int n = 1;

	for (uint64_t p = 10; v >= p; p *= 10)
		if (++n == 20)	/* 10^19 is the last power of ten a u64 holds */
			break;
	return n;
}

/* The digits of v at the end of tmp[24]; their count. */
static inline int sched_line_digits(char tmp[24], uint64_t v)
{
	sched_line_digits_to(tmp + 24, v);
	return sched_line_ndigits(v);
}

/* "%*llu" (zero: "%0*llu"); width may be 0. */
static inline void sched_line_u64(struct sched_line *l, uint64_t v, int width, int zero)
{
	char tmp[24];
	int n = sched_line_digits(tmp, v);

	if (width > n) {
		if (zero) {
			char *p = sched_line_room(l, (size_t)(width - n));

			memset(p, '0', (size_t)(width - n));
			l->n += (size_t)(width - n);
		} else {
			sched_line_pad(l, width - n);
		}
	}
	sched_line_mem(l, tmp + 24 - n, (size_t)n);
}

/* "%*ld", zero: "%0*ld" (a negative one's '-' counts in width: "-001") */
static inline void sched_line_int(struct sched_line *l, long v, int width, int zero)
{
	char tmp[24];
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	int n = sched_line_digits(tmp, u) + (v < 0);

	if (!zero)
		sched_line_pad(l, width - n);
	if (v < 0)
		sched_line_chr(l, '-');
	if (zero && width > n) {
		memset(sched_line_room(l, (size_t)(width - n)), '0', (size_t)(width - n));
		l->n += (size_t)(width - n);
	}
	sched_line_mem(l, tmp + 24 - (n - (v < 0)), (size_t)(n - (v < 0)));
}

/*
 * At p (room for pad + 24 more): pad spaces, 16 stored whole where they
 * fit, then v's n digits, written in place: digits built in a buffer and
 * copied were a store-forwarding stall each (a 16-byte load of bytes
 * just stored two at a time)
 */
static inline char *sched_line_lead(char *p, int pad, uint64_t v, int n)
{
	if (pad > 0 && pad <= 16)
		memcpy(p, sched_line_spaces, 16);
	else if (pad > 0)
		memset(p, ' ', (size_t)pad);
	if (pad > 0)
		p += pad;
	sched_line_digits_to(p + n, v);
	return p + n;
}

/*
 * "%-*s" of s, len bytes (no more than 31), readable for SCHED_LINE_SLACK
 * bytes (a char[32] of its own): a stored whole, as its pad
 */
static inline void sched_line_left32(struct sched_line *l, const char *s, size_t len, int width)
{
	if (len < SCHED_LINE_SLACK && width <= SCHED_LINE_SLACK &&
	    l->n + 2 * SCHED_LINE_SLACK <= l->cap) {
		char *p = l->b + l->n;

		memcpy(p, s, SCHED_LINE_SLACK);
		memcpy(p + len, sched_line_spaces, SCHED_LINE_SLACK);
		l->n += (long)len < width ? (size_t)width : len;
		return;
	}
	sched_line_mem(l, s, len);
	sched_line_pad(l, (long)width - (long)len);
}

/* sched_usec's "%llu.%06llu" of t in ns, right-aligned to width ("%*s"); width <= 64. */
static inline void sched_line_usec(struct sched_line *l, uint64_t t, int width)
{
	char *p = sched_line_room(l, 64 + 24 + 7);
	uint64_t secs = t / 1000000000ull;
	uint32_t us = (uint32_t)(t % 1000000000ull / 1000);
	int n, pad;

	/*
	 * most: the field (16 bytes at most) blanked whole, the digits
	 * written back from its end, the microseconds two at a time
	 */
	if (width >= 8 && width <= 16 && secs < sched_line_p10[width - 7]) {
		char *e = p + width;

		memcpy(p, sched_line_spaces, 16);
		memcpy(e - 2, sched_line_pairs + 2 * (us % 100), 2);
		memcpy(e - 4, sched_line_pairs + 2 * (us / 100 % 100), 2);
		memcpy(e - 6, sched_line_pairs + 2 * (us / 10000), 2);
		e[-7] = '.';
		sched_line_digits_to(e - 7, secs);
		l->n += (size_t)width;
		return;
	}
	n = sched_line_ndigits(secs);
	pad = width - (n + 7);
	p = sched_line_lead(p, pad, secs, n);
	*p++ = '.';
	for (int i = 5; i >= 0; i--, us /= 10)
		p[i] = (char)('0' + us % 10);
	l->n = (size_t)(p + 6 - l->b);
}

/* sched_print_time's "%*lu.%03lu " of nsecs in msec; width <= 64. */
static inline void sched_line_msec(struct sched_line *l, uint64_t nsecs, int width)
{
	char *p = sched_line_room(l, 64 + 24 + 5);
	uint64_t ms = (unsigned long)(nsecs / 1000000);
	uint32_t us = (uint32_t)(nsecs % 1000000 / 1000);
	int n, pad;

	/* most: blanked whole, the digits written back from the field's end (usec's way) */
	if (width >= 1 && width <= 16 && ms < sched_line_p10[width]) {
		char *e = p + width;

		memcpy(p, sched_line_spaces, 16);
		sched_line_digits_to(e, ms);
		e[0] = '.';
		e[1] = (char)('0' + us / 100);
		memcpy(e + 2, sched_line_pairs + 2 * (us % 100), 2);
		e[4] = ' ';
		l->n += (size_t)width + 5;
		return;
	}
	n = sched_line_ndigits(ms);
	pad = width - n;
	p = sched_line_lead(p, pad, ms, n);
	p[0] = '.';
	p[1] = (char)('0' + us / 100);
	p[2] = (char)('0' + us / 10 % 10);
	p[3] = (char)('0' + us % 10);
	p[4] = ' ';
	l->n = (size_t)(p + 5 - l->b);
}

#endif
