/* SPDX-License-Identifier: MIT */
/*
 * tally stat: declarations shared by cmd_stat.c and the stat_*.c modules.
 *   cmd_stat.c      the command: options -> config -> output, signals, dispatch
 *   stat_opts.c     the option table and its checks -> struct stat_config
 *   stat_run.c      one run: default events, open, wait, hooks, -I printing
 *   stat_grid.c     the result grid: fold aggregated counts, rows, print
 *   stat_compare.c  --compare: A and B alternately, ratios with their CI
 *   stat_math.c     running mean/stddev, Welch t, ratio confidence intervals
 *   stat_metrics.c  derived metrics (CPUs utilized, rates, GHz, IPC, miss %)
 *   stat_output.c   human / CSV / JSON / OpenMetrics writers
 * The shared layer of cli does the rest: parse_options.c (options as
 * data, the help), target.c (-p/-t/-a/-C/-G, maps, cgroup, workload),
 * wait.c (signals, the wait loop), event_opts.c (-e/--filter, errors).
 * Only stat_run.c, stat_grid.c and cmd_stat.c talk to libtally's engine;
 * opts, math, metrics and output are pure and are unit-tested by including
 * them (tests link only libtally.a).
 */
#ifndef TALLY_CLI_STAT_H
#define TALLY_CLI_STAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "event_opts.h"
#include "cgroups.h"
#include "target.h"
#include "control.h"

/* Must match enum tally_aggr_mode (tally/evsel.h); checked in stat_grid.c. */
enum stat_aggr {
	STAT_AGGR_GLOBAL,
	STAT_AGGR_CPU,
	STAT_AGGR_THREAD,
	STAT_AGGR_CORE,
	STAT_AGGR_DIE,
	STAT_AGGR_SOCKET,
	STAT_AGGR_NODE,
};

enum stat_format {
	STAT_FMT_HUMAN,
	STAT_FMT_CSV,
	STAT_FMT_JSON,
	STAT_FMT_OPENMETRICS,
};

/* Every option of tally stat; defaults in STAT_CONFIG_INIT. */
struct stat_config {
	struct cli_events events;	/* -e, --filter */
	struct cli_target target;	/* -p -t -a -C -G -i */
	/*
	 * -G after -e: perf's cgroup per event. Each -G's list (the -e
	 * options before it: after) goes to the events before it that have
	 * none, in order; one name to all of them. target.cgroup is the
	 * first -G; with per_event_cgroup the events carry their own.
	 */
	struct cli_cgroups cg;
	const char *for_each_cgroup;	/* --for-each-cgroup a,b */
	enum stat_aggr aggr;
	bool aggr_set;
	enum stat_format format;
	char csv_sep[16];	/* -x */
	const char *output;	/* -o */
	bool append;
	long interval_ms;	/* -I */
	long interval_count;	/* --interval-count */
	int repeat;		/* -r */
	long delay_ms;		/* -D; -1: disabled until --control enables */
	const char *control;	/* --control: fifo:CTL[,ACK] or fd:CTL[,ACK] */
	long timeout_ms;	/* --timeout */
	bool quiet;
	int verbose;
	bool big_num;		/* -B / --no-big-num */
	bool null_run;		/* -n */
	bool summary;		/* --summary: totals after -I intervals */
	bool interval_clear;	/* --interval-clear */
	bool table;		/* --table: each run's elapsed time with -r */
	int detailed;		/* -d, -dd, -ddd: more default events */
	bool all_user;		/* --all-user */
	bool all_kernel;	/* --all-kernel */
	bool sync;		/* -S: sync() before each run */
	bool group;		/* -g: every event in one group */
	const char *pre_cmd;	/* --pre: sh -c before each run */
	const char *post_cmd;	/* --post: sh -c after each run */
	int log_fd;		/* --log-fd: output there instead of stderr */
	bool no_csv_summary;	/* --no-csv-summary */
	bool compare;
	bool no_merge;		/* --no-merge: tally shows same-named PMU events apart anyway */
	bool scale;		/* --scale (default) / --no-scale: multiplexed counts scaled */
	bool percore_show_thread; /* --percore-show-thread */
	bool topdown;		/* --topdown: the CPU's topdown events (-a) */
	int td_level;		/* --td-level */
	const char *metrics;	/* -M / --metric-group: built-in metrics by name */
	bool metric_only;	/* --metric-only */
	bool help;
	/* The command: argv[cmd_argc] is NULL. For --compare, A then B. */
	char **cmd_argv;
	int cmd_argc;
	char **cmd_b_argv;
	int cmd_b_argc;
};

