// SPDX-License-Identifier: MIT
/* libcurl, loaded on first use: see http.h for why. */
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http.h"

/* The calls we make, looked up once. */
static struct {
	CURLcode (*global_init)(long);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	void (*easy_cleanup)(CURL *);
	void (*easy_reset)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	char *(*easy_escape)(CURL *, const char *, int);
	void (*free)(void *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
} curl;
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static char curl_err[200];

static void curl_load(void)
{
	static const char *const names[] = { "libcurl.so.4", "libcurl-gnutls.so.4", "libcurl-nss.so.4" };
	void *lib = NULL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !lib; i++)
		lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(curl_err, sizeof(curl_err),
			 "libcurl.so.4 cannot be loaded (%s): install libcurl4 (make deps)", dlerror());
		return;
	}
#define SYM(f, n) (*(void **)&curl.f = dlsym(lib, n))
	if (!SYM(global_init, "curl_global_init") || !SYM(easy_init, "curl_easy_init") ||
	    !SYM(easy_setopt, "curl_easy_setopt") || !SYM(easy_perform, "curl_easy_perform") ||
	    !SYM(easy_getinfo, "curl_easy_getinfo") || !SYM(easy_cleanup, "curl_easy_cleanup") ||
	    !SYM(easy_reset, "curl_easy_reset") || !SYM(easy_strerror, "curl_easy_strerror") ||
	    !SYM(easy_escape, "curl_easy_escape") || !SYM(free, "curl_free") ||
	    !SYM(slist_append, "curl_slist_append") || !SYM(slist_free_all, "curl_slist_free_all")) {
		snprintf(curl_err, sizeof(curl_err), "libcurl.so.4 lacks %s", dlerror());
		curl.easy_init = NULL;
		return;
	}
#undef SYM
	/* no signals: a timeout must not SIGALRM the agent's threads */
	if (curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(curl_err, sizeof(curl_err), "libcurl's global init failed");
		curl.easy_init = NULL;
	}
}

struct tally__http {
	CURL *c;
};

struct tally__http *tally__http_new(char *err, size_t n)
{
	struct tally__http *h;

	pthread_once(&curl_once, curl_load);
	if (!curl.easy_init) {
		snprintf(err, n, "%s", curl_err);
		errno = ENOSYS;
		return NULL;
	}
	if (!(h = calloc(1, sizeof(*h))) || !(h->c = curl.easy_init())) {
		free(h);
		snprintf(err, n, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	return h;
}

void tally__http_free(struct tally__http *h)
{
	if (!h)
		return;
	curl.easy_cleanup(h->c);
	free(h);
}

char *tally__http_escape(struct tally__http *h, const char *s)
{
	char *e = curl.easy_escape(h->c, s, (int)strlen(s)), *r;

	if (!e)
		return NULL;
	r = strdup(e);
	curl.free(e);
	return r;
}

static size_t on_data(char *p, size_t size, size_t nmemb, void *ctx)
{
	struct tally__buf *b = ctx;

	tally__buf_add(b, p, size * nmemb);
	return b->oom ? 0 : size * nmemb;
}

int tally__http_post(struct tally__http *h, const struct tally__http_req *r, struct tally__buf *out,
		     long *status, char *err, size_t n)
{
	char ebuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *hdr = NULL;
	CURLcode rc;
	CURL *c = h->c;

	out->len = 0;
	*status = 0;
	curl.easy_reset(c);	/* the connection stays for the next request */
	curl.easy_setopt(c, CURLOPT_URL, r->url);
	curl.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl.easy_setopt(c, CURLOPT_POST, 1L);
	curl.easy_setopt(c, CURLOPT_POSTFIELDS, r->body ? (const char *)r->body : "");
	curl.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(r->body ? r->len : 0));
	/* no "Expect: 100-continue" round trip before a big batch */
	hdr = curl.slist_append(NULL, "Expect:");
	curl.easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl.easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(r->timeout_ms > 0 ? r->timeout_ms : 10000));
	curl.easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, (long)(r->timeout_ms > 0 && r->timeout_ms < 5000 ?
								 r->timeout_ms : 5000));
	curl.easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
	curl.easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl.easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
	if (r->user) {
		curl.easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl.easy_setopt(c, CURLOPT_USERNAME, r->user);
		curl.easy_setopt(c, CURLOPT_PASSWORD, r->password ? r->password : "");
	}
	rc = curl.easy_perform(c);
	curl.easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl.slist_free_all(hdr);
	if (out->oom) {
		snprintf(err, n, "out of memory reading the answer");
		return -ENOMEM;
	}
	if (rc != CURLE_OK) {
		snprintf(err, n, "%s", ebuf[0] ? ebuf : curl.easy_strerror(rc));
		switch (rc) {
		case CURLE_COULDNT_CONNECT:
			return -ECONNREFUSED;
		case CURLE_OPERATION_TIMEDOUT:
			return -ETIMEDOUT;
		case CURLE_COULDNT_RESOLVE_HOST:
		case CURLE_COULDNT_RESOLVE_PROXY:
			return -EHOSTUNREACH;
		case CURLE_OUT_OF_MEMORY:
			return -ENOMEM;
		default:
			return -EIO;
		}
	}
	curl.easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	return 0;
}
