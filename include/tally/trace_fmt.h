/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.2: tracepoint fields of a perf.data file, printed as perf
 * script prints them: the file's TRACING_DATA feature (event formats)
 * parsed with libtraceevent, then each sample's RAW data through the
 * event's print format.
 */
#ifndef TALLY_TRACE_FMT_H
#define TALLY_TRACE_FMT_H

#include <stddef.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_trace_fmt;

/* NULL with errno (EBADMSG: not tracing data perf or tally wrote). */
TALLY_API struct tally_trace_fmt *tally_trace_fmt__new(const void *tracing_data, size_t len);
TALLY_API void tally_trace_fmt__free(struct tally_trace_fmt *f);
/*
 * The fields of one sample's RAW data, perf script's text (libtraceevent's
 * INFO), into buf: its length, or -ENOENT (no format for the event id in
 * the data), -errno.
 */
TALLY_API int tally_trace_fmt__print(struct tally_trace_fmt *f, const void *raw, size_t len,
				     char *buf, size_t buflen);

#ifdef __cplusplus
}
#endif

#endif
