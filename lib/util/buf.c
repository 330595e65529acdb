// SPDX-License-Identifier: MIT
/* A growing byte buffer (buf.h). */
#include <stdlib.h>
#include <string.h>
#include "buf.h"

void tally__buf_add(struct tally__buf *b, const void *d, size_t n)
{
	if (b->oom || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		void *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

void tally__buf_zero(struct tally__buf *b, size_t n)
{
	tally__buf_add(b, NULL, n);
}

void tally__buf_u32(struct tally__buf *b, uint32_t v)
{
	tally__buf_add(b, &v, 4);
}

void tally__buf_u64(struct tally__buf *b, uint64_t v)
{
	tally__buf_add(b, &v, 8);
}

void tally__buf_str(struct tally__buf *b, const char *s)
{
	size_t n = strlen(s) + 1, len = (n + 63) & ~(size_t)63;

	tally__buf_u32(b, (uint32_t)len);
	tally__buf_add(b, s, n);
	tally__buf_zero(b, len - n);
}

void tally__buf_free(struct tally__buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
