/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.3: the histogram of a session's samples, the one aggregation
 * model that report, diff, the pictures and top build on.
 *
 * Samples are counted by distinct shape (event, thread, comm, cpu, level,
 * ip, chain): a million samples of a few thousand shapes cost a few
 * thousand merges. tally_hist__resort turns the shapes into rows keyed by
 * perf's sort keys (comm, pid, dso, sym, cpu, srcline, parent, trace),
 * each with its self period and, with children, its callers' share
 * (every distinct row on the sample's chain once), and with graphs its
 * call-graph tree; then sorts them. One histogram holds every event of
 * the session: rows, totals and trees are per event (the file's attr
 * index). Shapes go on being added after a resort (a live session):
 * resort again to see them.
 *
 *	TALLY_OPTS(tally_hist_opts, ho, .children = true, .graph = true);
 *	struct tally_hist *h = tally_hist__new(ss, &ho);
 *	tally_hist__run(h);	(a file: its samples counted, then resorted)
 *	(or, live, in the session's sample callback) tally_hist__add(h, smp);
 *	(and at each refresh) tally_hist__resort(h);
 *	for (size_t i = 0; i < tally_hist__nr_rows(h, ev); i++) {
 *		TALLY_OPTS(tally_hist_row, row);
 *		tally_hist__row(h, ev, i, &row);
 *		... row.children, row.self, row.sym, row.graph ...
 *	}
 *	tally_hist__free(h);
 *
 * Not thread-safe: one thread adds, resorts and reads (top's refresh
 * does the three in turn). Row and node pointers and the strings they
 * carry stay valid until the next resort, decay, zero or free. Since
 * 0.5 histograms of different sessions share nothing: each may be
 * resorted, read and drawn on a thread of its own at the same time.
 * Histograms of one session share its resolved addresses (an address is
 * resolved once, in the session): keep them on one thread.
 */
#ifndef TALLY_HIST_H
#define TALLY_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/core.h>
#include <tally/session.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_hist;
struct tally_hist_node;

/* perf's sort keys: what makes two samples one row. */
enum tally_hist_key {
	TALLY_HIST_COMM,	/* the thread's name */
	TALLY_HIST_PID,		/* the thread (perf's "pid" key is the tid) */
	TALLY_HIST_DSO,
	TALLY_HIST_SYM,		/* the function; an unresolved address is its own */
	TALLY_HIST_CPU,
	TALLY_HIST_SRCLINE,	/* "file.c:12" (asks the resolver for source lines) */
	TALLY_HIST_PARENT,	/* the first caller matching opts.parent, "[other]" */
	TALLY_HIST_TRACE,	/* a tracepoint's fields as text, "N/A" for other events */
	/*
	 * Added in 0.5: perf's keys over the PMU's sample fields, each the
	 * row's field of the same name. A data source key compares its part
	 * alone, as perf's (mem: the levels' bits; snoop: the snoop bits),
	 * the row showing its first sample's whole data_src.
	 */
	TALLY_HIST_MEM,		/* the data source's level (perf's "mem") */
	TALLY_HIST_SNOOP,
	TALLY_HIST_TLB,
	TALLY_HIST_LOCKED,
	TALLY_HIST_BLOCKED,
	TALLY_HIST_PHYS_DADDR,
	TALLY_HIST_DATA_PAGE_SIZE,
	TALLY_HIST_CODE_PAGE_SIZE,
	TALLY_HIST_WEIGHT,	/* the weight (perf shows it times the row's samples) */
	TALLY_HIST_LOCAL_WEIGHT,
	TALLY_HIST_INS_LAT,	/* WEIGHT_STRUCT's instruction latency (shown times samples) */
	TALLY_HIST_LOCAL_INS_LAT,
	TALLY_HIST_SYM_DADDR,	/* the data address (named by the data object holding it) */
	TALLY_HIST_DSO_DADDR,	/* the file mapped at the data address */
	TALLY_HIST_DCACHELINE,	/* the data address's cache line (perf's dcacheline) */
	/*
	 * Added in 0.5, branch mode's (opts.branch): a row is a branch of
	 * the samples' branch stacks, keyed by its source and target (each
	 * looked up in the user's maps, then the kernel's: perf's [.], [k],
	 * [H] for neither), its flags and cycles, compared as perf 6.1's
	 * (the abort flag's key, TALLY_HIST_ABORT, comes after the others).
	 */
	TALLY_HIST_SYM_FROM,
	TALLY_HIST_SYM_TO,
	TALLY_HIST_DSO_FROM,
	TALLY_HIST_DSO_TO,
	TALLY_HIST_SRCLINE_FROM,
	TALLY_HIST_SRCLINE_TO,
	TALLY_HIST_MISPREDICT,	/* perf's compare says only equal or not (no order) */
	TALLY_HIST_IN_TX,	/* likewise */
	TALLY_HIST_CYCLES,
	/*
	 * Added in 0.5 after branch mode's, numbered past enum
	 * tally_hist_order's values (32-34), which tally_hist__sort takes
	 * with the keys in one array.
	 * The sample's ip with what holds it, found in any address space
	 * (user first, as perf's symbol_iaddr; the row's level the
	 * sample's), the TRANSACTION flags, the CGROUP id (its name the
	 * session's CGROUP records'), and the thread's cgroup namespace
	 * (dev, ino) from its NAMESPACES records (perf's cgroup_id).
	 */
	TALLY_HIST_SYM_IADDR = 35,
	TALLY_HIST_TRANSACTION,
	TALLY_HIST_CGROUP,
	TALLY_HIST_CGROUP_ID,
	TALLY_HIST_ABORT,	/* branch mode's: the branch's abort flag (perf's "abort") */
	/* Added in 0.5: the sample's time rounded down to opts.time_quantum (perf's "time") */
	TALLY_HIST_TIME,
	/*
	 * Added in 0.5, keys of the row's address: its source file (the
	 * srcline key's file), the address itself (absolute, perf's "addr"),
	 * the size of the map holding it (perf's "dso_size") and of its
	 * symbol (perf's "symbol_size")
	 */
	TALLY_HIST_SRCFILE,
	TALLY_HIST_ADDR,
	TALLY_HIST_DSO_SIZE,
	TALLY_HIST_SYM_SIZE,
	/* Added in 0.5: the sample's CPU's socket (the file's CPU_TOPOLOGY; -1 unknown) */
	TALLY_HIST_SOCKET,
	/*
	 * Added in 0.5, branch mode's: the branch's source and target
	 * addresses (their DSO, then the address: perf's addr_from, addr_to)
	 */
	TALLY_HIST_ADDR_FROM,
	TALLY_HIST_ADDR_TO,
	TALLY_HIST_KEY__NR,
};

/*
 * What orders the rows (tally_hist__sort): a key (ascending, as perf's
 * columns) or one of the counts below (biggest first). Equal children
 * with call graphs put a caller above its callee, as perf.
 */
enum tally_hist_order {
	TALLY_HIST_BY_SELF = 32,	/* the row's own period (perf's overhead) */
	TALLY_HIST_BY_CHILDREN,		/* self + callers' share */
	TALLY_HIST_BY_SAMPLES,		/* the row's own samples */
	/*
	 * Added in 0.5: the row's own period of kernel, user, guest kernel,
	 * guest user samples (perf's overhead_sys, _us, _guest_sys,
	 * _guest_us; counted with opts.cpu_util)
	 */
	TALLY_HIST_BY_SYS = 64,
	TALLY_HIST_BY_US,
	TALLY_HIST_BY_GUEST_SYS,
	TALLY_HIST_BY_GUEST_US,
};

/*
 * Added in 0.5, or'd into a key of tally_hist__sort's order: the key as
 * perf compares the keys -s names beside -F's fields (an unresolved
 * symbol by its address); without it, as perf orders rows by a -F field
 * (two unresolved symbols tie: the rows' input order decides).
 */
#define TALLY_HIST_ORDER_AS_KEY 0x100

/* Call-graph order: which end of a chain is its tree's root. */
enum tally_hist_cg_order {
	TALLY_HIST_CALLEE,	/* the sampled function first (perf's -g callee) */
	TALLY_HIST_CALLER,	/* the outermost caller first (-g caller, perf's default with children) */
};

/*
 * Which samples make rows (perf report's --comm, --pid, --tid, --dsos,
 * --symbols, -x; top's zoom): each a comma list, NULL: any. A filter
 * tests a sample's own row (its sampled function); the rows of its
 * callers are shown when a sample that passed made them. Totals and
 * shares stay those of every sample, as perf's.
 */
struct tally_hist_filter {
	size_t sz;
	const char *comms;
	const char *pids, *tids;
	const char *dsos;		/* shown names; "[unknown]" for no map */
	const char *symbols;
	bool exclude_other;		/* only rows with a parent (the parent key) */
	/*
	 * Added in 0.5: perf report's --symbol-filter, a test of each row,
	 * not of the sample: rows whose symbol holds this text (rows
	 * without a symbol never do); the rows of callers are tested too
	 */
	const char *symbol_filter;
	size_t :0;
};
#define tally_hist_filter__last_field symbol_filter

struct tally_hist_opts {
	size_t sz;
	/*
	 * The row key, in order; NULL: comm,dso,sym (trace when every event
	 * of a file is a tracepoint). Keys with nr_keys 0: one row of all.
	 */
	const enum tally_hist_key *keys;
	int nr_keys;
	/*
	 * Keep each sample's chain (call graphs, children, the parent key,
	 * the pictures); false, and without children, graph or parent key:
	 * a shape is its ip, the cheapest histogram.
	 */
	bool chains;
	bool children;			/* callers' share: perf's --children */
	bool graph;			/* build each row's call-graph tree */
	enum tally_hist_cg_order order;	/* of the trees, and of children's walk */
	bool address;			/* tree frames keyed by address, not function */
	bool no_inline;			/* an unwound frame is its symbol alone */
	const char *parent;		/* the parent key's regex; NULL: "^sys_|^do_page_fault" */
	/* keep each sample's time and weight in order (the timeline pictures) */
	bool timeline;
	/*
	 * The sym key is a function's name in its DSO, whatever its address
	 * (diff's rows: two builds of a program pair by name; two static
	 * functions of one name are one row). Added in 0.3.
	 */
	bool sym_by_name;
	/*
	 * A row whose share (children when counted, else self) is under this
	 * percent of its event's whole period, as an integer (perf's graph
	 * threshold), gets no tree: graph NULL, where a printer with that
	 * threshold shows nothing under it. 0: every row's. Added in 0.3.
	 */
	double graph_min;
	/*
	 * perf's --mem-mode: a sample counts its weight (1 when it has
	 * none), not its period, in rows and totals. Added in 0.5.
	 */
	bool mem_mode;
	/*
	 * perf's branch mode (report -b): each entry of a sample's branch
	 * stack counts as a sample of period 1 (the sample itself does
	 * not), its row keyed as the branch keys say; the sym and dso keys
	 * are the target's. Added in 0.5.
	 */
	bool branch;
	/*
	 * perf's --branch-history: the rows are the samples' (as without
	 * it), their call-graph trees made of each sample's branch stack
	 * instead of its chain: each branch's target then its source, the
	 * newest branch first in callee order, the oldest first in caller
	 * order, repeated runs of sources taken out as perf's remove_loops
	 * does (their iterations counted at the branch before them); frames
	 * keyed by address; each node counts the branch ends that passed it
	 * (tally_hist__node_branch). Needs graph; a sample without a branch
	 * stack has no tree. Added in 0.5.
	 */
	bool branch_history;
	/*
	 * Added in 0.5: keys (bit 1 << key) that perf's default row order
	 * leaves out, as perf report leaves out a column that a filter of
	 * one value elides (--comms X: comm); the rows keep those keys
	 */
	uint64_t elide;
	/*
	 * Added in 0.5: perf report's -U for the call chains: a frame
	 * without a symbol is left out of the chain (the caller leaves out
	 * a sample whose own address has none, as perf's report does)
	 */
	bool hide_unresolved;
	/*
	 * Added in 0.5: perf report's --max-stack, the frames of a chain
	 * walked: the first N (callee order) or the last N (caller order,
	 * as perf walks it then), context markers not counted; 0: all
	 */
	uint32_t max_stack;
	/*
	 * Added in 0.5: the time key's step in ns (perf report's
	 * --time-quantum); 0: 100 ms, perf's default
	 */
	uint64_t time_quantum;
	/*
	 * Added in 0.5: each row's own period split by the samples' level
	 * (perf report --show-cpu-utilization): tally_hist_row's period_sys,
	 * period_us, period_guest_sys, period_guest_us
	 */
	bool cpu_util;
	size_t :0;
};
#define tally_hist_opts__last_field cpu_util

/*
 * A histogram of ss's samples (ss outlives it: its address spaces
 * resolve the rows). NULL + errno: EINVAL (a bad key, a bad sz, a regex
 * that does not compile), ENOMEM.
 */
TALLY_API struct tally_hist *tally_hist__new(struct tally_session *ss,
					     const struct tally_hist_opts *opts);
TALLY_API void tally_hist__free(struct tally_hist *h);
/*
 * Count one sample: call from the session's sample callback (the maps
 * are as at its time then; a new shape's user addresses are resolved
 * now). 0 or -ENOMEM.
 */
TALLY_API int tally_hist__add(struct tally_hist *h, const struct tally_session_sample *smp);
/*
 * Added in 0.4: count samples of smp's shape at once, their periods
 * summing to smp->period (an aggregated profile's row: a store's), as
 * count calls of tally_hist__add whose periods sum to it would: rows'
 * samples, totals, trees and children alike (the timeline gets one
 * entry of the whole period). 0, -EINVAL (count 0), -ENOMEM.
 */
TALLY_API int tally_hist__add_count(struct tally_hist *h, const struct tally_session_sample *smp,
				    uint64_t count);
/*
 * Added in 0.4: the histogram of a whole file in one call: runs the
 * session h was made on (tally_session__run), counting each sample
 * (before the session's own sample callback, which still gets it), then
 * resorts. What tally_session__run returns (0; a callback's non-zero
 * return; -errno where reading stopped, the rows holding what came
 * before it; -EALREADY: the session had run), or -ENOMEM.
 */
TALLY_API int tally_hist__run(struct tally_hist *h);
/* The filter of the next resort (NULL: none). Strings are copied. 0 or -errno. */
TALLY_API int tally_hist__set_filter(struct tally_hist *h, const struct tally_hist_filter *f);
/*
 * Make the rows from the shapes counted so far (their entries, children,
 * trees under the filter) and sort them (the last tally_hist__sort's
 * order, else perf's default: children, self, then the keys). 0 or
 * -ENOMEM.
 */
TALLY_API int tally_hist__resort(struct tally_hist *h);
/*
 * Order the rows by order[0..n-1] in turn (enum tally_hist_key or enum
 * tally_hist_order values; rows equal in all of them stay in the table's
 * order); n 0: perf's default (children when counted, self, then the
 * keys). Kept for later resorts. 0 or -EINVAL.
 */
TALLY_API int tally_hist__sort(struct tally_hist *h, const int *order, int n);
/*
 * The trees from the next resort on (a browser's caller/callee toggle, -g
 * address): built or not, their order, frames by address. Children and
 * the parent key walk chains in that order too. 0, -EINVAL (trees asked
 * of a histogram that keeps no chains: opts.chains, children, graph or
 * the parent key at new).
 */
TALLY_API int tally_hist__set_graph(struct tally_hist *h, bool graph,
				    enum tally_hist_cg_order order, bool address);
/*
 * Forget every sample (top's -z): shapes, rows, trees, totals and the
 * timeline. The resolved addresses stay cached.
 */
TALLY_API void tally_hist__zero(struct tally_hist *h);
/*
 * Age the rows as perf top does at each refresh without -z (its
 * hists__decay_entries): the periods and samples counted so far (rows,
 * trees, the totals' period; samples not yet resorted are not aged) times
 * 7/8, and every row whose own period reaches zero, or was zero (a
 * caller's row of children alone), dropped. Shapes age alike and are
 * forgotten at zero. Rows are read again after the next resort. Added in
 * 0.3. 0, -EINVAL, -ENOMEM.
 */
TALLY_API int tally_hist__decay(struct tally_hist *h);

/* What an event's samples sum to (every sample, filtered or not). */
struct tally_hist_totals {
	size_t sz;
	uint64_t samples;
	uint64_t period;
	uint64_t shapes;		/* distinct shapes */
	uint64_t time_first, time_last;	/* the samples' span, ns (every event) */
	size_t :0;
};
#define tally_hist_totals__last_field time_last

TALLY_API int tally_hist__nr_events(const struct tally_hist *h);
/* 0, -EINVAL (a bad event or sz). */
TALLY_API int tally_hist__totals(const struct tally_hist *h, int event,
				 struct tally_hist_totals *out);

/* A row as of the last resort, in the sorted order. */
struct tally_hist_row {
	size_t sz;
	uint64_t self;			/* the row's own period */
	uint64_t children;		/* self + callers' share (0 without children) */
	uint64_t samples;		/* its own samples */
	/* the keys (each filled, whichever the row is keyed by) */
	const char *comm;
	int32_t pid, tid, cpu;		/* cpu -1 when not recorded */
	const char *dso;		/* shown name; NULL: no map (perf's "[unknown]") */
	const char *path;		/* the map's file; NULL: no map */
	const char *sym;		/* NULL: unresolved (addr is the address) */
	uint64_t addr;			/* map-relative (absolute without a map) */
	uint64_t sym_start;
	char level;			/* perf's [k] or [.]: 'k' or '.' */
	bool inlined;			/* sym is "name (inlined)" */
	const char *srcline;		/* NULL: unknown (perf's "??:0") */
	const char *parent;		/* NULL: perf's "[other]" */
	const char *trace;		/* NULL without the trace key */
	/* its call-graph tree's root (opts.graph; NULL without a chain) */
	const struct tally_hist_node *graph;
	uint32_t max_depth;		/* its longest chain */
	/*
	 * sym is a data object's (code in one: hand-written assembly): perf's
	 * row shows it as "name+0xOFF", OFF its address map-relative less the
	 * symbol's mapped start (object_off). 0.3.
	 */
	bool object;
	uint64_t object_off;
	/*
	 * Added in 0.5, the PMU's fields of the row's first sample (each 0
	 * where the sample lacks it): the data source (union
	 * perf_mem_data_src), the physical data address, the pages' sizes,
	 * the weight (WEIGHT_STRUCT's first word) and instruction latency.
	 */
	uint64_t data_src;
	uint64_t phys_addr;
	uint64_t data_page_size, code_page_size;
	uint64_t weight, ins_lat;
	/*
	 * The data address (ADDR) and what holds it, looked up as perf's
	 * mem keys do, functions and data objects alike in the sample's
	 * address space: NULL names where no map or symbol does; data_off
	 * is daddr less the symbol's mapped start.
	 */
	uint64_t daddr;
	const char *data_sym, *data_dso;
	uint64_t data_off;
	bool data_object;		/* data_sym is a data object (perf's "name+0xOFF") */
	/*
	 * The data address's cache line as perf's dcacheline key shows it:
	 * the address map-relative (absolute without a map), rounded down
	 * to this machine's cache line; data_mapped: a map held it.
	 */
	uint64_t data_cacheline;
	bool data_mapped;
	/*
	 * Branch mode's (opts.branch), the row's first branch: its source
	 * and target as perf's branch keys show them (the symbol, NULL
	 * unresolved; the DSO's shown name, NULL without a map; the address
	 * map-relative, absolute without a map; the level '.', 'k' or 'H'
	 * for no map; the source line, NULL unknown), the raw addresses
	 * and the flags word of its struct perf_branch_entry.
	 */
	struct tally_hist_branch_end {
		const char *sym, *dso, *srcline;
		uint64_t addr, raw;
		char level;
	} br_from, br_to;
	uint64_t br_flags;
	/*
	 * The keys after dcacheline: the sample's ip (absolute) and the
	 * function or object holding it (iaddr_off: ip less an object's
	 * mapped start), the transaction flags, the cgroup id and its path
	 * (NULL where no CGROUP record named it), the cgroup namespace.
	 */
	uint64_t iaddr;
	const char *iaddr_sym;
	bool iaddr_object;
	uint64_t iaddr_off;
	uint64_t transaction;
	uint64_t cgroup;
	const char *cgroup_name;
	uint64_t cgroup_dev, cgroup_ino;
	uint64_t time;			/* the time key's: its first sample's, rounded down (0.5) */
	/*
	 * 0.5: the address absolute (the addr key's), the size of the map
	 * holding it (0: none) and of its symbol (0: none)
	 */
	uint64_t ip;
	uint64_t dso_size, sym_size;
	int32_t socket;			/* the socket key's: -1 unknown (0.5) */
	/* branch mode's: each end's address less its symbol's start (0.5) */
	uint64_t br_from_off, br_to_off;
	/*
	 * the srcfile key's: srcline's first srcfile_len bytes are its file
	 * (0: no line found, perf's ""), 0.5
	 */
	uint32_t srcfile_len;
	/* opts.cpu_util's: the row's own period of kernel, user, guest kernel, guest user samples (0.5) */
	uint64_t period_sys, period_us, period_guest_sys, period_guest_us;
	size_t :0;
};
#define tally_hist_row__last_field period_guest_us

/* The rows of event shown under the filter. */
TALLY_API size_t tally_hist__nr_rows(const struct tally_hist *h, int event);
/* Row i of event, sorted. 0, -EINVAL (a bad event, index or sz). */
TALLY_API int tally_hist__row(const struct tally_hist *h, int event, size_t i,
			      struct tally_hist_row *out);

/*
 * Added in 0.5: perf report's group view (--group, a file's {a,b}
 * groups): events leader+1..leader+nr-1 shown with event leader. From
 * the next resort on, the leader's rows are also the keys only its
 * members have (as perf's hists__link: those rows count nothing of the
 * leader's and have no graph), ordered as perf's group view: the
 * leader's children, then its own period and each member's in event
 * order, then the keys (tally_hist__sort's order: its counts compared so
 * too). nr 1: no group. 0, -EINVAL (an event in two groups), -ENOMEM.
 */
TALLY_API int tally_hist__set_group(struct tally_hist *h, int leader, int nr);
/*
 * Added in 0.5: perf report's --group-sort-idx: groups' rows ordered by
 * member idx's own period first (then the other members', not the
 * leader's); an idx past a group's members: the leader's alone. 0: the
 * leader first (the default). 0, -EINVAL.
 */
TALLY_API int tally_hist__set_group_sort(struct tally_hist *h, int idx);
/*
 * Added in 0.5: of row i of a group leader's rows, member k's row of the
 * same key (k 0: the leader's own, tally_hist__row), or, where that
 * member has none, the row's keys with its counts 0 and no graph.
 * 0, -EINVAL (a bad event, index, member or sz; not a leader).
 */
TALLY_API int tally_hist__row_member(const struct tally_hist *h, int event, size_t i, int k,
				     struct tally_hist_row *out);

/*
 * A call-graph tree, as perf's: the chains of a row's samples merged,
 * one frame per node, in opts.order from the root (an empty root node
 * above them). A browser expands a node by walking its children.
 */
struct tally_hist_frame {
	const char *sym;		/* NULL: unresolved */
	const char *dso;		/* shown name; NULL: no map */
	uint64_t ip;			/* the address in the sample */
	uint64_t sym_start;		/* the symbol's address (orders equal branches) */
	uint32_t dso_rank;		/* perf's DSO order (orders equal branches) */
	bool mapped;			/* false: no map held ip */
};

struct tally_hist_node_info {
	size_t sz;
	struct tally_hist_frame frame;	/* zeroed for the root */
	uint64_t self, self_samples;	/* chains ending here */
	uint64_t below, below_samples;	/* chains going on below here */
	unsigned nr_children;
	size_t :0;
};
#define tally_hist_node_info__last_field nr_children

/* 0, -EINVAL (a bad sz). */
TALLY_API int tally_hist_node__info(const struct tally_hist_node *n,
				   struct tally_hist_node_info *out);
/* A node's first child, in the order chains first came; NULL: a leaf. */
TALLY_API const struct tally_hist_node *tally_hist_node__child(const struct tally_hist_node *n);
/* The next sibling; NULL: the last. */
TALLY_API const struct tally_hist_node *tally_hist_node__next(const struct tally_hist_node *n);
/* The parent; NULL for the root. */
TALLY_API const struct tally_hist_node *tally_hist_node__parent(const struct tally_hist_node *n);
/* The node's frame (the root's is zeroed). */
TALLY_API const struct tally_hist_frame *tally_hist_node__frame(const struct tally_hist_node *n);

/*
 * Added in 0.5: what the branch ends merged into a node of a
 * branch_history tree counted, as perf 6.1's callchain_list does (its
 * report prints them after the frame: util/callchain.c's
 * counts_str_build). An end counts in branches; a target also in
 * predicted, aborts and the type counts (those of a branch from a
 * known source, typed), a source in cycles and, past its first,
 * froms (perf's from_count, which skips the one that made the node).
 */
struct tally_hist_node_branch {
	size_t sz;
	uint64_t branches;		/* ends merged here */
	uint64_t predicted, aborts;	/* targets predicted, aborted */
	uint64_t cycles;		/* the sources' cycles, summed */
	uint64_t iters, iter_cycles;	/* the sources' removed loops: iterations, their cycles */
	uint64_t froms;			/* sources merged into the node after the one that made it */
	bool target;			/* the last end merged was a target (its counts are printed) */
	/* the targets' branch types: PERF_BR_*, EXTEND_ABI's new types (PERF_BR_NEW_*) */
	uint64_t types[16], new_types[8];
	uint64_t cond_fwd, cond_bwd;	/* PERF_BR_COND forward (to > from), backward */
	uint64_t cross_4k, cross_2m;	/* target and source in different 4K pages (same 2M), 2M areas */
	/*
	 * The frame as perf's branch history labels it: its source line
	 * ("file.c:12"; NULL unknown) and its address less its symbol's
	 * start, as mapped (perf's "sym +OFF" where no line is known).
	 */
	const char *srcline;
	uint64_t sym_off;
	size_t :0;
};
#define tally_hist_node_branch__last_field sym_off

/*
 * Node n's (of h's trees) branch counts. 0; -ENOENT: h is not a
 * branch_history histogram, or n is its tree's root; -EINVAL (a bad
 * sz, a node of no tree of h).
 */
TALLY_API int tally_hist__node_branch(const struct tally_hist *h, const struct tally_hist_node *n,
				      struct tally_hist_node_branch *out);

/*
 * A share as perf prints it, snprintf(buf, len, "%.2f", pct)'s bytes
 * without glibc's float formatting (a report prints tens of thousands);
 * a shorter buf gets snprintf's own. Returns the length; -EINVAL: no buf.
 */
TALLY_API int tally_hist__fmt_pct(char *buf, size_t len, double pct);

#ifdef __cplusplus
}
#endif

#endif
