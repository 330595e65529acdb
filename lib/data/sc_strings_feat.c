// SPDX-License-Identifier: MIT
/*
 * tally trace record's path strings in a perf.data file: a feature
 * section of tally's own (TALLY_HEADER_SC_STRINGS, bit 192), which perf
 * 6.1 skips (its reader handles the bits below its HEADER_LAST_FEATURE
 * only). Each entry is keyed by what a reader matches it on: the thread,
 * the syscall, the argument and the time of the call's sample.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <tally/data_read.h>
#include "data_read_internal.h"
#include "data_reader.h"
#include "internal.h"
#include "sc_strings_feat.h"

#define ENTRY_HEAD	24	/* time, tid, nr, arg, len */

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static bool arg_ok(uint32_t arg)
{
	return (arg & ~TALLY_SC_STRING_AT_EXIT) < 6;
}

int tally__sc_string_put(struct tally__buf *b, const struct tally_sc_string *s)
{
	size_t n;

	if (!s || !s->str || !arg_ok(s->arg))
		return -EINVAL;
	n = strlen(s->str) + 1;
	if (n > TALLY__SC_STRING_MAX)
		return -EINVAL;
	tally__buf_u64(b, s->time);
	tally__buf_u32(b, s->tid);
	tally__buf_u32(b, s->nr);
	tally__buf_u32(b, s->arg);
	tally__buf_u32(b, (uint32_t)n);
	tally__buf_add(b, s->str, n);
	tally__buf_zero(b, pad8(n) - n);
	return 0;
}

/* Entry k at off, or why it is not one: 0, or -EBADMSG with msg. */
static int entry(const unsigned char *p, size_t len, size_t off, uint32_t k,
		 struct tally_sc_string *e, size_t *next, char *msg, size_t mlen)
{
	uint32_t n;

	if (len - off < ENTRY_HEAD) {
		snprintf(msg, mlen, "string %u of the count is missing (the section ends)", k + 1);
		return -EBADMSG;
	}
	memcpy(&e->time, p + off, 8);
	memcpy(&e->tid, p + off + 8, 4);
	memcpy(&e->nr, p + off + 12, 4);
	memcpy(&e->arg, p + off + 16, 4);
	memcpy(&n, p + off + 20, 4);
	if (!arg_ok(e->arg)) {
		snprintf(msg, mlen, "string %u names argument %#x (0 to 5, 0x100 at exit)", k + 1,
			 e->arg);
		return -EBADMSG;
	}
	if (!n || n > TALLY__SC_STRING_MAX || pad8(n) > len - off - ENTRY_HEAD) {
		snprintf(msg, mlen, "string %u is %u bytes long: %s", k + 1, n,
			 !n || n > TALLY__SC_STRING_MAX ? "1 to 4096 are" :
			 "past the section's end");
		return -EBADMSG;
	}
	e->str = (const char *)p + off + ENTRY_HEAD;
	if (memchr(e->str, 0, n) != e->str + n - 1) {
		snprintf(msg, mlen, "string %u does not end at its length", k + 1);
		return -EBADMSG;
	}
	*next = off + ENTRY_HEAD + pad8(n);
	return 0;
}

int tally__sc_strings_walk(const void *buf, size_t len, tally_sc_string_fn fn, void *ctx,
			   size_t *bad, char *msg, size_t mlen)
{
	const unsigned char *p = buf;
	uint32_t ver, count;
	size_t off = 8;

	*bad = 0;
	if (len < 8) {
		snprintf(msg, mlen, "%zu bytes: too short for its version and count", len);
		return -EBADMSG;
	}
	memcpy(&ver, p, 4);
	memcpy(&count, p + 4, 4);
	if (ver != TALLY__SC_STRINGS_VERSION) {
		snprintf(msg, mlen, "version %u (this tally reads %u)", ver,
			 TALLY__SC_STRINGS_VERSION);
		return -EBADMSG;
	}
	if (count > (len - 8) / (ENTRY_HEAD + 8)) {
		snprintf(msg, mlen, "%u strings cannot fit in its %zu bytes", count, len);
		*bad = 4;
		return -EBADMSG;
	}
	/* checked whole first: a damaged section gives nothing, not a part */
	for (uint32_t k = 0; k < count; k++) {
		struct tally_sc_string e;

		if (entry(p, len, off, k, &e, &off, msg, mlen)) {
			*bad = off;
			return -EBADMSG;
		}
	}
	if (off != len) {
		snprintf(msg, mlen, "%zu bytes after its %u strings", len - off, count);
		*bad = off;
		return -EBADMSG;
	}
	off = 8;
	for (uint32_t k = 0; fn && k < count; k++) {
		struct tally_sc_string e;
		int ret;

		entry(p, len, off, k, &e, &off, msg, mlen);
		if ((ret = fn(ctx, &e)))
			return ret;
	}
	return (int)count;
}

int tally_data_reader__sc_strings(const struct tally_data_reader *r, tally_sc_string_fn fn,
				  void *ctx, struct tally_data_error *err)
{
	const void *p;
	size_t len, bad;
	struct tally_data_error e = { .err = -EBADMSG };
	char why[88];
	int ret;

	if (err)
		memset(err, 0, sizeof(*err));
	if (!r)
		return tally__err(EINVAL);
	if (tally_data_reader__feature(r, TALLY_HEADER_SC_STRINGS, &p, &len)) {
		struct tally_data_file_info fi;

		/* the bit set, its section not in the file: cut short */
		if (tally_data_reader__file_info(r, &fi) ||
		    !(fi.features[TALLY_HEADER_SC_STRINGS / 64] >> (TALLY_HEADER_SC_STRINGS % 64) & 1))
			return tally__err(ENOENT);
		e.offset = fi.feat_offset;
		snprintf(e.msg, sizeof(e.msg), "the path strings' section lies past the end of "
			 "the file (%llu bytes): truncated", (unsigned long long)fi.file_size);
		goto bad;
	}
	ret = tally__sc_strings_walk(p, len, fn, ctx, &bad, why, sizeof(why));
	if (ret != -EBADMSG)
		return ret;
	{
		const void *raw;
		size_t rlen;

		/* where in the file: the section's own offset (a swapped file's copy is not) */
		if (!r->pipe && !tally__data_raw_feature(r, TALLY_HEADER_SC_STRINGS, &raw, &rlen))
			e.offset = (uint64_t)((const unsigned char *)raw - r->buf) + bad;
	}
	snprintf(e.msg, sizeof(e.msg), "the path strings' section is damaged: %.88s", why);
bad:
	if (err)
		*err = e;
	return tally__err(EBADMSG);
}
