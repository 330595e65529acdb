// SPDX-License-Identifier: MIT
/*
 * The attr field table against the compiler's layout of struct
 * perf_event_attr: every field and flag bit of the man page is set and
 * read by name and checked through the C member.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/sys.h>

#define BITS(X)								\
	X(disabled) X(inherit) X(pinned) X(exclusive) X(exclude_user)	\
	X(exclude_kernel) X(exclude_hv) X(exclude_idle) X(mmap) X(comm)	\
	X(freq) X(inherit_stat) X(enable_on_exec) X(task) X(watermark)	\
	X(mmap_data) X(sample_id_all) X(exclude_host) X(exclude_guest)	\
	X(exclude_callchain_kernel) X(exclude_callchain_user) X(mmap2)	\
	X(comm_exec) X(use_clockid) X(context_switch) X(write_backward)	\
	X(namespaces) X(ksymbol) X(bpf_event) X(aux_output) X(cgroup)	\
	X(text_poke) X(build_id) X(inherit_thread) X(remove_on_exec)	\
	X(sigtrap)

/* name, value that fits */
#define FIELDS(X)							\
	X(type, 0xfffffffeull) X(size, 136) X(config, 0x123456789abcdefull) \
	X(sample_period, 0xfedcba9876543210ull) X(sample_freq, 4000)	\
	X(sample_type, 0x3ffffull) X(read_format, 0x1f)			\
	X(wakeup_events, 77) X(wakeup_watermark, 4096) X(bp_type, 3)	\
	X(bp_addr, 0x7fff0000ull) X(kprobe_func, 0x1111ull)		\
	X(uprobe_path, 0x2222ull) X(config1, 0x3333ull) X(bp_len, 8)	\
	X(kprobe_addr, 0x4444ull) X(probe_offset, 0x5555ull)		\
	X(config2, 0x6666ull) X(branch_sample_type, 0x7777ull)		\
	X(sample_regs_user, 0xff00ff00ull) X(sample_stack_user, 8192)	\
	X(clockid, 7) X(sample_regs_intr, 0xabcdull) X(aux_watermark, 65536) \
	X(sample_max_stack, 127) X(aux_sample_size, 4096)		\
	X(sig_data, 0xdeadbeefcafeull)

