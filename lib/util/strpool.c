// SPDX-License-Identifier: MIT
/* The interning string set (strpool.h; tally/hash.h outside the library):
 * open addressing on FNV-1a, at most half full. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "strpool.h"

const char *tally__strpool_add(struct tally__strpool *p, const char *s)
{
	if ((p->nr + 1) * 2 > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		char **n = tally__calloc(cap, sizeof(*n));

		if (!n)
			return NULL;
		for (size_t i = 0; i < p->cap; i++) {
			if (!p->slot[i])
				continue;
			size_t h = tally_fnv_str(TALLY_FNV_BASIS, p->slot[i]) & (cap - 1);

			while (n[h])
				h = (h + 1) & (cap - 1);
			n[h] = p->slot[i];
		}
		free(p->slot);
		p->slot = n;
		p->cap = cap;
	}
	size_t h = tally_fnv_str(TALLY_FNV_BASIS, s) & (p->cap - 1);

	for (; p->slot[h]; h = (h + 1) & (p->cap - 1))
		if (!strcmp(p->slot[h], s))
			return p->slot[h];
	p->slot[h] = strdup(s);
	if (p->slot[h])
		p->nr++;
	return p->slot[h];
}

void tally__strpool_free(struct tally__strpool *p)
{
	for (size_t i = 0; i < p->cap; i++)
		free(p->slot[i]);
	free(p->slot);
	memset(p, 0, sizeof(*p));
}

/* The public face (tally/hash.h): the same set, behind a pointer. */
struct tally_strpool {
	struct tally__strpool p;
};

struct tally_strpool *tally_strpool__new(void)
{
	return tally__calloc(1, sizeof(struct tally_strpool));
}

const char *tally_strpool__add(struct tally_strpool *p, const char *s)
{
	if (!p || !s)
		return tally__err_ptr(EINVAL);
	return tally__strpool_add(&p->p, s);
}

void tally_strpool__free(struct tally_strpool *p)
{
	if (!p)
		return;
	tally__strpool_free(&p->p);
	free(p);
}

/* The interned strings: one pool for the process, never freed. */
static struct tally__strpool intern_pool;
static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;

const char *tally__intern(const char *s)
{
	const char *it;

	if (!s)
		return tally__err_ptr(EINVAL);
	pthread_mutex_lock(&intern_lock);
	it = tally__strpool_add(&intern_pool, s);
	pthread_mutex_unlock(&intern_lock);
	return it ? it : tally__err_ptr(ENOMEM);
}
