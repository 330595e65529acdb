/* SPDX-License-Identifier: MIT */
/*
 * tally report's state (cmd_report.c's options and histogram), shared by
 * the files that print it: report_rows.c's plain table.
 */
#ifndef TALLY_CLI_REPORT_CTX_H
#define TALLY_CLI_REPORT_CTX_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <tally/tally.h>
#include "report.h"
#include "report_graph.h"
#include "report_branch.h"
#include "report_threads.h"
#include "hist_cols.h"
#include "sample_filter.h"
#include "store_read.h"

#define sort_key tally_hist_key

struct report {
	struct tally_session *ss;
	struct tally_hist *hist;
	int hist_err;			/* the first sample the histogram could not count */
	struct tally_hist_filter filter;	/* --comm, --pid, --tid, --dsos, --symbols, -x */
	struct cli_sample_filter sf;	/* --time, -C: samples dropped before counting */
	bool hide_unresolved;		/* -U: so are samples whose own address has no symbol */
	bool sf_other;			/* past the first event: its rows alone took --symbol-filter */
	const char *time_str;
	double percent_limit;
	bool relative;			/* --percentage relative: of the rows the filters keep */
	uint64_t graph_total;		/* relative: the graphs' whole stays every sample's (perf's) */
	uint64_t graph_base;		/* relative: what their threshold is of (the rows' total) */
	struct tally_hist_totals head;	/* the event's shown totals, made once by print_hist */
	bool elide[K__NR];		/* kept in the key, not printed */
	struct report_exports exp;	/* pictures instead of the histogram */
	enum sort_key sort[K__NR];
	int nsort;
	const char *sort_spec;
	bool header, header_only;
	bool show_nr, show_period;	/* -n, --show-total-period: perf's Samples, Period */
	bool quiet;			/* -q: no '#' lines */
	const char *sep;		/* -t: the columns joined by it, not padded apart */
	bool has_parent;		/* the parent key */
	bool srcline;			/* the srcline key */
	bool no_inline;
	const char *symfs;		/* --symfs */
	const char *kallsyms;		/* --kallsyms */
	struct cg_param cg;		/* call graphs under the rows (mode none: not drawn) */
	bool children;
	bool hierarchy;			/* --hierarchy: a level per key, the rows under their parents */
	bool mem_mode;			/* --mem-mode: rows weigh their samples' weights */
	bool ns;			/* --ns: the time key in ns */
	bool cpu_util;			/* --show-cpu-utilization: sys and usr columns */
	uint64_t time_quantum;		/* --time-quantum, ns; 0: the library's 100 ms */
	bool branch;			/* branch mode: a row per branch of the samples' stacks */
	struct report_branch_stat brstat;	/* its branches' types, as perf counts them */
	const char *mispredict;		/* the last mispredict cell (hist_cells') */
	int ipc_at;			/* the sym key perf's ipc_null column stands for; -1: none */
	struct hist_fields fields;	/* -F: the columns, in order (n 0: none) */
	struct hist_cells cells;
	bool show_threads;		/* -T: the READ records' per-thread counts after the rows */
	struct report_threads threads;
	struct cli_from from;		/* --from: a store's merged profile */
	/*
	 * perf's event groups (report_group.c), by event: the size of the
	 * group it leads (1: alone, 0: a member), the group's name (NULL:
	 * anonymous); group_view: members shown in their leader's table
	 */
	int *gnr;
	const char **gname;
	bool group_view;
	bool group_forced;		/* --group on a file without groups: one of all events */
};

/* The rows of print_hist, and what prints them. */
struct rows_out {
	const struct report *r;
	const struct tally_hist_row *rows;
	size_t n;
	uint64_t total;
	const int *width;
	int last;
	/* printed by two threads: chunk c of ROWS_CHUNK rows into buf[c] */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t next, nchunk;
	struct rows_buf { char *text; size_t len, cap; bool done, failed; } *buf;
};

/* report_head.c: the '#' lines before the first table, then each table's */
void report_print_preamble(const struct report *r, uint64_t lost);
/* An event's totals (every sample, shown or not). */
struct tally_hist_totals report_totals(const struct report *r, int idx);
/* the rows without --symbol-filter (on: false) or with it again: 0, or -errno */
int report_symbol_filter_on(struct report *r, bool on);
/* What event idx's percentages are of (--percentage relative: the rows kept); sets graph_base */
struct tally_hist_totals report_shown(struct report *r, int idx);
/* "# Samples: N of event(s) 'name'" and the Event count of r->head */
void report_print_head(const struct report *r, const char *name, bool plural);

/*
 * report_group.c: which events show together (the file's groups; group:
 * --group 1, --no-group 0, neither -1), set on the histogram with
 * --group-sort-idx's member; 0, or the exit status said (129: a usage
 * error). A leader's
 * table with its members' columns.
 */
int report_group_setup(struct report *r, struct tally_data_reader *rd, int nr_events, int group,
		       int sort_idx);
void report_group_print(struct report *r, int idx);
void report_group_free(struct report *r);
/*
 * The '#' column names and dots of a table (-t: the names joined by the
 * separator, no dots), each count column nr values wide (a group's)
 */
void report_print_columns(const struct report *r, int nr, const int *width);

/* The call graph under row e (none in -g none): of total, or of every sample with --percentage relative. */
void report_print_graph(FILE *fp, const struct report *r, uint64_t total,
			const struct tally_hist_row *e);
/* report_print_graph as hist_table's callback (arg: the report) */
void report_table_graph(FILE *fp, const struct tally_hist_row *e, uint64_t total, void *arg);
/* o's rows, on two threads when they are many, in order */
void report_print_rows(struct rows_out *o);

#endif
