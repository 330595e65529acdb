// SPDX-License-Identifier: MIT
/*
 * tally stat's writers and metrics on synthetic rows. The expected lines
 * are perf 6.1's own output on this machine (captured from `perf stat`,
 * `-x,`, `-j`, `-A`, `--per-core`, `--per-node`, `-I`, `-r`), with the
 * numbers fed back in, so a layout drift from perf fails here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "stat.h"

struct cap {
	char *buf;
	size_t len;
	struct stat_out o;
};

static void cap_open(struct cap *c, enum stat_format f, enum stat_aggr a)
{
	memset(c, 0, sizeof(*c));
	c->o.fp = open_memstream(&c->buf, &c->len);
	assert_non_null(c->o.fp);
	c->o.format = f;
	c->o.aggr = a;
	c->o.sep = ",";
	c->o.big_num = false;
}

static char *cap_close(struct cap *c)
{
	fclose(c->o.fp);
	stat_out_release(&c->o);
	return c->buf;
}

static struct stat_row row(const char *ev, enum stat_kind k, double val, double run,
			   double mval, const char *munit)
{
	struct stat_row r = {
		.event = ev, .unit = k == STAT_K_CLOCK ? "msec" : "", .kind = k,
		.frac = k == STAT_K_CLOCK,
		.state = STAT_S_COUNTED, .val = val, .run = run, .ena = run,
		.socket = -1, .die = -1, .core = -1,
	};

	if (munit) {
		r.has_metric = true;
		r.metric = mval;
		r.metric_fmt = STAT_MF_8_3F;
		snprintf(r.metric_unit, sizeof(r.metric_unit), "%s", munit);
	}
	return r;
}

static struct stat_row unsup(const char *ev, enum stat_state s, const char *unit)
{
	struct stat_row r = { .event = ev, .unit = unit, .state = s,
			      .socket = -1, .die = -1, .core = -1 };
	return r;
}

static void expect(struct cap *c, const char *want)
{
	char *got = cap_close(c);

	if (strcmp(got, want)) {
		print_message("got:  '%s'\nwant: '%s'\n", got, want);
		free(got);
		fail();
	}
	free(got);
}

static void test_human_rows(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	r = row("task-clock", STAT_K_CLOCK, 660000, 660000, 0.704, "CPUs utilized");
	stat_out_row(&c.o, &r);
	r = row("page-faults", STAT_K_OTHER, 49, 660000, 73.798, "K/sec");
	stat_out_row(&c.o, &r);
	r = unsup("cycles", STAT_S_NOT_SUPPORTED, "");
	stat_out_row(&c.o, &r);
	r = row("syscalls:sys_enter_getpid", STAT_K_OTHER, 0, 1, 0, NULL);
	stat_out_row(&c.o, &r);
	expect(&c,
"              0.66 msec task-clock                       #    0.704 CPUs utilized          \n"
"                49      page-faults                      #   73.798 K/sec                  \n"
"   <not supported>      cycles                                                      \n"
"                 0      syscalls:sys_enter_getpid                                          \n");
}

static void test_human_noise_and_multiplex(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	r = row("task-clock", STAT_K_CLOCK, 3340000, 3340000, 3.377, "CPUs utilized");
	r.has_noise = true;
	r.noise_pct = 24.46;
	stat_out_row(&c.o, &r);
	r = row("syscalls:sys_enter_getpid", STAT_K_OTHER, 1000, 1, 585.474, "K/sec");
	r.has_noise = true;	/* zero noise prints nothing, as perf */
	stat_out_row(&c.o, &r);
	r = row("branches", STAT_K_OTHER, 1000, 500, 0, NULL);
	r.ena = 2000;
	r.state = STAT_S_SCALED;
	stat_out_row(&c.o, &r);
	expect(&c,
"              3.34 msec task-clock                       #    3.377 CPUs utilized            ( +- 24.46% )\n"
"              1000      syscalls:sys_enter_getpid        #  585.474 K/sec                  \n"
"              1000      branches                                                             (25.00%)\n");
}

