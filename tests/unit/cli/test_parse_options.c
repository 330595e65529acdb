// SPDX-License-Identifier: MIT
/*
 * The options-as-data parser: each kind lands in its field, bundles,
 * attached and separate values, --no-NAME, prefixes, "--", where parsing
 * stops, and one error line per mistake; the help comes from the table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "parse_options.h"

struct cfg {
	bool all, big, help, quiet;
	int verbose, repeat, nr_cb;
	long interval;
	const char *pid, *out, *opt, *last_cb, *next;
};

static int record_cb(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	struct cfg *c = opt->value;

	if (arg && !strcmp(arg, "bad"))
		return cli_error(p, "bad value '%s' for %s", arg, p->opt_name);
	c->nr_cb++;
	c->last_cb = arg;
	return 0;
}

static char errbuf[4096];
static char *args[32];

/*
 * Parse a NULL-terminated list with the test table; errors land in
 * errbuf. Returns cli_parse()'s result; args holds what is left.
 */
static int parse(struct cfg *c, unsigned flags, ...)
{
	static char store[32][64];
	struct cli_option opts[] = {
		CLI_GROUP("Targets"),
		CLI_BOOL('a', "all-cpus", &c->all, "every CPU"),
		CLI_STRING('p', "pid", &c->pid, "PID", "a process"),
		CLI_GROUP("Output"),
		CLI_BOOL_F('B', "big-num", &c->big, "separators", CLI_OPT_NEG),
		CLI_BOOL('q', "quiet", &c->quiet, "nothing"),
		CLI_COUNT('v', "verbose", &c->verbose, "more"),
		CLI_INT('r', "repeat", &c->repeat, "N", "runs", 0, 100),
		CLI_LONG('I', "interval-print", &c->interval, "MS", "every MS", 1, 0),
		CLI_STRING('o', "output", &c->out, "FILE", "to FILE"),
		CLI_STRING_F('O', "optional", &c->opt, "X", "optional value", CLI_OPT_OPTARG),
		CLI_STRING_F('g', "graph", &c->next, "MODE", "optional, the next word too", CLI_OPT_OPTNEXT),
		CLI_CALLBACK('e', "event", c, "SPEC", "events", record_cb),
		CLI_CALLBACK_F(0, "event-alias", c, "SPEC", "hidden alias", record_cb, CLI_OPT_HIDDEN, 0),
		CLI_CALLBACK(0, "flag", c, NULL, "a callback without a value", record_cb),
		CLI_HELP(&c->help, "this text"),
		CLI_END(),
	};
	FILE *err = fmemopen(errbuf, sizeof(errbuf), "w");
	const char *a;
	va_list ap;
	int argc = 0, n;

	memset(c, 0, sizeof(*c));
	c->big = true;
	errbuf[0] = '\0';
	args[argc++] = strcpy(store[0], "cmd");
	va_start(ap, flags);
	while ((a = va_arg(ap, const char *)) && argc < 31) {
		snprintf(store[argc], sizeof(store[argc]), "%s", a);
		args[argc] = store[argc];
		argc++;
	}
	va_end(ap);
	args[argc] = NULL;
	n = cli_parse("cmd", opts, argc, args, err, flags);
	fclose(err);
	return n;
}

static void test_kinds(void **state)
{
	struct cfg c;

	(void)state;
	assert_int_equal(parse(&c, 0, "-a", "--pid", "12", "-r", "7", "--interval-print=250",
			       "-o", "f", NULL), 0);
	assert_true(c.all);
	assert_string_equal(c.pid, "12");
	assert_int_equal(c.repeat, 7);
	assert_int_equal(c.interval, 250);
	assert_string_equal(c.out, "f");
	assert_null(args[0]);
	/* the last string wins; counts add up */
	assert_int_equal(parse(&c, 0, "-p", "1", "-p2", "-v", "--verbose", "-vv", NULL), 0);
	assert_string_equal(c.pid, "2");
	assert_int_equal(c.verbose, 4);
}

