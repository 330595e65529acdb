/* SPDX-License-Identifier: MIT */
/*
 * Options as data, as git's parse-options: a command declares one array of
 * struct cli_option pointing into its config struct; cli_parse() fills the
 * config from argv and cli_usage() prints the help from the same array, so
 * the two cannot drift apart.
 */
#ifndef TALLY_CLI_PARSE_OPTIONS_H
#define TALLY_CLI_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

enum cli_opt_kind {
	CLI_OPT_END,
	CLI_OPT_GROUP,		/* a help section heading (help: the title) */
	CLI_OPT_BOOL,		/* bool *; set; with CLI_OPT_NEG also --no-NAME */
	CLI_OPT_COUNT,		/* int *; +1 each time: -v -vv, -ddd */
	CLI_OPT_INT,		/* int *; decimal in [min, max] */
	CLI_OPT_LONG,		/* long *; decimal in [min, max] */
	CLI_OPT_STRING,		/* const char **; the last one wins */
	CLI_OPT_CALLBACK,	/* cb(p, opt, arg): repeatable or checked options */
};

/* flags */
#define CLI_OPT_NEG	(1u << 0)	/* BOOL: --no-NAME clears it */
#define CLI_OPT_HIDDEN	(1u << 1)	/* not in the help (aliases) */
#define CLI_OPT_NOARG	(1u << 2)	/* CALLBACK: takes no value (arg NULL) */
#define CLI_OPT_OPTARG	(1u << 3)	/* value only attached: -xVAL, --x=VAL */
/* value attached, or the next word unless it starts with '-' (perf's optional values: -g, -g caller) */
#define CLI_OPT_OPTNEXT	(1u << 4)

struct cli_parse;
struct cli_option;

/*
 * 0: go on; CLI_STOP: stop parsing, successfully (--help); -1: an error,
 * already reported with cli_error().
 */
typedef int (*cli_opt_cb)(struct cli_parse *p, const struct cli_option *opt, const char *arg);
#define CLI_STOP 1

struct cli_option {
	char short_name;	/* 0: none */
	const char *long_name;	/* NULL: none */
	enum cli_opt_kind kind;
	void *value;		/* the config field (callbacks: their context) */
	const char *argh;	/* the value's name in the help: "PID", "MS" */
	const char *help;	/* '\n' continues on the next, indented, line */
	unsigned flags;
	long min, max;		/* INT/LONG bounds */
	cli_opt_cb cb;
	long defval;		/* CALLBACK: a constant for shared callbacks */
};

#define CLI_END()				{ .kind = CLI_OPT_END }
#define CLI_GROUP(title)			{ .kind = CLI_OPT_GROUP, .help = (title) }
#define CLI_BOOL(s, l, v, h)			{ (s), (l), CLI_OPT_BOOL, (v), NULL, (h), 0, 0, 0, NULL, 0 }
#define CLI_BOOL_F(s, l, v, h, f)		{ (s), (l), CLI_OPT_BOOL, (v), NULL, (h), (f), 0, 0, NULL, 0 }
#define CLI_COUNT(s, l, v, h)			{ (s), (l), CLI_OPT_COUNT, (v), NULL, (h), 0, 0, 0, NULL, 0 }
#define CLI_INT(s, l, v, a, h, lo, hi)		{ (s), (l), CLI_OPT_INT, (v), (a), (h), 0, (lo), (hi), NULL, 0 }
#define CLI_LONG(s, l, v, a, h, lo, hi)		{ (s), (l), CLI_OPT_LONG, (v), (a), (h), 0, (lo), (hi), NULL, 0 }
#define CLI_STRING(s, l, v, a, h)		{ (s), (l), CLI_OPT_STRING, (v), (a), (h), 0, 0, 0, NULL, 0 }
#define CLI_STRING_F(s, l, v, a, h, f)		{ (s), (l), CLI_OPT_STRING, (v), (a), (h), (f), 0, 0, NULL, 0 }
/* A callback with a value (a == NULL: takes none). */
#define CLI_CALLBACK(s, l, v, a, h, cb)		\
	{ (s), (l), CLI_OPT_CALLBACK, (v), (a), (h), (a) ? 0 : CLI_OPT_NOARG, 0, 0, (cb), 0 }
#define CLI_CALLBACK_F(s, l, v, a, h, cb, f, d)	\
	{ (s), (l), CLI_OPT_CALLBACK, (v), (a), (h), ((a) ? 0 : CLI_OPT_NOARG) | (f), 0, 0, (cb), (d) }

/* How cli_parse() treats what is not an option. */
#define CLI_PARSE_KEEP_GOING	(1u << 0)	/* collect non-options, parse on (list) */

/* The parse in progress: what callbacks and cli_error() see. */
struct cli_parse {
	const char *cmd;		/* "stat": messages say "tally stat: " */
	const struct cli_option *opts;
	FILE *err;			/* where errors go (stderr; tests: /dev/null) */
	const char *opt_name;		/* as the user typed it: "-r", "--repeat" */
};

/*
 * Parse argv[1..argc) into the options' values. Stops at the first
 * non-option (unless CLI_PARSE_KEEP_GOING), at "--" (consumed) or when a
 * callback returns CLI_STOP. Takes -abc bundles, -I100, -I 100, --opt=val,
 * --opt val, --no-NAME for CLI_OPT_NEG, and unambiguous prefixes of long
 * names. The arguments left (the command, or list's filters) are moved to
 * argv[0..n) with argv[n] = NULL, as git does. Returns n, or -1 after one
 * line on err naming the option (the caller exits with 129).
 */
int cli_parse(const char *cmd, const struct cli_option *opts, int argc, char **argv,
	      FILE *err, unsigned flags);

/*
 * "tally CMD: MSG (see 'tally CMD --help')" on p->err; returns -1, for
 * `return cli_error(p, ...)` in callbacks and semantic checks.
 */
__attribute__((format(printf, 2, 3)))
int cli_error(struct cli_parse *p, const char *fmt, ...);

/*
 * The help: usage lines ("usage: " then "       "; an empty string ends
 * them and the lines after it are printed as they are), a blank line, then
 * every option not hidden, GROUP headings as section titles, the help
 * text in an aligned column.
 */
void cli_usage(FILE *fp, const char *const *usage, const struct cli_option *opts);

/* A CALLBACK for --help: sets the bool at value and stops the parse. */
int cli_opt_help(struct cli_parse *p, const struct cli_option *opt, const char *arg);
#define CLI_HELP(v, h)	CLI_CALLBACK('h', "help", (v), NULL, (h), cli_opt_help)

#endif
