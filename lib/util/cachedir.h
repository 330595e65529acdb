/* SPDX-License-Identifier: MIT */
/* cachedir.c: where tally keeps what it can rebuild ($XDG_CACHE_HOME/tally). */
#ifndef TALLY_CACHEDIR_H
#define TALLY_CACHEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * buf = $XDG_CACHE_HOME/tally/NAME (else ~/.cache/tally/NAME); with
 * create, the directories are made (0700). 0 or -errno.
 */
int tally__cache_path(char *buf, size_t len, const char *name, bool create);
/*
 * Open a cache file for reading, only if it is a regular file of this
 * user's (another's could name symbols wrongly). Its fd, its size in
 * *size; -errno (-EPERM: not ours).
 */
int tally__cache_open(const char *path, size_t *size);

/* The cache's size limit: TALLY_CACHE_MAX (bytes, or with K, M or G), else this. */
#define TALLY_CACHE_MAX_DEFAULT (1ull << 30)
uint64_t tally__cache_max(void);
/*
 * Called after a cache file is written (keep, its path): removes the
 * files of retired formats and writers' leftovers, and when the cache
 * holds more than tally__cache_max(), the least recently used files
 * (atime or mtime) down to three quarters of it. 0 or -errno.
 */
int tally__cache_trim(const char *keep);

#endif
