/* SPDX-License-Identifier: MIT */
/*
 * The histogram's insides, for the views drawn from its shapes (the
 * pictures' stacks, lib/export/stacks_hist.c) and its call-graph trees.
 */
#ifndef TALLY_HIST_INTERNAL_H
#define TALLY_HIST_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/hist.h>
#include "hist_graph.h"
#include "resolve_internal.h"

/* The PMU's fields a sample is keyed by (the mem keys'), 0 where it lacks one. */
struct hist_mem {
	/* branch mode's branch (first: its keys share a line with the shape's) */
	uint64_t bfrom, bto, bflags;	/* its addresses, perf_branch_entry's flags word */
	uint64_t cpumode;		/* the sample's (dcacheline groups by it) */
	uint64_t data_src, phys_addr, dpage, cpage, weight, ins_lat, addr;
	uint64_t ip;			/* symbol_iaddr's (the shape's own ip is 0 off chains) */
	uint64_t txn, cgroup, cg_dev, cg_ino;
	uint64_t time;			/* rounded down to the time key's quantum */
	/* an entry's own period by level (cpu_util), summed; a shape's 0 */
	uint64_t p_sys, p_us, p_gsys, p_gus;
};

/*
 * A distinct sample shape (attr, thread, cpu, chain), with its samples'
 * count and period: rows, call graphs and pictures are built from these,
 * so a million samples of a few thousand shapes cost a few thousand
 * merges.
 */
struct shape {
	/*
	 * what a lookup reads, first (a shape starts a line): its keys, then
	 * the chain, branch stack and PMU fields it points to
	 */
	uint64_t hash, period, count;
	const char *comm;
	const char *trace;		/* the trace key's text, NULL without it */
	int32_t pid, tid, cpu;
	int idx;
	uint8_t mode;
	bool own;			/* its own allocation, not a block's (hist.c) */
	uint32_t key_nr;		/* the chain as recorded, what samples match */
	uint64_t ip;
	uint32_t nbr;			/* branch_history: its branch stack, newest first */
	uint32_t nr;			/* the chain as shown: 0 when perf drops it */
	size_t seq;			/* its index in first-seen order (a match reads it) */
	/* all 0 (tally__hist_mem_none) without a mem key; else after the chain */
	const struct hist_mem *m;
	const struct hist_brent *br;
	uint64_t *ips;
	/*
	 * the session's answers for its user frames (wh[i] ips[i]'s) and its
	 * ip (wh[key_nr]), found when it was made: NULL for the others,
	 * looked up when the rows are made
	 */
	struct where **wh;
	uint64_t rows_period, rows_count;	/* what the rows have counted of it */
	/*
	 * its thread's name when its samples came (comm may take the name
	 * the thread got next, as perf shows it): what -c filters by, as
	 * perf's filter runs as each sample is read
	 */
	const char *comm0;
};

/* A shape's or entry's PMU fields without a mem key or branch mode: all 0. */
extern const struct hist_mem tally__hist_mem_none;

/* Each sample in time order (opts.timeline): its shape's index, time and weight. */
struct hist_timed {
	size_t shape;
	uint64_t time, period;
};

/* What the views read of an event. */
struct hist_event_info {
	uint64_t sample_type;		/* its attr's (0 before its first sample) */
	uint32_t type;
	uint64_t config;
	bool freq;
	uint64_t period;		/* the attr's sample period (0 with freq) */
};

/* The shapes in first-seen order (every event's: shape->idx says whose). */
struct shape *const *tally__hist_shapes(const struct tally_hist *h, size_t *n);
const struct hist_timed *tally__hist_timeline(const struct tally_hist *h, size_t *n, bool *shorted);
const struct hist_event_info *tally__hist_event(const struct tally_hist *h, int event);
struct resolver *tally__hist_resolver(struct tally_hist *h);
struct tally_session *tally__hist_session(const struct tally_hist *h);

#endif
