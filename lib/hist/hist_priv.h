/* SPDX-License-Identifier: MIT */
/*
 * The histogram's own layout and key comparison, for its two files:
 * hist.c (adding, trees, life, reading) and hist_order.c (the rows in
 * perf's order). The views see it through hist_internal.h.
 */
#ifndef TALLY_HIST_PRIV_H
#define TALLY_HIST_PRIV_H

#include <pthread.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <linux/perf_event.h>
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
#define K_MEM TALLY_HIST_MEM
#define K_SNOOP TALLY_HIST_SNOOP
#define K_TLB TALLY_HIST_TLB
#define K_LOCKED TALLY_HIST_LOCKED
#define K_BLOCKED TALLY_HIST_BLOCKED
#define K_PHYS TALLY_HIST_PHYS_DADDR
#define K_DPAGE TALLY_HIST_DATA_PAGE_SIZE
#define K_CPAGE TALLY_HIST_CODE_PAGE_SIZE
#define K_WEIGHT TALLY_HIST_WEIGHT
#define K_LWEIGHT TALLY_HIST_LOCAL_WEIGHT
#define K_INS_LAT TALLY_HIST_INS_LAT
#define K_LINS_LAT TALLY_HIST_LOCAL_INS_LAT
#define K_SYM_DADDR TALLY_HIST_SYM_DADDR
#define K_DSO_DADDR TALLY_HIST_DSO_DADDR
#define K_DCACHELINE TALLY_HIST_DCACHELINE
#define K_SYM_FROM TALLY_HIST_SYM_FROM
#define K_SYM_TO TALLY_HIST_SYM_TO
#define K_DSO_FROM TALLY_HIST_DSO_FROM
#define K_DSO_TO TALLY_HIST_DSO_TO
#define K_SRCLINE_FROM TALLY_HIST_SRCLINE_FROM
#define K_SRCLINE_TO TALLY_HIST_SRCLINE_TO
#define K_MISPREDICT TALLY_HIST_MISPREDICT
#define K_IN_TX TALLY_HIST_IN_TX
#define K_CYCLES TALLY_HIST_CYCLES
#define K_SYM_IADDR TALLY_HIST_SYM_IADDR
#define K_TXN TALLY_HIST_TRANSACTION
#define K_CGROUP TALLY_HIST_CGROUP
#define K_CGROUP_ID TALLY_HIST_CGROUP_ID
#define K_ABORT TALLY_HIST_ABORT
#define K_TIME TALLY_HIST_TIME
#define K_SRCFILE TALLY_HIST_SRCFILE
#define K_ADDR TALLY_HIST_ADDR
#define K_DSO_SIZE TALLY_HIST_DSO_SIZE
#define K_SYM_SIZE TALLY_HIST_SYM_SIZE
#define K_SOCKET TALLY_HIST_SOCKET
#define K_ADDR_FROM TALLY_HIST_ADDR_FROM
#define K_ADDR_TO TALLY_HIST_ADDR_TO
/* a key of the entry's address (its where), not of the sample's PMU fields */
#define ADDR_KEY(k) ((k) >= K_SRCFILE && (k) <= K_SOCKET)	/* and the CPU's socket */
#define K__NR TALLY_HIST_KEY__NR

/* a branch key, and one whose compare says only equal or not (perf's: no order) */
#define BRANCH_KEY(k) (((k) >= K_SYM_FROM && (k) <= K_CYCLES) || (k) == K_ABORT || \
		       (k) == K_ADDR_FROM || (k) == K_ADDR_TO)
#define FLAG_KEY(k) ((k) == K_MISPREDICT || (k) == K_IN_TX || (k) == K_ABORT)

