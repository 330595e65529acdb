/* SPDX-License-Identifier: MIT */
/*
 * The one wrapper around libzstd: streaming contexts for perf.data's
 * COMPRESSED records (writer compresses, reader decompresses). Internal.
 */
#ifndef TALLY_ZSTD_WRAP_H
#define TALLY_ZSTD_WRAP_H

#include <stddef.h>
#include <sys/types.h>

struct tally__zstd;

/* level 1..22 compresses; 0 makes a decompress-only context. NULL: errno. */
struct tally__zstd *tally__zstd_new(int level);
void tally__zstd_free(struct tally__zstd *z);
/* One whole zstd frame of src into dst; bytes written or -errno (-ENOSPC). */
ssize_t tally__zstd_compress(struct tally__zstd *z, const void *src, size_t n,
			     void *dst, size_t cap);
/*
 * Decompress one COMPRESSED record's payload (perf: a stream that goes on
 * across records); bytes written or -errno (-EBADMSG on corrupt input).
 */
ssize_t tally__zstd_decompress(struct tally__zstd *z, const void *src, size_t n,
			       void *dst, size_t cap);
/* Worst-case compressed size of n bytes. */
size_t tally__zstd_bound(size_t n);

#endif
