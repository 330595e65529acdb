// SPDX-License-Identifier: MIT
/*
 * tally stat's command line: one option table, one config struct. Pure:
 * no library calls, so tests/unit/test_stat_opts.c can drive it. Parsing
 * stops at the first non-option (like perf), so `tally stat ls -l` counts
 * `ls -l`.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "stat.h"

enum {
	OPT_FILTER = 256,
	OPT_NO_INHERIT,
	OPT_PER_THREAD,
	OPT_PER_CORE,
	OPT_PER_DIE,
	OPT_PER_SOCKET,
	OPT_PER_NODE,
	OPT_APPEND,
	OPT_INTERVAL_COUNT,
	OPT_TIMEOUT,
	OPT_NO_BIG_NUM,
	OPT_STAT_FORMAT,
	OPT_COMPARE,
	OPT_SUMMARY,
	OPT_ALL_USER,
	OPT_ALL_KERNEL,
	OPT_LOG_FD,
	OPT_PRE,
	OPT_INTERVAL_CLEAR,
	OPT_TABLE,
	OPT_POST,
	OPT_NO_CSV_SUMMARY,
};

static const struct option long_opts[] = {
	{ "event",		required_argument, NULL, 'e' },
	{ "filter",		required_argument, NULL, OPT_FILTER },
	{ "pid",		required_argument, NULL, 'p' },
	{ "tid",		required_argument, NULL, 't' },
	{ "all-cpus",		no_argument,       NULL, 'a' },
	{ "cpu",		required_argument, NULL, 'C' },
	{ "cgroup",		required_argument, NULL, 'G' },
	{ "no-inherit",		no_argument,       NULL, 'i' },
	{ "no-aggr",		no_argument,       NULL, 'A' },
	{ "per-thread",		no_argument,       NULL, OPT_PER_THREAD },
	{ "per-core",		no_argument,       NULL, OPT_PER_CORE },
	{ "per-die",		no_argument,       NULL, OPT_PER_DIE },
	{ "per-socket",		no_argument,       NULL, OPT_PER_SOCKET },
	{ "per-node",		no_argument,       NULL, OPT_PER_NODE },
	{ "field-separator",	required_argument, NULL, 'x' },
	{ "json",		no_argument,       NULL, 'j' },
	{ "json-output",	no_argument,       NULL, 'j' },	/* perf's name */
	{ "detailed",		no_argument,       NULL, 'd' },
	{ "all-user",		no_argument,       NULL, OPT_ALL_USER },
	{ "all-kernel",		no_argument,       NULL, OPT_ALL_KERNEL },
	{ "sync",		no_argument,       NULL, 'S' },
	{ "group",		no_argument,       NULL, 'g' },
	{ "pre",		required_argument, NULL, OPT_PRE },
	{ "post",		required_argument, NULL, OPT_POST },
	{ "log-fd",		required_argument, NULL, OPT_LOG_FD },
	{ "stat-format",	required_argument, NULL, OPT_STAT_FORMAT },
	{ "output",		required_argument, NULL, 'o' },
	{ "append",		no_argument,       NULL, OPT_APPEND },
	{ "interval-print",	required_argument, NULL, 'I' },
	{ "interval-count",	required_argument, NULL, OPT_INTERVAL_COUNT },
	{ "interval-clear",	no_argument,       NULL, OPT_INTERVAL_CLEAR },
	{ "table",		no_argument,       NULL, OPT_TABLE },
	{ "repeat",		required_argument, NULL, 'r' },
	{ "delay",		required_argument, NULL, 'D' },
	{ "timeout",		required_argument, NULL, OPT_TIMEOUT },
	{ "quiet",		no_argument,       NULL, 'q' },
	{ "verbose",		no_argument,       NULL, 'v' },
	{ "big-num",		no_argument,       NULL, 'B' },
	{ "no-big-num",		no_argument,       NULL, OPT_NO_BIG_NUM },
	{ "null",		no_argument,       NULL, 'n' },
	{ "compare",		no_argument,       NULL, OPT_COMPARE },
	{ "summary",		no_argument,       NULL, OPT_SUMMARY },
	{ "no-csv-summary",	no_argument,       NULL, OPT_NO_CSV_SUMMARY },
	{ "help",		no_argument,       NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void stat_usage(FILE *fp)
{
	fputs(
"usage: tally stat [OPTIONS] [--] COMMAND [ARGS]\n"
"       tally stat [OPTIONS] -p PID | -t TID | -a | -C CPUS\n"
"       tally stat --compare [-r N] [OPTIONS] -- COMMAND_A ::: COMMAND_B\n"
"\n"
"Targets\n"
"  -p, --pid PID[,PID]      count existing processes (all their threads)\n"
"  -t, --tid TID[,TID]      count existing threads\n"
"  -a, --all-cpus           count system-wide on every CPU\n"
"  -C, --cpu LIST           count system-wide on these CPUs (0-3,7)\n"
"  -G, --cgroup PATH        count only tasks of a cgroup v2 (with -a)\n"
"  -i, --no-inherit         do not count the command's children\n"
"Events\n"
"  -e, --event SPEC         events to count (repeatable; see tally list)\n"
"      --filter EXPR        ftrace filter for the tracepoint just before\n"
"  -d, --detailed           more default events (L1/LLC; -dd TLB, -ddd prefetch)\n"
"  -g, --group              count every event in one group\n"
"      --all-user, --all-kernel  count every event in user (kernel) mode only\n"
"Aggregation\n"
"  -A, --no-aggr            one row per CPU\n"
"      --per-thread         one row per thread (with -p, -t or -a)\n"
"      --per-core, --per-die, --per-socket, --per-node\n"
"Output (on stderr, as perf)\n"
"  -x, --field-separator S  CSV: value,unit,event,runtime,pcnt-running,metric,unit\n"
"  -j, --json               one JSON object per line\n"
"      --stat-format FMT    human, csv, json or openmetrics\n"
"  -o, --output FILE        write to FILE;  --append  add to it\n"
"      --log-fd FD          write to this open file descriptor\n"
"  -I, --interval-print MS  print every MS milliseconds; --interval-count N\n"
"      --summary            with -I: the totals too, at the end\n"
"      --no-csv-summary     no 'summary' column on those totals in CSV\n"
"      --interval-clear     with -I: clear the screen before each interval\n"
"  -r, --repeat N           run the command N times: mean and +- stddev\n"
"                           (0: forever, each run's counts, until Ctrl-C)\n"
"      --table              with -r: each run's elapsed time\n"
"      --compare            with -r N -- A ::: B: B/A ratio, 95% CI, significance\n"
"  -D, --delay MS           start counting MS after the command starts\n"
"  -S, --sync               sync() before each run\n"
"      --pre CMD, --post CMD  run sh -c CMD before (after) each run\n"
"      --timeout MS         stop after MS milliseconds\n"
"  -B, --big-num / --no-big-num   thousands separators (default on)\n"
"  -n, --null               no events: time the command only\n"
"  -q, --quiet              print no counts (exit status only)\n"
"  -v, --verbose            show each event's perf_event_attr\n"
"  -h, --help               this text (man tally-stat for the full manual)\n",
	fp);
}

/* A non-negative decimal long; false on junk, overflow or below min. */
static bool parse_long(const char *s, long min, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		return false;
	*out = v;
	return true;
}

__attribute__((format(printf, 2, 3)))
static int usage_err(FILE *err, const char *fmt, ...)
{
	va_list ap;

	fputs("tally stat: ", err);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputs("\n\n", err);
	stat_usage(err);
	return 1;
}

static int set_aggr(struct stat_config *cfg, enum stat_aggr a)
{
	cfg->aggr = a;
	cfg->aggr_set = true;
	return 0;
}

static int split_compare(struct stat_config *cfg, FILE *err)
{
	for (int i = 0; i < cfg->cmd_argc; i++) {
		if (strcmp(cfg->cmd_argv[i], ":::"))
			continue;
		cfg->cmd_argv[i] = NULL;
		cfg->cmd_b_argv = &cfg->cmd_argv[i + 1];
		cfg->cmd_b_argc = cfg->cmd_argc - i - 1;
		cfg->cmd_argc = i;
		if (!cfg->cmd_argc || !cfg->cmd_b_argc)
			return usage_err(err, "%s", "--compare needs COMMAND_A ::: COMMAND_B");
		return 0;
	}
	return usage_err(err, "%s", "--compare needs COMMAND_A ::: COMMAND_B");
}

int stat_parse_args(struct stat_config *cfg, int argc, char **argv, FILE *err)
{
	int c;
	long v;

	optind = 0;	/* full reset (GNU): the table may be parsed twice */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+e:p:t:aC:G:iAx:jo:I:r:D:qvBnhdSg",
				long_opts, NULL)) != -1) {
		switch (c) {
		case 'e':
			/* -G first (an error in perf) counts every event in it */
			if (cfg->cgroup && cfg->cgroup_after)
				return usage_err(err, "%s", "-e after -G: as perf, -G applies to the events before it; give every -e first");
			if (cfg->nr_events == STAT_MAX_EVENTS)
				return usage_err(err, "%s", "too many -e options");
			cfg->events[cfg->nr_events++].spec = optarg;
			break;
		case OPT_FILTER:
			if (!cfg->nr_events)
				return usage_err(err, "%s", "--filter must follow a tracepoint -e");
			cfg->events[cfg->nr_events - 1].filter = optarg;
			break;
		case 'p': cfg->pids = optarg; break;
		case 't': cfg->tids = optarg; break;
		case 'a': cfg->system_wide = true; break;
		case 'C': cfg->cpu_list = optarg; break;
		case 'G':
			/*
			 * perf's -G gives a cgroup to each event defined
			 * before it; tally counts every event in one cgroup,
			 * so it must be given once, after every -e.
			 */
			if (cfg->cgroup)
				return usage_err(err, "%s", "-G given twice: one cgroup counts every event");
			if (strchr(optarg, ','))
				return usage_err(err, "-G '%s': a cgroup per event is not supported; one cgroup counts every event",
						 optarg);
			if (!*optarg)
				return usage_err(err, "%s", "-G needs a cgroup");
			cfg->cgroup = optarg;
			cfg->cgroup_after = cfg->nr_events;
			break;
		case 'i': cfg->no_inherit = true; break;
		case 'A': set_aggr(cfg, STAT_AGGR_CPU); break;
		case OPT_PER_THREAD: set_aggr(cfg, STAT_AGGR_THREAD); break;
		case OPT_PER_CORE: set_aggr(cfg, STAT_AGGR_CORE); break;
		case OPT_PER_DIE: set_aggr(cfg, STAT_AGGR_DIE); break;
		case OPT_PER_SOCKET: set_aggr(cfg, STAT_AGGR_SOCKET); break;
		case OPT_PER_NODE: set_aggr(cfg, STAT_AGGR_NODE); break;
		case 'x':
			if (!*optarg || strlen(optarg) >= sizeof(cfg->csv_sep))
				return usage_err(err, "bad field separator '%s'", optarg);
			strcpy(cfg->csv_sep, optarg);
			cfg->format = STAT_FMT_CSV;
			break;
		case 'j': cfg->format = STAT_FMT_JSON; break;
		case OPT_STAT_FORMAT:
			if (!strcmp(optarg, "human"))
				cfg->format = STAT_FMT_HUMAN;
			else if (!strcmp(optarg, "csv"))
				cfg->format = STAT_FMT_CSV, strcpy(cfg->csv_sep, ",");
			else if (!strcmp(optarg, "json"))
				cfg->format = STAT_FMT_JSON;
			else if (!strcmp(optarg, "openmetrics"))
				cfg->format = STAT_FMT_OPENMETRICS;
			else
				return usage_err(err, "unknown --stat-format '%s' (human, csv, json, openmetrics)",
						 optarg);
			break;
		case 'o': cfg->output = optarg; break;
		case OPT_APPEND: cfg->append = true; break;
		case 'I':
			/* perf 6.1 takes any count of ms; 0 is no interval */
			if (!parse_long(optarg, 0, &v))
				return usage_err(err, "bad -I '%s': milliseconds", optarg);
			cfg->interval_ms = v;
			break;
		case OPT_INTERVAL_COUNT:
			if (!parse_long(optarg, 1, &v))
				return usage_err(err, "bad --interval-count '%s'", optarg);
			cfg->interval_count = v;
			break;
		case 'r':
			/* 0: perf's "forever", until Ctrl-C */
			if (!parse_long(optarg, 0, &v) || v > INT_MAX)
				return usage_err(err, "bad -r '%s': a count of runs", optarg);
			cfg->repeat = (int)v;
			break;
		case 'D':
			if (!parse_long(optarg, 0, &v))
				return usage_err(err, "bad -D '%s': milliseconds", optarg);
			cfg->delay_ms = v;
			break;
		case OPT_TIMEOUT:
			if (!parse_long(optarg, 1, &v))
				return usage_err(err, "bad --timeout '%s': milliseconds", optarg);
			cfg->timeout_ms = v;
			break;
		case 'q': cfg->quiet = true; break;
		case 'v': cfg->verbose++; break;
		case 'B': cfg->big_num = true; break;
		case OPT_NO_BIG_NUM: cfg->big_num = false; break;
		case 'n': cfg->null_run = true; break;
		case OPT_COMPARE: cfg->compare = true; break;
		case 'd': cfg->detailed++; break;
		case 'S': cfg->sync = true; break;
		case 'g': cfg->group = true; break;
		case OPT_PRE: cfg->pre_cmd = optarg; break;
		case OPT_POST: cfg->post_cmd = optarg; break;
		case OPT_ALL_USER: cfg->all_user = true; break;
		case OPT_ALL_KERNEL: cfg->all_kernel = true; break;
		case OPT_LOG_FD:
			if (!parse_long(optarg, 1, &v) || v > INT_MAX)	/* perf: > 0 */
				return usage_err(err, "bad --log-fd '%s'", optarg);
			cfg->log_fd = (int)v;
			break;
		case OPT_SUMMARY: cfg->summary = true; break;
		case OPT_INTERVAL_CLEAR: cfg->interval_clear = true; break;
		case OPT_TABLE: cfg->table = true; break;
		case OPT_NO_CSV_SUMMARY: cfg->no_csv_summary = true; break;
		case 'h':
			cfg->help = true;
			return 0;
		case ':':
			return usage_err(err, "option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_err(err, "unknown option '%s'", argv[optind - 1]);
		}
	}
	cfg->cmd_argv = &argv[optind];
	cfg->cmd_argc = argc - optind;

	if (cfg->compare) {
		if (split_compare(cfg, err))
			return 1;
		if (cfg->repeat == 0)
			return usage_err(err, "%s", "--compare needs a number of runs, not -r 0");
		if (cfg->repeat < 2)
			cfg->repeat = 5;
		if (cfg->pids || cfg->tids || cfg->system_wide || cfg->cpu_list || cfg->interval_ms)
			return usage_err(err, "%s", "--compare takes two commands, not -p/-t/-a/-C/-I");
	}
	if (cfg->cmd_argc && (cfg->pids || cfg->tids))
		return usage_err(err, "%s", "give either a command or -p/-t, not both");
	if (!cfg->cmd_argc && !cfg->pids && !cfg->tids && !cfg->system_wide && !cfg->cpu_list)
		return usage_err(err, "%s", "nothing to count: give a command, -p, -t, -a or -C");
	if (cfg->pids && cfg->tids)
		return usage_err(err, "%s", "-p and -t do not mix");
	if (cfg->cgroup && !cfg->system_wide && !cfg->cpu_list)
		return usage_err(err, "%s", "-G counts a cgroup system-wide: add -a (or -C)");
	if (cfg->aggr == STAT_AGGR_THREAD && !cfg->pids && !cfg->tids && !cfg->system_wide)
		return usage_err(err, "%s", "--per-thread needs -p, -t or -a");
	if (cfg->aggr == STAT_AGGR_THREAD && (cfg->cpu_list || cfg->cgroup))
		return usage_err(err, "%s", "--per-thread counts on any CPU: not with -C or -G");
	if (cfg->aggr_set && cfg->aggr != STAT_AGGR_THREAD && !cfg->system_wide &&
	    !cfg->cpu_list)
		return usage_err(err, "%s", "-A and --per-core/die/socket/node need -a or -C");
	if (cfg->append && !cfg->output && cfg->log_fd < 0)
		return usage_err(err, "%s", "--append needs -o FILE");
	if (cfg->output && cfg->log_fd >= 0)
		return usage_err(err, "%s", "-o and --log-fd do not mix");
	if (cfg->all_user && cfg->all_kernel)
		return usage_err(err, "%s", "--all-user and --all-kernel do not mix");
	if (cfg->null_run && cfg->nr_events)
		return usage_err(err, "%s", "-n counts nothing: drop -e");
	return 0;
}
