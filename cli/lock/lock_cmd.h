/* SPDX-License-Identifier: MIT */
/*
 * tally lock: perf lock 6.1 over the library's session.
 *   cmd_lock.c   the subcommands and their options; record and script
 *   lock_stat.c  the file read in time order, perf's lock sequences per
 *                thread and lock, the tables of report and contention
 */
#ifndef TALLY_CLI_LOCK_H
#define TALLY_CLI_LOCK_H

#include <stdbool.h>

struct lock_opts {
	const char *input;
	const char *key;		/* -k; NULL: the command's default */
	const char *fields;		/* -F; NULL: the command's default */
	bool threads;			/* -t: per thread */
	bool combine;			/* report -c: locks of one name as one */
	int entries;			/* -E; 0: all */
	int verbose;			/* -v: contention's call stacks, the debug counts */
	int max_stack;			/* contention --max-stack */
	int stack_skip;			/* contention --stack-skip */
};

/* The exit status: 0, 1 (the file), 234 (perf's -EINVAL: an unknown key or field, no events). */
int lock_report(const struct lock_opts *o);
int lock_contention(const struct lock_opts *o);

#endif
