/* SPDX-License-Identifier: MIT */
/*
 * HEADER_SC_STRINGS (tally/data_format.h has its layout): the entries a
 * writer appends, and the checked walk a reader makes. Pure: (buf, len).
 */
#ifndef TALLY_SC_STRINGS_FEAT_H
#define TALLY_SC_STRINGS_FEAT_H

#include <stddef.h>
#include <tally/data_read.h>
#include "buf.h"

#define TALLY__SC_STRINGS_VERSION	1
#define TALLY__SC_STRING_MAX		4096	/* bytes with the NUL */

/* One entry appended to b: 0, or -EINVAL (arg past 5, flags unknown, no or too long a string). */
int tally__sc_string_put(struct tally__buf *b, const struct tally_sc_string *s);
/*
 * The section p[len], checked whole first; then each entry to fn (when
 * not NULL). The count, or -EBADMSG: *bad the section offset of the bad
 * part, msg why; or fn's non-zero return.
 */
int tally__sc_strings_walk(const void *p, size_t len, tally_sc_string_fn fn, void *ctx,
			   size_t *bad, char *msg, size_t mlen);

#endif
