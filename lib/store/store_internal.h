/* SPDX-License-Identifier: MIT */
/* The store's insides, shared by its files (store.c, batch.c and the reader's). */
#ifndef TALLY_STORE_INTERNAL_H
#define TALLY_STORE_INTERNAL_H

#include <tally/store.h>
#include "buf.h"
#include "http.h"

struct tally_store {
	char *base;			/* http://HOST:PORT/ */
	char *extra;			/* the URL's other query parameters ("" none) */
	char db[128];
	char *user, *password;
	int timeout_ms;
	struct tally__http *http;
	struct tally__buf ans;		/* the last answer */
	char err[512];
};

/* s's TSV field escape, as ClickHouse's TabSeparated reads it. */
void tally__tsv_str(struct tally__buf *b, const char *s);
/* s as a quoted string inside an Array field of a TSV row. */
void tally__tsv_arr_str(struct tally__buf *b, const char *s);

#endif
