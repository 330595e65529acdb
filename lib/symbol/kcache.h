/* SPDX-License-Identifier: MIT */
/* kcache.c: /proc/kallsyms parsed once per boot, kept on disk. */
#ifndef TALLY_KCACHE_H
#define TALLY_KCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/symbols.h>

/* kallsyms split as symbols.c uses it: the kernel's, then each module's. */
struct tally__kimage {
	uint64_t text;			/* _text */
	bool nonzero;			/* addresses visible (kptr_restrict) */
	struct tally_symbol *ksyms;
	size_t nk;
	size_t nmods;
	char **mnames;			/* "ext4", without brackets */
	struct tally_symbol **msyms;
	size_t *nm;
	/* From the cache: every name points into this one block (else NULL,
	 * each name its own allocation). */
	char *names;
};

/* This boot's key, or 0 when there is none (or TALLY_KALLSYMS_CACHE=0). */
uint64_t tally__kcache_key(void);
/* 0 and k filled (owned by the caller), or -errno: read kallsyms then. */
int tally__kcache_load(uint64_t key, struct tally__kimage *k);
/* Writes k (not taken) for key; atomic, the file private to the user. */
int tally__kcache_store(uint64_t key, const struct tally__kimage *k);
void tally__kcache_image_free(struct tally__kimage *k);

#endif