static void test_human_aggr_prefixes(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_CPU);
	r = row("cpu-clock", STAT_K_CLOCK, 101640000, 1, 1.0, "CPUs utilized");
	r.key = 0;
	stat_out_row(&c.o, &r);
	expect(&c, "CPU0                   101.64 msec cpu-clock                        #    1.000 CPUs utilized          \n");

	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_CORE);
	r = row("cpu-clock", STAT_K_CLOCK, 101440000, 1, 1.0, "CPUs utilized");
	r.socket = 0, r.die = 0, r.core = 0, r.nr = 1;
	stat_out_row(&c.o, &r);
	expect(&c, "S0-D0-C0           1             101.44 msec cpu-clock                        #    1.000 CPUs utilized          \n");

	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_THREAD);
	r = unsup("syscalls:sys_enter_getpid", STAT_S_NOT_COUNTED, "");
	r.key = 4703;
	r.comm = "work";
	stat_out_row(&c.o, &r);
	expect(&c, "            work-4703          <not counted>      syscalls:sys_enter_getpid                                   \n");
}

static void test_human_interval(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	c.o.interval = true;
	c.o.ts_ns = 200683060;
	stat_out_interval_header(&c.o);
	r = unsup("task-clock", STAT_S_NOT_COUNTED, "msec");
	stat_out_row(&c.o, &r);
	stat_out_interval_header(&c.o);	/* once per 25 intervals */
	expect(&c,
"#           time             counts unit events\n"
"     0.200683060      <not counted> msec task-clock                                                  \n");
}

static void test_csv(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_GLOBAL);
	r = row("task-clock", STAT_K_CLOCK, 730000, 726953, 0.673, "CPUs utilized");
	stat_out_row(&c.o, &r);
	r = unsup("cycles", STAT_S_NOT_SUPPORTED, "");
	stat_out_row(&c.o, &r);
	r = row("task-clock", STAT_K_CLOCK, 760000, 759199, 0.068, "CPUs utilized");
	r.has_noise = true;
	r.noise_pct = 1.14;
	stat_out_row(&c.o, &r);
	r = unsup("cycles", STAT_S_NOT_SUPPORTED, "");
	r.has_noise = true;
	stat_out_row(&c.o, &r);
	r = row("syscalls:sys_enter_getpid", STAT_K_OTHER, 0, 891917, 0, NULL);
	stat_out_row(&c.o, &r);
	expect(&c,
"0.73,msec,task-clock,726953,100.00,0.673,CPUs utilized\n"
"<not supported>,,cycles,0,100.00,,\n"
"0.76,msec,task-clock,1.14%,759199,100.00,0.068,CPUs utilized\n"
"<not supported>,,cycles,0.00%,0,100.00,,\n"
"0,,syscalls:sys_enter_getpid,891917,100.00,,\n");
}

/*
 * A PMU's fractional scale (RAPL: 2.3283064365386962890625e-10 Joules)
 * prints two decimals, as perf's abs_printout: seen as "0 Joules" where
 * 0.49 was counted, on a machine whose only extra PMU was power/.
 */
static void test_fractional_scale(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	r = row("power/energy-psys/", STAT_K_OTHER, 0.49, 200000, 0, NULL);
	r.unit = "Joules";
	r.frac = true;
	stat_out_row(&c.o, &r);
	r = row("msr/tsc/", STAT_K_OTHER, 1234.0, 200000, 0, NULL);
	stat_out_row(&c.o, &r);
	expect(&c,
"              0.49 Joules power/energy-psys/                                                 \n"
"              1234      msr/tsc/                                                           \n");
	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_GLOBAL);
	r = row("power/energy-psys/", STAT_K_OTHER, 12.345, 200000, 0, NULL);
	r.unit = "Joules";
	r.frac = true;
	stat_out_row(&c.o, &r);
	expect(&c, "12.35,Joules,power/energy-psys/,200000,100.00,,\n");
}

