// SPDX-License-Identifier: MIT
/*
 * tally_strerror's advice for an event's open (attr given), plain text for
 * any other error, and the RLIMIT_NOFILE raise.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/sys.h>
#include <tally/evsel.h>

static void test_paranoid(void **state)
{
	char buf[1024], par[32] = "", want[64];
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	struct perf_event_attr a;

	if (!f)
		skip();
	assert_non_null(fgets(par, sizeof(par), f));
	fclose(f);
	par[strcspn(par, "\n")] = '\0';
	snprintf(want, sizeof(want), "perf_event_paranoid is %s", par);
	tally_attr__init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	for (int e = 0; e < 2; e++) {
		int err = e ? -EPERM : -EACCES;

		tally_strerror(err, &a, "cpu-clock", buf, sizeof(buf));
		assert_non_null(strstr(buf, "/proc/sys/kernel/perf_event_paranoid"));
		assert_non_null(strstr(buf, want));
		assert_non_null(strstr(buf, "CAP_PERFMON"));
		assert_non_null(strstr(buf, "cpu-clock"));
	}
}

static void test_emfile(void **state)
{
	char buf[1024];
	struct perf_event_attr a;

	tally_attr__init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	assert_ptr_equal(tally_strerror(-EMFILE, &a, NULL, buf, sizeof(buf)), buf);
	assert_non_null(strstr(buf, "RLIMIT_NOFILE"));
	/* Positive errno is accepted too. */
	tally_strerror(EMFILE, &a, NULL, buf, sizeof(buf));
	assert_non_null(strstr(buf, "RLIMIT_NOFILE"));
	/* not an event's open: no word of events and fds per CPU */
	tally_strerror(-EMFILE, NULL, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "Too many open files (EMFILE)");
}

static void test_no_pmu(void **state)
{
	char buf[1024];
	struct perf_event_attr hw, tp;

	bool pmu = access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
		   access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0 ||
		   access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) == 0;

	tally_attr__init(&hw, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	tally_attr__init(&tp, PERF_TYPE_TRACEPOINT, 1);
	tally_strerror(-ENOENT, &hw, "cycles", buf, sizeof(buf));
	/* The advice follows the machine: no core PMU (this VM), or one. */
	if (pmu)
		assert_non_null(strstr(buf, "not supported by this CPU's PMU"));
	else
		assert_non_null(strstr(buf, "no hardware PMU"));
	assert_non_null(strstr(buf, "cycles"));
	tally_strerror(-EOPNOTSUPP, &hw, "cycles", buf, sizeof(buf));
	assert_non_null(strstr(buf, pmu ? "CPU's PMU" : "no hardware PMU"));
	/* A tracepoint that does not exist is not a PMU problem. */
	tally_strerror(-ENOENT, &tp, "foo:bar", buf, sizeof(buf));
	assert_null(strstr(buf, "hardware PMU"));
	assert_non_null(strstr(buf, "tally list"));
}

static void test_other_and_truncation(void **state)
{
	char buf[1024], small[8];
	struct perf_event_attr a;

	tally_attr__init(&a, PERF_TYPE_BREAKPOINT, 0);
	tally_strerror(-ESRCH, &a, NULL, buf, sizeof(buf));
	assert_non_null(strstr(buf, "ESRCH"));
	assert_non_null(strstr(buf, "task to count"));
	tally_strerror(-ENOSPC, &a, NULL, buf, sizeof(buf));
	assert_non_null(strstr(buf, "breakpoints"));
	tally_strerror(-ETXTBSY, &a, NULL, buf, sizeof(buf));
	assert_string_equal(buf, strerror(ETXTBSY));
	/* any other call's error: strerror's text and the errno's name, after the context */
	tally_strerror(-ENOSPC, NULL, "out.data", buf, sizeof(buf));
	assert_string_equal(buf, "out.data: No space left on device (ENOSPC)");
	tally_strerror(-ENOENT, NULL, NULL, buf, sizeof(buf));
	assert_string_equal(buf, "No such file or directory (ENOENT)");
	memset(small, 'x', sizeof(small));
	tally_strerror(-EMFILE, &a, NULL, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	memset(small, 'x', sizeof(small));
	tally_strerror(-EMFILE, NULL, NULL, small, sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_string_equal(tally_strerror(-EMFILE, NULL, NULL, NULL, 0), "");
}

/* The evsel's form: its attr and name, its own last open error with err 0. */
static void test_evsel_strerror(void **state)
{
	char buf[1024];
	struct perf_event_attr hw;
	struct tally_evsel *e;

	tally_attr__init(&hw, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	e = tally_evsel__new(&hw, "my-cycles");
	assert_non_null(e);
	assert_ptr_equal(tally_evsel__strerror(e, -EACCES, buf, sizeof(buf)), buf);
	assert_non_null(strstr(buf, "my-cycles: "));
	assert_non_null(strstr(buf, "perf_event_paranoid"));
	tally_evsel__strerror(e, -ENOENT, buf, sizeof(buf));
	assert_non_null(strstr(buf, "PMU"));
	tally_evsel__free(e);
	tally_evsel__strerror(NULL, 0, buf, sizeof(buf));
	assert_string_equal(buf, "Invalid argument (EINVAL)");
}

static void test_raise_nofile(void **state)
{
	struct rlimit orig, rl;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &orig), 0);
	if (orig.rlim_max < 64)
		skip();
	rl = orig;
	rl.rlim_cur = 32;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(tally_raise_nofile_limit(), 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_true(rl.rlim_cur == orig.rlim_max);
	/* Already at the hard limit: nothing to do, still success. */
	assert_int_equal(tally_raise_nofile_limit(), 0);
	setrlimit(RLIMIT_NOFILE, &orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paranoid),
		cmocka_unit_test(test_emfile),
		cmocka_unit_test(test_no_pmu),
		cmocka_unit_test(test_other_and_truncation),
		cmocka_unit_test(test_evsel_strerror),
		cmocka_unit_test(test_raise_nofile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
