// SPDX-License-Identifier: MIT
/*
 * The profile's own data, for the reader's files above it: its strings
 * (one copy each), its arrays' growth, its stacks by id.
 */
#include <errno.h>
#include <stdlib.h>
#include "read_internal.h"

const char *tally__profile_str(struct tally_store_profile *p, const char *s)
{
	return tally__strpool_add(&p->pool, s ? s : "");
}

int tally__profile_grow(void **v, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap * 2 : 256;
	void *nv;

	while (n < need)
		n *= 2;
	if (!(nv = realloc(*v, n * size)))
		return -ENOMEM;
	*v = nv;
	*cap = n;
	return 0;
}

static int cmp_stack(const void *a, const void *b)
{
	uint64_t x = ((const struct store_stack *)a)->id, y = ((const struct store_stack *)b)->id;

	return x < y ? -1 : x > y;
}

void tally__profile_sort_stacks(struct tally_store_profile *p)
{
	qsort(p->stacks, p->nstacks, sizeof(*p->stacks), cmp_stack);
}

const struct store_stack *tally__profile_stack(const struct tally_store_profile *p, uint64_t id)
{
	struct store_stack key = { .id = id };

	return bsearch(&key, p->stacks, p->nstacks, sizeof(key), cmp_stack);
}
