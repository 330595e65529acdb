// SPDX-License-Identifier: MIT
/*
 * tally_symbols' helper threads, each reading ahead what a lookup will
 * want: /proc/kallsyms (tally_symbols__preload_kernel), the ELF symbol
 * tables of the files a recording names (tally_symbols__preload_file)
 * and DWARF (tally_symbols__preload_dwarf). A lookup that gets there
 * first waits for, or takes over, the work.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <tally/data_write.h>
#include "internal.h"
#include "symbols_state.h"
#include "symcache.h"

/* kallsyms into k: the cache's key to store it under, or 0 (loaded, or none). */
static uint64_t kparse_read(struct kparse *k, const char *path)
{
	uint64_t key = strcmp(path, "/proc/kallsyms") ? 0 : tally__kcache_key();

	if (key && !tally__kcache_load(key, &k->img))
		return 0;
	k->err = tally__kallsyms_read(path, &k->img, &k->open_errno);
	return key && !k->err && k->img.nonzero ? key : 0;
}

void tally__kparse_run(struct kparse *k, const char *path)
{
	uint64_t key = kparse_read(k, path);

	if (key)
		(void)tally__kcache_store(key, &k->img);	/* no cache: read next time too */
}

/* What was read and not handed to a DSO. */
void tally__kparse_free(struct kparse *k)
{
	tally__kcache_image_free(&k->img);	/* its cache too, unless handed to the symbols */
	memset(k, 0, sizeof(*k));
}

/* The thread's k (joined), with what is left of it. */
void tally__kparse_destroy(struct kparse *k)
{
	if (!k)
		return;
	pthread_mutex_destroy(&k->mu);
	pthread_cond_destroy(&k->cv);
	tally__kparse_free(k);
	free(k);
}

/*
 * The cache is written after the reader is told the symbols are ready: a
 * first run's 30-50 ms of writing stay off its way. The reader takes the
 * symbol tables (moves them to DSOs) but frees nothing of k until it has
 * joined this thread (load_kallsyms, tally_symbols__close), and the
 * kernel's symbols are not written to once made; the store reads a copy of
 * the image whose msyms the reader does not clear.
 */
static void *kparse_thread(void *arg)
{
	struct tally_symbols *s = arg;
	struct kparse *k = s->kp;
	uint64_t key = kparse_read(k, s->kallsyms);
	struct tally__kimage snap = k->img;

	snap.kc = NULL;
	snap.msyms = NULL;
	if (key && k->img.nmods &&
	    (snap.msyms = malloc(k->img.nmods * sizeof(*snap.msyms))))
		memcpy(snap.msyms, k->img.msyms, k->img.nmods * sizeof(*snap.msyms));
	pthread_mutex_lock(&k->mu);
	k->ready = true;
	pthread_cond_signal(&k->cv);
	pthread_mutex_unlock(&k->mu);
	if (key && (snap.msyms || !snap.nmods))
		(void)tally__kcache_store(key, &snap);
	free(snap.msyms);
	return NULL;
}

/* The helper: opens each queued DSO's DWARF, until told to close. */
static void *dw_thread(void *arg)
{
	struct tally_symbols *s = arg;

	pthread_mutex_lock(&s->dw.mu);
	for (;;) {
		while (!s->dw.n && !s->dw.closing)
			pthread_cond_wait(&s->dw.cv, &s->dw.mu);
		if (s->dw.closing)
			break;
		struct tally_dso *d = s->dw.q[s->dw.head];

		s->dw.head = (s->dw.head + 1) % s->dw.cap;
		s->dw.n--;
		pthread_mutex_unlock(&s->dw.mu);
		tally__dso_dwarf_ready(d);
		pthread_mutex_lock(&s->dw.mu);
	}
	pthread_mutex_unlock(&s->dw.mu);
	return NULL;
}

int tally_symbols__preload_dwarf(struct tally_symbols *s, struct tally_dso *d)
{
	if (!s || !d)
		return tally__err(EINVAL);
	if (d->dw_queued || d->kind != DSO_ELF || !d->dwarf_path)
		return 0;	/* nothing to open, or already asked */
	d->dw_queued = true;
	if (!s->dw.running) {
		pthread_mutex_init(&s->dw.mu, NULL);
		pthread_cond_init(&s->dw.cv, NULL);
		if (pthread_create(&s->dw.thread, NULL, dw_thread, s)) {
			pthread_mutex_destroy(&s->dw.mu);
			pthread_cond_destroy(&s->dw.cv);
			return 0;	/* opened when first needed, then */
		}
		s->dw.running = true;
	}
	pthread_mutex_lock(&s->dw.mu);
	if (s->dw.n == s->dw.cap) {
		size_t cap = s->dw.cap ? s->dw.cap * 2 : 16;
		struct tally_dso **q = calloc(cap, sizeof(*q));

		if (!q) {
			pthread_mutex_unlock(&s->dw.mu);
			return 0;
		}
		for (size_t i = 0; i < s->dw.n; i++)
			q[i] = s->dw.q[(s->dw.head + i) % s->dw.cap];
		free(s->dw.q);
		s->dw.q = q;
		s->dw.head = 0;
		s->dw.cap = cap;
	}
	s->dw.q[(s->dw.head + s->dw.n++) % s->dw.cap] = d;
	pthread_cond_signal(&s->dw.cv);
	pthread_mutex_unlock(&s->dw.mu);
	return 0;
}

