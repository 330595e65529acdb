/* SPDX-License-Identifier: MIT */
/*
 * libcurl behind one small module: a POST and its answer. libcurl is
 * loaded on first use (dlopen), not linked: it brings 32 shared
 * libraries whose loading took 9-12 ms here, four times the whole of
 * `tally stat -- true`, and only the agent and report --from need it.
 */
#ifndef TALLY_STORE_HTTP_H
#define TALLY_STORE_HTTP_H

#include <stddef.h>
#include "buf.h"

struct tally__http;

/* NULL + errno: ENOSYS (no libcurl.so.4: why in err), ENOMEM. */
struct tally__http *tally__http_new(char *err, size_t n);
void tally__http_free(struct tally__http *h);
/* s %-escaped for a URL's query (malloc'd), NULL without memory. */
char *tally__http_escape(struct tally__http *h, const char *s);

struct tally__http_req {
	const char *url;
	const char *user, *password;	/* basic auth; NULL: none */
	const void *body;
	size_t len;
	int timeout_ms;
};

/*
 * POST it; the answer's body in out (reset first), its status in
 * *status. 0 (any status: the caller reads it); -ECONNREFUSED,
 * -ETIMEDOUT, -EHOSTUNREACH, -EIO (no answer: curl's words in err);
 * -ENOMEM.
 */
int tally__http_post(struct tally__http *h, const struct tally__http_req *r, struct tally__buf *out,
		     long *status, char *err, size_t n);

#endif
