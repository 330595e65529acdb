// SPDX-License-Identifier: MIT
/*
 * record_fast.h's short way against tally_record__parse on the same
 * bytes: every layout of its first eleven bits, valid samples with chains
 * and RAW of several sizes; random layouts with the branch stack and the
 * u64s after it; then every truncation, padding, count and leftover
 * fault of each: the two must accept the same records and, where they
 * do, give the same sample byte for byte (the short way's fields
 * outside the layout stay zero across samples). Records sit at the end
 * of a malloc'd block: under SAN=1 a read past them is caught.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/record.h>
#include "record_fast.h"

static uint64_t seed = 88172645463325252ull;

static uint64_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

#define MORE_TAIL (TALLY_SAMPLE_FAST_MORE & ~(uint64_t)PERF_SAMPLE_BRANCH_STACK)

/* the branch stack build() writes: its count, whether hw_idx comes first */
static uint64_t br_nr;
static bool br_hw_idx;

/*
 * A sample of layout st: chain of nr frames, RAW of raw bytes (size field
 * as given), a branch stack of br_nr entries, the u64s after it.
 */
static size_t build(unsigned char *b, uint64_t st, uint64_t nr, uint32_t raw, uint32_t raw_field)
{
	size_t n = sizeof(struct perf_event_header);
	uint64_t fixed = st & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |
					  TALLY_SAMPLE_FAST_MORE);

	for (int i = 0; i < __builtin_popcountll(fixed); i++) {
		uint64_t v = rnd();

		memcpy(b + n, &v, 8);
		n += 8;
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		memcpy(b + n, &nr, 8);
		n += 8;
		for (uint64_t i = 0; i < nr; i++, n += 8) {
			uint64_t v = rnd();

			memcpy(b + n, &v, 8);
		}
	}
	if (st & PERF_SAMPLE_RAW) {
		memcpy(b + n, &raw_field, 4);
		n += 4;
		for (uint32_t i = 0; i < raw; i++)
			b[n++] = (unsigned char)rnd();
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		memcpy(b + n, &br_nr, 8);
		n += 8;
		for (uint64_t i = 0; i < br_nr * 3 + br_hw_idx; i++, n += 8) {
			uint64_t v = rnd();

			memcpy(b + n, &v, 8);
		}
	}
	for (int i = 0; i < __builtin_popcountll(st & MORE_TAIL); i++, n += 8) {
		uint64_t v = rnd();

		memcpy(b + n, &v, 8);
	}
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = 1, .size = (uint16_t)n };

	memcpy(b, &h, sizeof(h));
	return n;
}

/* The two decoders on the len bytes of b (h.size as written there); both accept or both refuse. */
static int compare(struct tally_sample_fast *f, const struct tally_record_layout *lay,
		   const unsigned char *b, size_t len)
{
	unsigned char *at = malloc(len);
	struct tally_record rec;
	int slow, fast;

	assert_non_null(at);
	memcpy(at, b, len);
	slow = tally_record__parse(at, len, lay, &rec);
	fast = tally__sample_fast(f, (const struct perf_event_header *)(const void *)at);
	assert_int_equal(slow != 0, fast != 0);
	if (!slow) {
		/* the pointers into the record are the same addresses too */
		assert_memory_equal(&rec.u.sample, &f->s, sizeof(f->s));
	}
	free(at);
	return fast;
}

static void tally_up(int rc, int *refused, int *taken)
{
	++*(rc ? refused : taken);
}

static void layout(struct tally_record_layout *lay, uint64_t st)
{
	memset(lay, 0, sizeof(*lay));
	lay->sample_type = st;
	lay->sample_id_all = true;
}

/* Every layout of the bits, valid samples: the same samples, one after another. */
static void test_every_layout(void **state)
{
	(void)state;
	unsigned char b[1024];
	const uint64_t bits[] = {
		PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
		PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
		PERF_SAMPLE_PERIOD, PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW,
	};
	const size_t nb = sizeof(bits) / sizeof(bits[0]);

	for (uint64_t m = 0; m < (1u << nb); m++) {
		struct tally_record_layout lay;
		struct tally_sample_fast f;
		uint64_t st = 0;

		for (size_t i = 0; i < nb; i++)
			if (m & (1u << i))
				st |= bits[i];
		layout(&lay, st);
		assert_true(tally__sample_fast_ok(&lay));
		tally__sample_fast_init(&f, &lay);
		/* several in a row into the one sample: each the parser's */
		for (int k = 0; k < 4; k++) {
			uint32_t raw = (uint32_t)(rnd() % 5) * 8 + 4;	/* size + 4 a multiple of 8 */
			size_t n = build(b, st, rnd() % 6, raw, raw);

			assert_int_equal(compare(&f, &lay, b, n), 0);
		}
	}
}

