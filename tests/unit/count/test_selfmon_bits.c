// SPDX-License-Identifier: MIT
/*
 * arm64 self-monitoring's user access (lib/count/selfmon.c): the config1
 * bits (bit 1 "rdpmc", bit 0 "long") an event gets, and which events get
 * them: the generic hardware types and, on big.LITTLE, an event opened by
 * a core PMU's own type (fake sysfs trees). Pure: runs on any host.
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>

bool tally__selfmon_user_bits(struct perf_event_attr *attr, const char *sysfs);
int tally__selfmon_pin_set(const struct perf_event_attr *attrs, size_t nr, const char *sysfs,
			   cpu_set_t *set);

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

/* The cores a self-monitoring thread is pinned to: its one core PMU's cpus file. */
static void test_pin_set(void **state)
{
	struct perf_event_attr a[3] = {
		{ .type = 9, .config = 0x11 },					/* armv8_pmuv3_1 */
		{ .type = PERF_TYPE_HARDWARE, .config = 9ull << 32 | 1 },	/* its instructions */
		{ .type = PERF_TYPE_SOFTWARE, .config = 1 },
	};
	cpu_set_t set;

	(void)state;
	assert_int_equal(tally__selfmon_pin_set(a, 3, BIGLITTLE, &set), 1);
	assert_int_equal(CPU_COUNT(&set), 4);
	for (int c = 0; c < 8; c++)
		assert_int_equal(!!CPU_ISSET(c, &set), c >= 4);	/* its cpus: 4-7 */
	/* the little cluster's, by the extended type cycles expands to */
	a[0] = (struct perf_event_attr){ .type = PERF_TYPE_HARDWARE, .config = 8ull << 32 };
	assert_int_equal(tally__selfmon_pin_set(a, 1, BIGLITTLE, &set), 1);
	assert_true(CPU_ISSET(0, &set) && CPU_ISSET(3, &set) && !CPU_ISSET(4, &set));
	/* both clusters: no one set of cores */
	assert_int_equal(tally__selfmon_pin_set(a, 2, BIGLITTLE, &set), -EXDEV);
	/* generic events name no PMU: nothing to pin */
	a[0] = (struct perf_event_attr){ .type = PERF_TYPE_HARDWARE, .config = 0 };
	assert_int_equal(tally__selfmon_pin_set(a, 1, BIGLITTLE, &set), 0);
	assert_int_equal(tally__selfmon_pin_set(&a[2], 1, BIGLITTLE, &set), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generic_types),
		cmocka_unit_test(test_pmu_types),
		cmocka_unit_test(test_pin_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
