// SPDX-License-Identifier: MIT
/*
 * tally stat's command line: each option lands in the config, parsing
 * stops at the command, ':::' splits --compare, and every conflicting or
 * malformed combination is a usage error (exit 129 in the command).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
/* stat_opts.c and the shared layer it builds on */
#include "parse_options.h"
#include "event_opts.h"
#include "target.h"
#include "cgroups.h"
#include "perf_metrics.h"
#include "stat.h"

/* Parse a NULL-terminated list; argv copies live in a static buffer. */
static int parse(struct stat_config *cfg, ...)
{
	static char *argv[64];
	static char store[64][128];
	va_list ap;
	int argc = 0;
	const char *a;
	FILE *devnull = fopen("/dev/null", "w");
	int rc;

	*cfg = (struct stat_config)STAT_CONFIG_INIT;
	argv[argc++] = strcpy(store[0], "stat");
	va_start(ap, cfg);
	while ((a = va_arg(ap, const char *)) && argc < 63) {
		snprintf(store[argc], sizeof(store[argc]), "%s", a);
		argv[argc] = store[argc];
		argc++;
	}
	va_end(ap);
	argv[argc] = NULL;
	rc = stat_parse_args(cfg, argc, argv, devnull);
	fclose(devnull);
	return rc;
}

static void test_defaults_and_command(void **state)
{
	struct stat_config c;

	(void)state;
	assert_int_equal(parse(&c, "ls", "-l", NULL), 0);
	assert_int_equal(c.cmd_argc, 2);
	assert_string_equal(c.cmd_argv[0], "ls");
	assert_string_equal(c.cmd_argv[1], "-l");	/* not taken as an option */
	assert_int_equal(c.repeat, 1);
	assert_int_equal(c.format, STAT_FMT_HUMAN);
	assert_int_equal(c.aggr, STAT_AGGR_GLOBAL);
	assert_true(c.big_num);
	assert_int_equal(c.events.nr, 0);
	assert_int_equal(parse(&c, "-e", "task-clock", "--", "true", NULL), 0);
	assert_int_equal(c.cmd_argc, 1);
	assert_string_equal(c.cmd_argv[0], "true");
}

static void test_events_and_filters(void **state)
{
	struct stat_config c;

	(void)state;
	assert_int_equal(parse(&c, "-e", "a", "--event=b", "--filter", "x == 1",
			       "-e", "c", "true", NULL), 0);
	assert_int_equal(c.events.nr, 3);
	assert_string_equal(c.events.v[0].spec, "a");
	assert_null(c.events.v[0].filter);
	assert_string_equal(c.events.v[1].filter, "x == 1");
	assert_null(c.events.v[2].filter);
	/* a filter with no event before it */
	assert_int_equal(parse(&c, "--filter", "x", "true", NULL), 1);
}

static void test_formats(void **state)
{
	struct stat_config c;

	(void)state;
	assert_int_equal(parse(&c, "-x", ";", "true", NULL), 0);
	assert_int_equal(c.format, STAT_FMT_CSV);
	assert_string_equal(c.csv_sep, ";");
	assert_int_equal(parse(&c, "-j", "true", NULL), 0);
	assert_int_equal(c.format, STAT_FMT_JSON);
	assert_int_equal(parse(&c, "--stat-format=openmetrics", "true", NULL), 0);
	assert_int_equal(c.format, STAT_FMT_OPENMETRICS);
	assert_int_equal(parse(&c, "--stat-format", "csv", "true", NULL), 0);
	assert_string_equal(c.csv_sep, ",");
	assert_int_equal(parse(&c, "--stat-format=xml", "true", NULL), 1);
	assert_int_equal(parse(&c, "-x", "", "true", NULL), 1);
	assert_int_equal(parse(&c, "--no-big-num", "-o", "f", "--append", "true", NULL), 0);
	assert_false(c.big_num);
	assert_true(c.append);
	assert_string_equal(c.output, "f");
	assert_int_equal(parse(&c, "--append", "true", NULL), 1);
}

