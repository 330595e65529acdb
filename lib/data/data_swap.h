/* SPDX-License-Identifier: MIT */
/*
 * A perf.data written in the other byte order, brought to the host's
 * piece by piece as the reader meets it: each field by its own width,
 * by the layout its record type and attr give (not a blanket u64 pass,
 * which scrambles u32 pairs and strings).
 */
#ifndef TALLY_DATA_SWAP_H
#define TALLY_DATA_SWAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* The first size bytes of an attr, in place; the flag bits mirrored per byte. */
void tally__swap_attr(void *attr, size_t size);

/* A record's header, in place. */
void tally__swap_header(struct perf_event_header *h);

/*
 * The id a foreign SAMPLE carries (where first's layout puts it), in
 * host order; false when the record has none.
 */
bool tally__swap_sample_id(const void *rec, size_t size, const struct perf_event_attr *first,
			   uint64_t *id);

/*
 * A record whose header is already swapped, in place: sample is the
 * attr of a SAMPLE, trailer the attr giving the sample_id_all layout
 * of the others (NULL: none). Fields running past the record are left.
 */
void tally__swap_record(void *rec, const struct perf_event_attr *sample,
			const struct perf_event_attr *trailer);

/*
 * A feature section of a known layout, in place (strings, counts,
 * EVENT_DESC's attrs, build ids). Returns false for one whose layout
 * tally does not read (left as it is: only its presence is used).
 */
bool tally__swap_feature(int feat, void *p, size_t len);

#endif
