// SPDX-License-Identifier: MIT
/* kmem stat's tables (kmem_tables.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "kmem_tables.h"

/*
 * cap zeroed slots. A large table in huge pages where the kernel gives
 * them: a busy machine's pointers (88K in 3 s) made 23 MB of slots, whose
 * page faults and TLB misses (every lookup a random one) were a third of
 * kmem stat's time in 4 KiB pages.
 */
#define HUGE_PAGE (2u << 20)
static void *slots_new(size_t cap, size_t size)
{
	size_t bytes = cap * size;
	void *n;

	if (bytes < HUGE_PAGE)
		return calloc(cap, size);
	bytes = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
	if (!(n = aligned_alloc(HUGE_PAGE, bytes)))
		return NULL;
	madvise(n, bytes, MADV_HUGEPAGE);	/* advice: refused, 4 KiB pages */
	memset(n, 0, bytes);
	return n;
}

void *kmem_slot_get(void **slots, size_t *cap, size_t *nr, size_t size, size_t used, uint64_t key,
		    bool *made)
{
	char *sl = kmem_slot_find(*slots, *cap, size, used, key);

	*made = false;
	if (sl)
		return sl;
	if ((*nr + 1) * 2 > *cap) {
		size_t ncap = *cap ? *cap * 2 : 4096;
		char *n = slots_new(ncap, size);

		if (!n)
			return NULL;
		for (size_t i = 0; i < *cap; i++) {
			const char *o = (const char *)*slots + i * size;
			size_t j;

			if (!o[used])
				continue;
			for (j = kmem_slot_of(*(const uint64_t *)(const void *)o, ncap); n[j * size + used];
			     j = (j + 1) & (ncap - 1))
				;
			memcpy(n + j * size, o, size);
		}
		free(*slots);
		*slots = n;
		*cap = ncap;
	}
	for (size_t i = kmem_slot_of(key, *cap);; i = (i + 1) & (*cap - 1)) {
		sl = (char *)*slots + i * size;
		if (sl[used])
			continue;
		memset(sl, 0, size);
		memcpy(sl, &key, sizeof(key));
		sl[used] = true;
		++*nr;
		*made = true;
		return sl;
	}
}