static void test_numbers(void **state)
{
	struct stat_config c;

	(void)state;
	assert_int_equal(parse(&c, "-r", "5", "-D", "20", "--timeout", "100", "true", NULL), 0);
	assert_int_equal(c.repeat, 5);
	assert_int_equal(c.delay_ms, 20);
	assert_int_equal(c.timeout_ms, 100);
	assert_int_equal(parse(&c, "-I", "100", "--interval-count", "3", "true", NULL), 0);
	assert_int_equal(c.interval_ms, 100);
	assert_int_equal(c.interval_count, 3);
	assert_int_equal(parse(&c, "-r", "0", "true", NULL), 0);	/* perf: forever */
	assert_int_equal(c.repeat, 0);
	assert_int_equal(parse(&c, "--compare", "-r", "0", "true", ":::", "false", NULL), 1);
	assert_int_equal(parse(&c, "-r", "5x", "true", NULL), 1);
	assert_int_equal(parse(&c, "-r", "99999999999999999999", "true", NULL), 1);
	/* perf 6.1 here: -I 1 prints every ms, -I 0 is no interval */
	assert_int_equal(parse(&c, "-I", "5", "true", NULL), 0);
	assert_int_equal(c.interval_ms, 5);
	assert_int_equal(parse(&c, "-I", "0", "true", NULL), 0);
	assert_int_equal(c.interval_ms, 0);
	assert_int_equal(parse(&c, "-I", "-1", "true", NULL), 1);
	/* perf 6.1: -D -1 starts disabled (till --control enables), below that is no delay */
	assert_int_equal(parse(&c, "-D", "-1", "true", NULL), 0);
	assert_int_equal(c.delay_ms, -1);
	assert_int_equal(parse(&c, "-D", "-2", "true", NULL), 1);
	assert_int_equal(parse(&c, "--timeout", "0", "true", NULL), 1);
	assert_int_equal(parse(&c, "-I", "100", "--summary", "--no-csv-summary", "true", NULL), 0);
	assert_true(c.summary);
	assert_true(c.no_csv_summary);
	assert_int_equal(parse(&c, "-I", "100", "--interval-clear", "true", NULL), 0);
	assert_true(c.interval_clear);
	assert_int_equal(parse(&c, "-r", "3", "--table", "true", NULL), 0);
	assert_true(c.table);
	assert_int_equal(parse(&c, "-ddd", "-S", "--json-output", "--all-user", "--log-fd", "3",
			       "true", NULL), 0);
	assert_int_equal(c.detailed, 3);
	assert_true(c.sync);
	assert_int_equal(c.format, STAT_FMT_JSON);
	assert_true(c.all_user);
	assert_int_equal(c.log_fd, 3);
	assert_int_equal(parse(&c, "-g", "--pre", "a", "--post", "b", "true", NULL), 0);
	assert_true(c.group);
	assert_string_equal(c.pre_cmd, "a");
	assert_string_equal(c.post_cmd, "b");
	assert_int_equal(parse(&c, "--all-user", "--all-kernel", "true", NULL), 1);
	assert_int_equal(parse(&c, "--log-fd", "0", "true", NULL), 1);	/* perf: > 0 */
	assert_int_equal(parse(&c, "--log-fd", "3", "-o", "x", "true", NULL), 1);
	assert_int_equal(parse(&c, "true", NULL), 0);
	assert_int_equal(c.log_fd, -1);
	/* perf 6.1 takes -I with -r: each run prints its intervals */
	assert_int_equal(parse(&c, "-r", "3", "-I", "100", "true", NULL), 0);
	assert_int_equal(c.repeat, 3);
	assert_int_equal(c.interval_ms, 100);
}

