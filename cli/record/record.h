/* SPDX-License-Identifier: MIT */
/*
 * tally record: declarations shared by its files.
 *   cmd_record.c   command line -> struct record_config (options as data)
 *   record_run.c   one recording: targets, events, rings, the perf.data
 *                  writer, the drain loop, signals, snapshots, the summary
 *   record_offcpu.c --off-cpu: its event, the BPF timer, its samples
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
	bool off_cpu;			/* --off-cpu: time blocked, through BPF */
	const char *html;		/* --html: the page too, from the written file */
	bool help;
	char **cmd_argv;		/* the workload, NULL-terminated */
	int cmd_argc;
	char **orig_argv;		/* for the CMDLINE feature */
	int orig_argc;
};

struct tally_offcpu;
struct tally_data_writer;
/* --off-cpu: the offcpu-time event added to l (before config); 0 or -errno */
int record_offcpu_add_event(struct tally_evlist *l);
/* The BPF timer for the targets, not enabled; NULL after saying why. */
struct tally_offcpu *record_offcpu_open(const struct record_config *cfg,
					const struct cli_targets *ts);
/* Disables it and writes its sums as offcpu-time samples: 0 or -errno. */
int record_offcpu_write(struct tally_offcpu *o, struct tally_evlist *l,
			struct tally_data_writer *w);

/* Runs one recording; returns the exit status for tally. */
int record_run(const struct record_config *cfg);

#endif
