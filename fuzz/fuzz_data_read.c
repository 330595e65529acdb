// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the perf.data reader (lib/data_read.c): the input
 * is a whole file, read through tally_data_reader__open_mem. Every
 * delivered record must lie inside the input; a stop must leave an error
 * whose offset is inside the input too.
 *
 *   make -f fuzz/Makefile && fuzz/out/fuzz_data_read fuzz/corpus/data_read
 * Replayed by `make test` (tests/unit/test_fuzz_replay_engine.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/data_read.h>

#include "fuzz_check.h"

static unsigned long dr_files_opened, dr_records_seen, dr_errors_seen;

struct dr_ctx { size_t size; };

static int dr_record(void *ctx, const struct perf_event_header *h,
		     uint64_t off, int idx)
{
	const struct dr_ctx *c = ctx;

	FUZZ_CHECK(h->size >= sizeof(*h));
	/* records out of a COMPRESSED one carry its offset and may be larger */
	FUZZ_CHECK(off < c->size);
	dr_records_seen++;
	return 0;
}

/* tally trace record's path strings: each whole, of an argument 0-5 */
static int dr_sc_string(void *ctx, const struct tally_sc_string *s)
{
	(void)ctx;
	FUZZ_CHECK((s->arg & ~TALLY_SC_STRING_AT_EXIT) < 6);
	FUZZ_CHECK(strlen(s->str) < 4096);
	return 0;
}

static int fuzz_data_read_one(const uint8_t *data, size_t size)
{
	struct tally_data_reader *r = tally_data_reader__open_mem(data, size);
	const struct tally_data_error *e;
	struct dr_ctx c = { size };
	int ret;

	if (!r)
		return 0;
	dr_files_opened++;
	for (int i = 0; i < tally_data_reader__nr_attrs(r); i++) {
		FUZZ_CHECK(tally_data_reader__attr(r, i) != NULL);
		/* EVENT_DESC's name, else the one perf derives from the attr */
		FUZZ_CHECK(tally_data_reader__event_name(r, i) != NULL);
	}
	{
		struct tally_data_error se;

		ret = tally_data_reader__sc_strings(r, dr_sc_string, NULL, &se);
		FUZZ_CHECK(ret >= 0 || ret == -ENOENT || ret == -ENOMEM ||
			   (ret == -EBADMSG && se.offset <= size && se.msg[0]));
	}
	ret = tally_data_reader__foreach(r, dr_record, &c);
	e = tally_data_reader__error(r);
	FUZZ_CHECK((ret != 0) == (e != NULL) || ret == -ENOMEM);
	if (e) {
		FUZZ_CHECK(e->offset <= size || e->err == -ENODATA);
		dr_errors_seen++;
	}
	tally_data_reader__close(r);
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_data_read_one(data, size);
}
#endif
