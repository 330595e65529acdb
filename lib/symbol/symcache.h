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

#endif
