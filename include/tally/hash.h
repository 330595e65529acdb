/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.3: the hashing and interning that tally's tables use, for
 * callers who key their own tables by the library's strings.
 *
 *	struct tally_strpool *p = tally_strpool__new();
 *	const char *a = tally_strpool__add(p, "main");
 *	a == tally_strpool__add(p, "main");	// equal strings, one copy
 *	uint64_t h = tally_hash_mix(tally_fnv_str(TALLY_FNV_BASIS, a));
 *	tally_strpool__free(p);
 */
#ifndef TALLY_HASH_H
#define TALLY_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TALLY_FNV_BASIS 0xcbf29ce484222325ull

/* FNV-1a over n bytes, from h (TALLY_FNV_BASIS to start). */
static inline uint64_t tally_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = (const unsigned char *)p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ull;
	return h;
}

/* FNV-1a over a string, from h; NULL hashes as "". */
static inline uint64_t tally_fnv_str(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* Spreads a key's bits (murmur3's finalizer, first half): for keys that
 * are pointers, addresses or FNV sums of short strings. */
static inline uint64_t tally_hash_mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* An interning set of strings: equal strings share one copy, which lives
 * until the pool is deleted, so callers compare pointers. Not locked. */
struct tally_strpool;

/* NULL + errno (ENOMEM) on error. */
TALLY_API struct tally_strpool *tally_strpool__new(void);
/* s's copy in p, made on first sight; NULL + errno (EINVAL, ENOMEM) on error. */
TALLY_API const char *tally_strpool__add(struct tally_strpool *p, const char *s);
/* Frees every copy; NULL is fine. */
TALLY_API void tally_strpool__free(struct tally_strpool *p);

#ifdef __cplusplus
}
#endif

#endif