static void test_bundles_and_values(void **state)
{
	struct cfg c;

	(void)state;
	/* -aqv bundle; -r attached to its value; a value may start with '-' */
	assert_int_equal(parse(&c, 0, "-aqv", "-r3", "-o", "-x", NULL), 0);
	assert_true(c.all && c.quiet);
	assert_int_equal(c.verbose, 1);
	assert_int_equal(c.repeat, 3);
	assert_string_equal(c.out, "-x");
	/* a value ends the bundle: -aof is -a -o f */
	assert_int_equal(parse(&c, 0, "-aof", NULL), 0);
	assert_string_equal(c.out, "f");
	/* optional values are attached only */
	assert_int_equal(parse(&c, 0, "-O", "cmd", NULL), 1);
	assert_null(c.opt);
	assert_string_equal(args[0], "cmd");
	assert_int_equal(parse(&c, 0, "--optional=x", "-Oy", NULL), 0);
	assert_string_equal(c.opt, "y");
	/* perf's optional values (-g): the next word unless it is an option, or none */
	assert_int_equal(parse(&c, 0, "-g", "caller", NULL), 0);
	assert_string_equal(c.next, "caller");
	assert_int_equal(parse(&c, 0, "-g", "-a", NULL), 0);
	assert_null(c.next);
	assert_true(c.all);
	assert_int_equal(parse(&c, 0, "--graph", NULL), 0);
	assert_null(c.next);
	assert_int_equal(parse(&c, 0, "--graph=fractal", "-gflat", NULL), 0);
	assert_string_equal(c.next, "flat");
	assert_int_equal(parse(&c, 0, "-ag", "x", NULL), 0);
	assert_string_equal(c.next, "x");
}

static void test_negation_and_prefixes(void **state)
{
	struct cfg c;

	(void)state;
	assert_int_equal(parse(&c, 0, "--no-big-num", NULL), 0);
	assert_false(c.big);
	assert_int_equal(parse(&c, 0, "--no-big-num", "-B", NULL), 0);
	assert_true(c.big);
	assert_int_equal(parse(&c, 0, "--no-big", NULL), 0);	/* prefix of the negation */
	assert_false(c.big);
	/* not negatable */
	assert_int_equal(parse(&c, 0, "--no-quiet", NULL), -1);
	assert_non_null(strstr(errbuf, "unknown option '--no-quiet'"));
	/* unambiguous prefix; ambiguous one */
	assert_int_equal(parse(&c, 0, "--rep", "2", "--interval=5", NULL), 0);
	assert_int_equal(c.repeat, 2);
	assert_int_equal(c.interval, 5);
	assert_int_equal(parse(&c, 0, "--ev", "x", NULL), 0);	/* event, event-alias: one effect */
	assert_string_equal(c.last_cb, "x");
	assert_int_equal(parse(&c, 0, "--o", "x", NULL), -1);	/* output, optional */
	assert_non_null(strstr(errbuf, "ambiguous option '--o'"));
	/* an exact name wins over longer ones it prefixes */
	assert_int_equal(parse(&c, 0, "--event", "y", NULL), 0);
	assert_int_equal(c.nr_cb, 1);
}

static void test_where_parsing_stops(void **state)
{
	struct cfg c;

	(void)state;
	/* the first non-option: the rest is the command, options and all */
	assert_int_equal(parse(&c, 0, "-a", "ls", "-l", "-a", NULL), 3);
	assert_string_equal(args[0], "ls");
	assert_string_equal(args[1], "-l");
	assert_string_equal(args[2], "-a");
	assert_null(args[3]);
	/* "--" ends options and is dropped; "-" is an argument */
	assert_int_equal(parse(&c, 0, "--", "-a", NULL), 1);
	assert_false(c.all);
	assert_string_equal(args[0], "-a");
	assert_int_equal(parse(&c, 0, "-", "-a", NULL), 2);
	assert_string_equal(args[0], "-");
	/* keep going: arguments collected in order, options anywhere */
	assert_int_equal(parse(&c, CLI_PARSE_KEEP_GOING, "x", "-a", "y", "--", "-q", NULL), 3);
	assert_true(c.all);
	assert_false(c.quiet);
	assert_string_equal(args[0], "x");
	assert_string_equal(args[1], "y");
	assert_string_equal(args[2], "-q");
	assert_null(args[3]);
	/* --help stops at once, successfully */
	assert_int_equal(parse(&c, 0, "-a", "--help", "--bogus", NULL), 1);
	assert_true(c.help);
	assert_int_equal(parse(&c, 0, "-ha", NULL), 0);
	assert_true(c.help);
	assert_false(c.all);
}