/* --summary after -I: perf's "%16s" summary column in CSV, only there. */
static void test_csv_summary(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_GLOBAL);
	c.o.csv_summary = true;
	r = row("task-clock", STAT_K_CLOCK, 904267, 904267, 0.006, "CPUs utilized");
	stat_out_row(&c.o, &r);
	r = row("syscalls:sys_enter_getpid", STAT_K_OTHER, 7, 904267, 7.741, "K/sec");
	stat_out_row(&c.o, &r);
	expect(&c,
"         summary,0.90,msec,task-clock,904267,100.00,0.006,CPUs utilized\n"
"         summary,7,,syscalls:sys_enter_getpid,904267,100.00,7.741,K/sec\n");
	/* not in human or JSON output */
	cap_open(&c, STAT_FMT_JSON, STAT_AGGR_GLOBAL);
	c.o.csv_summary = true;
	r = row("syscalls:sys_enter_getpid", STAT_K_OTHER, 7, 904267, 7.741, "K/sec");
	stat_out_row(&c.o, &r);
	assert_non_null(cap_close(&c));
	assert_int_equal(c.buf[0], '{');
	free(c.buf);
}

/* -G: perf's cgroup column after the event, in every format (perf 6.1). */
static void test_cgroup_column(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	c.o.cgroup = "/";
	r = row("task-clock", STAT_K_CLOCK, 100400000, 100400000, 1.998, "CPUs utilized");
	stat_out_row(&c.o, &r);
	c.o.cgroup = "svtest";
	r = unsup("context-switches", STAT_S_NOT_COUNTED, "");
	stat_out_row(&c.o, &r);
	expect(&c,
"            100.40 msec task-clock                       / #    1.998 CPUs utilized          \n"
"     <not counted>      context-switches          svtest                                   \n");

	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_GLOBAL);
	c.o.cgroup = "/";
	r = row("task-clock", STAT_K_CLOCK, 102590000, 103324442, 2.019, "CPUs utilized");
	r.has_noise = true;
	r.noise_pct = 1.04;
	stat_out_row(&c.o, &r);
	expect(&c, "102.59,msec,task-clock,/,1.04%,103324442,100.00,2.019,CPUs utilized\n");

	cap_open(&c, STAT_FMT_JSON, STAT_AGGR_GLOBAL);
	c.o.cgroup = "/";
	r = row("task-clock", STAT_K_CLOCK, 100886704, 103175274, 1.963379, "CPUs utilized");
	r.has_noise = true;
	r.noise_pct = 1.05;
	stat_out_row(&c.o, &r);
	expect(&c,
"{\"counter-value\" : \"100.886704\", \"unit\" : \"msec\", \"event\" : \"task-clock\", "
"\"cgroup\" : \"/\", \"variance\" : 1.05, \"event-runtime\" : 103175274, "
"\"pcnt-running\" : 100.00, \"metric-value\" : 1.963379, \"metric-unit\" : \"CPUs utilized\"}\n");
}

static void test_csv_aggr_interval_pct(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_CPU);
	r = row("cpu-clock", STAT_K_CLOCK, 101510000, 101509027, 1.0, "CPUs utilized");
	stat_out_row(&c.o, &r);
	expect(&c, "CPU0,101.51,msec,cpu-clock,101509027,100.00,1.000,CPUs utilized\n");

	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_SOCKET);
	r = row("cpu-clock", STAT_K_CLOCK, 203470000, 203471593, 2.0, "CPUs utilized");
	r.socket = 0, r.nr = 2;
	stat_out_row(&c.o, &r);
	expect(&c, "S0,2,203.47,msec,cpu-clock,203471593,100.00,2.000,CPUs utilized\n");

	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_GLOBAL);
	c.o.interval = true;
	c.o.ts_ns = 100281877;
	r = row("task-clock", STAT_K_CLOCK, 790000, 794243, 0.008, "CPUs utilized");
	stat_out_row(&c.o, &r);
	/* multiplexed: perf's integer percentage */
	c.o.interval = false;
	r = row("branches", STAT_K_OTHER, 10, 1000, 0, NULL);
	r.ena = 3000;
	r.state = STAT_S_SCALED;
	stat_out_row(&c.o, &r);
	/* other separators and a percentage metric without its '%' */
	c.o.sep = ";";
	r = row("branch-misses", STAT_K_BRANCH_MISSES, 10, 5, 1.5, "of all branches");
	r.metric_fmt = STAT_MF_PCT;
	stat_out_row(&c.o, &r);
	expect(&c,
"     0.100281877,0.79,msec,task-clock,794243,100.00,0.008,CPUs utilized\n"
"10,,branches,1000,33.00,,\n"
"10;;branch-misses;5;100.00;1.50;of all branches\n");
}

