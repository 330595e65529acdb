// SPDX-License-Identifier: MIT
/*
 * arm64 self-monitoring's user access (lib/count/selfmon.c): the config1
 * bits (bit 1 "rdpmc", bit 0 "long") an event gets, and which events get
 * them: the generic hardware types and, on big.LITTLE, an event opened by
 * a core PMU's own type (fake sysfs trees). Pure: runs on any host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>

bool tally__selfmon_user_bits(struct perf_event_attr *attr, const char *sysfs);

#define LONG	(1ull << 0)
#define RDPMC	(1ull << 1)
#define BIGLITTLE "tests/data/sysfs-biglittle"

static void test_generic_types(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .config = 0 };

	(void)state;
	assert_true(tally__selfmon_user_bits(&a, BIGLITTLE));
	assert_int_equal(a.config1, LONG | RDPMC);
	a = (struct perf_event_attr){ .type = PERF_TYPE_RAW, .config = 0x11, .config1 = LONG };
	assert_false(tally__selfmon_user_bits(&a, BIGLITTLE));	/* 64 bits asked already */
	assert_int_equal(a.config1, LONG | RDPMC);
	/* rdpmc asked alone: the caller chose a 32-bit counter, kept */
	a = (struct perf_event_attr){ .type = PERF_TYPE_HW_CACHE, .config1 = RDPMC | 0x100 };
	assert_false(tally__selfmon_user_bits(&a, BIGLITTLE));
	assert_int_equal(a.config1, RDPMC | 0x100);
}

static void test_pmu_types(void **state)
{
	struct perf_event_attr a = { .type = 9, .config = 0x11 };	/* armv8_pmuv3_1 */

	(void)state;
	assert_true(tally__selfmon_user_bits(&a, BIGLITTLE));
	assert_int_equal(a.config1, LONG | RDPMC);
	a = (struct perf_event_attr){ .type = 8, .config = 0x11 };
	assert_true(tally__selfmon_user_bits(&a, BIGLITTLE));
	/* not a core PMU (no such type here, or an uncore one): untouched */
	a = (struct perf_event_attr){ .type = 42, .config = 0x11 };
	assert_false(tally__selfmon_user_bits(&a, BIGLITTLE));
	assert_int_equal(a.config1, 0);
	/* no counter register behind these */
	a = (struct perf_event_attr){ .type = PERF_TYPE_SOFTWARE };
	assert_false(tally__selfmon_user_bits(&a, BIGLITTLE));
	a = (struct perf_event_attr){ .type = PERF_TYPE_TRACEPOINT, .config = 1 };
	assert_false(tally__selfmon_user_bits(&a, BIGLITTLE));
	assert_int_equal(a.config1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic_types),
		cmocka_unit_test(test_pmu_types),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
