/* SPDX-License-Identifier: MIT */
/*
 * The histogram's columns as perf report and perf top print them (both
 * use perf's one set of sort entries): the sort keys' names, headers,
 * widths and cells (hist_cols.c), -F/--fields's columns and their table
 * (hist_cols.c), --hierarchy's levels (hist_hier.c).
 */
#ifndef TALLY_CLI_HIST_COLS_H
#define TALLY_CLI_HIST_COLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <tally/hist.h>
#include "report_fmt.h"

/* the sort keys' short names (tally/hist.h's), for report and top */
#define K_COMM TALLY_HIST_COMM
#define K_PID TALLY_HIST_PID
#define K_DSO TALLY_HIST_DSO
#define K_SYM TALLY_HIST_SYM
#define K_CPU TALLY_HIST_CPU
#define K_SRCLINE TALLY_HIST_SRCLINE
#define K_PARENT TALLY_HIST_PARENT
#define K_TRACE TALLY_HIST_TRACE
#define K_TIME TALLY_HIST_TIME
#define K_SRCFILE TALLY_HIST_SRCFILE
#define K_ADDR TALLY_HIST_ADDR
#define K_DSO_SIZE TALLY_HIST_DSO_SIZE
#define K_SYM_SIZE TALLY_HIST_SYM_SIZE
#define K_SOCKET TALLY_HIST_SOCKET
#define K_MEM TALLY_HIST_MEM
#define K_LOCKED TALLY_HIST_LOCKED
#define K_BLOCKED TALLY_HIST_BLOCKED
#define K_PHYS TALLY_HIST_PHYS_DADDR
#define K_DPAGE TALLY_HIST_DATA_PAGE_SIZE
#define K__NR TALLY_HIST_KEY__NR
/* a key, not an order value: the keys are numbered around enum tally_hist_order's (32-34) */
#define HIST_IS_KEY(v) ((v) >= 0 && (v) < K__NR && \
			((v) < TALLY_HIST_BY_SELF || (v) > TALLY_HIST_BY_SAMPLES))
/* the keys perf 6.1 takes only with --mem-mode (its memory_sort_dimensions) */
#define K_SYM_DADDR TALLY_HIST_SYM_DADDR
#define K_DSO_DADDR TALLY_HIST_DSO_DADDR
#define K_DCACHELINE TALLY_HIST_DCACHELINE
#define K_SYM_IADDR TALLY_HIST_SYM_IADDR
#define K_TXN TALLY_HIST_TRANSACTION
#define K_CGROUP TALLY_HIST_CGROUP
#define K_CGROUP_ID TALLY_HIST_CGROUP_ID
#define HIST_MEM_MODE_KEY(k) (((k) >= K_MEM && (k) <= K_DPAGE) || \
			      ((k) >= K_SYM_DADDR && (k) <= K_DCACHELINE) || (k) == K_SYM_IADDR)
/* the keys of branch mode alone (perf's bstack_sort_dimensions) */
#define HIST_BRANCH_KEY(k) (((k) >= TALLY_HIST_SYM_FROM && (k) <= TALLY_HIST_CYCLES) || \
			    (k) == TALLY_HIST_ADDR_FROM || (k) == TALLY_HIST_ADDR_TO || \
			    (k) == TALLY_HIST_ABORT)

struct tally_session;

/* a key's -s/-F name and its column's header (perf's, spaces and all) */
struct hist_key_name {
	const char *name, *header;
	int width;		/* perf's fixed width of the column (0: sized by its cells) */
};
extern const struct hist_key_name hist_keys[TALLY_HIST_KEY__NR];

/* What a cell needs besides its row. */
struct hist_cells {
	struct tally_session *ss;	/* pid and comm: the thread's name at the end */
	bool dsos;			/* --dsos given: an unresolved row does not widen DSO */
	bool sep;			/* -t given: nor then */
	/*
	 * The last mispredict cell printed (perf's static: a branch neither
	 * predicted nor mispredicted shows it); NULL: "N/A" for those.
	 */
	const char **mispredict;
	bool ns;			/* --ns: the time key's cells in ns (16 wide, not 12) */
};

/* A key column's width over rows[0..n): its header's, or its widest value. */
int hist_key_width(const struct hist_cells *c, const struct tally_hist_row *rows, size_t n,
		   enum tally_hist_key k);
/* Rows from..from+n of event idx of h into rows (room for n), in their order. */
void hist_rows_at(const struct tally_hist *h, int idx, size_t from, size_t n,
		  struct tally_hist_row *rows);
