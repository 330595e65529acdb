/* SPDX-License-Identifier: MIT */
/* report's branch mode (-b): whether it is on, and perf's branch statistics after the rows. */
#ifndef TALLY_CLI_REPORT_BRANCH_H
#define TALLY_CLI_REPORT_BRANCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <tally/hist.h>

struct tally_data_reader;

/* perf 6.1's default keys in branch mode */
#define REPORT_BRANCH_SORT "comm,dso_from,symbol_from,symbol_to,cycles"

/*
 * Branch mode as perf 6.1 decides it: opt 1 (-b) or 0 (--no-branch-stack),
 * else (-1) on when the file's header says its samples have branch
 * stacks (the BRANCH_STACK feature) and none has a user stack.
 */
bool report_branch_mode(struct tally_data_reader *rd, int nr_events, int opt);
/* Whether some event samples branch stacks. */
bool report_branch_data(struct tally_data_reader *rd, int nr_events);

/* perf's branch_type_stat: its types' counts, the conditional ones' directions, the crossings */
struct report_branch_stat {
	uint64_t counts[16], new_counts[8];
	uint64_t cond_fwd, cond_bwd, cross_4k, cross_2m;
};

/*
 * Count rows[0..n)'s branches as perf's report does: each branch by its
 * row's first one (perf counts the row's branch_info, not its own).
 */
void report_branch_count(struct report_branch_stat *st, const struct tally_hist_row *rows, size_t n);
/*
 * Count every row of h's events as report_branch_count, the ones filter
 * f hides too (perf counts each entry before its filters): h is resorted
 * without f, then with it again. 0 or -errno.
 */
int report_branch_stats(struct tally_hist *h, const struct tally_hist_filter *f, int nr_events,
			struct report_branch_stat *st);
/*
 * Whether --branch-history reads the file: stacks perf reads (the
 * header's BRANCH_STACK feature, as branch mode's default), with call
 * chains or without. 0, or the exit status after saying why.
 */
int report_brhist_setup(struct tally_data_reader *rd, int nr_events);
/* perf's "# Branch Statistics:" lines (none without a known type), with no newline at the end. */
void report_branch_print(FILE *fp, const struct report_branch_stat *st);

#endif