/* Records the parser refuses, and some it takes: the short way says the same of each. */
static void test_faults(void **state)
{
	(void)state;
	unsigned char b[1024];
	const uint64_t layouts[] = {
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW,
		PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_CALLCHAIN,
		PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
		PERF_SAMPLE_RAW,
		PERF_SAMPLE_CALLCHAIN,
		0,
	};
	int refused = 0, taken = 0;

	for (size_t l = 0; l < sizeof(layouts) / sizeof(layouts[0]); l++) {
		struct tally_record_layout lay;
		struct tally_sample_fast f;

		layout(&lay, layouts[l]);
		tally__sample_fast_init(&f, &lay);
		for (uint32_t raw = 0; raw < 30; raw++) {
			/* the size field right, too large, too small */
			for (int d = -1; d <= 1; d++) {
				uint32_t field = raw + (uint32_t)d;
				/* a chain that fits, one that says more than the record holds */
				for (uint64_t nr = 0; nr < 4; nr++) {
					size_t n = build(b, layouts[l], nr, raw, d < 0 && !raw ? 0 : field);

					/* pad to 8 as the kernel does: these come with whole records */
					while (n & 7)
						b[n++] = 0;
					memcpy(b + 6, &(uint16_t){ (uint16_t)n }, 2);
					tally_up(compare(&f, &lay, b, n), &refused, &taken);
					/* cut short: each size down to the header, 8-aligned or not */
					for (size_t cut = n - 1; cut >= sizeof(struct perf_event_header); cut--) {
						memcpy(b + 6, &(uint16_t){ (uint16_t)cut }, 2);
						tally_up(compare(&f, &lay, b, cut), &refused, &taken);
					}
					/* a u64 left over after the last field */
					memcpy(b + 6, &(uint16_t){ (uint16_t)(n + 8) }, 2);
					memset(b + n, 0, 8);
					tally_up(compare(&f, &lay, b, n + 8), &refused, &taken);
					/* a chain count far past the record */
					if (layouts[l] & PERF_SAMPLE_CALLCHAIN) {
						size_t at = sizeof(struct perf_event_header) +
							    8 * (size_t)__builtin_popcountll(
								layouts[l] & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN |
											 PERF_SAMPLE_RAW));
						uint64_t big = UINT64_MAX / 4;

						memcpy(b + 6, &(uint16_t){ (uint16_t)n }, 2);
						memcpy(b + at, &big, 8);
						tally_up(compare(&f, &lay, b, n), &refused, &taken);
					}
				}
			}
		}
	}
	/* both kinds were met: the faults are faults, the rest is not all refused */
	assert_true(refused > 1000);
	assert_true(taken > 100);
}

/*
 * The bits after RAW (a branch stack with and without hw_idx, the u64s
 * after it) in random layouts with all the others: valid samples, then
 * each cut short, a u64 left over, a branch count past the record.
 */
static void test_more_layouts(void **state)
{
	(void)state;
	unsigned char b[2048];
	int refused = 0, taken = 0;

	for (int k = 0; k < 6000; k++) {
		struct tally_record_layout lay;
		struct tally_sample_fast f;
		uint64_t st = rnd() & TALLY_SAMPLE_FAST_BITS;

		if ((st & PERF_SAMPLE_WEIGHT) && (st & PERF_SAMPLE_WEIGHT_STRUCT))
			st &= ~(uint64_t)(rnd() & 1 ? PERF_SAMPLE_WEIGHT : PERF_SAMPLE_WEIGHT_STRUCT);
		layout(&lay, st);
		br_hw_idx = rnd() & 1;
		lay.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
					 (br_hw_idx ? PERF_SAMPLE_BRANCH_HW_INDEX : 0);
		br_hw_idx = br_hw_idx && (st & PERF_SAMPLE_BRANCH_STACK);
		assert_true(tally__sample_fast_ok(&lay));
		tally__sample_fast_init(&f, &lay);
		for (int r = 0; r < 3; r++) {
			uint32_t raw = (uint32_t)(rnd() % 5) * 8 + 4;
			size_t n;

			br_nr = rnd() % 5;
			n = build(b, st, rnd() % 4, raw, raw);
			tally_up(compare(&f, &lay, b, n), &refused, &taken);
			for (size_t cut = n - 1; cut >= sizeof(struct perf_event_header); cut -= 1 + rnd() % 8) {
				memcpy(b + 6, &(uint16_t){ (uint16_t)cut }, 2);
				tally_up(compare(&f, &lay, b, cut), &refused, &taken);
			}
			memcpy(b + 6, &(uint16_t){ (uint16_t)(n + 8) }, 2);
			memset(b + n, 0, 8);
			tally_up(compare(&f, &lay, b, n + 8), &refused, &taken);
		}
		/* a branch count far past the record: its slot is the first after RAW */
		if ((st & PERF_SAMPLE_BRANCH_STACK) && !(st & PERF_SAMPLE_RAW)) {
			uint64_t nr, big = UINT64_MAX / 16;
			size_t at = sizeof(struct perf_event_header) +
				    8 * (size_t)__builtin_popcountll(st & ~(uint64_t)(PERF_SAMPLE_CALLCHAIN |
										 PERF_SAMPLE_RAW |
										 TALLY_SAMPLE_FAST_MORE));
			size_t n;

			br_nr = 2;
			n = build(b, st, 0, 0, 0);
			if (st & PERF_SAMPLE_CALLCHAIN)
				at += 8;	/* a chain of none */
			memcpy(&nr, b + at, 8);
			assert_int_equal(nr, 2);
			memcpy(b + at, &big, 8);
			assert_int_not_equal(compare(&f, &lay, b, n), 0);
		}
	}
	assert_true(refused > 10000);
	assert_true(taken > 10000);
}

/* Layouts with fields the short way does not decode are left to the parser. */
static void test_not_ok(void **state)
{
	(void)state;
	const uint64_t others[] = {
		PERF_SAMPLE_READ, PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER,
		PERF_SAMPLE_REGS_INTR, PERF_SAMPLE_AUX, 1ull << 40,
		PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT,	/* the parser refuses the layout */
	};

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		struct tally_record_layout lay;

		layout(&lay, PERF_SAMPLE_IP | PERF_SAMPLE_TID | others[i]);
		assert_false(tally__sample_fast_ok(&lay));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_layout),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_more_layouts),
		cmocka_unit_test(test_not_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