static void test_json(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_JSON, STAT_AGGR_GLOBAL);
	r = row("task-clock", STAT_K_CLOCK, 683865, 683865, 0.661635, "CPUs utilized");
	stat_out_row(&c.o, &r);
	r = unsup("cycles", STAT_S_NOT_SUPPORTED, "");
	stat_out_row(&c.o, &r);
	r = row("task-clock", STAT_K_CLOCK, 653535, 653535, 0.059879, "CPUs utilized");
	r.has_noise = true;
	r.noise_pct = 1.29;
	stat_out_row(&c.o, &r);
	r = row("ev\"il\\", STAT_K_OTHER, 5, 1, 0, NULL);
	stat_out_row(&c.o, &r);
	expect(&c,
"{\"counter-value\" : \"0.683865\", \"unit\" : \"msec\", \"event\" : \"task-clock\", \"event-runtime\" : 683865, \"pcnt-running\" : 100.00, \"metric-value\" : 0.661635, \"metric-unit\" : \"CPUs utilized\"}\n"
"{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"cycles\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n"
"{\"counter-value\" : \"0.653535\", \"unit\" : \"msec\", \"event\" : \"task-clock\", \"variance\" : 1.29, \"event-runtime\" : 653535, \"pcnt-running\" : 100.00, \"metric-value\" : 0.059879, \"metric-unit\" : \"CPUs utilized\"}\n"
"{\"counter-value\" : \"5.000000\", \"unit\" : \"\", \"event\" : \"ev\\\"il\\\\\", \"event-runtime\" : 1, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n");
}

static void test_json_aggr_interval(void **state)
{
	struct cap c;
	struct stat_row r;

	(void)state;
	cap_open(&c, STAT_FMT_JSON, STAT_AGGR_NODE);
	r = row("cpu-clock", STAT_K_CLOCK, 203679146, 203680717, 2.000196, "CPUs utilized");
	r.key = 0, r.nr = 2;
	stat_out_row(&c.o, &r);
	expect(&c, "{\"node\" : \"N0\", \"aggregate-number\" : 2, \"counter-value\" : \"203.679146\", \"unit\" : \"msec\", \"event\" : \"cpu-clock\", \"event-runtime\" : 203680717, \"pcnt-running\" : 100.00, \"metric-value\" : 2.000196, \"metric-unit\" : \"CPUs utilized\"}\n");

	cap_open(&c, STAT_FMT_JSON, STAT_AGGR_CPU);
	c.o.interval = true;
	c.o.ts_ns = 100208441;
	r = row("task-clock", STAT_K_CLOCK, 637934, 637934, 0.006379, "CPUs utilized");
	r.key = 1;
	stat_out_row(&c.o, &r);
	expect(&c, "{\"interval\" : 0.100208441, \"cpu\" : \"1\", \"counter-value\" : \"0.637934\", \"unit\" : \"msec\", \"event\" : \"task-clock\", \"event-runtime\" : 637934, \"pcnt-running\" : 100.00, \"metric-value\" : 0.006379, \"metric-unit\" : \"CPUs utilized\"}\n");
}

