// SPDX-License-Identifier: MIT
/* Records in time order: see ordered.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ordered.h"

/*
 * Copies of queued records, packed in chunks of 1 MiB instead of one
 * malloc each; a chunk goes when its last record is released.
 */
#define CHUNK_SIZE (1u << 20)
struct ordered_chunk {
	size_t used, live;
	_Alignas(8) unsigned char data[];
};

static struct perf_event_header *chunk_copy(struct tally_ordered *o,
					    const struct perf_event_header *h,
					    struct ordered_chunk **where)
{
	size_t need = (h->size + 7u) & ~7u;
	struct ordered_chunk *c = o->chunk;
	void *p;

	if (!c || c->used + need > CHUNK_SIZE) {
		if (c && !c->live) {
			c->used = 0;	/* all released: fill it again */
		} else {
			/* a released chunk is used again: fresh pages cost a fault each */
			c = o->spare ? o->spare : malloc(sizeof(*c) + CHUNK_SIZE);
			o->spare = NULL;
			if (!c)
				return NULL;
			c->used = c->live = 0;
			o->chunk = c;
		}
	}
	p = c->data + c->used;
	c->used += need;
	c->live++;
	memcpy(p, h, h->size);
	*where = c;
	return p;
}

static void chunk_release(struct tally_ordered *o, struct ordered_chunk *c)
{
	if (!c || --c->live || c == o->chunk)	/* NULL: a record the caller keeps */
		return;
	if (!o->spare)
		o->spare = c;
	else
		free(c);
}

void tally__ordered_release(struct tally_ordered *o, const struct ordered_event *e, size_t n)
{
	for (size_t i = 0; i < n; i++)
		chunk_release(o, e[i].c);
}

bool tally__ordered_span(const struct ordered_event *e, size_t n, const unsigned char **lo,
			 const unsigned char **hi)
{
	const unsigned char *l = NULL, *r = NULL;

	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)e[i].h;

		if (e[i].c)
			continue;	/* a copy, in a chunk */
		if (!l || p < l)
			l = p;
		if (!r || p + e[i].h->size > r)
			r = p + e[i].h->size;
	}
	*lo = l;
	*hi = r;
	return l != NULL;
}

