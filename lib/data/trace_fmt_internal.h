/* SPDX-License-Identifier: MIT */
/* What trace_fields.c reads of trace_fmt.c's libtraceevent handle. */
#ifndef TALLY_TRACE_FMT_INTERNAL_H
#define TALLY_TRACE_FMT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <event-parse.h>
#include <tally/trace_fmt.h>

/* f's libtraceevent handle (the formats parsed). */
struct tep_handle *tally__trace_fmt_tep(struct tally_trace_fmt *f);
/* The event of rec (its common_type), every field checked inside it: 0, -ENOENT, -EBADMSG. */
int tally__trace_event_of(struct tally_trace_fmt *f, struct tep_record *rec, struct tep_event **evp);
/* Every field of ev inside raw[len], a dynamic one's data too. */
bool tally__trace_fields_inside(struct tep_event *ev, const unsigned char *raw, size_t len);
/* The size bytes at p (1, 2, 4 or 8; else 0), unsigned, in the host's order. */
static inline uint64_t tally__trace_field_val_at(const unsigned char *p, long size)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	case 8: memcpy(&u64, p, 8); return u64;
	default: return 0;
	}
}

/*
 * An integer field's bytes, unsigned, as perf reads them (0 past 8 bytes);
 * inline: read for every field of every sample.
 */
static inline uint64_t tally__trace_field_val(const struct tep_format_field *fl,
					      const unsigned char *raw)
{
	return tally__trace_field_val_at(raw + fl->offset, fl->size);
}

#endif
