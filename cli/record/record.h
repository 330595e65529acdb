/* SPDX-License-Identifier: MIT */
/*
 * tally record: declarations shared by its files.
 *   cmd_record.c   command line -> struct record_config (options as data)
 *   record_run.c   one recording: targets, events, rings, the perf.data
 *                  writer, the drain loop, signals, snapshots, the summary
 */
#ifndef TALLY_CLI_RECORD_H
#define TALLY_CLI_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/evlist.h>
#include "event_opts.h"
#include "cgroups.h"
#include "target.h"

struct record_config {
	struct cli_events events;	/* -e, --filter */
	struct cli_target target;	/* -p -t -a -C -G -i */
	struct cli_cgroups cg;		/* -G, perf's lists: each -e before it its own */
	const char *output;		/* -o: default perf.data, "-" a pipe */
	uint64_t freq;			/* -F */
	bool freq_max;			/* -F max */
	bool strict_freq;		/* --strict-freq: -F above the maximum is an error */
	uint64_t period;		/* -c */
	enum tally_callchain callchain;	/* -g, --call-graph */
	uint32_t stack_size;		/* --call-graph dwarf,SIZE */
	bool per_thread;		/* --per-thread: rings per thread, no inherit */
	long mmap_pages;		/* -m: data pages per ring */
	bool switch_events;		/* --switch-events */
	int zstd_level;			/* -z / --compression-level */
	bool overwrite;			/* --overwrite */
	bool switch_output_signal;	/* --switch-output=signal */
	bool quiet;			/* -q */
	int verbose;			/* -v */
	bool no_buildid;		/* -B */
	bool no_buildid_cache;		/* -N: no copies in perf's build-id cache */
	bool sample_cpu;		/* --sample-cpu */
	const char *html;		/* --html: the page too, from the written file */
	bool help;
	char **cmd_argv;		/* the workload, NULL-terminated */
	int cmd_argc;
	char **orig_argv;		/* for the CMDLINE feature */
	int orig_argc;
};

/* Runs one recording; returns the exit status for tally. */
int record_run(const struct record_config *cfg);

#endif
