// SPDX-License-Identifier: MIT
/*
 * tally lock: perf lock 6.1's record, report, contention and script.
 * record is tally record with perf lock's events and options; report and
 * contention read the file through the library's session (lock_stat.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "lock_cmd.h"
#include "pager.h"
#include "parse_options.h"
#include "tp_cmd.h"

static const char *const lock_usage[] = {
	"tally lock [-i FILE] {record|report|script|contention} [OPTIONS]",
	"",
	"Lock analysis, as perf lock: record the lock tracepoints, then show",
	"each lock's acquisitions and waits, or the contended locks by caller.",
	NULL,
};

/* perf lock's own options, before or after the subcommand */
struct lock_common {
	const char *input;
	int verbose;
	bool force, quiet, help;
};

#define LOCK_COMMON(c)								\
	CLI_STRING('i', "input", &(c)->input, "FILE", "input file name (default perf.data)"), \
	CLI_COUNT('v', "verbose", &(c)->verbose, "be more verbose (contention: each caller's stack)"), \
	CLI_BOOL('f', "force", &(c)->force, "don't complain, do it"),		\
	CLI_BOOL('q', "quiet", &(c)->quiet, "Do not show any warnings or messages"), \
	CLI_HELP(&(c)->help, "this text (man tally-lock for the full manual)")

/*
 * perf lock record: perf record -R -m 1024 -c 1 (tally record takes a
 * tracepoint's raw data without -R) and lockdep's four
 * events where the kernel has them all (CONFIG_LOCKDEP and
 * CONFIG_LOCK_STAT), else contention_begin and _end with frame-pointer
 * chains (perf's 8 deep: tally record takes no depth, the readers read
 * the first 8 frames of either), then the user's arguments.
 */
static int lock_record(int argc, char **argv)
{
	static const char *const lockdep[] = {
		"lock_acquire", "lock_acquired", "lock_contended", "lock_release",
	};
	static const char *const contention[] = { "contention_begin", "contention_end" };
	char **rargv = calloc((size_t)argc + 24, sizeof(*rargv));
	char evs[4][64];
	bool has_lockdep = true;
	int n = 0, ret;

	if (!rargv)
		return 1;
	for (size_t i = 0; i < 4; i++)
		has_lockdep &= cli_have_tp("lock", lockdep[i]) == 1;
	rargv[n++] = "record";
	rargv[n++] = "-m";
	rargv[n++] = "1024";
	rargv[n++] = "-c";
	rargv[n++] = "1";
	for (size_t i = 0; i < (has_lockdep ? 4u : 2u); i++) {
		const char *tp = has_lockdep ? lockdep[i] : contention[i];

		if (!has_lockdep && !cli_have_tp("lock", tp)) {	/* -1: record says why it cannot */
			fprintf(stderr, "tally lock record: tracepoint lock:%s is not enabled: this kernel "
				"has neither lockdep's lock:lock_acquire (CONFIG_LOCKDEP, CONFIG_LOCK_STAT) "
				"nor lock:contention_begin/end\n", tp);
			free(rargv);
			return 1;
		}
		snprintf(evs[i], sizeof(evs[i]), "lock:%s", tp);
		rargv[n++] = "-e";
		rargv[n++] = evs[i];
	}
	if (!has_lockdep) {
		rargv[n++] = "--call-graph";
		rargv[n++] = "fp";
	}
	for (int i = 1; i < argc; i++)
		rargv[n++] = argv[i];
	ret = cmd_record(n, rargv);
	free(rargv);
	return ret;
}

static const char *const report_usage[] = { "tally lock report [OPTIONS]", NULL };
static const char *const contention_usage[] = { "tally lock contention [OPTIONS]", NULL };

static int lock_report_cmd(int argc, char **argv, struct lock_common *c)
{
	struct lock_opts o = { .max_stack = 8, .stack_skip = 3 };
	const struct cli_option opts[] = {
		CLI_BOOL('c', "combine-locks", &o.combine, "combine locks in the same class"),
		CLI_INT('E', "entries", &o.entries, "N", "display this many functions", 0, 1 << 30),
		CLI_STRING('F', "field", &o.fields, "FIELD[,FIELD...]",
			   "output fields (acquired / contended / avg_wait / wait_total / wait_max / wait_min)"),
		CLI_STRING('k', "key", &o.key, "acquired",
			   "key for sorting (acquired / contended / avg_wait / wait_total / wait_max / wait_min)"),
		CLI_BOOL('t', "threads", &o.threads, "show per-thread lock stats"),
		LOCK_COMMON(c),
		CLI_END(),
	};

	if (cli_parse("lock report", opts, argc, argv, stderr, 0) < 0)
		return 129;
	if (c->help) {
		cli_usage(stdout, report_usage, opts);
		return 0;
	}
	o.input = c->input;
	o.verbose = c->verbose;
	pager_start();
	return lock_report(&o);
}

