// SPDX-License-Identifier: MIT
/*
 * tally stat's command line: one option table (parse_options.h) that fills
 * one config struct and prints the help, then the checks of combinations.
 * No library calls, so tests/unit/test_stat_opts.c can drive it. Parsing
 * stops at the first non-option (like perf), so `tally stat ls -l` counts
 * `ls -l`.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "parse_options.h"
#include "cgroups.h"
#include "perf_metrics.h"
#include "stat.h"

/* -e: as perf, -G applies to the events before it (see cgroups). */
static int opt_event(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct stat_config *cfg = opt->value;

	cli_cgroups_event(&cfg->cg, &cfg->target);
	return cli_events_push(p, &cfg->events, arg);
}

/* -G: perf's cgroup lists (cgroups.c). */
static int opt_cgroup(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct stat_config *cfg = opt->value;

	if (cfg->for_each_cgroup)
		return cli_error(p, "%s", "-G and --for-each-cgroup do not mix");
	return cli_cgroups_add(p, &cfg->cg, &cfg->events, &cfg->target, arg);
}

/* --for-each-cgroup a,b: every event once per cgroup, as perf. */
static int opt_for_each_cgroup(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct stat_config *cfg = opt->value;

	if (cfg->cg.nr)
		return cli_error(p, "%s", "-G and --for-each-cgroup do not mix");
	if (!*arg || !strcmp(arg, ","))
		return cli_error(p, "%s", "--for-each-cgroup needs cgroups");
	cfg->for_each_cgroup = arg;
	cfg->target.cgroup = arg;
	cfg->target.cgroup_per_event = true;
	return 0;
}

/* -A, --per-*: defval is the mode; the last one wins. */
static int opt_aggr(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct stat_config *cfg = opt->value;

	cfg->aggr = (enum stat_aggr)opt->defval;
	cfg->aggr_set = true;
	return 0;
}

static int opt_separator(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct stat_config *cfg = opt->value;

	if (!*arg || strlen(arg) >= sizeof(cfg->csv_sep))
		return cli_error(p, "bad field separator '%s'", arg);
	strcpy(cfg->csv_sep, arg);
	cfg->format = STAT_FMT_CSV;
	return 0;
}

static int opt_json(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	((struct stat_config *)opt->value)->format = STAT_FMT_JSON;
	return 0;
}

static int opt_stat_format(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct stat_config *cfg = opt->value;

	if (!strcmp(arg, "human"))
		cfg->format = STAT_FMT_HUMAN;
	else if (!strcmp(arg, "csv"))
		cfg->format = STAT_FMT_CSV, strcpy(cfg->csv_sep, ",");
	else if (!strcmp(arg, "json"))
		cfg->format = STAT_FMT_JSON;
	else if (!strcmp(arg, "openmetrics"))
		cfg->format = STAT_FMT_OPENMETRICS;
	else
		return cli_error(p, "unknown --stat-format '%s' (human, csv, json, openmetrics)", arg);
	return 0;
}

static const char *const stat_usage_lines[] = {
	"tally stat [OPTIONS] [--] COMMAND [ARGS]",
	"tally stat [OPTIONS] -p PID | -t TID | -a | -C CPUS",
	"tally stat --compare [-r N] [OPTIONS] -- COMMAND_A ::: COMMAND_B",
	NULL,
};

#define STAT_NR_OPTS	64