static void test_header_footer(void **state)
{
	struct cap c;
	struct stat_footer f = { .runs = 1, .elapsed_s = 0.001991674, .show_rusage = true,
				 .user_s = 0.001484, .sys_s = 0 };

	(void)state;
	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	stat_out_header(&c.o, "'true'", 1);
	stat_out_footer(&c.o, &f);
	expect(&c,
"\n Performance counter stats for 'true':\n\n"
"\n       0.001991674 seconds time elapsed\n\n"
"       0.001484000 seconds user\n"
"       0.000000000 seconds sys\n\n\n");

	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	f = (struct stat_footer){ .runs = 3, .elapsed_s = 0.001, .elapsed_sd = 0.00025 };
	stat_out_header(&c.o, "'system wide'", 3);
	stat_out_footer(&c.o, &f);
	expect(&c,
"\n Performance counter stats for 'system wide' (3 runs):\n\n"
"\n          0.001000 +- 0.000250 seconds time elapsed  ( +- 25.00% )\n\n");

	/* machine formats have neither */
	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_GLOBAL);
	stat_out_header(&c.o, "'true'", 1);
	stat_out_footer(&c.o, &f);
	expect(&c, "");
}

/*
 * --table: perf 6.1's print_table() (captured: perf stat -r 3 --table),
 * the bar one '#' plus one per 5% of deviation from the mean.
 */
static void test_footer_table(void **state)
{
	struct cap c;
	const double runs[] = { 0.021630, 0.021097, 0.021130 };
	const double wide[] = { 0.010, 0.020, 0.030 };
	struct stat_footer f = { .runs = 3, .elapsed_s = 0.021286, .elapsed_sd = 0.000172,
				 .table = runs, .ntable = 3 };

	(void)state;
	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	stat_out_footer(&c.o, &f);
	expect(&c,
"\n          # Table of individual measurements:\n"
"          0.021630 (+0.000344) #\n"
"          0.021097 (-0.000189) #\n"
"          0.021130 (-0.000156) #\n"
"\n          # Final result:\n"
"          0.021286 +- 0.000172 seconds time elapsed  ( +-  0.81% )\n\n");

	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	f = (struct stat_footer){ .runs = 3, .elapsed_s = 0.02, .elapsed_sd = 0.005774,
				  .table = wide, .ntable = 3 };
	stat_out_footer(&c.o, &f);
	expect(&c,
"\n           # Table of individual measurements:\n"
"           0.01000 (-0.01000) #####################\n"
"           0.02000 (+0.00000) #\n"
"           0.03000 (+0.01000) #######\n"
"\n           # Final result:\n"
"           0.02000 +- 0.00577 seconds time elapsed  ( +- 28.87% )\n\n");
}

static void test_openmetrics(void **state)
{
	struct cap c;
	struct stat_row r;
	struct stat_footer f = { .runs = 1, .elapsed_s = 0.5 };
	char *out;

	(void)state;
	cap_open(&c, STAT_FMT_OPENMETRICS, STAT_AGGR_CPU);
	stat_out_om_begin(&c.o);
	r = row("cpu-clock", STAT_K_CLOCK, 1500000, 1, 0.25, "CPUs utilized");
	r.key = 1;
	stat_out_row(&c.o, &r);
	r = unsup("cy\"cles", STAT_S_NOT_SUPPORTED, "");
	r.key = 1;
	stat_out_row(&c.o, &r);
	stat_out_om_end(&c.o, &f);
	out = cap_close(&c);
	assert_non_null(strstr(out, "# TYPE tally_event_value gauge\n"));
	assert_non_null(strstr(out, "tally_event_value{event=\"cpu-clock\",cpu=\"1\",unit=\"msec\"} 1.5\n"));
	assert_null(strstr(out, "tally_event_value{event=\"cy"));
	assert_non_null(strstr(out, "tally_event_counted{event=\"cy\\\"cles\",cpu=\"1\"} 0\n"));
	assert_non_null(strstr(out, "tally_event_metric{event=\"cpu-clock\",cpu=\"1\",metric=\"CPUs utilized\"} 0.25\n"));
	assert_non_null(strstr(out, "tally_elapsed_seconds 0.500000000\n"));
	/* one exposition: ends with # EOF, each family's samples together */
	assert_true(strlen(out) > 6 && !strcmp(out + strlen(out) - 6, "# EOF\n"));
	assert_true(strstr(out, "tally_event_counted{") > strstr(out, "tally_event_value{"));
	free(out);
}