static int lock_contention_cmd(int argc, char **argv, struct lock_common *c)
{
	struct lock_opts o = { .max_stack = 8, .stack_skip = 3 };
	struct lock_bpf_target t = { .argv = NULL };
	bool bpf = false;
	int n;
	const struct cli_option opts[] = {
		CLI_BOOL('a', "all-cpus", &t.system_wide, "System-wide collection from all CPUs (-b)"),
		CLI_BOOL('b', "use-bpf", &bpf, "use BPF program to collect lock contention stats"),
		CLI_STRING('C', "cpu", &t.cpus, "CPUS", "List of cpus to monitor (-b)"),
		CLI_STRING('p', "pid", &t.pids, "PID[,PID...]", "Trace on existing process id (-b)"),
		CLI_STRING(0, "tid", &t.tids, "TID[,TID...]",
			   "Trace on existing thread id (exclusive to --pid) (-b)"),
		CLI_INT(0, "map-nr-entries", &t.map_entries, "NUM",
			"Max number of BPF map entries (-b), Default: 16384", 1, 1 << 24),
		CLI_INT('E', "entries", &o.entries, "N", "display this many functions", 0, 1 << 30),
		CLI_STRING('F', "field", &o.fields, "FIELD[,FIELD...]",
			   "output fields (contended / wait_total / wait_max / wait_min / avg_wait)"),
		CLI_STRING('k', "key", &o.key, "wait_total",
			   "key for sorting (contended / wait_total / wait_max / wait_min / avg_wait)"),
		CLI_BOOL('t', "threads", &o.threads, "show per-thread lock stats"),
		CLI_INT(0, "max-stack", &o.max_stack, "N",
			"Set the maximum stack depth when collecting lock contention, Default: 8", 1, 128),
		CLI_INT(0, "stack-skip", &o.stack_skip, "N",
			"Set the number of stack depth to skip when finding a lock caller, Default: 3", 0, 128),
		LOCK_COMMON(c),
		CLI_END(),
	};

	if ((n = cli_parse("lock contention", opts, argc, argv, stderr, 0)) < 0)
		return 129;
	if (c->help) {
		cli_usage(stdout, contention_usage, opts);
		return 0;
	}
	o.input = c->input;
	o.verbose = c->verbose;
	if (t.pids && t.tids) {
		fprintf(stderr, "tally lock contention: --pid and --tid are exclusive\n");
		return 129;
	}
	if (!bpf && (n || t.system_wide || t.cpus || t.pids || t.tids || t.map_entries)) {
		fprintf(stderr, "tally lock contention: a command, -a, -C, -p, --tid and "
			"--map-nr-entries are -b's: without it the file is read\n");
		return 129;
	}
	if (bpf) {
		if (c->input) {
			fprintf(stderr, "tally lock contention: -b reads no file (-i): it watches "
				"the kernel while a command or the targets run\n");
			return 129;
		}
		t.argv = n ? argv : NULL;
		return lock_contention_bpf(&o, &t);
	}
	pager_start();
	return lock_contention(&o);
}

int cmd_lock(int argc, char **argv)
{
	struct lock_common c = { .input = NULL };
	const struct cli_option opts[] = {
		LOCK_COMMON(&c),
		CLI_END(),
	};
	const char *sub;
	int n;

	n = cli_parse("lock", opts, argc, argv, stderr, 0);
	if (n < 0)
		return 129;
	if (c.help || n == 0) {
		cli_usage(c.help ? stdout : stderr, lock_usage, opts);
		return c.help ? 0 : 129;
	}
	sub = argv[0];
	if (cli_subcmd_is(sub, "record", 3))
		return lock_record(n, argv);
	if (!strcmp(sub, "script"))
		return cli_tp_script(n, argv, c.input);
	if (cli_subcmd_is(sub, "report", 3))
		return lock_report_cmd(n, argv, &c);
	if (cli_subcmd_is(sub, "contention", 3))
		return lock_contention_cmd(n, argv, &c);
	if (!strcmp(sub, "info")) {
		fprintf(stderr, "tally lock: info is not supported (see docs/perf-differences.md)\n");
		return 1;
	}
	fprintf(stderr, "tally lock: unknown subcommand '%s' (record, report, script, contention)\n", sub);
	cli_usage(stderr, lock_usage, opts);
	return 129;
}