/* The table: every option of tally stat, its value in cfg, its help. */
static void stat_options(struct stat_config *cfg, struct cli_option *out)
{
	struct cli_target *t = &cfg->target;
	const struct cli_option opts[] = {
		CLI_GROUP("Targets"),
		CLI_STRING('p', "pid", &t->pids, "PID[,PID]", "count existing processes (all their threads)"),
		CLI_STRING('t', "tid", &t->tids, "TID[,TID]", "count existing threads"),
		CLI_BOOL('a', "all-cpus", &t->system_wide, "count system-wide on every CPU"),
		CLI_STRING('C', "cpu", &t->cpu_list, "LIST", "count system-wide on these CPUs (0-3,7)"),
		CLI_CALLBACK('G', "cgroup", cfg, "PATH", "count only tasks of a cgroup v2 (with -a); a list: one per event before it", opt_cgroup),
		CLI_CALLBACK(0, "for-each-cgroup", cfg, "NAMES", "count every event once in each of these cgroups (with -a)", opt_for_each_cgroup),
		CLI_BOOL('i', "no-inherit", &t->no_inherit, "do not count the command's children"),
		CLI_GROUP("Events"),
		CLI_CALLBACK('e', "event", cfg, "SPEC", "events to count (repeatable; see tally list)", opt_event),
		CLI_CALLBACK(0, "filter", &cfg->events, "EXPR", "ftrace filter for the tracepoint just before", cli_opt_filter),
		CLI_COUNT('d', "detailed", &cfg->detailed, "more default events (L1/LLC; -dd TLB, -ddd prefetch)"),
		CLI_BOOL('g', "group", &cfg->group, "count every event in one group"),
		CLI_BOOL(0, "all-user", &cfg->all_user, "count every event in user mode only"),
		CLI_BOOL(0, "all-kernel", &cfg->all_kernel, "count every event in kernel mode only"),
		CLI_GROUP("Aggregation"),
		CLI_CALLBACK_F('A', "no-aggr", cfg, NULL, "one row per CPU", opt_aggr, 0, STAT_AGGR_CPU),
		CLI_CALLBACK_F(0, "per-thread", cfg, NULL, "one row per thread (with -p, -t or -a)", opt_aggr, 0, STAT_AGGR_THREAD),
		CLI_CALLBACK_F(0, "per-core", cfg, NULL, "one row per core", opt_aggr, 0, STAT_AGGR_CORE),
		CLI_CALLBACK_F(0, "per-die", cfg, NULL, "one row per die", opt_aggr, 0, STAT_AGGR_DIE),
		CLI_CALLBACK_F(0, "per-socket", cfg, NULL, "one row per socket", opt_aggr, 0, STAT_AGGR_SOCKET),
		CLI_CALLBACK_F(0, "per-node", cfg, NULL, "one row per NUMA node", opt_aggr, 0, STAT_AGGR_NODE),
		CLI_GROUP("Output (on stderr, as perf)"),
		CLI_CALLBACK('x', "field-separator", cfg, "S", "CSV: value,unit,event,runtime,pcnt-running,metric,unit", opt_separator),
		CLI_CALLBACK('j', "json", cfg, NULL, "one JSON object per line", opt_json),
		CLI_CALLBACK_F(0, "json-output", cfg, NULL, "perf's name for --json", opt_json, CLI_OPT_HIDDEN, 0),
		CLI_CALLBACK(0, "stat-format", cfg, "FMT", "human, csv, json or openmetrics", opt_stat_format),
		CLI_STRING('o', "output", &cfg->output, "FILE", "write to FILE"),
		CLI_BOOL(0, "append", &cfg->append, "with -o: add to FILE"),
		CLI_INT(0, "log-fd", &cfg->log_fd, "FD", "write to this open file descriptor", 1, 0),	/* perf: > 0 */
		/* perf 6.1 takes any count of ms; 0 is no interval */
		CLI_LONG('I', "interval-print", &cfg->interval_ms, "MS", "print every MS milliseconds", 0, 0),
		CLI_LONG(0, "interval-count", &cfg->interval_count, "N", "with -I: stop after N intervals", 1, 0),
		CLI_BOOL(0, "summary", &cfg->summary, "with -I: the totals too, at the end"),
		CLI_BOOL(0, "no-csv-summary", &cfg->no_csv_summary, "no 'summary' column on those totals in CSV"),
		CLI_BOOL(0, "interval-clear", &cfg->interval_clear, "with -I: clear the screen before each interval"),
		/* 0: perf's "forever", until Ctrl-C */
		CLI_INT('r', "repeat", &cfg->repeat, "N", "run the command N times: mean and +- stddev\n"
			"(0: forever, each run's counts, until Ctrl-C)", 0, 0),
		CLI_BOOL(0, "table", &cfg->table, "with -r: each run's elapsed time"),
		CLI_BOOL(0, "compare", &cfg->compare, "with -r N -- A ::: B: B/A ratio, 95% CI, significance"),
		CLI_LONG('D', "delay", &cfg->delay_ms, "MS", "start counting MS after the command starts (-1: when --control says enable)", -1, 0),
		CLI_STRING(0, "control", &cfg->control, "fifo:CTL[,ACK]|fd:CTL[,ACK]",
			   "enable/disable commands from another program (perf's)"),
		CLI_BOOL('S', "sync", &cfg->sync, "sync() before each run"),
		CLI_STRING(0, "pre", &cfg->pre_cmd, "CMD", "run sh -c CMD before each run"),
		CLI_STRING(0, "post", &cfg->post_cmd, "CMD", "run sh -c CMD after each run"),
		CLI_LONG(0, "timeout", &cfg->timeout_ms, "MS", "stop after MS milliseconds", 1, 0),
		CLI_BOOL_F('B', "big-num", &cfg->big_num, "thousands separators (default on)", CLI_OPT_NEG),
		CLI_BOOL('n', "null", &cfg->null_run, "no events: time the command only"),
		CLI_BOOL('q', "quiet", &cfg->quiet, "print no counts (exit status only)"),
		CLI_GROUP("Metrics and merging"),
		CLI_STRING('M', "metrics", &cfg->metrics, "LIST", "IPC, branch_miss_rate, cache_miss_rate, or perf's metrics (tally list metric)"),
		CLI_STRING_F(0, "metric-group", &cfg->metrics, "LIST", "perf's other name for -M", CLI_OPT_HIDDEN),
		CLI_BOOL(0, "metric-only", &cfg->metric_only, "print only the metrics: a header of their units, a line per aggregate"),
		CLI_BOOL(0, "topdown", &cfg->topdown, "the CPU's topdown events, system-wide (needs them in sysfs)"),
		CLI_INT(0, "td-level", &cfg->td_level, "N", "topdown level (perf's; tally shows level 1)", 0, 4),
		CLI_BOOL_F(0, "scale", &cfg->scale, "scale multiplexed counts to the whole run (default; --no-scale: raw)", CLI_OPT_NEG),
		CLI_BOOL(0, "no-merge", &cfg->no_merge, "show events of several PMUs with one name apart (tally never merges them)"),
		CLI_BOOL(0, "percore-show-thread", &cfg->percore_show_thread, "with the percore event term: each thread's count"),
		CLI_COUNT('v', "verbose", &cfg->verbose, "show each event's perf_event_attr"),
		CLI_HELP(&cfg->help, "this text (man tally-stat for the full manual)"),
		CLI_END(),
	};

	_Static_assert(sizeof(opts) / sizeof(opts[0]) <= STAT_NR_OPTS, "STAT_NR_OPTS too small");
	memcpy(out, opts, sizeof(opts));
}

