/* SPDX-License-Identifier: MIT */
/* cachedir.c: where tally keeps what it can rebuild ($XDG_CACHE_HOME/tally). */
#ifndef TALLY_CACHEDIR_H
#define TALLY_CACHEDIR_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
