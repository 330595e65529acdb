/* SPDX-License-Identifier: MIT */
/*
 * perf report's call graphs under each row: the histogram's tree of the
 * row (tally/hist.h), printed as perf 6.1 draws it in graph, fractal,
 * flat and folded modes.
 */
#ifndef TALLY_CLI_REPORT_GRAPH_H
#define TALLY_CLI_REPORT_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <tally/hist.h>

enum cg_mode { CG_NONE, CG_GRAPH, CG_FRACTAL, CG_FLAT, CG_FOLDED };
enum cg_value { CG_PERCENT, CG_PERIOD, CG_COUNT };

struct cg_param {
	enum cg_mode mode;
	double min_percent;		/* hide branches below it (default 0.5) */
	unsigned print_limit;		/* 0: all */
	bool caller;			/* root first (perf's default with --children) */
	bool order_set;			/* caller/callee given */
	bool address;			/* frames keyed and shown by address */
	enum cg_value value;
	/*
	 * --branch-history's trees (tally_hist's branch_history): frames
	 * labeled and ordered by address, each with its branch counts, as
	 * perf 6.1 prints them. NULL: a call graph's.
	 */
	const struct tally_hist *brhist;
	/*
	 * With brhist: every frame's counts " (calltrace)" (perf 6.1's
	 * --hierarchy merges the chains without their branch counts).
	 */
	bool calltrace;
};

/* perf's -g argument: "graph,0.5,caller,function,percent" in any order. 0, or -1 after saying why. */
int cg_parse(struct cg_param *p, const char *arg, const char *cmd);

/*
 * Print the tree under a row. total: the event's whole period;
 * parent: the row's own (children or self) period; min_hit: the
 * threshold of graph mode (perf takes it from the whole period).
 */
void cg_print(FILE *fp, const struct tally_hist_node *root, const struct cg_param *p, uint64_t total,
	      uint64_t parent, bool skip_first);
/*
 * The same, the threshold taken from base: report --percentage relative,
 * whose graphs show shares of the whole and prune by what the filters keep
 */
void cg_print_base(FILE *fp, const struct tally_hist_node *root, const struct cg_param *p,
		   uint64_t total, uint64_t base, uint64_t parent, bool skip_first);

#endif