struct entry {
	const char *comm;
	const char *trace;		/* a tracepoint's fields as text (interned), "N/A" for others */
	const char *parent;		/* the first caller matching the parent regex, NULL: [other] */
	uint64_t comm_hash;
	uint64_t hash;			/* of the key */
	int32_t tid;			/* the thread that made the entry */
	int32_t pid;
	int32_t cpu;
	int32_t socket;			/* its CPU's (the socket key's), -1 unknown */
	/* where its address resolved (the session's resolver's: as long as the session), less what a chain's frame changes */
	const struct where *w;
	/* the sorts' fields of w, here: following w in every compare tripled top -g's sort */
	const char *dso, *sym;
	uint64_t sym_start;
	uint64_t addr;			/* map-relative; an unresolved frame's ip */
	/* its first sample's (the mem keys): its block's copy, else tally__hist_mem_none */
	const struct hist_mem *m;
	const struct where *dw;		/* where its data address resolved (the data keys) */
	const struct where *bf, *bt;	/* branch mode: where its branch's ends resolved */
	char blf, blt;			/* their levels: '.', 'k', 'H' (no map) */
	const struct where *iw;		/* where its ip resolved in any space (symbol_iaddr) */
	uint64_t self, children;
	uint64_t nself;			/* its own samples */
	uint64_t last_sample;		/* children: once per sample */
	char mode;			/* 'k' or '.'; a frame outside any map: the one before it's */
	bool inlined;			/* sym is "name (inlined)" */
	bool visible;			/* a sample that passed the filters touched it */
	bool dead;			/* a decay's, freed once out of the kept order */
	bool from_chain;		/* made by a chain's frame (its ip absolute, as perf's he->ip) */
	bool graphed;			/* a chain was its call graph's (cg 0 when graph_min left it out) */
	uint16_t srcline_skip;		/* --branch-history's chain frames: w->srcline less its "sym" */
	uint32_t cg;			/* its call graph's root in h->nodes (0: none) */
	uint32_t max_depth;		/* its longest chain (perf orders equal rows by it) */
	uint64_t walk;			/* graph_note's: the last walk that took it */
	size_t seq;			/* the order entries were made in (perf_order) */
	size_t rank;			/* perf_order's: its place before the output sort */
	uint64_t pre;			/* perf_order's: the leading keys' ranks, packed (sort_npre) */
	uint32_t rdso;			/* perf_order's: its DSO name's rank */
	struct entry *next;		/* hash chain */
};
/* An entry's srcline key (perf's cursor node's for a --branch-history chain frame: "+OFF"). */
static inline const char *entry_srcline(const struct entry *e)
{
	return e->w->srcline ? e->w->srcline + e->srcline_skip : NULL;
}


/*
 * The entries come from blocks, all events' (a malloc each was a tenth
 * of the lookups' instructions), and sit in them in the order they were
 * made, which perf_order's passes mostly follow.
 */
#define ENTRY_BLK 256

struct entry_blk {
	struct entry_blk *next;
	struct entry e[ENTRY_BLK];
	struct hist_mem m[];		/* each entry's PMU fields (keep_mem), else none */
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
	/*
	 * a group leader's (tally_hist__set_group): by entry seq, its
	 * members' entries of the same key (NULL: none), gnm a seq
	 */
	struct entry **gpair;
	int gnm;
	size_t gd_from, gd_to;		/* the seqs of the entries the link made; gd_to: gpair's seqs */
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
	uint64_t ips[CHAIN_MAX], hashes[CHAIN_MAX];	/* hist_shape's frames' ips, their keys' hashes */
	const struct tally_hist_frame *replay_frames[CHAIN_MAX];	/* graph_replay's */
	struct entry *replay_ents[CHAIN_MAX];
	struct entry *firsts[CHAIN_MAX];		/* graph_note's */
	/* branch_history's chain: a stack's branches, their loops, each end's counts */
	struct hist_brent be[128];
	struct hist_iter iter[128];
	struct hist_brnode bi[CHAIN_MAX];	/* the stack's ends, then the chain's frames */
};

/* The fields of struct hist_mem a shape is keyed by: all ones in mask, their words listed in w. */
struct hist_keep {
	struct hist_mem mask;
	uint8_t nw, w[sizeof(struct hist_mem) / sizeof(uint64_t)];
};