void stat_usage(FILE *fp)
{
	struct stat_config cfg = STAT_CONFIG_INIT;
	struct cli_option opts[STAT_NR_OPTS];

	stat_options(&cfg, opts);
	cli_usage(fp, stat_usage_lines, opts);
}

/* A semantic check failed: one line, then stat_parse_args() returns 1. */
static int usage_err(struct cli_parse *p, const char *msg)
{
	cli_error(p, "%s", msg);
	return 1;
}

/*
 * -M's built-in metrics: perf takes them from its JSON tables, which
 * neither the kernel nor libpfm4 carry; these are the ones perf also
 * derives by itself (the insn per cycle and miss shares after '#').
 */
static const struct {
	const char *name, *events;
} metrics[] = {
	{ "IPC", "cycles,instructions" },
	{ "branch_miss_rate", "branches,branch-misses" },
	{ "cache_miss_rate", "cache-references,cache-misses" },
};

const char *stat_metric_events(const char *name)
{
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++)
		if (!strcasecmp(metrics[i].name, name))
			return metrics[i].events;
	return NULL;
}

/*
 * -M a,b: each built-in metric's events added after the -e ones; a name
 * tally does not know is an error that lists the ones it does.
 */
static int add_metrics(struct stat_config *cfg, struct cli_parse *p)
{
	char *dup = strdup(cfg->metrics), *tok, *save = NULL;
	int err = 0;

	if (!dup)
		return usage_err(p, "out of memory");
	for (tok = strtok_r(dup, ",", &save); tok && !err; tok = strtok_r(NULL, ",", &save)) {
		const char *ev = stat_metric_events(tok);
		char bad[128], why[160];
		int r;

		if (ev) {
			err = cli_events_push(p, &cfg->events, ev) ? 1 : 0;
			continue;
		}
		/* perf's own metrics and groups for this CPU */
		r = perf_metric_resolve(tok, NULL, bad, sizeof(bad), NULL, 0, why, sizeof(why));
		if (r > 0)
			cli_error(p, "-M '%s': perf's metric needs event '%s', which this machine "
				  "cannot count: %s", tok, bad, why);
		else if (r < 0)
			cli_error(p, "-M '%s': no such metric (tally's own: IPC, branch_miss_rate, "
				  "cache_miss_rate; %s)", tok, why);
		else
			cli_error(p, "-M '%s': perf's metric expressions are not evaluated by tally; "
				  "count its events with -e", tok);
		err = 1;
	}
	free(dup);
	return err;
}

