// SPDX-License-Identifier: MIT
/*
 * tally top's reader (see top.h): a thread keeps the rings drained into a
 * backlog of raw records whatever the screen waits for (a prompt, the
 * help, a refresh drawing thousands of rows), and hands the backlog to
 * the session whenever the session's lock is free; the screen takes what
 * is left before each refresh. The rings only lose what the kernel could
 * not write, as perf top's do.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include "top.h"

/* what a backlog may hold while the session is busy: past it the kernel loses (and says) */
#define BACKLOG_MAX	(512u << 20)

static int append(void *ctx, const struct iovec *iov, int n, int ring)
{
	struct top_reader *r = ctx;
	size_t add = 0;

	for (int i = 0; i < n; i++)
		add += iov[i].iov_len;
	if (r->len + add > r->cap) {
		size_t cap = r->cap ? r->cap : 1u << 20;
		unsigned char *nb;

		while (cap < r->len + add)
			cap *= 2;
		if (cap > BACKLOG_MAX || !(nb = realloc(r->buf, cap)))
			return -ENOMEM;	/* left in the ring for a later pass */
		r->buf = nb;
		r->cap = cap;
	}
	for (int i = 0; i < n; i++) {
		memcpy(r->buf + r->len, iov[i].iov_base, iov[i].iov_len);
		r->len += iov[i].iov_len;
	}
	return 0;
}

int top_reader_take(struct top_reader *r)
{
	unsigned char *b;
	size_t len, cap;
	int err;

	/* the reader fills the spare meanwhile (takes are one at a time: under mu) */
	pthread_mutex_lock(&r->bl_mu);
	b = r->buf;
	len = r->len;
	cap = r->cap;
	r->buf = r->spare;
	r->cap = r->spare_cap;
	r->len = 0;
	r->spare = NULL;
	pthread_mutex_unlock(&r->bl_mu);
	err = len ? tally_session__feed(r->ss, b, len) : 0;
	pthread_mutex_lock(&r->bl_mu);
	r->spare = b;	/* the next swap's buffer, its memory kept */
	r->spare_cap = cap;
	pthread_mutex_unlock(&r->bl_mu);
	return err ? err : __atomic_load_n(&r->err, __ATOMIC_ACQUIRE);
}

static void *reader_main(void *arg)
{
	struct top_reader *r = arg;

	for (bool done = false; !done && !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE);) {
		int n = tally_evlist__poll(r->l, 100), rc;

		if (n < 0 && n != -EINTR) {
			__atomic_store_n(&r->err, n, __ATOMIC_RELEASE);
			break;
		}
		/* one pass over every ring, whole: a round of the session */
		pthread_mutex_lock(&r->bl_mu);
		rc = tally_evlist__drain(r->l, NULL, append, r);
		pthread_mutex_unlock(&r->bl_mu);
		if (rc < 0 && rc != -ENOMEM) {
			__atomic_store_n(&r->err, rc, __ATOMIC_RELEASE);
			break;
		}
		/* every ring hung up (the targets exited): nothing more will come */
		done = n > 0 && tally_evlist__prune_hup(r->l) == 0;
		if (!pthread_mutex_trylock(r->mu)) {
			int err = top_reader_take(r);

			pthread_mutex_unlock(r->mu);
			if (err)
				__atomic_store_n(&r->err, err, __ATOMIC_RELEASE);
		}
	}
	return NULL;
}

int top_reader_start(struct top_reader *r, struct tally_evlist *l, struct tally_session *ss,
		     pthread_mutex_t *mu)
{
	sigset_t all, old;
	int err;

	memset(r, 0, sizeof(*r));
	r->l = l;
	r->ss = ss;
	r->mu = mu;
	pthread_mutex_init(&r->bl_mu, NULL);
	/* the signals stay the main thread's: its waits end on them */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&r->th, NULL, reader_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	r->running = true;
	return 0;
}

void top_reader_stop(struct top_reader *r)
{
	if (!r->running)
		return;
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	pthread_join(r->th, NULL);
	r->running = false;
	pthread_mutex_lock(r->mu);
	top_reader_take(r);	/* what it read last (--stdio after a failed terminal goes on) */
	pthread_mutex_unlock(r->mu);
	free(r->buf);
	free(r->spare);
	r->buf = r->spare = NULL;
	pthread_mutex_destroy(&r->bl_mu);
}
