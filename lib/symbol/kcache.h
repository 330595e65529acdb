/* SPDX-License-Identifier: MIT */
/* kcache.c: /proc/kallsyms parsed once per boot, kept on disk. */
#ifndef TALLY_KCACHE_H
#define TALLY_KCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/symbols.h>

/*
 * The cache opened: each DSO's symbols stay in the file, read where a
 * lookup lands (an index of every 64th start kept in memory), so a report
 * reads a few hundred of kallsyms' 120k symbols, not all (copied out,
 * they were a third of a small report's time and 8 MB; mapped, the page
 * cache's 2 MB folios put the whole file in the report's memory).
 */
struct tally__kcache;
struct tally__kcdso;

/* kallsyms split as symbols.c uses it: the kernel's, then each module's. */
struct tally__kimage {
	uint64_t text;			/* _text */
	bool nonzero;			/* addresses visible (kptr_restrict) */
	size_t nk;
	size_t nmods;
	char **mnames;			/* "ext4", without brackets */
	size_t *nm;
	/*
	 * read from kallsyms: tables of their own, their names in one pool
	 * each (kpool, mpools[i]: kplen, mplen[i] bytes); a DSO given a
	 * table takes its pool too
	 */
	struct tally_symbol *ksyms;
	struct tally_symbol **msyms;
	char *kpool, **mpools;
	size_t kplen, *mplen;
	/* from the cache: DSO i (0 the kernel, i + 1 module i) tally__kcache_dso */
	struct tally__kcache *kc;
};

/* This boot's key, or 0 when there is none (or TALLY_KALLSYMS_CACHE=0). */
uint64_t tally__kcache_key(void);
/* 0 and k filled (owned by the caller, k->kc open), or -errno: read kallsyms then. */
int tally__kcache_load(uint64_t key, struct tally__kimage *k);
/*
 * kallsyms at path parsed (perf's split into the kernel and its modules):
 * 0 and k filled, with *open_errno set if it could not be opened; or
 * -errno, k empty.
 */
int tally__kallsyms_read(const char *path, struct tally__kimage *k, int *open_errno);
/* Writes k (not taken) for key; atomic, the file private to the user. */
int tally__kcache_store(uint64_t key, const struct tally__kimage *k);
/* Frees k, the cache too unless k->kc was taken (set to NULL). */
void tally__kcache_image_free(struct tally__kimage *k);
void tally__kcache_close(struct tally__kcache *c);
struct tally__kcdso *tally__kcache_dso(struct tally__kcache *c, size_t i);
/*
 * The symbol holding addr (tally__syms_find's rule), read at its first
 * lookup and kept as long as the cache; NULL if none. Only the blocks a
 * lookup reads are checked: a damaged one has kallsyms read again for
 * every lookup after, and the file rewritten.
 */
const struct tally_symbol *tally__kcache_symbol(struct tally__kcdso *d, uint64_t addr);

/*
 * The caches' checksum (symcache.c's too) of n bytes, fed in pieces whose
 * sizes are multiples of 32 but the last.
 */
struct tally__sum {
	uint64_t a[4], b[4], n;
};
void tally__sum_init(struct tally__sum *s, size_t n);
void tally__sum_add(struct tally__sum *s, const unsigned char *p, size_t n);
uint64_t tally__sum_end(const struct tally__sum *s);
/* The checksum of a's na bytes (a multiple of 32), then b's. */
uint64_t tally__kcache_sum(const void *a, size_t na, const void *b, size_t nb);

#endif