/* A slot of the shapes' table: the shape and its hash (x NULL: free). */
struct shape_slot {
	uint64_t hash;
	struct shape *x;
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
	bool comm_keyed;		/* a comm key: names at the samples' times order -c's verdicts */
	/*
	 * -c with a comm key and a thread renamed (":TID", then a COMM):
	 * each entry's verdict's name, perf's order deciding between two
	 * (vis_map); off, the entries carry nothing for it
	 */
	bool vis_on;
	struct vis_slot { const void *e; const char *comm; } *vis;
	size_t nvis, capvis;
	bool sym_by_name;		/* a function is its DSO and name alone */
	bool need_mem;			/* a mem key: shapes keyed by their PMU fields */
	bool keep_mem;			/* need_mem or branch: shapes and entries keep PMU fields */
	bool mem_mode;			/* opts': a sample counts its weight */
	bool need_daddr;		/* a data address key: dres resolves them */
	bool branch;			/* opts': a row is a branch of the stacks */
	bool branch_history;		/* opts': trees of the samples' branch stacks */
	uint64_t elide;			/* opts': keys the default order leaves out */
	bool hide_unresolved;		/* opts': chains without their unresolved frames */
	uint32_t max_stack;		/* opts': frames of a chain walked, 0: all */
	uint64_t time_quantum;		/* opts': the time key's step, ns */
	bool cpu_util;			/* opts': entries sum their own period by level */
	enum tally_cpumode cur_mode;	/* the level of the shape being added */
	int32_t *sockets;		/* the socket key's: each CPU's, from the file's topology */
	int nsockets;
	uint64_t *uchain;		/* -U's chain, the resolved frames alone */
	size_t uchain_cap;
	bool need_iaddr;		/* symbol_iaddr: the ip found in any address space */
	bool need_cgid;			/* cgroup_id: the threads' namespaces asked per sample */
	/*
	 * need_mem: the PMU fields the keys read (all ones), the only ones
	 * a shape is keyed by, so that samples differing in the others count
	 * in one shape (--sort mem: 1M shapes of 1M samples); the shape
	 * keeps its first sample's whole
	 */
	struct hist_keep mem_keep;
	struct resolver *dres;		/* data addresses (the session's, over data objects too) */
	bool rows_stale;		/* a filter or graph change: the rows made again */
	regex_t parent_re;
	struct tally_hist_filter filter;
	char *filter_str[6];		/* the filter's copies */
	struct hist_ev *ev;
	int nev;
	struct hist_group { int leader, nr; } *groups;	/* tally_hist__set_group's */
	int ngroups;
	int group_sort;			/* tally_hist__set_group_sort's member, 0: the leader */
	/*
	 * the shapes' table, open (linear probing, at most half full): a
	 * slot holds its shape's hash, so a lookup reads only the shape it
	 * matches, not each shape of a chain
	 */
	struct shape_slot *stab;
	struct shape **shapes;
	size_t sbuckets, nshapes;
	/*
	 * the shapes carved from 1 MB blocks (a malloc and a free each were
	 * 5% of a picture), until the first decay: a live view's shapes come
	 * and go, each its own allocation from then on (shape->own)
	 */
	struct shape_blk *sblk;
	size_t sblk_used;
	bool shape_own;
	size_t last_shape;		/* the shape of the sample just counted */
	struct hist_timed *timed;
	size_t ntimed, cap_timed;
	bool timed_short;		/* out of memory: the timeline lacks samples */
	uint64_t t_first, t_last;
	const char *last_comm;
	uint64_t last_comm_hash;
	uint64_t sample_no;
	uint64_t cur_count;		/* samples of the shape being added */
	const char *cur_comm0;		/* its thread's name when they came */
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
	/*
	 * The walks kept until the counts are in (graph_min): records of
	 * graph_note's in blocks, oldest first (one array grown by realloc
	 * copied each word about once more and touched twice the memory).
	 */
	struct gbuf_blk *gbuf, *gbuf_last;
	size_t ngbuf;			/* words kept, all blocks' */
};

/* A block of kept walks: records whole, used words of cap. */
struct gbuf_blk {
	struct gbuf_blk *next;
	size_t used, cap;
	uint64_t w[];
};

/* The kept walks let go (tally__hist_graph_replay walks them first). */
void tally__hist_gbuf_free(struct tally_hist *h);

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

/* the sign of an int64 */
static inline int sgn64(int64_t d)
{
	return d < 0 ? -1 : d > 0;
}

/* the cache line size perf's dcacheline rounds to (hist_rows.c's, tally_hist__new sets it) */
extern uint64_t tally__hist_cacheline;

static inline uint64_t cl_of(const struct entry *e)
{
	return (e->dw ? e->dw->addr : e->m->addr) & ~(tally__hist_cacheline - 1);
}

/*
 * perf's sort__dcacheline_cmp(b, a): the level (kernel first), no map
 * first, the user's by process (tally has no device and inode numbers:
 * every user map counts as perf's anonymous one), then the cache line of
 * the map-relative address, the higher first.
 */