#define STAT_CONFIG_INIT {			\
	.aggr = STAT_AGGR_GLOBAL,		\
	.format = STAT_FMT_HUMAN,		\
	.csv_sep = " ",				\
	.repeat = 1,				\
	.big_num = true,			\
	.log_fd = -1,				\
	.scale = true,				\
}

/*
 * Parse argv (argv[0] is "stat"). Returns 0, or 1 after writing a usage
 * message to err for the caller to exit with 129 (perf's usage status).
 * The command's argv points into argv (which is modified: the command is
 * moved to its start, and ":::" is cut for --compare).
 */
int stat_parse_args(struct stat_config *cfg, int argc, char **argv, FILE *err);
void stat_usage(FILE *fp);

/* ---- statistics (stat_math.c) ---- */

/* Welford's running mean and variance. */
struct stat_acc {
	double n, mean, m2;
};

void stat_acc_add(struct stat_acc *a, double x);
double stat_acc_mean(const struct stat_acc *a);
/* Sample variance (n-1); 0 below two samples. */
double stat_acc_var(const struct stat_acc *a);
/* Standard error of the mean, as perf's stddev_stats(): sqrt(var / n). */
double stat_acc_sem(const struct stat_acc *a);
/* 100 * sem / mean, 0 when mean is 0 (perf's rel_stddev_stats). */
double stat_acc_rel_pct(const struct stat_acc *a);

/* Student t: CDF and the two-sided quantile t_{1-alpha/2, df}. */
double stat_t_cdf(double t, double df);
double stat_t_quantile(double p, double df);

struct stat_ratio {
	double ratio;		/* mean B / mean A */
	double lo, hi;		/* 95% confidence interval of the ratio */
	double t, df, p;	/* Welch t test of mean B - mean A */
	bool significant;	/* the interval excludes 1 (and p < 0.05) */
	bool valid;		/* false when mean A is 0 or fewer than 2 runs */
};

/* Delta-method CI of mB/mA with Welch-Satterthwaite degrees of freedom. */
void stat_ratio_ci(const struct stat_acc *a, const struct stat_acc *b,
		   double level, struct stat_ratio *out);

/* perf's get_precision(): digits worth printing given a stddev. */
int stat_precision(double sd);

/* ---- metrics (stat_metrics.c) ---- */

/* What kind of event a row is, for the metrics that need others. */
enum stat_kind {
	STAT_K_OTHER,
	STAT_K_CLOCK,		/* task-clock, cpu-clock: ns, shown in msec */
	STAT_K_CYCLES,
	STAT_K_INSTRUCTIONS,
	STAT_K_BRANCHES,
	STAT_K_BRANCH_MISSES,
	STAT_K_CACHE_REFS,
	STAT_K_CACHE_MISSES,
};

enum stat_state {
	STAT_S_COUNTED,
	STAT_S_SCALED,
	STAT_S_NOT_COUNTED,
	STAT_S_NOT_SUPPORTED,
};

/* perf's metric formats: "%8.3f", "%7.2f%%", "%7.2f ". */
enum stat_mfmt {
	STAT_MF_8_3F,
	STAT_MF_PCT,
	STAT_MF_7_2F,
};

