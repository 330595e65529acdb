// SPDX-License-Identifier: MIT
/* tally: the command table and dispatch, as git does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/core.h>
#include "cli.h"
#include "heap.h"
#include "pager.h"

static const struct cmd commands[] = {
	{ "stat", cmd_stat, "Count events for a command, pids, threads, CPUs or a cgroup" },
	{ "record", cmd_record, "Sample events into perf.data (perf's format)" },
	{ "report", cmd_report, "Show the histogram of a perf.data file, as perf report" },
	{ "annotate", cmd_annotate, "Show where in each function the samples fell, as perf annotate" },
	{ "top", cmd_top, "Live profile of the system, pids or a command, as perf top" },
	{ "script", cmd_script, "Print the samples of a perf.data file, as perf script" },
	{ "diff", cmd_diff, "Compare two perf.data files, as perf diff" },
	{ "sched", cmd_sched, "Scheduler latencies, switches and CPU maps, as perf sched" },
	{ "lock", cmd_lock, "Lock contention and lock statistics, as perf lock" },
	{ "kmem", cmd_kmem, "Kernel memory allocations (slab, pages), as perf kmem" },
	{ "mem", cmd_mem, "Memory accesses: data sources, latencies, addresses, as perf mem" },
	{ "c2c", cmd_c2c, "Shared data cache lines: false sharing, HITMs, as perf c2c" },
	{ "probe", cmd_probe, "Define uprobe events from DWARF names, lines and SDT markers, as perf probe" },
	{ "trace", cmd_trace, "Show the system calls of a command or of tasks, as perf trace" },
	{ "agent", cmd_agent, "Profile the whole machine continuously into ClickHouse; counters for Prometheus" },
	{ "list", cmd_list, "List the events this machine offers" },
	{ "test", cmd_test, "Check that this machine counts and samples exactly (as perf test)" },
};

static void usage(FILE *fp)
{
	fprintf(fp, "usage: tally [--version] [--help] [--no-pager] COMMAND [ARGS]\n\n"
		    "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(fp, "\n'tally COMMAND --help' or 'tally help COMMAND' for a command's options.\n");
}

static const struct cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int cli_help(const char *name)
{
	const struct cmd *c = find_cmd(name);
	char *argv[] = { (char *)name, "--help", NULL };

	if (!c) {
		fprintf(stderr, "tally: '%s' is not a tally command. See 'tally --help'.\n", name);
		return 1;
	}
	return c->fn(2, argv);
}

/* Lost output (ENOSPC, EIO, a closed pipe) is an error: output is the product. */
static int finish_output(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "tally: error writing output: %s\n", strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc > 1 && !strcmp(argv[1], "--no-pager")) {
		pager_disabled = true;
		argc--;
		argv++;
	}
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return finish_output(0);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("tally version %s\n", tally_version());
		return finish_output(0);
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			usage(stdout);
			return finish_output(0);
		}
		return finish_output(cli_help(argv[2]));
	}
	c = find_cmd(argv[1]);
	if (!c) {
		fprintf(stderr, "tally: '%s' is not a tally command. See 'tally --help'.\n", argv[1]);
		return 1;
	}
	if (c->fn == cmd_top)
		cli_heap_huge();	/* the file readers' is cli_session_open's */
	return finish_output(c->fn(argc - 1, argv + 1));
}
