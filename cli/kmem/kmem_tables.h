/* SPDX-License-Identifier: MIT */
/*
 * kmem stat's tables: open addressing by a u64 key (a slab pointer, a
 * call site, a page), large ones in huge pages.
 */
#ifndef TALLY_KMEM_TABLES_H
#define TALLY_KMEM_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An open-addressing table of u64 keys (a slab pointer, a page). */
struct slot {
	uint64_t key;
	uint64_t bytes;			/* slab: the last allocation's bytes; page: unused */
	int cpu;			/* slab: where it was allocated (-1: freed) */
	/* slab, per pointer and per call site (perf's alloc_stat) */
	uint64_t call_site, bytes_req, bytes_alloc;
	unsigned long hit, pingpong;
	char *name;			/* a call site's "sym+off" (NULL: none) */
	unsigned order, gfp;		/* page: as its first allocation said */
	int migrate;
	bool used, live;		/* live: page allocated, not yet freed */
};
struct table {
	struct slot *s;
	size_t cap, nr;
};

/*
 * A pointer's state when no --alloc table is printed: what its free needs
 * (a third of a slot's size: a busy machine's pointers are looked up at
 * random, a cache miss each, and fewer misses where the table is small).
 */
struct ptr_slot {
	uint64_t key, call_site;
	uint64_t bytes;			/* its last allocation's */
	short cpu;			/* where it was allocated (-1: freed) */
	bool used;
};
struct ptr_table {
	struct ptr_slot *s;
	size_t cap, nr;
};

/* where key's probe starts in a table of cap slots (a power of 2) */
static inline size_t kmem_slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

/*
 * The slot of key among cap slots of size bytes at slots (each a u64 key
 * first, its bool "used" at used), or NULL. Inline: a sample's lookup or
 * two, the sizes constants there.
 */
static inline void *kmem_slot_find(void *slots, size_t cap, size_t size, size_t used, uint64_t key)
{
	if (!cap)
		return NULL;
	for (size_t i = kmem_slot_of(key, cap);; i = (i + 1) & (cap - 1)) {
		char *sl = (char *)slots + i * size;

		if (!sl[used])
			return NULL;
		if (*(const uint64_t *)(const void *)sl == key)
			return sl;
	}
}

/* kmem_slot_find's slot, made (zeroed, key set) when new: *made says so. NULL without memory. */
void *kmem_slot_get(void **slots, size_t *cap, size_t *nr, size_t size, size_t used, uint64_t key,
		    bool *made);

static inline struct slot *kmem_table_find(struct table *t, uint64_t key)
{
	return kmem_slot_find(t->s, t->cap, sizeof(*t->s), offsetof(struct slot, used), key);
}

static inline struct slot *kmem_table_get(struct table *t, uint64_t key, bool *made)
{
	return kmem_slot_get((void **)&t->s, &t->cap, &t->nr, sizeof(*t->s),
			     offsetof(struct slot, used), key, made);
}

/* A pointer's state, or NULL. */
static inline struct ptr_slot *kmem_ptr_find(struct ptr_table *t, uint64_t key)
{
	return kmem_slot_find(t->s, t->cap, sizeof(*t->s), offsetof(struct ptr_slot, used), key);
}

static inline struct ptr_slot *kmem_ptr_get(struct ptr_table *t, uint64_t key)
{
	bool made;

	return kmem_slot_get((void **)&t->s, &t->cap, &t->nr, sizeof(*t->s),
			     offsetof(struct ptr_slot, used), key, &made);
}

#endif
