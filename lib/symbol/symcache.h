/* SPDX-License-Identifier: MIT */
/* symcache.c: a DSO's final symbol table, kept on disk per file. */
#ifndef TALLY_SYMCACHE_H
#define TALLY_SYMCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tally_dso;

/* Tables of fewer symbols load from ELF as fast as from a file: not kept. */
#define TALLY_SYMCACHE_MIN	1000

/* false under TALLY_SYMTAB_CACHE=0 */
bool tally__symcache_on(void);
/*
 * 0 and d's table, tree, names, symsrc, dwarf_path, PLT range and status
 * as the load that wrote key's file left them; -errno (a miss: load from
 * ELF) when there is none or it fails any check.
 */
int tally__symcache_load(const void *key, size_t klen, struct tally_dso *d);
/* Writes d's table (just loaded, names still in its pool) for key; atomic. */
int tally__symcache_store(const void *key, size_t klen, const struct tally_dso *d);

/*
 * A table's file written later, on the thread that loaded it, once the
 * reader has the DSO (a first run's demangling of every name, 30 ms of a
 * compiler's, and the writing were on the reader's way): what the file
 * keeps, copied. The tree is the DSO's own, only read by both; it is
 * freed only once the loading thread has stopped (a trim, the close).
 */
struct tally__symcache_later {
	char *key;
	size_t klen;
	struct tally_dso *copy;		/* its table, names (in its own pool), symsrc, PLT, status */
	bool demangle;			/* its names as loaded: demangled at the store */
};

/* 0 and l holding key (taken) and a copy of d's table; -ENOMEM and l empty. */
int tally__symcache_later_take(struct tally__symcache_later *l, char *key, size_t klen,
			       const struct tally_dso *d);
/* Writes what l holds (if anything), then empties it. */
void tally__symcache_later_store(struct tally__symcache_later *l);

#endif
