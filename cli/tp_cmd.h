/* SPDX-License-Identifier: MIT */
/*
 * What the tracepoint-analysis commands (sched, lock, kmem) share: a
 * tracepoint's presence, their script subcommand, perf's abbreviations
 * of a subcommand, perf's --time window.
 */
#ifndef TALLY_CLI_TP_CMD_H
#define TALLY_CLI_TP_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * SYSTEM:NAME exists on this kernel (tracefs mounted first if need be):
 * 1, 0, or -1 when tracefs cannot be read (not root: record says why).
 */
int cli_have_tp(const char *system, const char *name);
/* perf X script is perf script: tally script [-i input] and argv[1..]. */
int cli_tp_script(int argc, char **argv, const char *input);
/* s abbreviates full: at least min letters of it (perf's subcommands). */
bool cli_subcmd_is(const char *s, const char *full, size_t min);
/*
 * --time START,STOP in seconds ("12.5,13", either left out; no comma:
 * START only) into ns, 0 where left out. 0, or -1 (STOP before START).
 */
int cli_time_window(const char *s, uint64_t *start, uint64_t *end);

#endif