static int split_compare(struct stat_config *cfg, struct cli_parse *p)
{
	for (int i = 0; i < cfg->cmd_argc; i++) {
		if (strcmp(cfg->cmd_argv[i], ":::"))
			continue;
		cfg->cmd_argv[i] = NULL;
		cfg->cmd_b_argv = &cfg->cmd_argv[i + 1];
		cfg->cmd_b_argc = cfg->cmd_argc - i - 1;
		cfg->cmd_argc = i;
		if (!cfg->cmd_argc || !cfg->cmd_b_argc)
			return cli_error(p, "%s", "--compare needs COMMAND_A ::: COMMAND_B");
		return 0;
	}
	return cli_error(p, "%s", "--compare needs COMMAND_A ::: COMMAND_B");
}

int stat_parse_args(struct stat_config *cfg, int argc, char **argv, FILE *err)
{
	struct cli_option opts[STAT_NR_OPTS];
	struct cli_parse p = { .cmd = "stat", .err = err };
	const struct cli_target *t = &cfg->target;
	int n;

	stat_options(cfg, opts);
	n = cli_parse("stat", opts, argc, argv, err, 0);
	if (n < 0)
		return 1;
	if (cfg->help)
		return 0;
	cfg->cmd_argv = argv;
	cfg->cmd_argc = n;

	if (cfg->compare) {
		if (split_compare(cfg, &p))
			return 1;
		if (cfg->repeat == 0)
			return usage_err(&p, "--compare needs a number of runs, not -r 0");
		if (cfg->repeat < 2)
			cfg->repeat = 5;
		if (t->pids || t->tids || t->system_wide || t->cpu_list || cfg->interval_ms)
			return usage_err(&p, "--compare takes two commands, not -p/-t/-a/-C/-I");
	}
	if (cli_target_check(&p, t, cfg->cmd_argc > 0, "count"))
		return 1;
	if (cfg->aggr == STAT_AGGR_THREAD && !t->pids && !t->tids && !t->system_wide)
		return usage_err(&p, "--per-thread needs -p, -t or -a");
	if (cfg->aggr == STAT_AGGR_THREAD && (t->cpu_list || t->cgroup))
		return usage_err(&p, "--per-thread counts on any CPU: not with -C or -G");
	if (cfg->aggr_set && cfg->aggr != STAT_AGGR_THREAD && !t->system_wide &&
	    !t->cpu_list)
		return usage_err(&p, "-A and --per-core/die/socket/node need -a or -C");
	if (cfg->append && !cfg->output && cfg->log_fd < 0)
		return usage_err(&p, "--append needs -o FILE");
	if (cfg->output && cfg->log_fd >= 0)
		return usage_err(&p, "-o and --log-fd do not mix");
	if (cfg->all_user && cfg->all_kernel)
		return usage_err(&p, "--all-user and --all-kernel do not mix");
	if (cfg->null_run && cfg->events.nr)
		return usage_err(&p, "-n counts nothing: drop -e");
	if (cfg->topdown && !t->system_wide && !t->cpu_list)
		return usage_err(&p, "top down event configuration requires system-wide mode (-a)");
	if (cfg->topdown && access("/sys/bus/event_source/devices/cpu/events/topdown-retiring", F_OK))
		return usage_err(&p, "--topdown: this CPU has no topdown events "
				     "(/sys/bus/event_source/devices/cpu/events/topdown-*): nothing to show");
	/* perf's refusals: one line per aggregate has no room for these */
	if (cfg->metric_only && cfg->aggr == STAT_AGGR_THREAD)
		return usage_err(&p, "--metric-only is not supported with --per-thread");
	if (cfg->metric_only && cfg->repeat > 1)
		return usage_err(&p, "--metric-only is not supported with -r");
	if (cfg->metrics && add_metrics(cfg, &p))
		return 1;
	if (cfg->topdown && cli_events_push(&p, &cfg->events,
			"{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound}"))
		return 1;
	return 0;
}