static struct stat_row mrow(const char *ev, enum stat_kind k, double val)
{
	return row(ev, k, val, 1, 0, NULL);
}

/*
 * OpenMetrics: a rate keeps one metric label, "/sec", with the value in
 * /sec, however large it grows (perf's K/sec, M/sec... would make each
 * interval a new series); the human layout keeps perf's prefixes.
 */
static void test_openmetrics_rate_unit(void **state)
{
	static const double counts[] = { 500, 50000, 5e7, 5e10 };
	struct cap c;
	struct stat_row r[2];
	char *out, want[128];

	(void)state;
	cap_open(&c, STAT_FMT_OPENMETRICS, STAT_AGGR_GLOBAL);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		r[0] = mrow("page-faults", STAT_K_OTHER, counts[i]);
		r[1] = mrow("task-clock", STAT_K_CLOCK, 1e9);
		stat_metrics_compute(r, 2, 1e9);
		c.o.interval = true;
		stat_out_om_begin(&c.o);
		stat_out_row(&c.o, &r[0]);
		stat_out_row(&c.o, &r[1]);
		stat_out_om_end(&c.o, NULL);
	}
	out = cap_close(&c);
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		snprintf(want, sizeof(want),
			 "tally_event_metric{event=\"page-faults\",metric=\"/sec\"} %.15g\n", counts[i]);
		assert_non_null(strstr(out, want));
	}
	assert_null(strstr(out, "K/sec"));
	assert_null(strstr(out, "M/sec"));
	assert_null(strstr(out, "G/sec"));
	free(out);
	/* the human layout still scales as perf */
	assert_string_equal(r[0].metric_unit, "G/sec");
}

static void test_metrics(void **state)
{
	struct stat_row r[8];

	(void)state;
	r[0] = mrow("task-clock", STAT_K_CLOCK, 1e9);
	r[1] = mrow("page-faults", STAT_K_OTHER, 50000);
	r[2] = mrow("cycles", STAT_K_CYCLES, 3e9);
	r[3] = mrow("instructions", STAT_K_INSTRUCTIONS, 6e9);
	r[4] = mrow("branches", STAT_K_BRANCHES, 2e6);
	r[5] = mrow("branch-misses", STAT_K_BRANCH_MISSES, 2e4);
	r[6] = mrow("msr/tsc/", STAT_K_OTHER, 2.6e9);
	r[7] = unsup("cache-misses", STAT_S_NOT_SUPPORTED, "");
	r[7].kind = STAT_K_CACHE_MISSES;
	stat_metrics_compute(r, 8, 0.5e9);
	assert_true(r[0].has_metric && fabs(r[0].metric - 2.0) < 1e-12);
	assert_string_equal(r[0].metric_unit, "CPUs utilized");
	assert_true(fabs(r[1].metric - 50.0) < 1e-9);
	assert_string_equal(r[1].metric_unit, "K/sec");
	assert_true(fabs(r[2].metric - 3.0) < 1e-12);
	assert_string_equal(r[2].metric_unit, "GHz");
	assert_true(fabs(r[3].metric - 2.0) < 1e-12);
	assert_string_equal(r[3].metric_unit, "insn per cycle");
	assert_int_equal(r[3].metric_fmt, STAT_MF_7_2F);
	assert_true(fabs(r[4].metric - 2.0) < 1e-9);
	assert_string_equal(r[4].metric_unit, "M/sec");
	assert_true(fabs(r[5].metric - 1.0) < 1e-9);
	assert_string_equal(r[5].metric_unit, "of all branches");
	assert_int_equal(r[5].metric_fmt, STAT_MF_PCT);
	assert_true(fabs(r[6].metric - 2.6) < 1e-9);
	assert_string_equal(r[6].metric_unit, "G/sec");
	assert_false(r[7].has_metric);
}

