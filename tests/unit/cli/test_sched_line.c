// SPDX-License-Identifier: MIT
/*
 * timehist's hand-built lines (sched_line.h) against printf, byte for
 * byte: each conversion over values at the edges of their widths (0, the
 * powers of ten, the largest u64, negatives with zero padding), strings
 * shorter and longer than their field, and lines longer than the buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "sched_line.h"

struct out {
	char *buf;
	size_t len;
	struct sched_line l;
};

static void out_open(struct out *o)
{
	o->buf = NULL;
	o->len = 0;
	sched_line_init(&o->l, open_memstream(&o->buf, &o->len));
	assert_non_null(o->l.f);
}

/* What the line wrote against what printf writes for the same fmt. */
static void out_check(struct out *o, const char *fmt, ...)
{
	char want[16384];
	va_list ap;

	sched_line_flush(&o->l);
	fclose(o->l.f);
	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	if (strlen(want) != o->len || memcmp(want, o->buf, o->len))
		fail_msg("%s: printf \"%s\", ours \"%.*s\"", fmt, want, (int)o->len, o->buf);
	free(o->buf);
}

static const uint64_t vals[] = {
	0, 1, 9, 10, 99, 100, 999, 1000, 999999, 1000000, 1000001, 123456789,
	999999999, 1000000000, 1000000001, 43550250456123ull, 4294967295ull,
	4294967296ull, 999999999999999999ull, 10000000000000000000ull, UINT64_MAX,
};

static void test_u64(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		for (int w = 0; w < 24; w++) {
			struct out o;

			out_open(&o);
			sched_line_u64(&o.l, vals[i], w, 0);
			out_check(&o, "%*llu", w, (unsigned long long)vals[i]);
			out_open(&o);
			sched_line_u64(&o.l, vals[i], w, 1);
			out_check(&o, "%0*llu", w, (unsigned long long)vals[i]);
		}
}

static void test_int(void **state)
{
	const long v[] = { 0, 1, -1, 7, -7, 42, -42, 1000, -1000, 2147483647L, -2147483647L - 1 };

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (int w = 0; w < 14; w++) {
			struct out o;

			out_open(&o);
			sched_line_int(&o.l, v[i], w, 0);
			out_check(&o, "%*ld", w, v[i]);
			out_open(&o);
			sched_line_int(&o.l, v[i], w, 1);
			out_check(&o, "%0*ld", w, v[i]);
		}
}

/* sched_usec's "%llu.%06llu" in a "%15s" field, sched_print_time's "%*lu.%03lu " */
static void test_times(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t t = vals[i];
		char ts[64];
		struct out o;

		snprintf(ts, sizeof(ts), "%llu.%06llu", (unsigned long long)(t / 1000000000ull),
			 (unsigned long long)(t % 1000000000ull / 1000));
		/* the field blanked whole where the number fits (8 to 16 wide), else built */
		for (int w = 6; w <= 18; w++) {
			out_open(&o);
			sched_line_usec(&o.l, t, w);
			out_check(&o, "%*s", w, ts);
		}
		for (int w = 0; w <= 18; w++) {
			out_open(&o);
			sched_line_msec(&o.l, t, w);
			out_check(&o, "%*lu.%03lu ", w, (unsigned long)(t / 1000000),
				  (unsigned long)(t % 1000000 / 1000));
		}
	}
}

static void test_strings(void **state)
{
	const char *s[] = { "", "a", "<idle>", "migration/0[18]", "kworker/u4:2-ev[123/45]" };

	(void)state;
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		for (int w = 0; w < 40; w += 3) {
			struct out o;

			out_open(&o);
			sched_line_left(&o.l, s[i], w);
			sched_line_chr(&o.l, '|');
			sched_line_right(&o.l, s[i], w);
			out_check(&o, "%-*s|%*s", w, s[i], w, s[i]);
		}
}

