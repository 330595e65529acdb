// SPDX-License-Identifier: MIT
/*
 * tally sched: perf sched 6.1's record, latency, timehist, map and
 * script. record is tally record with perf sched's events and options;
 * the others read the file through the library's session (sched_read.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "pager.h"
#include "parse_options.h"
#include "sched_cmd.h"
#include "tp_cmd.h"

static const char *const sched_usage[] = {
	"tally sched [-i FILE] {record|latency|map|script|timehist} [OPTIONS]",
	"",
	"Scheduler analysis, as perf sched: record the sched tracepoints",
	"system-wide, then show each task's wake-up latency, a line per",
	"context switch, or which task runs on each CPU.",
	NULL,
};

/* Where one subcommand's common options land (perf sched's own: -i, -v, -f). */
struct sched_common {
	const char *input;
	int verbose;
	bool force, help;
};

#define SCHED_COMMON(c)								\
	CLI_STRING('i', "input", &(c)->input, "FILE", "the perf.data file (default perf.data)"), \
	CLI_COUNT('v', "verbose", &(c)->verbose, "be more verbose"),		\
	CLI_BOOL('f', "force", &(c)->force, "do not complain, do it"),		\
	CLI_HELP(&(c)->help, "this text (man tally-sched for the full manual)")

/*
 * perf sched record: perf record -a -R -m 1024 -c 1 and the sched events
 * (sched_waking where the kernel has it, else sched_wakeup; the schedstat
 * ones where present), then the user's arguments.
 */
static int sched_record(int argc, char **argv)
{
	static const char *const always[] = {
		"sched_switch", "sched_stat_runtime", "sched_process_fork",
		"sched_wakeup_new", "sched_migrate_task",
	};
	static const char *const schedstat[] = {
		"sched_stat_wait", "sched_stat_sleep", "sched_stat_iowait",
	};
	char **rargv = calloc((size_t)argc + 32, sizeof(*rargv));
	char evs[12][64];
	int n = 0, ne = 0, ret;

	if (!rargv)
		return 1;
	rargv[n++] = "record";
	rargv[n++] = "-a";
	rargv[n++] = "-m";
	rargv[n++] = "1024";
	rargv[n++] = "-c";
	rargv[n++] = "1";
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++) {
		/* sched_stat_runtime is gone from newer kernels: taken where present */
		if (!strcmp(always[i], "sched_stat_runtime") && cli_have_tp("sched", always[i]) != 1)
			continue;
		snprintf(evs[ne], sizeof(evs[ne]), "sched:%s", always[i]);
		rargv[n++] = "-e";
		rargv[n++] = evs[ne++];
	}
	snprintf(evs[ne], sizeof(evs[ne]), "sched:%s",
		 cli_have_tp("sched", "sched_waking") == 1 ? "sched_waking" : "sched_wakeup");
	rargv[n++] = "-e";
	rargv[n++] = evs[ne++];
	for (size_t i = 0; i < sizeof(schedstat) / sizeof(schedstat[0]); i++) {
		if (cli_have_tp("sched", schedstat[i]) != 1)
			continue;
		snprintf(evs[ne], sizeof(evs[ne]), "sched:%s", schedstat[i]);
		rargv[n++] = "-e";
		rargv[n++] = evs[ne++];
	}
	for (int i = 1; i < argc; i++)
		rargv[n++] = argv[i];
	ret = cmd_record(n, rargv);
	free(rargv);
	return ret;
}

static const char *const latency_usage[] = { "tally sched latency [OPTIONS]", NULL };
static const char *const timehist_usage[] = { "tally sched timehist [OPTIONS]", NULL };
static const char *const map_usage[] = { "tally sched map [OPTIONS]", NULL };

