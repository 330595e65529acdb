/* SPDX-License-Identifier: MIT */
/*
 * A sample decoded the short way, for the layouts most files have: the
 * fixed-size fields up to PERIOD, then CALLCHAIN, RAW and BRANCH_STACK,
 * then the u64 fields after them (WEIGHT ... CODE_PAGE_SIZE), nothing
 * else (tracepoint recordings, plain profiles with or without -g, memory
 * and branch samples: c2c's, mem's, record -b's). The same result as
 * tally_record__parse's u.sample, and the same refusals, for a fraction
 * of its work: only the layout's fields are written, into a sample the
 * caller zeroed once and keeps for that layout (the fields it lacks stay
 * zero). Internal to the library.
 */
#ifndef TALLY_SAMPLE_RECORD_FAST_H
#define TALLY_SAMPLE_RECORD_FAST_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <tally/record.h>

/* The sample_type bits the short way decodes. */
#define TALLY_SAMPLE_FAST_BITS                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |          \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |           \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | TALLY_SAMPLE_FAST_MORE)
/* those after RAW: a branch stack, then u64s */
#define TALLY_SAMPLE_FAST_MORE                                                                  \
	(PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT |            \
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR |                \
	 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE)

/* Whether lay's samples can be decoded the short way. */
static inline bool tally__sample_fast_ok(const struct tally_record_layout *lay)
{
	/* the parser refuses WEIGHT with WEIGHT_STRUCT: left to it */
	return !(lay->sample_type & ~(uint64_t)TALLY_SAMPLE_FAST_BITS) &&
	       (~lay->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT));
}

/* A layout's short way: its sample, zeroed once, and what the decoder needs of the layout. */
struct tally_sample_fast {
	struct tally_sample s;
	uint64_t st;			/* sample_type */
	size_t fixed;			/* the bytes of the fields before CALLCHAIN and RAW */
	size_t tail;			/* those of the u64s after BRANCH_STACK */
	bool hw_idx;			/* the branch stack has its hw_idx */
};

/* f made for lay, one tally__sample_fast_ok took. */
void tally__sample_fast_init(struct tally_sample_fast *f, const struct tally_record_layout *lay);

/*
 * The SAMPLE record h (h->size bytes) into f->s, whose fields outside the
 * layout stay as they are. 0, or -EBADMSG where tally_record__parse
 * refuses the record (f->s then partly written).
 */
int tally__sample_fast(struct tally_sample_fast *f, const struct perf_event_header *h);

#endif
