// SPDX-License-Identifier: MIT
/* libzstd behind tally__zstd_*: see zstd_wrap.h. */
#include <errno.h>
#include <stdlib.h>
#include <zstd.h>
#include "internal.h"
#include "zstd_wrap.h"

struct tally__zstd {
	ZSTD_CStream *c;
	ZSTD_DStream *d;
};

struct tally__zstd *tally__zstd_new(int level)
{
	struct tally__zstd *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	if (level > 0) {
		z->c = ZSTD_createCStream();
		if (!z->c || ZSTD_isError(ZSTD_initCStream(z->c, level)))
			goto fail;
	} else {
		z->d = ZSTD_createDStream();
		if (!z->d || ZSTD_isError(ZSTD_initDStream(z->d)))
			goto fail;
	}
	return z;
fail:
	tally__zstd_free(z);
	errno = ENOMEM;
	return NULL;
}

void tally__zstd_free(struct tally__zstd *z)
{
	if (!z)
		return;
	ZSTD_freeCStream(z->c);
	ZSTD_freeDStream(z->d);
	free(z);
}

size_t tally__zstd_bound(size_t n)
{
	return ZSTD_compressBound(n);
}

ssize_t tally__zstd_compress(struct tally__zstd *z, const void *src, size_t n,
			     void *dst, size_t cap)
{
	ZSTD_inBuffer in = { src, n, 0 };
	ZSTD_outBuffer out = { dst, cap, 0 };
	size_t ret;

	if (!z || !z->c)
		return tally__err(EINVAL);
	/* one frame per record, as perf writes them: the reader needs no history */
	while (in.pos < in.size) {
		ret = ZSTD_compressStream(z->c, &out, &in);
		if (ZSTD_isError(ret))
			return tally__err(EIO);
		if (out.pos == out.size && in.pos < in.size)
			return tally__err(ENOSPC);
	}
	do {
		ret = ZSTD_endStream(z->c, &out);
		if (ZSTD_isError(ret))
			return tally__err(EIO);
		if (ret && out.pos == out.size)
			return tally__err(ENOSPC);
	} while (ret);
	return (ssize_t)out.pos;
}

ssize_t tally__zstd_decompress(struct tally__zstd *z, const void *src, size_t n,
			       void *dst, size_t cap)
{
	ZSTD_inBuffer in = { src, n, 0 };
	ZSTD_outBuffer out = { dst, cap, 0 };
	size_t ret;

	if (!z || !z->d)
		return tally__err(EINVAL);
	while (in.pos < in.size) {
		ret = ZSTD_decompressStream(z->d, &out, &in);
		if (ZSTD_isError(ret)) {
			ZSTD_initDStream(z->d);	/* the next record starts clean */
			return tally__err(EBADMSG);
		}
		if (out.pos == out.size && in.pos < in.size)
			return tally__err(ENOSPC);
	}
	return (ssize_t)out.pos;
}
