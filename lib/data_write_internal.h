/* SPDX-License-Identifier: MIT */
/* Shared by the perf.data writer's modules: data_write.c (the file),
 * synth.c (synthesized records), tracing_data.c, build_id.c. */
#ifndef TALLY_DATA_WRITE_INTERNAL_H
#define TALLY_DATA_WRITE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <tally/data_format.h>

/* A growing byte buffer; oom sticks, checked once at the end. */
struct tally__buf {
	unsigned char *p;
	size_t len, cap;
	bool oom;
};

void tally__buf_add(struct tally__buf *b, const void *d, size_t n);
void tally__buf_zero(struct tally__buf *b, size_t n);
void tally__buf_u32(struct tally__buf *b, uint32_t v);
void tally__buf_u64(struct tally__buf *b, uint64_t v);
/* perf_header_string: u32 len (NUL and padding to 64 included) + bytes. */
void tally__buf_str(struct tally__buf *b, const char *s);
void tally__buf_free(struct tally__buf *b);

/* Bytes of the sample_id_all trailer attr gives (0 when NULL / none). */
size_t tally__sid_size(const struct perf_event_attr *attr);
/* Append that trailer: pid/tid when PERF_SAMPLE_TID, the rest 0. */
void tally__sid_add(struct tally__buf *b, const struct perf_event_attr *attr,
		    uint32_t pid, uint32_t tid);

/* The TRACING_DATA blob for the tracepoint attrs among attrs[nr]. */
int tally__tracing_data(struct tally__buf *b, const struct perf_event_attr *const *attrs,
			size_t nr);

#endif