void tally__kallsyms_choose(struct tally_symbols *s)
{
	uint8_t rec[TALLY_BUILD_ID_MAX], run[TALLY_BUILD_ID_MAX];
	char hex[2 * TALLY_BUILD_ID_MAX + 1], *path;
	int nr, nn;

	if (s->ksrc_chosen)
		return;
	s->ksrc_chosen = true;
	if (s->kallsyms_given || !s->build_id || s->ignore_build_id ||
	    (nr = s->build_id(s->build_id_ctx, "[kernel.kallsyms]", rec, sizeof(rec))) <= 0)
		return;		/* perf's last resort too: the running kernel's */
	nn = tally_build_id__kernel(run, sizeof(run));
	if (nn == nr && !memcmp(rec, run, (size_t)nr))
		return;
	for (int i = 0; i < nr; i++)
		sprintf(hex + 2 * i, "%02x", rec[i]);
	if (asprintf(&path, "%s/[kernel.kallsyms]/%s/kallsyms", s->home_debug, hex) < 0)
		return;
	if (!access(path, R_OK)) {
		free(s->kallsyms);
		s->kallsyms = path;
		return;
	}
	free(path);
	if (asprintf(&s->kmismatch, "No kallsyms or vmlinux with build-id %s was found "
		     "(the recording's kernel is not the running one%s)", hex,
		     nn > 0 ? "" : ", whose build id is unreadable") < 0)
		s->kmismatch = NULL;
}

int tally_symbols__preload_kernel(struct tally_symbols *s)
{
	if (!s)
		return -EINVAL;
	if (s->kernel_loaded || s->kp)
		return 0;
	tally__kallsyms_choose(s);
	if (s->kmismatch)
		return 0;	/* nothing to read */
	if (!(s->kp = calloc(1, sizeof(*s->kp))))
		return -ENOMEM;
	pthread_mutex_init(&s->kp->mu, NULL);
	pthread_cond_init(&s->kp->cv, NULL);
	if (pthread_create(&s->kp_thread, NULL, kparse_thread, s)) {
		pthread_mutex_destroy(&s->kp->mu);
		pthread_cond_destroy(&s->kp->cv);
		free(s->kp);
		s->kp = NULL;
		return 0;	/* read when first needed, then */
	}
	s->kp_running = true;
	return 0;
}


bool tally_symbols__kernel_pending(struct tally_symbols *s)
{
	bool ready;

	if (!s || s->kernel_loaded || !s->kp || !s->kp_running)
		return false;
	pthread_mutex_lock(&s->kp->mu);
	ready = s->kp->ready;
	pthread_mutex_unlock(&s->kp->mu);
	return !ready;
}

/* ---- ELF symbol tables ahead ---- */

enum { AHEAD_NONE, AHEAD_QUEUED, AHEAD_LOADING, AHEAD_DONE };

/*
 * The next file the helper loads, moved to q[next]: the largest queued
 * one. A lookup loads a queued file itself rather than wait, so it waits
 * only for the file under way; the big tables (a compiler's: 50 ms) are
 * those worth starting first, the small ones the reader loads as it goes.
 */
static void ahead_pick(struct tally_symbols *s)
{
	size_t best = s->ahead.next;

	for (size_t i = s->ahead.next + 1; i < s->ahead.n; i++)
		if (s->ahead.q[i]->ahead == AHEAD_QUEUED &&
		    (s->ahead.q[best]->ahead != AHEAD_QUEUED ||
		     s->ahead.q[i]->ahead_size > s->ahead.q[best]->ahead_size))
			best = i;
	if (best != s->ahead.next) {
		struct tally_dso *t = s->ahead.q[best];

		s->ahead.q[best] = s->ahead.q[s->ahead.next];
		s->ahead.q[s->ahead.next] = t;
	}
}

/*
 * The helper: loads the queued files' tables, the largest first, each
 * unless a lookup took it first. Only the DSO is written to (the DSO
 * cache's table is the reader's), and tally__dso_load_elf reads nothing
 * else of the symbols than their constant options.
 */