static inline int cmp_dcacheline(const struct entry *a, const struct entry *b)
{
	const void *am = a->dw ? a->dw->map : NULL, *bm = b->dw ? b->dw->map : NULL;
	uint64_t l, r;

	if (a->m->cpumode != b->m->cpumode)
		return b->m->cpumode > a->m->cpumode ? -1 : 1;
	if (am || bm) {
		if (!bm || !am)
			return !bm ? -1 : 1;
		if (a->m->cpumode != TALLY_CPUMODE_KERNEL && a->pid != b->pid)
			return b->pid > a->pid ? -1 : 1;
	}
	l = cl_of(b);
	r = cl_of(a);
	return l > r ? -1 : l < r;
}

/* the socket of cpu as the file's topology says (perf's al->socket), -1 unknown */
static inline int32_t hist_socket(const struct tally_hist *h, int32_t cpu)
{
	return cpu >= 0 && cpu < h->nsockets ? h->sockets[cpu] : -1;
}

/* the srcline key's file (perf's srcfile): "" where no line is known; its length in *len */
const char *tally__hist_srcfile(const struct entry *e, size_t *len);

/* the size of the map holding w's address (perf's dso_size), 0: none */
static inline uint64_t map_size(const struct where *w)
{
	return w->map && w->dso ? w->map->end - w->map->start : 0;
}

/*
 * The mem keys, as perf 6.1's sort.c compares them (perf's cmp(b, a), as
 * cmp_key is throughout): a data source's part, or a field's difference
 * as an int64.
 */
static inline int cmp_mem(const struct entry *a, const struct entry *b, enum tally_hist_key k)
{
	union perf_mem_data_src l = { .val = a->m->data_src }, r = { .val = b->m->data_src };

	switch (k) {
	case K_MEM: return sgn64((int64_t)((uint64_t)l.mem_lvl - r.mem_lvl));
	case K_SNOOP: return sgn64((int64_t)((uint64_t)l.mem_snoop - r.mem_snoop));
	case K_TLB: return sgn64((int64_t)((uint64_t)l.mem_dtlb - r.mem_dtlb));
	case K_LOCKED: return sgn64((int64_t)((uint64_t)l.mem_lock - r.mem_lock));
	case K_BLOCKED: return sgn64((int64_t)((uint64_t)l.mem_blk - r.mem_blk));
	case K_PHYS: return sgn64((int64_t)(a->m->phys_addr - b->m->phys_addr));
	case K_DPAGE: return sgn64((int64_t)(a->m->dpage - b->m->dpage));
	case K_CPAGE: return sgn64((int64_t)(a->m->cpage - b->m->cpage));
	/* perf's weights compare left - right: the other way */
	case K_WEIGHT:
	case K_LWEIGHT: return sgn64((int64_t)(b->m->weight - a->m->weight));
	case K_INS_LAT:
	case K_LINS_LAT: return sgn64((int64_t)(b->m->ins_lat - a->m->ins_lat));
	case K_SYM_DADDR: return sgn64((int64_t)(a->m->addr - b->m->addr));
	/* sort__dso_daddr_cmp hands _sort__dso_cmp its maps the other way round from dso's */
	case K_DSO_DADDR: return -strcmp_null(a->dw ? a->dw->dso : NULL, b->dw ? b->dw->dso : NULL);
	case K_DCACHELINE: return cmp_dcacheline(a, b);
	case K_SYM_IADDR: return sgn64((int64_t)(a->m->ip - b->m->ip));
	case K_TXN: return sgn64((int64_t)(b->m->txn - a->m->txn));	/* left - right */
	case K_CGROUP: return sgn64((int64_t)(a->m->cgroup - b->m->cgroup));
	case K_TIME: return sgn64((int64_t)(a->m->time - b->m->time));
	case K_SRCFILE: {
		size_t la, lb;
		const char *fa = tally__hist_srcfile(a, &la), *fb = tally__hist_srcfile(b, &lb);
		int c = memcmp(fa, fb, la < lb ? la : lb);

		return c ? c : la < lb ? -1 : la > lb;
	}
	case K_ADDR: return sgn64((int64_t)(a->w->ip - b->w->ip));
	case K_DSO_SIZE: return sgn64((int64_t)(map_size(a->w) - map_size(b->w)));
	case K_SYM_SIZE: return sgn64((int64_t)((uint64_t)a->w->sym_size - b->w->sym_size));
	case K_SOCKET: return a->socket != b->socket ? (a->socket < b->socket ? -1 : 1) : 0;
	case K_CGROUP_ID:	/* dev, then inode: equal rows' order perf's (greater first) */
		return a->m->cg_dev != b->m->cg_dev ? (a->m->cg_dev < b->m->cg_dev ? 1 : -1) :
		       a->m->cg_ino != b->m->cg_ino ? (a->m->cg_ino < b->m->cg_ino ? 1 : -1) : 0;
	default: return 0;
	}
}

