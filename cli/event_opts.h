/* SPDX-License-Identifier: MIT */
/*
 * -e and --filter shared by the commands: the option callbacks that
 * collect the specs, building the event list from them, and the two error
 * printers (the parse error with its caret, the open error with the
 * library's hint).
 */
#ifndef TALLY_CLI_EVENT_OPTS_H
#define TALLY_CLI_EVENT_OPTS_H

#include <stdbool.h>
#include "parse_options.h"

struct tally_evlist;
struct tally_parse_error;

#define CLI_MAX_EVENTS	64	/* -e options (each may hold many events) */

struct cli_event_opt {
	const char *spec;
	const char *filter;	/* --filter after this -e, or NULL */
};

/* The -e options in order; strings point into argv. */
struct cli_events {
	struct cli_event_opt v[CLI_MAX_EVENTS];
	int nr;
};

/* Append one -e spec. 0 or -1 (cli_error: too many). */
int cli_events_push(struct cli_parse *p, struct cli_events *ev, const char *spec);
/* CALLBACKs, value: struct cli_events *. --filter goes to the last -e. */
int cli_opt_event(struct cli_parse *p, const struct cli_option *opt, const char *arg);
int cli_opt_filter(struct cli_parse *p, const struct cli_option *opt, const char *arg);

/*
 * Parse spec (with its filter, or NULL) into l. 0, or after printing the
 * error (the caret under the token, or "tally CMD: ..."):
 * CLI_EVENTS_USAGE for the user's mistake (a bad spec, --filter on an
 * event that takes none: perf's usage status 129), -1 for anything else.
 */
#define CLI_EVENTS_USAGE	(-2)
int cli_events_add(struct tally_evlist *l, const char *spec, const char *filter,
		   const char *cmd);
/* -g: every event of l in one group, led by the first. 0 or -1. */
int cli_events_group_all(struct tally_evlist *l, const char *cmd);

/* "event syntax error: ..." with the caret, then the tally list hint. */
void cli_print_parse_error(const char *cmd, const char *spec,
			   const struct tally_parse_error *pe, int err);
/* The open failed for every event: "tally CMD: " and the library's why. */
struct cli_target;
/* The open error in perf's words, with the hint that fits the target (t may be NULL). */
void cli_print_open_error(const char *cmd, struct tally_evlist *l, int err,
			  const struct cli_target *t);

#endif