static void *ahead_thread(void *arg)
{
	struct tally_symbols *s = arg;
	struct tally__symcache_later later = { 0 };

	pthread_mutex_lock(&s->ahead.mu);
	for (;;) {
		while (s->ahead.next == s->ahead.n && !s->ahead.closing)
			pthread_cond_wait(&s->ahead.cv, &s->ahead.mu);
		if (s->ahead.closing)
			break;
		ahead_pick(s);
		struct tally_dso *d = s->ahead.q[s->ahead.next++];

		if (d->ahead != AHEAD_QUEUED)
			continue;	/* a lookup took it */
		__atomic_store_n(&d->ahead, AHEAD_LOADING, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->ahead.mu);
		d->ahead_err = tally__dso_load_elf_later(d, &s->ctx,
							 d->load_id_sz ? d->load_id : NULL,
							 s->ignore_build_id ? 0 : d->load_id_sz,
							 &later);
		pthread_mutex_lock(&s->ahead.mu);
		__atomic_store_n(&d->ahead, AHEAD_DONE, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&s->ahead.cv);
		if (later.key) {	/* the cache's file once the reader may have d */
			pthread_mutex_unlock(&s->ahead.mu);
			tally__symcache_later_store(&later);
			pthread_mutex_lock(&s->ahead.mu);
		}
	}
	pthread_mutex_unlock(&s->ahead.mu);
	return NULL;
}

/* the helper, started on what is queued */
static int ahead_start(struct tally_symbols *s)
{
	pthread_mutex_init(&s->ahead.mu, NULL);
	pthread_cond_init(&s->ahead.cv, NULL);
	if (pthread_create(&s->ahead.thread, NULL, ahead_thread, s)) {
		pthread_mutex_destroy(&s->ahead.mu);
		pthread_cond_destroy(&s->ahead.cv);
		return -1;
	}
	s->ahead.running = true;
	return 0;
}

static int ahead_room(struct tally_symbols *s)
{
	if (s->ahead.n == s->ahead.cap) {
		size_t cap = s->ahead.cap ? s->ahead.cap * 2 : 32;
		struct tally_dso **q = realloc(s->ahead.q, cap * sizeof(*q));

		if (!q)
			return -1;
		s->ahead.q = q;
		s->ahead.cap = cap;
	}
	return 0;
}

void tally__symbols_ahead_hold(struct tally_symbols *s, bool hold)
{
	if (!s || s->ahead.held == hold)
		return;
	s->ahead.held = hold;
	if (hold || s->ahead.running || s->ahead.next == s->ahead.n || !ahead_start(s))
		return;
	/* no helper: the queued stay as they were, loaded by their lookups */
	for (size_t i = s->ahead.next; i < s->ahead.n; i++)
		s->ahead.q[i]->ahead = AHEAD_NONE;
	s->ahead.next = s->ahead.n = 0;
}

int tally__ahead_queue(struct tally_symbols *s, struct tally_dso *d)
{
	if (s->ahead.held && !s->ahead.running) {	/* the helper starts at the release */
		if (ahead_room(s))
			return 1;
		d->ahead = AHEAD_QUEUED;
		s->ahead.q[s->ahead.n++] = d;
		return 0;
	}
	if (!s->ahead.running && ahead_start(s))
		return 1;	/* the caller loads it, then */
	pthread_mutex_lock(&s->ahead.mu);
	if (ahead_room(s)) {
		pthread_mutex_unlock(&s->ahead.mu);
		return 1;
	}
	__atomic_store_n(&d->ahead, AHEAD_QUEUED, __ATOMIC_RELEASE);
	s->ahead.q[s->ahead.n++] = d;
	pthread_cond_broadcast(&s->ahead.cv);
	pthread_mutex_unlock(&s->ahead.mu);
	return 0;
}

int tally__ahead_take(struct tally_symbols *s, struct tally_dso *d)
{
	int ret = 1;

	if (!s->ahead.running) {	/* stopped: what it had not started is the caller's */
		ret = d->ahead == AHEAD_DONE ? d->ahead_err : 1;
		d->ahead = AHEAD_NONE;
		return ret;
	}
	pthread_mutex_lock(&s->ahead.mu);
	while (d->ahead == AHEAD_LOADING)
		pthread_cond_wait(&s->ahead.cv, &s->ahead.mu);
	if (d->ahead == AHEAD_DONE)
		ret = d->ahead_err;
	__atomic_store_n(&d->ahead, AHEAD_NONE, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&s->ahead.mu);
	return ret;
}

void tally__ahead_stop(struct tally_symbols *s)
{
	if (!s->ahead.running)
		return;
	pthread_mutex_lock(&s->ahead.mu);
	s->ahead.closing = true;
	pthread_cond_broadcast(&s->ahead.cv);
	pthread_mutex_unlock(&s->ahead.mu);
	pthread_join(s->ahead.thread, NULL);
	pthread_mutex_destroy(&s->ahead.mu);
	pthread_cond_destroy(&s->ahead.cv);
	s->ahead.running = s->ahead.closing = false;
	/* those not begun stay queued in their state (their lookups load them): a trim may drop them */
	s->ahead.next = s->ahead.n = 0;
}

void tally__dw_stop(struct tally_symbols *s)
{
	if (!s->dw.running)
		return;
	pthread_mutex_lock(&s->dw.mu);
	s->dw.closing = true;
	pthread_cond_signal(&s->dw.cv);
	pthread_mutex_unlock(&s->dw.mu);
	pthread_join(s->dw.thread, NULL);
	pthread_mutex_destroy(&s->dw.mu);
	pthread_cond_destroy(&s->dw.cv);
	s->dw.running = false;
}