/*
 * perf's sort__sym_from_cmp (and _to): two unresolved ends by their
 * addresses, a resolved one first, two symbols by their starts in their
 * files (perf's _sort__sym_cmp: whatever their DSOs), each difference as
 * an int64.
 */
static inline uint64_t bsym_start(const struct where *w)
{
	/* perf's sym->start: the symbol's place in its file (its section's offset, not address) */
	return w->addr - w->object_symoff;
}

static inline int cmp_bsym(const struct where *a, const struct where *b, uint64_t aa, uint64_t ba)
{
	if (!a->sym && !b->sym)
		return sgn64((int64_t)(aa - ba));
	if (!a->sym || !b->sym)
		return b->sym ? 1 : -1;
	return sgn64((int64_t)(bsym_start(a) - bsym_start(b)));
}

/* the flags word of a perf_branch_entry: mispred, predicted, in_tx, abort, cycles */
#define BR_MISPRED(f) ((f) & 1)
#define BR_PREDICTED(f) ((f) >> 1 & 1)
#define BR_IN_TX(f) ((f) >> 2 & 1)
#define BR_ABORT(f) ((f) >> 3 & 1)
#define BR_CYCLES(f) ((f) >> 4 & 0xffff)

/* the branch keys, as perf 6.1's sort.c (perf's cmp(b, a), as cmp_key) */
static inline int cmp_branch(const struct entry *a, const struct entry *b, enum tally_hist_key k)
{
	const char *sa, *sb;

	switch (k) {
	case K_SYM_FROM: return cmp_bsym(a->bf, b->bf, a->m->bfrom, b->m->bfrom);
	/* perf's sort__addr_from_cmp: the DSOs' names (no map first), then the addresses */
	case K_ADDR_FROM:
	case K_ADDR_TO: {
		const struct where *x = k == K_ADDR_FROM ? a->bf : a->bt, *y = k == K_ADDR_FROM ? b->bf : b->bt;
		uint64_t ax = k == K_ADDR_FROM ? a->m->bfrom : a->m->bto, by = k == K_ADDR_FROM ? b->m->bfrom : b->m->bto;
		int c;

		if (!x->map || !y->map) {
			if (x->map || y->map)
				return x->map ? 1 : -1;
		} else if ((c = strcmp_null(y->dso, x->dso))) {
			return c;
		}
		return sgn64((int64_t)(ax - by));
	}
	case K_SYM_TO: return cmp_bsym(a->bt, b->bt, a->m->bto, b->m->bto);
	/* _sort__dso_cmp of the maps the other way round from dso's */
	case K_DSO_FROM: return -strcmp_null(a->bf->dso, b->bf->dso);
	case K_DSO_TO: return -strcmp_null(a->bt->dso, b->bt->dso);
	case K_SRCLINE_FROM:
	case K_SRCLINE_TO:
		sa = (k == K_SRCLINE_FROM ? a->bf : a->bt)->srcline;
		sb = (k == K_SRCLINE_FROM ? b->bf : b->bt)->srcline;
		return strcmp(sa ? sa : "??:0", sb ? sb : "??:0");
	/* equal or not: 1 either way (the output order turns it: cmp_rows) */
	case K_MISPREDICT:
		return BR_MISPRED(a->m->bflags) != BR_MISPRED(b->m->bflags) ||
		       BR_PREDICTED(a->m->bflags) != BR_PREDICTED(b->m->bflags);
	case K_IN_TX: return BR_IN_TX(a->m->bflags) != BR_IN_TX(b->m->bflags);
	case K_ABORT: return BR_ABORT(a->m->bflags) != BR_ABORT(b->m->bflags);
	case K_CYCLES: return sgn64((int64_t)BR_CYCLES(b->m->bflags) - (int64_t)BR_CYCLES(a->m->bflags));
	default: return 0;
	}
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
		return strcmp_null(entry_srcline(a), entry_srcline(b));
	case K_PARENT:
		return strcmp_null(a->parent, b->parent);
	case K_TRACE:
		return a->trace == b->trace ? 0 : strcmp_null(a->trace, b->trace);
	default:
		return BRANCH_KEY(k) ? cmp_branch(a, b, k) : cmp_mem(a, b, k);
	}
}