static void test_targets(void **state)
{
	struct stat_config c;

	(void)state;
	assert_int_equal(parse(&c, "-p", "12,13", NULL), 0);
	assert_string_equal(c.target.pids, "12,13");
	assert_int_equal(parse(&c, "-t", "12", "--per-thread", NULL), 0);
	assert_int_equal(c.aggr, STAT_AGGR_THREAD);
	assert_int_equal(parse(&c, "-a", "-A", NULL), 0);
	assert_int_equal(c.aggr, STAT_AGGR_CPU);
	assert_int_equal(parse(&c, "-C", "0-1", "--per-core", NULL), 0);
	assert_int_equal(c.aggr, STAT_AGGR_CORE);
	assert_int_equal(parse(&c, "-a", "--per-socket", "--per-node", NULL), 0);
	assert_int_equal(c.aggr, STAT_AGGR_NODE);	/* the last one wins */
	assert_int_equal(parse(&c, "-a", "-G", "/x", "-i", NULL), 0);
	assert_string_equal(c.target.cgroup, "/x");
	assert_true(c.target.no_inherit);
	/* conflicts */
	assert_int_equal(parse(&c, NULL), 1);			/* nothing to count */
	/* as perf: with -p the command only sets how long to count */
	assert_int_equal(parse(&c, "-p", "1", "sleep", "1", NULL), 0);
	assert_string_equal(c.target.pids, "1");
	assert_int_equal(c.cmd_argc, 2);
	assert_int_equal(parse(&c, "-p", "1", "-t", "2", NULL), 1);
	assert_int_equal(parse(&c, "-G", "/x", "true", NULL), 1);
	/* -G: as perf, a cgroup for the events before it (one name: all of them) */
	assert_int_equal(parse(&c, "-a", "-e", "task-clock", "-G", "/x", NULL), 0);
	assert_false(c.target.cgroup_per_event);
	/* an -e after it has none: each event its own */
	assert_int_equal(parse(&c, "-a", "-e", "task-clock", "-G", "/x", "-e", "cycles", NULL), 0);
	assert_true(c.target.cgroup_per_event);
	assert_int_equal(c.cg.nr, 1);
	assert_int_equal(c.cg.v[0].after, 1);
	/* -G before any -e: not ambiguous (perf refuses it), every event */
	assert_int_equal(parse(&c, "-a", "-G", "/x", "-e", "task-clock", "-e", "cycles", NULL), 0);
	assert_false(c.target.cgroup_per_event);
	/* a list: one per event before it, in order */
	assert_int_equal(parse(&c, "-a", "-e", "task-clock,cycles", "-G", "/x,/y", NULL), 0);
	assert_true(c.target.cgroup_per_event);
	assert_string_equal(c.cg.v[0].names, "/x,/y");
	assert_int_equal(parse(&c, "-a", "-e", "a", "-G", "/x", "-e", "b", "-G", "/y", NULL), 0);
	assert_int_equal(c.cg.nr, 2);
	assert_int_equal(c.cg.v[1].after, 2);
	assert_int_equal(parse(&c, "-a", "-G", "/x,/y", "-e", "task-clock", NULL), 1);
	assert_int_equal(parse(&c, "-a", "-G", "/x", "-G", "/x", NULL), 1);
	assert_int_equal(parse(&c, "-a", "-e", "a", "-G", "/x", "--for-each-cgroup", "/y", NULL), 1);
	assert_int_equal(parse(&c, "-e", "a", "--for-each-cgroup", "/x,/y", "true", NULL), 1);	/* -a */
	assert_int_equal(parse(&c, "-a", "-e", "a", "--for-each-cgroup", "/x,/y", NULL), 0);
	assert_string_equal(c.for_each_cgroup, "/x,/y");
	assert_int_equal(parse(&c, "-a", "-G", "", NULL), 1);
	assert_int_equal(parse(&c, "--per-thread", "true", NULL), 1);
	/* -a --per-thread: every thread of the system, as perf 6.1 */
	assert_int_equal(parse(&c, "--per-thread", "-a", NULL), 0);
	assert_int_equal(c.aggr, STAT_AGGR_THREAD);
	assert_true(c.target.system_wide);
	assert_int_equal(parse(&c, "--per-thread", "-C", "0", NULL), 1);	/* perf refuses too */
	assert_int_equal(parse(&c, "--per-thread", "-a", "-G", "/x", NULL), 1);
	assert_int_equal(parse(&c, "-A", "true", NULL), 1);
	assert_int_equal(parse(&c, "--per-core", "-p", "1", NULL), 1);
	/* as perf: -r with -a/-p repeats the count (each until --timeout) */
	assert_int_equal(parse(&c, "-r", "2", "-a", "--timeout", "100", NULL), 0);
	assert_int_equal(c.repeat, 2);
	assert_int_equal(parse(&c, "-n", "-e", "x", "true", NULL), 1);
	assert_int_equal(parse(&c, "--bogus", "true", NULL), 1);
	assert_int_equal(parse(&c, "-e", NULL), 1);		/* missing value */
}

static void test_compare(void **state)
{
	struct stat_config c;

	(void)state;
	assert_int_equal(parse(&c, "--compare", "-r", "4", "--", "a", "1", ":::", "b", NULL), 0);
	assert_true(c.compare);
	assert_int_equal(c.repeat, 4);
	assert_int_equal(c.cmd_argc, 2);
	assert_string_equal(c.cmd_argv[0], "a");
	assert_null(c.cmd_argv[2]);	/* A's argv ends where ':::' was */
	assert_int_equal(c.cmd_b_argc, 1);
	assert_string_equal(c.cmd_b_argv[0], "b");
	assert_null(c.cmd_b_argv[1]);
	assert_int_equal(parse(&c, "--compare", "a", ":::", "b", NULL), 0);
	assert_int_equal(c.repeat, 5);	/* default runs */
	assert_int_equal(parse(&c, "--compare", "a", "b", NULL), 1);
	assert_int_equal(parse(&c, "--compare", "a", ":::", NULL), 1);
	assert_int_equal(parse(&c, "--compare", ":::", "b", NULL), 1);
	assert_int_equal(parse(&c, "--compare", "-a", "a", ":::", "b", NULL), 1);
}

static void test_help(void **state)
{
	struct stat_config c;

	(void)state;
	assert_int_equal(parse(&c, "--help", NULL), 0);
	assert_true(c.help);
	assert_int_equal(parse(&c, "-h", NULL), 0);
	assert_true(c.help);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_command),
		cmocka_unit_test(test_events_and_filters),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_help),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