int tally__ordered_queue(struct tally_ordered *o, uint64_t t, int attr,
			 const struct perf_event_header *h, bool copy)
{
	struct ordered_event *e;

	if (o->q != o->base && (size_t)(o->q - o->base) + o->nq == o->cap) {
		/* the delivered records' room at the front, taken back */
		memmove(o->base, o->q, o->nq * sizeof(*o->q));
		o->q = o->base;
	}
	if (o->nq == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 4096;
		struct ordered_event *q = realloc(o->base, cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		o->q = o->base = q;
		q = realloc(o->tmp, cap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		o->tmp = q;
		o->cap = cap;
	}
	tally__ordered_seen(o, t);
	/* a record with no time (0: LOST_SAMPLES at the end) has no place to be late for */
	if (t && t < o->last_flush)
		o->late++;	/* delivered at the next flush, after newer ones */
	if (o->nq && t < o->q[o->nq - 1].time) {
		o->unsorted = true;
		if (o->nr_desc < TALLY_ORDERED_RUNS)
			o->desc[o->nr_desc] = (uint32_t)o->nq;
		o->nr_desc++;
	}
	e = &o->q[o->nq];
	*e = (struct ordered_event){ .time = t, .attr = attr, .size = h->size };
	if (copy)
		e->h = chunk_copy(o, h, &e->c);
	else
		e->h = (struct perf_event_header *)h;
	if (!e->h)
		return -ENOMEM;
	o->nq++;
	return 0;
}

/* The sort's result is a: q's array, or tmp's, which becomes q's. */
static void sorted_into(struct tally_ordered *o, struct ordered_event *a)
{
	if (a == o->q)
		return;
	/* in the other array, from its start: the two swap */
	o->tmp = o->base ? o->base : o->q;
	o->q = o->base = a;
}

/*
 * Stable LSD radix sort on time, over the bits the queue's times differ
 * in (a round spans milliseconds: two or three passes of 11 bits).
 */
static void radix_sort(struct tally_ordered *o)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	struct ordered_event *a = o->q, *b = o->tmp;

	for (size_t i = 0; i < o->nq; i++) {
		if (a[i].time < lo)
			lo = a[i].time;
		if (a[i].time > hi)
			hi = a[i].time;
	}
	for (unsigned shift = 0; shift < 64 && (hi - lo) >> shift; shift += 11) {
		size_t count[2048] = { 0 }, sum = 0;

		for (size_t i = 0; i < o->nq; i++)
			count[((a[i].time - lo) >> shift) & 2047]++;
		for (size_t k = 0; k < 2048; k++) {
			size_t c = count[k];

			count[k] = sum;
			sum += c;
		}
		for (size_t i = 0; i < o->nq; i++)
			b[count[((a[i].time - lo) >> shift) & 2047]++] = a[i];
		struct ordered_event *t = a;

		a = b;
		b = t;
	}
	sorted_into(o, a);
}

#define MAX_RUNS TALLY_ORDERED_RUNS

/*
 * Merge the queue's nr ascending runs (their starts in run[0..nr), run[nr]
 * the end) pairwise, stably (ties keep arrival order), in log2(nr) passes.
 */
static void merge_runs(struct tally_ordered *o, size_t *run, size_t nr)
{
	struct ordered_event *a = o->q, *b = o->tmp;

	while (nr > 1) {
		size_t k = 0;

		for (size_t r = 0; r < nr; r += 2) {
			size_t i = run[r], mid = run[r + 1], end = r + 2 <= nr ? run[r + 2] : mid, j = mid,
			       out = i;

			if (r + 1 == nr) {	/* an odd one out: copied over */
				memcpy(b + i, a + i, (mid - i) * sizeof(*a));
				run[k++] = i;
				continue;
			}
			/*
			 * which side goes next picked without a branch: two rings'
			 * records interleave at random, a misprediction each
			 */
			while (i < mid && j < end) {
				bool right = a[j].time < a[i].time;

				b[out++] = *(right ? &a[j] : &a[i]);
				j += right;
				i += !right;
			}
			memcpy(b + out, a + i, (mid - i) * sizeof(*a));
			out += mid - i;
			memcpy(b + out, a + j, (end - j) * sizeof(*a));
			run[k++] = run[r];
		}
		run[k] = o->nq;
		nr = k;
		struct ordered_event *t = a;

		a = b;
		b = t;
	}
	sorted_into(o, a);
}

/*
 * Each ring is in time order, so a round is a few ascending runs (one per
 * CPU, and what the last round held back): merged. Many runs: the radix
 * sort.
 */
void tally__ordered_sort(struct tally_ordered *o)
{
	size_t run[MAX_RUNS + 1], nr = 0;
	struct ordered_event *a = o->q;

	run[nr++] = 0;
	for (size_t i = 1; i < o->nq; i++)
		if (a[i].time < a[i - 1].time) {
			if (nr == MAX_RUNS) {
				radix_sort(o);
				o->nr_desc = 0;
				return;
			}
			run[nr++] = i;
		}
	run[nr] = o->nq;
	merge_runs(o, run, nr);
	o->nr_desc = 0;
}

/* The flush's sort: the runs as the records came (desc), not looked for again. */
static void sort_queue(struct tally_ordered *o)
{
	size_t run[MAX_RUNS + 1];

	if (o->nr_desc >= MAX_RUNS) {
		radix_sort(o);
		o->nr_desc = 0;
		return;
	}
	run[0] = 0;
	for (uint32_t k = 0; k < o->nr_desc; k++)
		run[k + 1] = o->desc[k];
	run[o->nr_desc + 1] = o->nq;
	merge_runs(o, run, o->nr_desc + 1);
	o->nr_desc = 0;
}

int tally__ordered_flush(struct tally_ordered *o, uint64_t limit, tally_ordered_fn fn, void *ctx)
{
	size_t n = 0;
	int err = 0;

	/* rings are each in order: often the whole queue already is */
	if (o->unsorted)
		sort_queue(o);
	o->unsorted = false;
	o->nr_desc = 0;		/* what stays is a sorted array's end: one run */
	while (n < o->nq && o->q[n].time <= limit)
		n++;
	/* perf's queue runs empty when its tail goes (records dropped here count) */
	if (o->perf_busy && o->perf_tail <= limit)
		o->perf_busy = false;
	/* late is what comes older than something delivered, as perf's last_flush */
	if (n && o->q[n - 1].time > o->last_flush)
		o->last_flush = o->q[n - 1].time;
	if (n)
		err = fn(ctx, o->q, n);
	if (err)
		return err;	/* kept: the caller's to close */
	if (n) {	/* an empty queue may have no array yet: no arithmetic on NULL */
		o->q += n;
		o->nq -= n;
		if (!o->nq)
			o->q = o->base;
	}
	return 0;
}

int tally__ordered_flush_round(struct tally_ordered *o, tally_ordered_fn fn, void *ctx)
{
	int err = tally__ordered_flush(o, o->next_flush, fn, ctx);

	o->next_flush = o->max_time;
	return err;
}

void tally__ordered_exit(struct tally_ordered *o)
{
	tally__ordered_release(o, o->q, o->nq);
	free(o->chunk);
	free(o->spare);
	free(o->base);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
}
