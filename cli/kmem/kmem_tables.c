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

struct slot *kmem_table_get(struct table *t, uint64_t key, bool *made)
{
	struct slot *sl = kmem_table_find(t, key);

	*made = false;
	if (sl)
		return sl;
	if ((t->nr + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		struct slot *n = slots_new(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t i = 0; i < t->cap; i++) {
			size_t j;

			if (!t->s[i].used)
				continue;
			for (j = kmem_slot_of(t->s[i].key, cap); n[j].used; j = (j + 1) & (cap - 1))
				;
			n[j] = t->s[i];
		}
		free(t->s);
		t->s = n;
		t->cap = cap;
	}
	for (size_t i = kmem_slot_of(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (t->s[i].used)
			continue;
		t->s[i] = (struct slot){ .key = key, .used = true };
		t->nr++;
		*made = true;
		return &t->s[i];
	}
}

struct ptr_slot *kmem_ptr_get(struct ptr_table *t, uint64_t key)
{
	struct ptr_slot *sl = kmem_ptr_find(t, key);

	if (sl)
		return sl;
	if ((t->nr + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		struct ptr_slot *n = slots_new(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t i = 0; i < t->cap; i++) {
			size_t j;

			if (!t->s[i].used)
				continue;
			for (j = kmem_slot_of(t->s[i].key, cap); n[j].used; j = (j + 1) & (cap - 1))
				;
			n[j] = t->s[i];
		}
		free(t->s);
		t->s = n;
		t->cap = cap;
	}
	for (size_t i = kmem_slot_of(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (t->s[i].used)
			continue;
		t->s[i] = (struct ptr_slot){ .key = key, .used = true };
		t->nr++;
		return &t->s[i];
	}
}