/*
 * --metric-only on synthetic hardware counts (no PMU here): rates and
 * CPUs utilized are left out as perf leaves them out; a share is named
 * after its event; an uncounted row keeps its column, blank.
 */
static void test_metric_only(void **state)
{
	struct stat_row r[6];
	struct cap c;

	(void)state;
	r[0] = mrow("task-clock", STAT_K_CLOCK, 1e9);
	r[1] = mrow("cycles", STAT_K_CYCLES, 3e9);
	r[2] = mrow("instructions", STAT_K_INSTRUCTIONS, 6e9);
	r[3] = mrow("branches", STAT_K_BRANCHES, 2e6);
	r[4] = mrow("branch-misses", STAT_K_BRANCH_MISSES, 2e4);
	r[5] = unsup("cache-misses", STAT_S_NOT_COUNTED, "");
	r[5].kind = STAT_K_CACHE_MISSES;
	stat_metrics_compute(r, 6, 0.5e9);

	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_GLOBAL);
	c.o.metric_only = true;
	c.o.mo_header = true;
	stat_out_metric_line(&c.o, r, 6);
	expect(&c,
"                 GHz       insn per cycle  branch-misses of all branches  cache-misses of all cache refs \n"
"               3.000                2.00                           1.00%                                 \n");

	cap_open(&c, STAT_FMT_HUMAN, STAT_AGGR_CPU);
	c.o.metric_only = true;
	c.o.mo_header = true;
	r[1].key = r[2].key = 3;
	r[0].key = 3;
	stat_out_metric_line(&c.o, r, 3);
	stat_out_metric_line(&c.o, r, 3);	/* the header once */
	expect(&c,
"                            GHz       insn per cycle \n"
"CPU3                      3.000                2.00  \n"
"CPU3                      3.000                2.00  \n");

	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_SOCKET);
	c.o.metric_only = true;
	c.o.mo_header = true;
	r[0].socket = 0;
	r[0].nr = 2;
	stat_out_metric_line(&c.o, r, 6);
	expect(&c, "socket,cpus,GHz,insn per cycle,branch-misses of all branches,"
		   "cache-misses of all cache refs,\n"
		   "S0,2,3.000,2.00,1.00,,\n");

	cap_open(&c, STAT_FMT_JSON, STAT_AGGR_GLOBAL);
	c.o.metric_only = true;
	c.o.mo_header = true;
	stat_out_metric_line(&c.o, r, 6);
	expect(&c, "{\"GHz\" : \"3.000\", \"insn per cycle\" : \"2.00\", "
		   "\"branch-misses of all branches\" : \"1.00\", "
		   "\"cache-misses of all cache refs\" : \"\"}\n");

	/* a software-only run has no metric column: empty lines, as perf */
	cap_open(&c, STAT_FMT_CSV, STAT_AGGR_GLOBAL);
	c.o.metric_only = true;
	c.o.mo_header = true;
	stat_out_metric_line(&c.o, r, 1);
	expect(&c, "\n\n");
}

static void test_metrics_missing_parents(void **state)
{
	struct stat_row r[4];

	(void)state;
	/* no clock: no rates; no cycles: no IPC (and no rate, as perf) */
	r[0] = mrow("page-faults", STAT_K_OTHER, 50);
	r[1] = mrow("instructions", STAT_K_INSTRUCTIONS, 6e9);
	r[2] = mrow("task-clock", STAT_K_CLOCK, 1e6);
	r[2].state = STAT_S_NOT_COUNTED;
	r[3] = mrow("branch-misses", STAT_K_BRANCH_MISSES, 7);
	stat_metrics_compute(r, 4, 1e9);
	for (int i = 0; i < 4; i++)
		assert_false(r[i].has_metric);
	/* a small rate stays in /sec */
	r[0] = mrow("context-switches", STAT_K_OTHER, 0);
	r[1] = mrow("cpu-clock", STAT_K_CLOCK, 1e9);
	stat_metrics_compute(r, 2, 1e9);
	assert_string_equal(r[0].metric_unit, "/sec");
	assert_true(r[0].metric == 0);
}

