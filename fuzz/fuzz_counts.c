// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the counter read() buffer parser
 * (tally__parse_read in lib/counts.c). Input: 8 bytes of read_format
 * (any bits), then the buffer itself (any length, any nr). The target
 * works out the layout of perf_event_open(2) "Reading results" on its
 * own and checks the parser against it: -EINVAL exactly when the buffer
 * is too short (or not whole u64s), otherwise one land() per entry, in
 * order, each with the words at the right offsets (group: shared times,
 * {value, id, lost} per member). Every landed count goes through
 * tally_counts__scale/sub/add, whose states and bounds are checked too.
 *
 *   make -f fuzz/Makefile && build-fuzz/fuzz_counts fuzz/corpus/counts
 * Every file of fuzz/corpus/counts is replayed by `make test`
 * (tests/unit/test_fuzz_replay_engine.c includes this file).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/counts.h>
#include "evsel_internal.h"

#include "fuzz_check.h"

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

struct counts_ctx {
	const unsigned char *buf;
	size_t nwords;
	uint64_t rf;
	int calls;
};

static uint64_t counts_word(const struct counts_ctx *x, size_t w)
{
	uint64_t v;

	FUZZ_CHECK(w < x->nwords);
	memcpy(&v, x->buf + w * sizeof(v), sizeof(v));
	return v;
}

static void counts_check_scale(const struct tally_counts *c)
{
	struct tally_scaled s;
	struct tally_counts d, sum;

	tally_counts__scale(c, &s);
	FUZZ_CHECK(s.raw == c->val);
	if (c->run == 0) {
		FUZZ_CHECK(s.state == TALLY_COUNT_NOT_COUNTED && s.val == 0);
	} else if (c->run >= c->ena) {
		FUZZ_CHECK(s.state == TALLY_COUNT_COUNTED && s.val == c->val);
		FUZZ_CHECK(s.running == 1.0);
	} else {
		FUZZ_CHECK(s.state == TALLY_COUNT_SCALED);
		FUZZ_CHECK(s.val >= c->val);	/* ena > run: never scaled down */
		FUZZ_CHECK(s.running > 0 && s.running <= 1.0);
	}
	FUZZ_CHECK(tally_count_state__str(s.state)[0] != '\0');
	tally_counts__sub(&d, c, c);
	FUZZ_CHECK(d.val == 0 && d.ena == 0 && d.run == 0 && d.lost == 0 && d.id == c->id);
	sum = *c;
	tally_counts__add(&sum, c);
	FUZZ_CHECK(sum.val >= c->val && sum.ena >= c->ena && sum.run >= c->run);
}

static void counts_land(void *vctx, int i, const struct tally_counts *c)
{
	struct counts_ctx *x = vctx;
	uint64_t rf = x->rf;
	size_t w;

	FUZZ_CHECK(i == x->calls);
	x->calls++;
	if (!(rf & PERF_FORMAT_GROUP)) {
		FUZZ_CHECK(i == 0);
		w = 0;
		FUZZ_CHECK(c->val == counts_word(x, w++));
		FUZZ_CHECK(c->ena == ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? counts_word(x, w++) : 0));
		FUZZ_CHECK(c->run == ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? counts_word(x, w++) : 0));
		FUZZ_CHECK(c->id == ((rf & PERF_FORMAT_ID) ? counts_word(x, w++) : 0));
		FUZZ_CHECK(c->lost == ((rf & PERF_FORMAT_LOST) ? counts_word(x, w++) : 0));
	} else {
		size_t hdr = 1, per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);

		w = 1;
		FUZZ_CHECK(c->ena == ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) ? counts_word(x, w++) : 0));
		FUZZ_CHECK(c->run == ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) ? counts_word(x, w++) : 0));
		hdr = w;
		w = hdr + (size_t)i * per;
		FUZZ_CHECK(c->val == counts_word(x, w++));
		FUZZ_CHECK(c->id == ((rf & PERF_FORMAT_ID) ? counts_word(x, w++) : 0));
		FUZZ_CHECK(c->lost == ((rf & PERF_FORMAT_LOST) ? counts_word(x, w++) : 0));
	}
	counts_check_scale(c);
}

static int fuzz_counts_one(const uint8_t *data, size_t size)
{
	struct counts_ctx x = { 0 };
	uint64_t rf, need;
	size_t len;
	int ret;

	if (size < sizeof(rf))
		return 0;
	memcpy(&rf, data, sizeof(rf));
	data += sizeof(rf);
	len = size - sizeof(rf);
	x.buf = data;
	x.nwords = len / sizeof(uint64_t);
	x.rf = rf;

	/* The layout, from the man page. */
	if (!(rf & PERF_FORMAT_GROUP)) {
		need = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING) + !!(rf & PERF_FORMAT_ID) +
		       !!(rf & PERF_FORMAT_LOST);
	} else {
		uint64_t hdr = 1 + !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
		uint64_t per = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
		uint64_t nr = x.nwords ? counts_word(&x, 0) : 0;

		/* nr * per may wrap: compare by division. */
		need = hdr;
		if (x.nwords < hdr || nr > (x.nwords - hdr) / per)
			need = UINT64_MAX;
		else
			need = hdr + nr * per;
	}

	ret = tally__parse_read(data, len, rf, counts_land, &x);
	if (len % sizeof(uint64_t) || need > x.nwords) {
		FUZZ_CHECK(ret == -EINVAL);
		FUZZ_CHECK(x.calls == 0);	/* nothing landed from a bad buffer */
		return 0;
	}
	FUZZ_CHECK(ret >= 0);
	FUZZ_CHECK(ret == x.calls);
	if (rf & PERF_FORMAT_GROUP)
		FUZZ_CHECK((uint64_t)ret == counts_word(&x, 0));
	else
		FUZZ_CHECK(ret == 1);
	/* Without a callback the answer is the same. */
	FUZZ_CHECK(tally__parse_read(data, len, rf, NULL, NULL) == ret);
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_counts_one(data, size);
}
#endif
