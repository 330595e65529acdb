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

/* The key's slot, or NULL (inline: a sample's lookup or two) */
static inline struct slot *kmem_table_find(struct table *t, uint64_t key)
{
	if (!t->cap)
		return NULL;
	for (size_t i = kmem_slot_of(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (!t->s[i].used)
			return NULL;
		if (t->s[i].key == key)
			return &t->s[i];
	}
}

/* The key's slot, made (zeroed) when new: *made says so. NULL without memory. */
struct slot *kmem_table_get(struct table *t, uint64_t key, bool *made);
/* A pointer's state, or NULL. */
static inline struct ptr_slot *kmem_ptr_find(struct ptr_table *t, uint64_t key)
{
	if (!t->cap)
		return NULL;
	for (size_t i = kmem_slot_of(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
		if (!t->s[i].used)
			return NULL;
		if (t->s[i].key == key)
			return &t->s[i];
	}
}

/* kmem_table_get's for a pointer's state: its slot, made when new; NULL without memory. */
struct ptr_slot *kmem_ptr_get(struct ptr_table *t, uint64_t key);

#endif