static void test_bits(void **state)
{
	struct perf_event_attr a, zero;
	uint64_t v;

	memset(&zero, 0, sizeof(zero));
#define X(f)								\
	memset(&a, 0, sizeof(a));					\
	assert_int_equal(tally_attr__set(&a, #f, 1), 0);		\
	assert_int_equal(a.f, 1);					\
	a.f = 0;							\
	assert_memory_equal(&a, &zero, sizeof(a)); /* only that bit */	\
	a.f = 1;							\
	assert_int_equal(tally_attr__get(&a, #f, &v), 0);		\
	assert_int_equal(v, 1);						\
	assert_int_equal(tally_attr__set(&a, #f, 2), -ERANGE);		\
	assert_int_equal(tally_attr__set(&a, #f, 0), 0);		\
	assert_memory_equal(&a, &zero, sizeof(a));
	BITS(X)
#undef X
}

static void test_precise_ip(void **state)
{
	struct perf_event_attr a;
	uint64_t v;

	memset(&a, 0, sizeof(a));
	for (uint64_t p = 0; p < 4; p++) {
		assert_int_equal(tally_attr__set(&a, "precise_ip", p), 0);
		assert_int_equal(a.precise_ip, p);
		assert_int_equal(tally_attr__get(&a, "precise_ip", &v), 0);
		assert_int_equal(v, p);
	}
	assert_int_equal(tally_attr__set(&a, "precise_ip", 4), -ERANGE);
	assert_int_equal(a.precise_ip, 3);
	/* Neighbours untouched. */
	assert_int_equal(a.watermark, 0);
	assert_int_equal(a.mmap_data, 0);
}

static void test_fields(void **state)
{
	struct perf_event_attr a;
	uint64_t v;

#define X(f, val)							\
	memset(&a, 0, sizeof(a));					\
	assert_int_equal(tally_attr__set(&a, #f, (uint64_t)(val)), 0);	\
	assert_true((uint64_t)a.f == (uint64_t)(val));			\
	assert_int_equal(tally_attr__get(&a, #f, &v), 0);		\
	assert_true(v == (uint64_t)(val));
	FIELDS(X)
#undef X
	/* Unions alias: config1 is bp_addr. */
	memset(&a, 0, sizeof(a));
	tally_attr__set(&a, "bp_addr", 0x1234);
	assert_true(a.config1 == 0x1234);
	/* Width checks. */
	assert_int_equal(tally_attr__set(&a, "type", 1ull << 32), -ERANGE);
	assert_int_equal(tally_attr__set(&a, "sample_max_stack", 65536), -ERANGE);
	assert_int_equal(tally_attr__set(&a, "clockid", (uint64_t)-1), 0);
	assert_int_equal(a.clockid, -1);
	assert_int_equal(tally_attr__get(&a, "clockid", &v), 0);
	assert_true((int64_t)v == -1);
	assert_int_equal(tally_attr__set(&a, "clockid", 1ull << 33), -ERANGE);
	assert_int_equal(tally_attr__set(&a, "no_such_field", 1), -ENOENT);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(tally_attr__get(&a, "no_such_field", &v), -ENOENT);
}

static void test_table_complete(void **state)
{
	static const char *const want[] = {
#define X(f) #f,
		BITS(X)
#undef X
#define X(f, v) #f,
		FIELDS(X)
#undef X
		"precise_ip",
	};
	size_t n = 0;
	const char *name;

	while ((name = tally_attr__field_name(n)) != NULL) {
		bool found = false;

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			found |= !strcmp(want[i], name);
		if (!found)
			fail_msg("table field %s is not tested", name);
		for (size_t j = 0; j < n; j++)
			assert_string_not_equal(tally_attr__field_name(j), name);
		n++;
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
}

static void test_init(void **state)
{
	struct perf_event_attr a;

	memset(&a, 0xff, sizeof(a));
	tally_attr__init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(a.size, sizeof(a));
	assert_int_equal(a.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(a.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(a.disabled, 0);
	assert_int_equal(a.sig_data, 0);
}

static char *print(const struct perf_event_attr *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_true(tally_attr__fprint(a, f) >= 0);
	fclose(f);
	return buf;
}

static void test_fprint(void **state)
{
	struct perf_event_attr a;
	char *s;

	tally_attr__init(&a, PERF_TYPE_BREAKPOINT, 0);
	a.exclude_kernel = 1;
	a.bp_type = 2;
	a.bp_addr = 0x4010;
	a.bp_len = 8;
	a.sample_period = 1;
	s = print(&a);
	assert_non_null(strstr(s, "  type "));
	assert_non_null(strstr(s, "exclude_kernel"));
	assert_non_null(strstr(s, "bp_addr                          0x4010\n"));
	assert_non_null(strstr(s, "bp_len                           8\n"));
	assert_non_null(strstr(s, "sample_period"));
	/* Zero fields and the other members of a union are not printed. */
	assert_null(strstr(s, "config1"));
	assert_null(strstr(s, "exclude_user"));
	assert_null(strstr(s, "sample_freq"));
	free(s);

	tally_attr__init(&a, PERF_TYPE_SOFTWARE, 0);
	a.freq = 1;
	a.sample_freq = 4000;
	a.config1 = 5;
	s = print(&a);
	assert_non_null(strstr(s, "sample_freq                      4000\n"));
	assert_null(strstr(s, "sample_period"));
	assert_non_null(strstr(s, "config1"));
	assert_null(strstr(s, "bp_addr"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bits),
		cmocka_unit_test(test_precise_ip),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_table_complete),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_fprint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