static void test_callbacks(void **state)
{
	struct cfg c;

	(void)state;
	assert_int_equal(parse(&c, 0, "-e", "a", "--event=b", "-ec", "--flag", NULL), 0);
	assert_int_equal(c.nr_cb, 4);
	assert_null(c.last_cb);		/* --flag takes no value */
	assert_int_equal(parse(&c, 0, "-e", "bad", NULL), -1);
	assert_string_equal(errbuf, "tally cmd: bad value 'bad' for -e (see 'tally cmd --help')\n");
	assert_int_equal(parse(&c, 0, "--flag=1", NULL), -1);
	assert_non_null(strstr(errbuf, "option '--flag' takes no value"));
}

static void test_errors(void **state)
{
	struct cfg c;

	(void)state;
	assert_int_equal(parse(&c, 0, "--bogus", NULL), -1);
	assert_string_equal(errbuf, "tally cmd: unknown option '--bogus' (see 'tally cmd --help')\n");
	assert_int_equal(parse(&c, 0, "-aZ", NULL), -1);
	assert_non_null(strstr(errbuf, "unknown option '-Z'"));
	assert_int_equal(parse(&c, 0, "-o", NULL), -1);
	assert_non_null(strstr(errbuf, "option '-o' needs a value"));
	assert_int_equal(parse(&c, 0, "--output", NULL), -1);
	assert_non_null(strstr(errbuf, "option '--output' needs a value"));
	assert_int_equal(parse(&c, 0, "--quiet=1", NULL), -1);
	/* numbers: junk, below, above, overflow; the name as typed */
	assert_int_equal(parse(&c, 0, "-r", "5x", NULL), -1);
	assert_non_null(strstr(errbuf, "bad -r '5x': N must be an integer from 0 to 100"));
	assert_int_equal(parse(&c, 0, "--repeat=101", NULL), -1);
	assert_non_null(strstr(errbuf, "bad --repeat '101'"));
	assert_int_equal(parse(&c, 0, "-r", "-1", NULL), -1);
	assert_int_equal(parse(&c, 0, "-I", "0", NULL), -1);
	assert_non_null(strstr(errbuf, "bad -I '0': MS must be an integer >= 1"));
	assert_int_equal(parse(&c, 0, "-I", "99999999999999999999", NULL), -1);
	assert_int_equal(parse(&c, 0, "-I", "", NULL), -1);
	/* exactly one line */
	assert_int_equal(parse(&c, 0, "--bogus", NULL), -1);
	assert_ptr_equal(strchr(errbuf, '\n'), errbuf + strlen(errbuf) - 1);
}

static void test_help_text(void **state)
{
	static const char *const usage[] = {
		"t one", "t two", "", "Some text.", NULL,
	};
	struct cli_option opts[] = {
		CLI_GROUP("Group"),
		CLI_BOOL('a', "all", NULL, "every"),
		CLI_STRING(0, "long-only", NULL, "X", "line one\nline two"),
		CLI_STRING('s', NULL, NULL, "V", "short only"),
		CLI_BOOL_F('B', "big", NULL, "neg", CLI_OPT_NEG),
		CLI_STRING_F(0, "hidden", NULL, "H", "not shown", CLI_OPT_HIDDEN),
		CLI_STRING_F(0, "opt", NULL, "V", "optional", CLI_OPT_OPTARG),
		CLI_BOOL(0, "a-very-long-option-name", NULL, "wraps"),
		CLI_END(),
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	cli_usage(f, usage, opts);
	fclose(f);
	assert_string_equal(buf,
		"usage: t one\n"
		"       t two\n"
		"\n"
		"Some text.\n"
		"\n"
		"Group\n"
		"  -a, --all                every\n"
		"      --long-only X        line one\n"
		"                           line two\n"
		"  -s V                     short only\n"
		"  -B, --big, --no-big      neg\n"
		"      --opt[=V]            optional\n"
		"      --a-very-long-option-name\n"
		"                           wraps\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_bundles_and_values),
		cmocka_unit_test(test_negation_and_prefixes),
		cmocka_unit_test(test_where_parsing_stops),
		cmocka_unit_test(test_callbacks),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