/*
 * --for-each-cgroup a,b / -G a,b: a rate divides by the clock of its own
 * cgroup (perf keys its shadow counts by cgroup); where that cgroup's
 * clock is not counted there is no rate, as perf 6.1 prints none.
 */
static void test_metrics_per_cgroup(void **state)
{
	struct stat_row r[6];

	(void)state;
	r[0] = mrow("context-switches", STAT_K_OTHER, 100);
	r[0].cgroup = "grp1";
	r[1] = mrow("task-clock", STAT_K_CLOCK, 1e9);
	r[1].cgroup = "grp1";
	r[2] = mrow("context-switches", STAT_K_OTHER, 300);
	r[2].cgroup = "grp2";
	r[3] = mrow("task-clock", STAT_K_CLOCK, 2e9);
	r[3].cgroup = "grp2";
	r[4] = mrow("page-faults", STAT_K_OTHER, 10);
	r[4].cgroup = "grp3";		/* no clock counted in grp3 */
	r[5] = mrow("page-faults", STAT_K_OTHER, 10);	/* no cgroup, no clock */
	stat_metrics_compute(r, 6, 1e9);
	assert_true(r[0].has_metric && fabs(r[0].metric - 100.0) < 1e-9);
	assert_string_equal(r[0].metric_unit, "/sec");
	assert_true(r[2].has_metric && fabs(r[2].metric - 150.0) < 1e-9);
	assert_string_equal(r[2].metric_unit, "/sec");
	assert_false(r[4].has_metric);
	assert_false(r[5].has_metric);
	/* -G a,,b: the clock without a cgroup gives no rate to a's event */
	r[1].cgroup = NULL;
	stat_metrics_compute(r, 2, 1e9);
	assert_false(r[0].has_metric);
	assert_true(r[1].has_metric);
}

static void test_aggr_label_and_escape(void **state)
{
	struct stat_row r = { .key = 7, .socket = 1, .die = 0, .core = 3, .comm = "a" };
	char buf[64];

	(void)state;
	stat_aggr_label(STAT_AGGR_CPU, &r, buf, sizeof(buf));
	assert_string_equal(buf, "CPU7");
	stat_aggr_label(STAT_AGGR_CORE, &r, buf, sizeof(buf));
	assert_string_equal(buf, "S1-D0-C3");
	stat_aggr_label(STAT_AGGR_THREAD, &r, buf, sizeof(buf));
	assert_string_equal(buf, "a-7");
	stat_json_escape("a\"b\\c\n", buf, sizeof(buf));
	assert_string_equal(buf, "a\\\"b\\\\c\\u000a");
	/* truncation never overflows */
	stat_json_escape("\"\"\"\"\"\"\"\"", buf, 8);
	assert_true(strlen(buf) < 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_human_rows),
		cmocka_unit_test(test_human_noise_and_multiplex),
		cmocka_unit_test(test_human_aggr_prefixes),
		cmocka_unit_test(test_human_interval),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_csv_summary),
		cmocka_unit_test(test_fractional_scale),
		cmocka_unit_test(test_cgroup_column),
		cmocka_unit_test(test_csv_aggr_interval_pct),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_json_aggr_interval),
		cmocka_unit_test(test_header_footer),
		cmocka_unit_test(test_footer_table),
		cmocka_unit_test(test_openmetrics),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_openmetrics_rate_unit),
		cmocka_unit_test(test_metrics_missing_parents),
		cmocka_unit_test(test_metrics_per_cgroup),
		cmocka_unit_test(test_metric_only),
		cmocka_unit_test(test_aggr_label_and_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