/* One event in one aggregate, ready to print. */
struct stat_row {
	const char *event;
	const char *cgroup;	/* the event's own cgroup (-G a,b), or NULL */
	const char *unit;	/* "msec", the PMU's unit ("Joules") or "" */
	enum stat_kind kind;
	/* perf's abs_printout: two decimals for a scale that is not whole */
	bool frac;
	enum stat_state state;
	/* Where (per aggregation mode): cpu, tid, core, die, socket, node id. */
	int key, socket, die, core, nr;
	const char *comm;	/* thread's comm for STAT_AGGR_THREAD */
	double val;		/* counts (ns for clocks) */
	double run, ena;	/* ns */
	bool has_noise;		/* -r: noise_pct is meaningful */
	double noise_pct;
	/* Filled by stat_metrics_compute(). */
	bool has_metric;
	double metric;
	enum stat_mfmt metric_fmt;	/* how the human layout prints it */
	char metric_unit[24];
	/*
	 * A rate (metric_unit "/sec", "K/sec"...): its value in /sec before
	 * perf's K/M/G scaling, for OpenMetrics' one unit per series.
	 */
	bool metric_rate;
	double metric_per_sec;
};

/*
 * Fill the metric of every row of one aggregate (rows[0..nr) share the
 * aggregate key). wall_ns: elapsed time of the run or interval.
 */
void stat_metrics_compute(struct stat_row *rows, int nr, double wall_ns);
/* The kind of an event from its attr's type and config. */
enum stat_kind stat_kind_of(uint32_t type, uint64_t config);
/* K/M/G scaling of a rate as perf's convert_unit_double(). */
double stat_convert_unit(double val, char *unit);

/* ---- output (stat_output.c) ---- */

struct stat_out {
	FILE *fp;
	enum stat_format format;
	enum stat_aggr aggr;
	const char *sep;	/* CSV separator */
	bool big_num;
	bool interval;		/* prefix rows with the timestamp */
	bool csv_summary;	/* --summary after -I: CSV rows start "summary" */
	const char *cgroup;	/* -G: perf's cgroup column after the event */
	bool cgroup_col;	/* events with their own cgroups: a column for each (CSV) */
	uint64_t ts_ns;		/* time since start, for interval rows */
	int nr_intervals;	/* interval header repeat counter */
	/* OpenMetrics groups samples by family: rows are kept until _end. */
	struct stat_row *om_rows;
	int om_nr, om_cap;
	const char *om_target;
	/* --metric-only: one line of metrics per aggregate, under a header */
	bool metric_only;
	bool mo_header;		/* the metric header is due before the next line */
};

/* Human: " Performance counter stats for 'TARGET' (N runs):" */
void stat_out_header(struct stat_out *o, const char *target, int runs);
void stat_out_interval_header(struct stat_out *o);
void stat_out_row(struct stat_out *o, const struct stat_row *r);
/* --metric-only: the metrics of one aggregate's rows on one line. */
void stat_out_metric_line(struct stat_out *o, const struct stat_row *rows, int n);
/* Footer: elapsed (mean, stddev with runs > 1), user and sys. */
struct stat_footer {
	int runs;
	double elapsed_s, elapsed_sd;	/* sd: standard error of the mean */
	bool show_rusage;
	double user_s, sys_s;
	bool null_run;			/* -n: no blank line before elapsed */
	const double *table;		/* --table: each run's elapsed seconds */
	int ntable;
};
void stat_out_footer(struct stat_out *o, const struct stat_footer *f);
/* OpenMetrics: begin/end of one exposition (one per interval). */
void stat_out_om_begin(struct stat_out *o);
void stat_out_om_end(struct stat_out *o, const struct stat_footer *f);
void stat_out_release(struct stat_out *o);
/* The label perf prints for an aggregate ("CPU0", "S0-D0-C1", "N0"...). */
int stat_aggr_label(enum stat_aggr aggr, const struct stat_row *r, char *buf, size_t len);
/* JSON string escape into buf; returns buf. */
const char *stat_json_escape(const char *s, char *buf, size_t len);

/* ---- the result grid (stat_grid.c) ---- */

struct rusage;
struct tally_evlist;
struct tally_topology;

