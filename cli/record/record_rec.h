/* SPDX-License-Identifier: MIT */
/*
 * One recording's state (record_run.c), shared with the file that opens
 * its events (record_open.c).
 */
#ifndef TALLY_CLI_RECORD_REC_H
#define TALLY_CLI_RECORD_REC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <tally/tally.h>
#include "record.h"
#include "control.h"

/* A DSO an executable mapping named: its build id goes in the file. */
struct dso_seen {
	char *name;
	pid_t pid;
	bool kernel;
};

struct rec {
	const struct record_config *cfg;
	struct cli_targets ts;
	struct tally_evlist *l;
	struct tally_data_writer *w;
	int out_fd;			/* the file, or the saved stdout for a pipe */
	char path[4096];
	bool pipe;
	uint64_t samples, lost, wakeups;
	bool wrote;			/* since the last FINISHED_ROUND */
	int write_err;			/* the writer's first error (-errno) */
	bool switch_failed;
	double switched_at;		/* the last switch (the start): --switch-output=TIME */
	char **switched;		/* --switch-max-files: the files kept, a ring */
	int switched_cur;
	bool freq_warned;		/* -F above the maximum: said once */
	bool kmap_warned;		/* no kernel map: said once */
	uint64_t bad;			/* side-band records the decoder refused */
	uint32_t bad_type;		/* the first one's type and ring */
	int bad_ring;
	struct dso_seen *dsos;
	size_t nr_dsos, cap_dsos;
	struct tally_record_layout side;	/* the side-band event's layout */
	const struct perf_event_attr *sid_attr;	/* synthesized records' trailer */
	struct cg_fds cg;		/* the events' own cgroups (-G lists) */
	struct cli_control ctl;		/* --control's channel (ctl_fd -1: none) */
	bool usage_err;			/* a bad -e or --filter: exit 129, as perf */
	struct tally_offcpu *offcpu;	/* --off-cpu's BPF timer */
	struct record_strings *strs;	/* tally trace record's path strings */
};

#define RECORD_PROGNAME "tally record"

/*
 * record_open.c: the CPUs a workload's or -p/-t's threads are followed
 * on, then the events built, configured for sampling and opened (with
 * perf's fallbacks): 0, or -1 said
 */
int record_cpus_for_threads(struct rec *r);
int record_open_events(struct rec *r);

#endif
