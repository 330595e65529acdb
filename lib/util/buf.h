/* SPDX-License-Identifier: MIT */
/* A growing byte buffer: the perf.data writer's features, synthesized
 * records and tracing data are built in one. */
#ifndef TALLY_BUF_H
#define TALLY_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* oom sticks, checked once at the end. */
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

#endif
