/* SPDX-License-Identifier: MIT */
/* tally trace: the configuration the options fill, and the run. */
#ifndef TALLY_CLI_TRACE_H
#define TALLY_CLI_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include "event_opts.h"
#include "target.h"

#define TRACE_PF_MAJ	1
#define TRACE_PF_MIN	2

struct trace_config {
	struct cli_target target;
	struct cli_events ev;		/* each -e with the --filter after it */
	char *events;			/* the -e's joined: syscalls, globs, '!' negations */
	const char *output;		/* -o FILE; default stderr, as perf */
	const char *input;		/* -i perf.data */
	const char *user;		/* -u USER */
	char *user_pids;		/* its processes, the -p list */
	bool summary_only;		/* -s */
	bool with_summary;		/* -S */
	bool errno_summary;
	bool failure_only;		/* --failure */
	bool abs_time;			/* -T */
	bool no_strings;		/* --no-strings: pointers, as perf */
	bool comm;			/* --comm (default) / --no-comm */
	int pf;				/* --pf: TRACE_PF_MAJ | TRACE_PF_MIN */
	bool syscalls;			/* --syscalls: with --pf or -e events, the syscalls too */
	double duration_ms;		/* --duration: only calls longer than this */
	long mmap_pages;		/* -m */
	bool help;
	char **cmd_argv;
	int cmd_argc;
};

/* Live: the targets' syscalls as they happen. */
int trace_run(const struct trace_config *cfg);
/* -i: the syscalls a perf.data file recorded. */
int trace_file(const struct trace_config *cfg);

#endif