/* One aggregate (a column): where it counted, as the output labels it. */
struct stat_agkey {
	int key, socket, die, core, nr;
	char comm[32];
};

/* One event in one aggregate, across runs. */
struct stat_cell {
	bool present;
	bool counted, scaled;
	struct stat_acc val, run, ena;
};

struct stat_grid_ev {
	char *name;
	char *cgroup;		/* its own cgroup, or NULL */
	char *unit;
	enum stat_kind kind;
	double scale;
	bool frac;		/* print with two decimals (clocks, a fractional scale) */
	bool supported;
};

/* Every event x every aggregate; the first fold fixes the events. */
struct stat_grid {
	int nev, nag, agcap;
	struct stat_grid_ev *ev;
	struct stat_agkey *ag;
	struct stat_cell *cells;	/* [ev][ag], row stride agcap */
	struct stat_acc elapsed;
	double user_s, sys_s;
	bool rusage;
	double *run_s;		/* each run's elapsed seconds (--table) */
	int nrun_s, run_cap;
	/* -a --per-thread: perf omits the (many) threads that counted 0 */
	bool skip_zero;
	/* The workload's tid and comm: its map entry was read before exec. */
	pid_t wl_tid;
	char wl_comm[16];
};

struct stat_cell *stat_grid_cell(struct stat_grid *g, int e, int a);
/* Frees what g holds and zeroes it (a freed grid is an empty one). */
void stat_grid_free(struct stat_grid *g);
/*
 * Fold the evlist's stored counts (delta: the last interval) into g;
 * with reset the cells are cleared first (intervals). 0 or -errno
 * (-EINVAL: not the events of the earlier runs).
 */
/* --no-scale: fold raw counts, not the multiplexed ones scaled to the run. */
void stat_grid_set_scale(bool scale);
/* -M NAME: the events a built-in metric needs; NULL for an unknown name. */
const char *stat_metric_events(const char *name);
int stat_grid_fold(struct stat_grid *g, struct tally_evlist *l, enum stat_aggr mode,
		   const struct tally_topology *topo, bool delta, bool reset);
/* The grid's rows with their metrics, in perf's order. 0 or -ENOMEM. */
int stat_grid_print(struct stat_grid *g, struct stat_out *o, enum stat_aggr mode,
		    double wall_ns, bool noise);
/* One run's elapsed seconds; ru: the workload's rusage, or NULL. */
void stat_grid_add_run(struct stat_grid *g, double elapsed_s, const struct rusage *ru);
/* Header, rows and footer of the totals (one exposition for OpenMetrics). */
void stat_grid_print_totals(struct stat_grid *g, struct stat_out *o,
			    const struct stat_config *cfg, const char *target);

/* ---- one run (stat_run.c) ---- */

/* What a run needs and what it leaves for the next (-r) and the caller. */
struct stat_run_ctx {
	const struct stat_config *cfg;
	struct stat_out *out;
	struct stat_grid *grid;		/* where the run's totals go */
	struct stat_grid interval_grid;	/* scratch for -I */
	const struct tally_topology *topo;
	char *const *argv;		/* the command, or NULL */
	int exit_code;
	bool targets_exited;		/* -p/-t: all gone, no more -r runs */
	struct cli_control *ctl;	/* --control's channel, or NULL */
};

/*
 * Count once, folding the totals into rc->grid. Returns 0, or an exit
 * status for an error that ends tally (1: bad events or open error;
 * 126/127: the command could not run). rc->exit_code gets the
 * workload's status.
 */
int stat_run_once(struct stat_run_ctx *rc);
/* "'cmd args'", "'system wide'", "process id '1'"...; malloc'd, or NULL. */
char *stat_target_text(const struct stat_config *cfg, char **argv, int argc);

/* ---- --compare (stat_compare.c) ---- */

/* Runs A and B -r times alternately, prints the comparison; exit status. */
int stat_compare(struct stat_config *cfg, FILE *fp, struct stat_out *o,
		 const struct tally_topology *topo);

#endif