/*
 * hist_rows.c: an entry back on the free list; a shape's rows (with graph,
 * its share in the call graphs too), or its call graphs alone; the kept
 * walks replayed into the trees of the entries at or over graph_min of
 * their event's total (all: every entry's). 0 or -errno.
 */
void tally__hist_entry_put(struct tally_hist *h, struct entry *e);
/* hist.c: h->stab (zeroed) filled with h->shapes */
void tally__hist_stab_fill(struct tally_hist *h);
/* key's entry in hs, made (*made) as perf's dummy entry (no counts) when new; NULL without memory */
struct entry *tally__hist_entry_pair(struct tally_hist *h, struct hist_ev *hs, const struct entry *key,
				     bool *made);
/*
 * hist_group.c: each group leader's entries for its members' keys, and
 * its members' entries paired by key (before the rows' order). 0 or
 * -ENOMEM. Then, in the order: leader entries a and b by a count (by:
 * enum tally_hist_order's), the leader's then each member's in turn, as
 * perf's __hpp__sort in a group (--group-sort-idx: that member's first).
 */
int tally__hist_group_link(struct tally_hist *h);
int tally__hist_cmp_group(const struct tally_hist *h, const struct hist_ev *ls, const struct entry *a,
			  const struct entry *b, int by);
/* an entry's count by (enum tally_hist_order's, BY_CHILDREN aside); its own period otherwise */
static inline uint64_t tally__hist_entry_count(const struct entry *e, int by)
{
	switch (by) {
	case TALLY_HIST_BY_SAMPLES: return e->nself;
	case TALLY_HIST_BY_SYS: return e->m->p_sys;
	case TALLY_HIST_BY_US: return e->m->p_us;
	case TALLY_HIST_BY_GUEST_SYS: return e->m->p_gsys;
	case TALLY_HIST_BY_GUEST_US: return e->m->p_gus;
	default: return e->self;
	}
}
/* an order item that is a key (not a count: enum tally_hist_order) */
#define HIST_KEY(v) ((v) >= 0 && (v) < K__NR && ((v) < TALLY_HIST_BY_SELF || (v) > TALLY_HIST_BY_SAMPLES))
int tally__hist_shape(struct tally_hist *h, const struct shape *x, uint64_t period, uint64_t count,
		      bool graph);
int tally__hist_graph_shape(struct tally_hist *h, const struct shape *x, uint64_t period,
			    uint64_t count);
int tally__hist_graph_replay(struct tally_hist *h, bool all);

/*
 * hist_brhist.c: the shape's branch stack, then its call chain, as a
 * chain into self's tree (period and count samples of it). 0 or -ENOMEM.
 */
int tally__hist_brhist_note(struct tally_hist *h, struct entry *self, const struct shape *x,
			    uint64_t period, uint64_t count);
/*
 * The same in two steps: its frames in the walk's order into wh (h->scr->bi
 * their ends), their number (0: no stack) or -ENOMEM; then those n into
 * self's tree and (ents: each frame's entry, with children) from each
 * entry's first frame on into its own.
 */
int tally__hist_brhist_chain(struct tally_hist *h, const struct shape *x, const struct where **wh);
int tally__hist_brhist_add(struct tally_hist *h, struct entry *self, struct entry *const *ents,
			   const struct where *const *wh, int n, uint64_t period, uint64_t count);

/* hist_rows.c: a mem key as a number, equal for equal keys (0 for the others). */
uint64_t tally__hist_mem_ident(const struct entry *e, enum tally_hist_key k);

/* hist_rows.c: every shape's share not yet in the rows (fused: its graphs' too): 0 or -errno. */
int tally__hist_shapes_in(struct tally_hist *h, bool fused);

/* hist_filter.c: the filter's copies freed, no filter left */
void tally__hist_free_filter(struct tally_hist *h);

/* Each event's rows in perf's order (hist_order.c): 0 or -ENOMEM. */
int tally__hist_order_rows(const struct tally_hist *h, struct hist_ev *hs);

/*
 * hist_order.c: every event's rows made and ordered (order_all: 0 or
 * -ENOMEM), or the same on a second thread (order_start: false when it
 * did not start, where one CPU or few entries would not pay for it;
 * order_join waits for it and returns what order_all would).
 */
struct hist_order_job {
	struct tally_hist *h;
	pthread_t th;
	int err;
};

int tally__hist_order_all(struct tally_hist *h);
bool tally__hist_order_start(struct tally_hist *h, struct hist_order_job *j);
int tally__hist_order_join(struct hist_order_job *j);

#endif
