/* SPDX-License-Identifier: MIT */
/* debugcache.c: debug files kept with their DWARF decompressed. */
#ifndef TALLY_DEBUGCACHE_H
#define TALLY_DEBUGCACHE_H

/*
 * The path of an uncompressed copy of the debug file at path (made now
 * if missing), to open instead of it; NULL when path needs none (nothing
 * compressed, no build id, dwz), the cache is off or cannot be written.
 * The caller frees it.
 */
char *tally__debugcache_path(const char *path);

#endif
