/* SPDX-License-Identifier: MIT */
/* The tally command: declarations shared by the files of cli. */
#ifndef TALLY_CLI_H
#define TALLY_CLI_H

#include <stdbool.h>
#include <stdio.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;
};

int cmd_stat(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_record(int argc, char **argv);
/* tally record as tally trace record runs it: with the syscalls' path strings when asked */
int cmd_trace_record(int argc, char **argv, bool syscall_strings);
int cmd_script(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_agent(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_kmem(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_c2c(int argc, char **argv);
int cmd_probe(int argc, char **argv);

/* Show docs/tally-CMD.1 through man(1), or the command's --help text. */
int cli_help(const char *cmd);

#endif
