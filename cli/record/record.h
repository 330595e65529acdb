/* SPDX-License-Identifier: MIT */
/*
 * tally record: declarations shared by its files.
 *   cmd_record.c   command line -> struct record_config (options as data)
 *   record_open.c  the events configured and opened, perf's fallbacks
 *   record_run.c   one recording: targets, events, rings, the perf.data
 *                  writer, the drain loop, signals, snapshots, the summary
 *   record_offcpu.c --off-cpu: its event, the BPF timer, its samples
 *   record_strings.c tally trace record's path strings
 */
#ifndef TALLY_CLI_RECORD_H
#define TALLY_CLI_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/evlist.h>
#include "event_opts.h"
#include "cgroups.h"
#include "target.h"
#include "sample_regs.h"

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
	bool switch_output_signal;	/* --switch-output: any of its kinds (SIGUSR2 always switches) */
	uint64_t switch_output_size;	/* --switch-output=SIZE: bytes written, 0: none */
	unsigned switch_output_secs;	/* --switch-output=TIME: seconds, 0: none */
	int switch_max_files;		/* --switch-max-files: the switched files kept, 0: all */
	int realtime;			/* -r: SCHED_FIFO priority of the recorder, 0: none */
	bool no_buffering;		/* --no-buffering: a wake-up per sample */
	bool quiet;			/* -q */
	int verbose;			/* -v */
	bool no_buildid;		/* -B */
	bool no_buildid_cache;		/* -N: no copies in perf's build-id cache */
	bool sample_cpu;		/* --sample-cpu */
	bool off_cpu;			/* --off-cpu: time blocked, through BPF */
	const char *html;		/* --html: the page too, from the written file */
	uint64_t sample_type;		/* -d --phys-data -W --transaction ...: added bits */
	uint64_t branch_filter;		/* -b, -j: PERF_SAMPLE_BRANCH_* */
	uint64_t intr_regs, user_regs;	/* --intr-regs, --user-regs: masks */
	bool all_cgroups;		/* --all-cgroups: CGROUP records, cgroup per sample */
	bool inherit_stat;		/* -s: per-thread counts */
	bool syscall_strings;		/* tally trace record: the path strings too */
	bool namespaces;		/* --namespaces: NAMESPACES records */
	bool use_clockid;		/* -k: the events' clock (and CLOCK_DATA in the file) */
	long delay_ms;			/* -D: the events enabled this long after the start; -1: by --control */
	const char *control;		/* --control: fifo:CTL[,ACK] or fd:CTL[,ACK] */
	bool all_user, all_kernel;	/* --all-user, --all-kernel */
	bool user_callchains, kernel_callchains;	/* --user-callchains, --kernel-callchains */
	uint64_t max_size;		/* --max-size: bytes, 0: none */
	bool timestamp_filename;	/* --timestamp-filename */
	bool dry_run;			/* --dry-run */
	int clockid;
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

/*
 * record_strings.c: tally trace record's path strings. open: the BPF
 * reader, before the events are configured (they then take its clock,
 * CLOCK_MONOTONIC); NULL when there is none (said unless quiet). events:
 * which are raw_syscalls'. sample: each SAMPLE record drained. Around
 * each drain: before_drain, then flush (last: every call and string
 * left, before the writer finishes).
 */
struct record_strings;
struct record_strings *record_strings_open(bool quiet);
void record_strings_events(struct record_strings *rs, struct tally_evlist *l);
void record_strings_sample(struct record_strings *rs, struct tally_evlist *l,
			   const struct perf_event_header *h);
void record_strings_before_drain(struct record_strings *rs);
void record_strings_flush(struct record_strings *rs, struct tally_data_writer *w, bool last);
void record_strings_close(struct record_strings *rs, bool quiet);

/* record_fields.c: -j's names, branch stack refusals */
#define RECORD_BRANCH_NAMES "u,k,hv,any,any_call,any_ret,ind_call,abort_tx,in_tx,no_tx," \
			    "cond,ind_jmp,call,save_type,stack"
/* -W: the weight as perf samples it on this arch (x86: the struct with ins_lat) */
#if defined(__x86_64__) || defined(__i386__)
#define RECORD_WEIGHT_BIT PERF_SAMPLE_WEIGHT_STRUCT
#else
#define RECORD_WEIGHT_BIT PERF_SAMPLE_WEIGHT
#endif
/* "any,u" -> PERF_SAMPLE_BRANCH_* (u/k/hv alone: any); 0 or -1 */
int record_branch_filter(const char *list, uint64_t *mode);
bool record_branch_refused(const struct record_config *cfg, const char *event,
			   const struct perf_event_attr *a, int err);
/* --phys-data refused for want of privilege: said in a sentence, true */
bool record_phys_refused(const char *event, const struct perf_event_attr *a, int err);
/* --namespaces refused for want of CAP_PERFMON: said in a sentence, true */
bool record_namespaces_refused(const char *event, const struct perf_event_attr *a, int err);

/* Runs one recording; returns the exit status for tally. */
/* record_events.c: the event list, the kernel's -F ceiling */
uint64_t record_max_sample_rate(void);
struct tally_evlist *record_build_events(const struct record_config *cfg, const char *dflt,
					 struct cg_fds *cg, bool *usage_err);

int record_run(const struct record_config *cfg);

#endif
