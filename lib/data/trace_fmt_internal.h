/* SPDX-License-Identifier: MIT */
/* What trace_fields.c reads of trace_fmt.c's libtraceevent handle. */
#ifndef TALLY_TRACE_FMT_INTERNAL_H
#define TALLY_TRACE_FMT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <event-parse.h>
#include <tally/trace_fmt.h>

/* f's libtraceevent handle (the formats parsed). */
struct tep_handle *tally__trace_fmt_tep(struct tally_trace_fmt *f);
/* The event of rec (its common_type), every field checked inside it: 0, -ENOENT, -EBADMSG. */
int tally__trace_event_of(struct tally_trace_fmt *f, struct tep_record *rec, struct tep_event **evp);
/* Every field of ev inside raw[len], a dynamic one's data too. */
bool tally__trace_fields_inside(struct tep_event *ev, const unsigned char *raw, size_t len);
/* An integer field's bytes, unsigned, as perf reads them (0 past 8 bytes). */
uint64_t tally__trace_field_val(const struct tep_format_field *fl, const unsigned char *raw);

#endif