/* A line past the buffer (-V on a machine of thousands of CPUs) comes out whole. */
static void test_long_line(void **state)
{
	static char big[5000];
	struct out o;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	out_open(&o);
	sched_line_pad(&o.l, 3000);
	for (int i = 0; i < 3000; i++)
		sched_line_chr(&o.l, i % 7 ? ' ' : 's');
	sched_line_str(&o.l, big);
	sched_line_u64(&o.l, 12345, 10, 1);
	{
		char want[12000];
		int n = snprintf(want, sizeof(want), "%3000s", "");

		for (int i = 0; i < 3000; i++)
			want[n++] = i % 7 ? ' ' : 's';
		want[n] = '\0';
		out_check(&o, "%s%s%010d", want, big, 12345);
	}
}

/* The numbers' fast paths at the buffer's end: what is built goes out first, whole. */
static void test_at_buffer_end(void **state)
{
	(void)state;
	for (int fill = 990; fill <= 1024; fill++) {
		struct out o;

		out_open(&o);
		sched_line_pad(&o.l, fill);
		sched_line_msec(&o.l, 43550250456123ull, 6);
		sched_line_usec(&o.l, 43550250456123ull, 15);
		out_check(&o, "%*s%*lu.%03lu %15s", fill, "", 6, 43550250ul, 456ul, "43550.250456");
	}
}

/* A line of no FILE (timehist's commstr) past the buffer: its first bytes kept, no write. */
static void test_no_file(void **state)
{
	static char big[3000];
	struct sched_line l;

	(void)state;
	memset(big, 'c', sizeof(big) - 1);
	sched_line_init(&l, NULL);
	sched_line_str(&l, "comm[");
	sched_line_str(&l, big);
	sched_line_msec(&l, 1234567, 6);
	assert_true(l.n <= l.cap);
	assert_memory_equal(l.b, "comm[ccc", 8);
}

/* left32's stores whole (a char[32] of its own), against printf's "%-*s", at every fill. */
static void test_left32(void **state)
{
	const char *s[] = { "", "a", "<idle>", "migration/0[18]", "kworker/u4:2-events_unbo[1234]" };

	(void)state;
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		for (int w = 0; w <= 40; w += 5)
			for (int fill = 0; fill <= 1024; fill += fill < 960 ? 96 : 1) {
				char own[32] = { 0 };
				struct out o;

				memcpy(own, s[i], strlen(s[i]));
				out_open(&o);
				sched_line_pad(&o.l, fill);
				sched_line_left32(&o.l, own, strlen(s[i]), w);
				sched_line_chr(&o.l, '|');
				out_check(&o, "%*s%-*s|", fill, "", w, s[i]);
			}
}

/*
 * Many lines into a caller's buffer (timehist's): written when it fills,
 * at any place in a line, and whatever was left at the flush, in order.
 */
static void test_big_buffer(void **state)
{
	static char buf[4096], want[1 << 18];
	char own[32] = "pipewake[438]";
	struct out o;
	size_t n = 0;

	(void)state;
	out_open(&o);
	sched_line_init_buf(&o.l, o.l.f, buf, sizeof(buf));
	for (int i = 0; i < 2000; i++) {
		uint64_t t = 43550250456123ull + (uint64_t)i * 7919, ms = t % 99999999;
		char ts[32];

		sched_line_usec(&o.l, t, 15);
		sched_line_chr(&o.l, ' ');
		sched_line_left32(&o.l, own, strlen(own), 30);
		sched_line_msec(&o.l, ms, 6);
		sched_line_pad(&o.l, i % 40);
		sched_line_chr(&o.l, '\n');
		assert_true(o.l.n <= sizeof(buf));
		snprintf(ts, sizeof(ts), "%llu.%06llu", (unsigned long long)(t / 1000000000ull),
			 (unsigned long long)(t % 1000000000ull / 1000));
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%15s %-30s%6lu.%03lu %*s\n", ts,
				      own, (unsigned long)(ms / 1000000),
				      (unsigned long)(ms % 1000000 / 1000), i % 40, "");
	}
	sched_line_flush(&o.l);
	fclose(o.l.f);
	assert_int_equal(o.len, n);
	assert_memory_equal(o.buf, want, n);
	free(o.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_times),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_at_buffer_end),
		cmocka_unit_test(test_no_file),
		cmocka_unit_test(test_left32),
		cmocka_unit_test(test_big_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