static int sched_latency_cmd(int argc, char **argv, struct sched_common *c)
{
	struct latency_opts o = { .cpu = -1 };
	const struct cli_option opts[] = {
		CLI_INT('C', "CPU", &o.cpu, "N", "CPU to profile on", -1, 4095),
		CLI_BOOL('p', "pids", &o.per_pid, "latency stats per pid instead of per comm"),
		CLI_STRING('s', "sort", &o.sort, "KEY[,KEY...]", "sort by keys: runtime, switch, avg, max (and pid)"),
		SCHED_COMMON(c),
		CLI_END(),
	};

	if (cli_parse("sched latency", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (c->help) {
		cli_usage(stdout, latency_usage, opts);
		return 0;
	}
	pager_start();
	return sched_latency(c->input, &o);
}

static int sched_timehist_cmd(int argc, char **argv, struct sched_common *c)
{
	struct timehist_opts o = { .callchain = true, .max_stack = 5 };
	const struct cli_option opts[] = {
		CLI_STRING('C', "cpu", &o.cpu_list, "CPUS", "list of cpus to profile"),
		CLI_BOOL_F('g', "call-graph", &o.callchain, "Display call chains if present (default on)", CLI_OPT_NEG),
		CLI_BOOL('M', "migrations", &o.migrations, "Show migration events"),
		CLI_BOOL('n', "next", &o.next, "Show next task"),
		CLI_STRING('p', "pid", &o.pids, "PID[,PID...]", "analyze events only for given process id(s)"),
		CLI_BOOL('s', "summary", &o.summary, "Show only a summary of the tasks' run times"),
		CLI_BOOL('S', "with-summary", &o.with_summary, "Show all events and the summary"),
		CLI_STRING('t', "tid", &o.tids, "TID[,TID...]", "analyze events only for given thread id(s)"),
		CLI_BOOL('V', "cpu-visual", &o.cpu_visual, "Add CPU visual"),
		CLI_BOOL('w', "wakeups", &o.wakeups, "Show wakeup events"),
		CLI_INT(0, "max-stack", &o.max_stack, "N", "Maximum number of functions to display backtrace.", 0, 1024),
		CLI_BOOL(0, "state", &o.state, "Show task state when sched-out"),
		CLI_STRING(0, "time", &o.time, "START,STOP", "Time span for analysis (start,stop), in seconds"),
		CLI_STRING(0, "symfs", &o.symfs, "DIR", "Look for files with symbols relative to this directory"),
		CLI_STRING(0, "kallsyms", &o.kallsyms, "FILE", "kallsyms pathname"),
		SCHED_COMMON(c),
		CLI_END(),
	};

	if (cli_parse("sched timehist", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (c->help) {
		cli_usage(stdout, timehist_usage, opts);
		return 0;
	}
	if (o.summary && (o.next || o.wakeups)) {
		fprintf(stderr, "tally sched timehist: -s and -[n|w] are mutually exclusive "
			"(-S shows the lines and the summary)\n");
		return 129;
	}
	pager_start();
	return sched_timehist(c->input, &o);
}

static int sched_map_cmd(int argc, char **argv, struct sched_common *c)
{
	struct map_opts o = { 0 };
	const struct cli_option opts[] = {
		CLI_STRING(0, "color-cpus", &o.color_cpus, "CPUS", "highlight given CPUs in map"),
		CLI_STRING(0, "color-pids", &o.color_pids, "PIDS", "highlight given pids in map"),
		CLI_BOOL(0, "compact", &o.compact, "map output in compact mode"),
		CLI_STRING(0, "cpus", &o.cpus, "CPUS", "display given CPUs in map"),
		SCHED_COMMON(c),
		CLI_END(),
	};

	if (cli_parse("sched map", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (c->help) {
		cli_usage(stdout, map_usage, opts);
		return 0;
	}
	o.verbose = c->verbose;
	pager_start();
	return sched_map(c->input, &o);
}

int cmd_sched(int argc, char **argv)
{
	struct sched_common c = { .input = NULL };
	const struct cli_option opts[] = {
		SCHED_COMMON(&c),
		CLI_END(),
	};
	const char *sub;
	int n;

	/* options before the subcommand are perf sched's own (-i FILE) */
	n = cli_parse("sched", opts, argc, argv, stderr, 0);
	if (n < 0)
		return 129;
	if (c.help || n == 0) {
		cli_usage(c.help ? stdout : stderr, sched_usage, opts);
		return c.help ? 0 : 129;
	}
	sub = argv[0];
	/* argv[0..n) is the subcommand and its arguments: parsed as a command of their own */
	if (cli_subcmd_is(sub, "record", 3))
		return sched_record(n, argv);
	if (!strcmp(sub, "script"))
		return cli_tp_script(n, argv, c.input);
	if (!c.input)
		c.input = "perf.data";
	if (cli_subcmd_is(sub, "latency", 3))
		return sched_latency_cmd(n, argv, &c);
	if (!strcmp(sub, "timehist"))
		return sched_timehist_cmd(n, argv, &c);
	if (!strcmp(sub, "map"))
		return sched_map_cmd(n, argv, &c);
	if (!strcmp(sub, "replay")) {
		fprintf(stderr, "tally sched: replay is not supported (see docs/perf-differences.md)\n");
		return 1;
	}
	fprintf(stderr, "tally sched: unknown subcommand '%s' (record, latency, map, script, timehist)\n",
		sub);
	cli_usage(stderr, sched_usage, opts);
	return 129;
}
