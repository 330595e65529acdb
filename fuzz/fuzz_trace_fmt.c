// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the tracing data of a perf.data file
 * (lib/trace_fmt.c, libtraceevent behind it): the input is a whole file,
 * read through tally_data_reader__open_mem. Its TRACING_DATA's formats
 * are parsed (and checked: lib/trace_fmt_check.c), then every tracepoint
 * sample's RAW data is printed as `script -F trace` and report's trace
 * key print it. Nothing may crash or read outside the input; each print
 * fits its buffer, NUL included; each damaged format has a name and why.
 *
 *   make -f fuzz/Makefile && ASAN_OPTIONS=detect_leaks=0 \
 *       fuzz/out/fuzz_trace_fmt -detect_leaks=0 fuzz/corpus/trace_fmt
 * (libtraceevent 1.7 leaks tokens on the error paths of a bad format.)
 * Replayed by `make test` (tests/unit/test_fuzz_replay_engine.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <tally/data_read.h>
#include <tally/record.h>
#include <tally/trace_fmt.h>

#include "fuzz_check.h"

static unsigned long tf_parsed, tf_damaged, tf_printed, tf_refused;

struct tf_ctx {
	struct tally_data_reader *r;
	struct tally_trace_fmt *tf;
};

static int tf_record(void *ctx, const struct perf_event_header *h, uint64_t off, int idx)
{
	struct tf_ctx *c = ctx;
	const struct perf_event_attr *a;
	struct tally_record_layout lay;
	struct tally_record rec;
	char buf[256];
	uint64_t id;
	int n;

	if (h->type != PERF_RECORD_SAMPLE || tally_data_reader__nr_attrs(c->r) < 1)
		return 0;
	if (idx < 0) {	/* as the session finds it */
		tally_record_layout__from_attr(&lay, tally_data_reader__attr(c->r, 0));
		idx = tally_data_reader__nr_attrs(c->r) == 1 ||
		      tally_record__id(h, h->size, &lay, &id) ? 0 :
		      tally_data_reader__attr_of_id(c->r, id);
		if (idx < 0)
			idx = 0;
	}
	a = tally_data_reader__attr(c->r, idx);
	if (!a || a->type != PERF_TYPE_TRACEPOINT || !(a->sample_type & PERF_SAMPLE_RAW))
		return 0;
	tally_record_layout__from_attr(&lay, a);
	if (tally_record__parse(h, h->size, &lay, &rec) || !rec.u.sample.raw.size)
		return 0;
	/* a small buffer: long texts are cut, never overrun */
	memset(buf, 'x', sizeof(buf));
	n = tally_trace_fmt__print(c->tf, rec.u.sample.raw.data, rec.u.sample.raw.size, buf,
				   sizeof(buf));
	if (n >= 0) {
		FUZZ_CHECK(memchr(buf, 0, sizeof(buf)) != NULL);
		FUZZ_CHECK((size_t)n >= strlen(buf));
		tf_printed++;
	} else {
		FUZZ_CHECK(n == -ENOENT || n == -EBADMSG || n == -ENOMEM);
		tf_refused++;
	}
	return 0;
}

static int fuzz_trace_fmt_one(const uint8_t *data, size_t size)
{
	struct tf_ctx c = { tally_data_reader__open_mem(data, size), NULL };
	const char *ev, *why;
	const void *td;
	size_t tdlen;
	int i;

	if (!c.r)
		return 0;
	if (!tally_data_reader__feature(c.r, 1, &td, &tdlen))	/* HEADER_TRACING_DATA */
		c.tf = tally_trace_fmt__new(td, tdlen);
	if (c.tf) {
		tf_parsed++;
		for (i = 0; tally_trace_fmt__damaged(c.tf, i, &ev, &why) >= 0; i++) {
			FUZZ_CHECK(ev && strchr(ev, ':') && why && why[0]);
			tf_damaged++;
		}
		FUZZ_CHECK(tally_trace_fmt__damaged(c.tf, i, NULL, NULL) == -ENOENT);
		tally_data_reader__foreach(c.r, tf_record, &c);
	}
	tally_trace_fmt__free(c.tf);
	tally_data_reader__close(c.r);
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_trace_fmt_one(data, size);
}
#endif
