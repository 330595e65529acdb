/* SPDX-License-Identifier: MIT */
/*
 * Records put in time order, as perf's ordered events: queued as they
 * come (each ring, each round of a file, in time order; the rings
 * interleaved), released up to a time and delivered in time order,
 * stably (equal times keep arrival order). Internal to the session's
 * layer; the unit tests use it as is.
 *
 * Late records: one queued with a time below the last record a flush
 * delivered comes after records newer than it. As perf, it is still
 * delivered, at the next flush (in order among what is queued then),
 * and counted (tally__ordered_late: perf's "out of order events").
 */
#ifndef TALLY_SESSION_ORDERED_H
#define TALLY_SESSION_ORDERED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct ordered_chunk;
/* The most ascending runs a sort merges (a round holds one per ring and what was held back). */
#define TALLY_ORDERED_RUNS 32

/* One queued record. */
struct ordered_event {
	uint64_t time;
	struct perf_event_header *h;
	struct ordered_chunk *c;	/* where h's copy lives; NULL: h is the caller's */
	int attr;
	uint32_t size;			/* h->size: read without going back to the record */
};

struct tally_ordered {
	struct ordered_event *q, *tmp;	/* q[0..nq) queued; tmp: the sorts' other half */
	size_t nq, cap;
	/* q's array, cap long: a flush moves q on, not the records down (once, when full) */
	struct ordered_event *base;
	struct ordered_chunk *chunk;	/* where copies of records go */
	struct ordered_chunk *spare;	/* an emptied one, kept for reuse */
	uint64_t next_flush, max_time;	/* a round's limit: the previous round's newest */
	/*
	 * perf's max_timestamp is the time of the record last put at its
	 * queue's tail, or into it empty: lower than the newest seen once
	 * its queue ran empty. Its tail's time and whether it holds any
	 * (the records dropped unqueued here counted, as perf queues them).
	 */
	uint64_t perf_tail;
	bool perf_busy;
	uint64_t last_flush;		/* the newest record delivered */
	uint64_t late;			/* records queued below last_flush */
	bool unsorted;			/* a record came older than the one before */
	/*
	 * Where the queue's ascending runs begin after its first (indexes
	 * into q), noted as records come: the flush's sort does not read
	 * the queue once more to find them. nr_desc past TALLY_ORDERED_RUNS:
	 * too many to merge (the radix sort).
	 */
	uint32_t desc[TALLY_ORDERED_RUNS];
	uint32_t nr_desc;
};

/*
 * Delivers e[0..n-1], in time order. The records' chunks are the
 * callee's to give back (tally__ordered_release), now or later: the
 * queue forgets them. 0, or a negative errno that the flush returns.
 */
typedef int (*tally_ordered_fn)(void *ctx, struct ordered_event *e, size_t n);

/* A zeroed struct tally_ordered is an empty queue. Frees what it holds. */
void tally__ordered_exit(struct tally_ordered *o);
/*
 * Queue h (its time t, attr the caller's index): copied into a chunk when
 * copy, else h must stay valid until delivered and released. 0, -ENOMEM.
 */
int tally__ordered_queue(struct tally_ordered *o, uint64_t t, int attr,
			 const struct perf_event_header *h, bool copy);
/*
 * A record at time t not queued (a sample the reader does not want):
 * still the newest of its round where it is, as perf's queue, which
 * takes every record, sees it. Rounds then end where perf's end, and a
 * record that came late for perf comes late here too.
 */
static inline void tally__ordered_seen(struct tally_ordered *o, uint64_t t)
{
	if (!t || t == UINT64_MAX)
		return;		/* perf delivers those at once, unqueued */
	if (!o->perf_busy || t >= o->perf_tail) {
		o->max_time = t;
		o->perf_tail = t;
		o->perf_busy = true;
	}
}
/* Deliver the queued records with time <= limit (all: UINT64_MAX) to fn. */
int tally__ordered_flush(struct tally_ordered *o, uint64_t limit, tally_ordered_fn fn, void *ctx);
/*
 * perf's round (FINISHED_ROUND, a pass over the rings): deliver what is
 * no newer than the previous round's newest record.
 */
int tally__ordered_flush_round(struct tally_ordered *o, tally_ordered_fn fn, void *ctx);
/* The chunks of delivered records given back. */
void tally__ordered_release(struct tally_ordered *o, const struct ordered_event *e, size_t n);
/* The bytes [*lo, *hi) the records of e[] not copied lie in; false: none. */
bool tally__ordered_span(const struct ordered_event *e, size_t n, const unsigned char **lo,
			 const unsigned char **hi);
/* Sort the queue by time, stably (ties keep arrival order). */
void tally__ordered_sort(struct tally_ordered *o);
/* Records queued after a flush had delivered newer ones. */
static inline uint64_t tally__ordered_late(const struct tally_ordered *o)
{
	return o->late;
}

#endif
