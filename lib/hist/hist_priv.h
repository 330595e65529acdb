/* SPDX-License-Identifier: MIT */
/*
 * The histogram's own layout and key comparison, for its two files:
 * hist.c (adding, trees, life, reading) and hist_order.c (the rows in
 * perf's order). The views see it through hist_internal.h.
 */
#ifndef TALLY_HIST_PRIV_H
#define TALLY_HIST_PRIV_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <tally/hist.h>
#include "hist_internal.h"
#include "rbtree.h"

#define K_COMM TALLY_HIST_COMM
#define K_PID TALLY_HIST_PID
#define K_DSO TALLY_HIST_DSO
#define K_SYM TALLY_HIST_SYM
#define K_CPU TALLY_HIST_CPU
#define K_SRCLINE TALLY_HIST_SRCLINE
#define K_PARENT TALLY_HIST_PARENT
#define K_TRACE TALLY_HIST_TRACE
#define K__NR TALLY_HIST_KEY__NR

struct entry {
	const char *comm;
	const char *trace;		/* a tracepoint's fields as text (interned), "N/A" for others */
	const char *parent;		/* the first caller matching the parent regex, NULL: [other] */
	uint64_t comm_hash;
	uint64_t hash;			/* of the key */
	int32_t tid;			/* the thread that made the entry */
	int32_t pid;
	int32_t cpu;
	/* where its address resolved (the session's resolver's: as long as the session), less what a chain's frame changes */
	const struct where *w;
	/* the sorts' fields of w, here: following w in every compare tripled top -g's sort */
	const char *dso, *sym;
	uint64_t sym_start;
	uint64_t addr;			/* map-relative; an unresolved frame's ip */
	uint64_t self, children;
	uint64_t nself;			/* its own samples */
	uint64_t last_sample;		/* children: once per sample */
	char mode;			/* 'k' or '.'; a frame outside any map: the one before it's */
	bool inlined;			/* sym is "name (inlined)" */
	bool visible;			/* a sample that passed the filters touched it */
	bool dead;			/* a decay's, freed once out of the kept order */
	bool from_chain;		/* made by a chain's frame (its ip absolute, as perf's he->ip) */
	bool graphed;			/* a chain was its call graph's (cg 0 when graph_min left it out) */
	uint32_t cg;			/* its call graph's root in h->nodes (0: none) */
	uint32_t max_depth;		/* its longest chain (perf orders equal rows by it) */
	uint64_t walk;			/* graph_note's: the last walk that took it */
	size_t seq;			/* the order entries were made in (perf_order) */
	size_t rank;			/* perf_order's: its place before the output sort */
	uint64_t pre;			/* perf_order's: the leading keys' ranks, packed (sort_npre) */
	uint32_t rdso;			/* perf_order's: its DSO name's rank */
	struct entry *next;		/* hash chain */
};

/*
 * The entries come from blocks, all events' (a malloc each was a tenth
 * of the lookups' instructions), and sit in them in the order they were
 * made, which perf_order's passes mostly follow.
 */
#define ENTRY_BLK 256

struct entry_blk {
	struct entry_blk *next;
	struct entry e[ENTRY_BLK];
};

/* One event's rows and totals. */
struct hist_ev {
	struct entry **tab;
	size_t nbuckets, n;
	size_t made;			/* entries made since the table was emptied: the next one's seq */
	uint64_t total, samples, nshapes;
	struct entry **rows;		/* the visible ones, sorted */
	size_t nrows;
	/*
	 * Every entry in cmp_in_seq's order as the last perf_order left them
	 * (when that order was a true one), those made since after
	 * (seq >= in_made): a live view's next refresh sorts its new rows and
	 * merges them in, not every row again. NULL: none kept.
	 */
	struct entry **in;
	size_t nin, in_made;
	struct hist_event_info info;
};

/*
 * The chain walks' room, one per histogram (not static: two histograms
 * count and sort on two threads). Each walk has its own arrays where one
 * calls another while its own are live: hist_shape's frames and ents
 * are done with when it hands over to graph_shape, graph_note's caller's
 * are still read while a full buffer is replayed.
 */
struct hist_scratch {
	enum tally_cpumode modes[CHAIN_MAX];		/* each frame's level, any walk's */
	const struct tally_hist_frame *frames[CHAIN_MAX], *rev[CHAIN_MAX];
	struct entry *ents[CHAIN_MAX], *walk_ents[CHAIN_MAX];
	const struct where *wheres[CHAIN_MAX];
	const struct tally_hist_frame *replay_frames[CHAIN_MAX];	/* graph_replay's */
	struct entry *replay_ents[CHAIN_MAX];
	struct entry *firsts[CHAIN_MAX];		/* graph_note's */
};

