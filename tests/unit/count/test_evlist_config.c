// SPDX-License-Identifier: MIT
/*
 * tally_evlist__config's PERIOD bit: a tracepoint sampled at every hit
 * carries it (one sample per hit, as perf's: without it the kernel
 * samples an event counting N per hit N times, sched_stat_runtime its
 * runtime in ns); a fixed period above 1 does not (with it the kernel
 * would sample every hit); a frequency does (the period varies).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/evlist.h>
#include <tally/evsel.h>

static uint64_t sample_type_of(uint32_t type, uint64_t config, uint64_t period, uint64_t freq)
{
	struct perf_event_attr a = { .type = type, .size = sizeof(a), .config = config };
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *e = tally_evsel__new(&a, "x");
	TALLY_OPTS(tally_config_opts, co, .sample = true, .period = period, .freq = freq);
	uint64_t st;

	assert_non_null(l);
	assert_non_null(e);
	tally_evlist__add(l, e);
	assert_int_equal(tally_evlist__config(l, &co), 0);
	st = tally_evsel__attr(tally_evlist__first(l))->sample_type;
	tally_evlist__free(l);
	return st;
}

static void test_tracepoint_every_hit(void **state)
{
	(void)state;
	/* the default for a tracepoint (every hit), and -c 1 */
	assert_true(sample_type_of(PERF_TYPE_TRACEPOINT, 1, 0, 0) & PERF_SAMPLE_PERIOD);
	assert_true(sample_type_of(PERF_TYPE_TRACEPOINT, 1, 1, 0) & PERF_SAMPLE_PERIOD);
	assert_true(sample_type_of(PERF_TYPE_TRACEPOINT, 1, 0, 0) & PERF_SAMPLE_RAW);
}

static void test_fixed_period(void **state)
{
	(void)state;
	assert_false(sample_type_of(PERF_TYPE_TRACEPOINT, 1, 100, 0) & PERF_SAMPLE_PERIOD);
	assert_false(sample_type_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 100000, 0) &
		     PERF_SAMPLE_PERIOD);
	assert_false(sample_type_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 0) &
		     PERF_SAMPLE_PERIOD);
}

static void test_freq(void **state)
{
	(void)state;
	assert_true(sample_type_of(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 99) &
		    PERF_SAMPLE_PERIOD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracepoint_every_hit),
		cmocka_unit_test(test_fixed_period),
		cmocka_unit_test(test_freq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
