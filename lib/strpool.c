// SPDX-License-Identifier: MIT
/* The interning string set (strpool.h): open addressing on FNV-1a, at
 * most half full. */
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "strpool.h"

const char *tally__strpool_add(struct tally__strpool *p, const char *s)
{
	if ((p->nr + 1) * 2 > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		char **n = tally__calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t i = 0; i < p->cap; i++) {
			if (!p->slot[i])
				continue;
			size_t h = tally__fnv_str(TALLY__FNV_BASIS, p->slot[i]) & (cap - 1);

			while (n[h])
				h = (h + 1) & (cap - 1);
			n[h] = p->slot[i];
		}
		free(p->slot);
		p->slot = n;
		p->cap = cap;
	}
	size_t h = tally__fnv_str(TALLY__FNV_BASIS, s) & (p->cap - 1);

	for (; p->slot[h]; h = (h + 1) & (p->cap - 1))
		if (!strcmp(p->slot[h], s))
			return p->slot[h];
	p->slot[h] = strdup(s);
	if (p->slot[h])
		p->nr++;
	return p->slot[h];
}

void tally__strpool_free(struct tally__strpool *p)
{
	for (size_t i = 0; i < p->cap; i++)
		free(p->slot[i]);
	free(p->slot);
	memset(p, 0, sizeof(*p));
}