struct tally_hist {
	struct tally_session *ss;
	struct hist_scratch *scr;	/* malloc'd: its pages are touched only as deep as chains go */
	enum tally_hist_key sort[K__NR];
	int nsort;
	int order[2 * K__NR + 4];	/* tally_hist__sort's; nr_order 0: perf's default */
	int nr_order;
	bool no_chain;			/* no chain needed: a shape is its ip */
	bool children, graph, caller, address;
	bool need_trace, has_parent, timeline;
	bool sym_by_name;		/* a function is its DSO and name alone */
	bool rows_stale;		/* a filter or graph change: the rows made again */
	regex_t parent_re;
	struct tally_hist_filter filter;
	char *filter_str[5];		/* the filter's copies */
	struct hist_ev *ev;
	int nev;
	struct shape **stab, **shapes;
	size_t sbuckets, nshapes;
	size_t last_shape;		/* the shape of the sample just counted */
	struct hist_timed *timed;
	size_t ntimed, cap_timed;
	bool timed_short;		/* out of memory: the timeline lacks samples */
	uint64_t t_first, t_last;
	const char *last_comm;
	uint64_t last_comm_hash;
	uint64_t sample_no;
	uint64_t cur_count;		/* samples of the shape being added */
	struct resolver *res;		/* the session's (tally__session_resolver) */
	/* --parent's regex on each symbol asked (by its name's pointer): open addressing */
	struct hist_pmatch { const char *sym; bool match; } *pmatch;
	size_t npmatch, cap_pmatch;
	struct hist_node_pool nodes;	/* the rows' call-graph trees */
	struct entry_blk *eblk;		/* the entries' blocks, the newest first */
	size_t eblk_used;		/* entries taken from the newest */
	struct entry *efree;		/* entries a decay gave back (linked by next) */
	double graph_min;		/* opts' percent: rows under it get no tree */
	uint64_t walks;			/* graph_note's count */
	/* the walks kept until the counts are in (graph_min): records of graph_note's */
	uint64_t *gbuf;
	size_t ngbuf, cap_gbuf;
};

/*
 * Inline, with cmp_key, cmp_in and cmp_rows: perf_order's tree passes make
 * some 300k comparisons on a real file (a fifth of its report).
 */
static __attribute__((always_inline)) inline int strcmp_null(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return !a && !b ? 0 : (!a ? 1 : -1);	/* no name sorts last, as perf */
	return strcmp(a, b);
}

static __attribute__((always_inline)) inline int cmp_key(const struct entry *a, const struct entry *b,
							 enum tally_hist_key k)
{
	switch (k) {
	case K_COMM:
		return strcmp_null(a->comm, b->comm);
	case K_PID:
		/* perf's "pid" key is the thread: its tid (sort__thread_cmp) */
		return a->tid != b->tid ? (a->tid < b->tid ? -1 : 1) : 0;
	case K_DSO:
		return strcmp_null(a->dso, b->dso);
	case K_SYM:
		if (!a->sym || !b->sym) {
			if (a->sym || b->sym)
				return a->sym ? -1 : 1;
			/*
			 * The level is not part of the key: an entry keeps its
			 * first. Addresses compare as perf's _sort__addr_cmp,
			 * by the sign of their difference as an int64.
			 */
			int64_t dif = (int64_t)(b->addr - a->addr);

			return dif > 0 ? -1 : dif < 0;
		}
		return strcmp_null(a->sym, b->sym);
	case K_CPU:
		return a->cpu - b->cpu;
	case K_SRCLINE:
		return strcmp_null(a->w->srcline, b->w->srcline);
	case K_PARENT:
		return strcmp_null(a->parent, b->parent);
	case K_TRACE:
		return a->trace == b->trace ? 0 : strcmp_null(a->trace, b->trace);
	default:
		return 0;
	}
}

/*
 * hist_rows.c: an entry back on the free list; a shape's rows (with graph,
 * its share in the call graphs too), or its call graphs alone; the kept
 * walks replayed into the trees of the entries at or over graph_min of
 * their event's total (all: every entry's). 0 or -errno.
 */
void tally__hist_entry_put(struct tally_hist *h, struct entry *e);
int tally__hist_shape(struct tally_hist *h, const struct shape *x, uint64_t period, uint64_t count,
		      bool graph);
int tally__hist_graph_shape(struct tally_hist *h, const struct shape *x, uint64_t period,
			    uint64_t count);
int tally__hist_graph_replay(struct tally_hist *h, bool all);

/* Each event's rows in perf's order (hist_order.c): 0 or -ENOMEM. */
int tally__hist_order_rows(const struct tally_hist *h, struct hist_ev *hs);

#endif