/*
 * width[i] of key keys[i] (i < nkeys; 20 at ipc_at, -1: none) over every
 * row of event idx of h, copying them nwin (at least 2) at a time into win:
 * as hist_key_width over all rows, without a copy of all of them.
 */
void hist_key_widths(const struct hist_cells *c, const struct tally_hist *h, int idx,
		     const enum tally_hist_key *keys, int nkeys, int ipc_at,
		     struct tally_hist_row *win, size_t nwin, int *width);
/* "  " and the cell, as perf's columns (a last symbol or source line unpadded). */
void hist_key_put(struct line *ln, const struct hist_cells *c, const struct tally_hist_row *e,
		  enum tally_hist_key k, int width, bool last);
/* -t's: SEP (unless first) and the cell as hist_key_put pads it, SEP's first character '.' */
void hist_key_put_sep(struct line *ln, const char *sep, bool first, const struct hist_cells *c,
		      const struct tally_hist_row *e, enum tally_hist_key k, int width, bool last);
/* The cell as a --hierarchy level shows it: leading spaces gone, sym and srcline unpadded. */
void hist_key_put_level(struct line *ln, const struct hist_cells *c,
			const struct tally_hist_row *e, enum tally_hist_key k, int width);

/* -F's counts, as tally_hist__sort orders by them */
/* HF_IPC: perf's "IPC [IPC Coverage]" (ipc_null) after -F's columns where -s names symbol */
enum { HF_OVERHEAD = TALLY_HIST_BY_SELF, HF_CHILDREN = TALLY_HIST_BY_CHILDREN, HF_PERIOD = 48,
       HF_SAMPLE = TALLY_HIST_BY_SAMPLES, HF_IPC = 49,
       /* perf's overhead_sys, _us, _guest_sys, _guest_us: the row's own period by level */
       HF_SYS = 50, HF_US, HF_GUEST_SYS, HF_GUEST_US };
#define HIST_FIELDS_MAX (2 * TALLY_HIST_KEY__NR + 4)

/* -F: the columns in order, each a key or an HF_* count */
struct hist_fields {
	int col[HIST_FIELDS_MAX];
	int n;
	int nsort_given;	/* -s's keys, first in the key list: they order the rows first */
};
/* -F names one of those: the histogram sums the levels (tally_hist_opts.cpu_util) */
bool hist_fields_cpu_util(const struct hist_fields *f);

/*
 * -F as perf: keys[0..*nkeys) holds -s's keys (*nkeys 0 without -s); the
 * histogram's keys come back there: -s's, then -F's others. Keys not in
 * allowed (a bit per key) are unknown to the command. 0, or -1 said on
 * stderr as cmd's option opt ("-F").
 */
int hist_fields_parse(struct hist_fields *f, const char *spec, enum tally_hist_key *keys,
		      int *nkeys, uint64_t allowed, const char *cmd, const char *opt);
/* The rows' order for tally_hist__sort: -s's keys, the fields, the keys. Returns its length. */
int hist_fields_order(const struct hist_fields *f, const enum tally_hist_key *keys, int nkeys,
		      int *order);

/* How a table of rows prints. */
struct hist_table {
	FILE *fp;
	const struct hist_cells *cells;
	uint64_t total;			/* the event's period: the shares' whole */
	bool header;			/* the '#' column names and dots */
	bool children;			/* callers' share counted (else overhead_children is N/A) */
	double percent_limit;		/* rows under it hidden */
	int entries;			/* lines printed at most; 0: all */
	bool show_nr, show_period;	/* --hierarchy: Samples and Period after Overhead */
	int ipc_level;			/* --hierarchy: 1 + the level that is perf's IPC column; 0 none */
	const char *sep;		/* -t: the separator, or NULL */
	/* a row's call graph under it (NULL: none) */
	void (*graph)(FILE *fp, const struct tally_hist_row *e, uint64_t total, void *arg);
	void *arg;
	/*
	 * perf's group view (report): each count column a value per member,
	 * row k's members grows[k * gnr ..], each a share of gtot[member];
	 * gnr 0: none
	 */
	int gnr;
	const struct tally_hist_row *grows;
	const double *gtot;
};

/* -F's table of rows[0..n), in their order. */
void hist_fields_print(const struct hist_fields *f, const struct hist_table *t,
		       const struct tally_hist_row *rows, size_t n);

/*
 * --hierarchy: each of keys[0..nkeys) a level, its entries the sums of
 * the rows under them (rows[0..n), keyed by all the keys), biggest first,
 * the graphs under the last level's. 0, or -ENOMEM.
 */
int hist_hier_print(const struct hist_table *t, const enum tally_hist_key *keys, int nkeys,
		    const struct tally_hist_row *rows, size_t n);

#endif
