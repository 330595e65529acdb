/* SPDX-License-Identifier: MIT */
/* An interning set of strings: equal strings share one copy, so callers
 * compare pointers. Freed with the pool; not locked. */
#ifndef TALLY_STRPOOL_H
#define TALLY_STRPOOL_H

#include <stddef.h>

struct tally__strpool {
	char **slot;
	size_t nr, cap;
};
/* s's copy in p (made on first sight); NULL on ENOMEM. */
const char *tally__strpool_add(struct tally__strpool *p, const char *s);
void tally__strpool_free(struct tally__strpool *p);

#endif
