// SPDX-License-Identifier: MIT
/* CPU maps: parsing, printing, lookup, intersection, PMU cpumasks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>
#include <tally/cpumap.h>
#include "evsel_internal.h"

#define DATA "tests/data/topology/2s2c2t"

static void expect(const char *text, const char *want)
{
	struct tally_cpu_map *m = tally_cpu_map__new(text);
	char buf[256];

	assert_non_null(m);
	assert_true(tally_cpu_map__snprint(m, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, want);
	tally_cpu_map__put(m);
}

static void test_parse(void **state)
{
	struct tally_cpu_map *m = tally_cpu_map__new("0-3,7");

	assert_non_null(m);
	assert_int_equal(tally_cpu_map__nr(m), 5);
	assert_int_equal(tally_cpu_map__cpu(m, 0).cpu, 0);
	assert_int_equal(tally_cpu_map__cpu(m, 3).cpu, 3);
	assert_int_equal(tally_cpu_map__cpu(m, 4).cpu, 7);
	assert_int_equal(tally_cpu_map__cpu(m, 5).cpu, -1);
	assert_int_equal(tally_cpu_map__cpu(m, -1).cpu, -1);
	assert_int_equal(tally_cpu_map__idx(m, (struct tally_cpu){ 7 }), 4);
	assert_int_equal(tally_cpu_map__idx(m, (struct tally_cpu){ 5 }), -1);
	assert_false(tally_cpu_map__is_any(m));
	tally_cpu_map__put(m);
	expect("7,0-2,1,2", "0-2,7");
	expect("5", "5");
	expect("0,2,4", "0,2,4");
	expect("0-1\n", "0-1");
}

static void test_bad(void **state)
{
	static const char *const bad[] = {
		"a", "1-", "-1", "3-1", "1,,2", "1,", ",1", "1 2", "0-99999", "1x", "1-2-3",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		assert_null(tally_cpu_map__new(bad[i]));
		assert_int_equal(errno, EINVAL);
	}
}

static void test_online(void **state)
{
	struct tally_cpu_map *m = tally_cpu_map__new(NULL);
	struct tally_cpu_map *e = tally_cpu_map__new("");
	char want[256] = "", got[256];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");

	if (!f) {
		tally_cpu_map__put(m);
		tally_cpu_map__put(e);
		skip();
	}
	assert_non_null(fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	assert_non_null(m);
	assert_true(tally_cpu_map__snprint(m, got, sizeof(got)) > 0);
	assert_string_equal(got, want);
	assert_true(tally_cpu_map__snprint(e, got, sizeof(got)) > 0);
	assert_string_equal(got, want);
	tally_cpu_map__put(m);
	tally_cpu_map__put(e);
}

static void test_any_and_refs(void **state)
{
	struct tally_cpu_map *m = tally_cpu_map__new_any();
	struct tally_cpu c;
	int idx, n = 0;

	assert_non_null(m);
	assert_true(tally_cpu_map__is_any(m));
	assert_int_equal(tally_cpu_map__nr(m), 1);
	assert_int_equal(tally_cpu_map__cpu(m, 0).cpu, -1);
	assert_ptr_equal(tally_cpu_map__get(m), m);
	tally_cpu_map__put(m);
	tally_cpu_map__for_each_cpu(c, idx, m)
		n += c.cpu == -1;
	assert_int_equal(n, 1);
	tally_cpu_map__put(m);
	tally_cpu_map__put(NULL);
	assert_int_equal(tally_cpu_map__nr(NULL), 0);
}

static void test_intersect(void **state)
{
	struct tally_cpu_map *a = tally_cpu_map__new("0-5,9");
	struct tally_cpu_map *b = tally_cpu_map__new("1,3,5-9");
	struct tally_cpu_map *c = tally_cpu_map__new("12");
	struct tally_cpu_map *x = tally_cpu_map__intersect(a, b);
	struct tally_cpu_map *y = tally_cpu_map__intersect(a, c);
	char buf[64];

	assert_non_null(x);
	assert_true(tally_cpu_map__snprint(x, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "1,3,5,9");
	assert_non_null(y);
	assert_int_equal(tally_cpu_map__nr(y), 0);
	tally_cpu_map__put(a);
	tally_cpu_map__put(b);
	tally_cpu_map__put(c);
	tally_cpu_map__put(x);
	tally_cpu_map__put(y);
}

static void test_snprint_small(void **state)
{
	struct tally_cpu_map *m = tally_cpu_map__new("0-3,7,9-12");
	char buf[6];

	assert_int_equal(tally_cpu_map__snprint(m, buf, sizeof(buf)), -ENOSPC);
	assert_string_equal(buf, "");
	tally_cpu_map__put(m);
}

static void test_pmu(void **state)
{
	struct tally_cpu_map *m = tally_cpu_map__new_pmu(DATA, "fake_uncore");
	char buf[64];

	assert_non_null(m);
	assert_true(tally_cpu_map__snprint(m, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "0,4");
	tally_cpu_map__put(m);
	/* A hybrid core PMU lists "cpus" instead of "cpumask". */
	m = tally_cpu_map__new_pmu(DATA, "fake_core");
	assert_non_null(m);
	assert_true(tally_cpu_map__snprint(m, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "0-3");
	tally_cpu_map__put(m);
	errno = 0;
	assert_null(tally_cpu_map__new_pmu(DATA, "software"));
	assert_int_equal(errno, ENOENT);
	assert_null(tally_cpu_map__new_pmu(DATA, "../x"));
	assert_int_equal(errno, EINVAL);
}

/*
 * Robustness of the cpulist parser (sysfs text is untrusted input):
 * random strings over the list alphabet, not NUL-terminated (the parser
 * is (buf, len)); under ASan any overread shows. Whatever parses must
 * print and parse back to the same map. Fixed seed: reproducible.
 */
static void test_parse_random(void **state)
{
	static const char alpha[] = "0123456789,-\n x";
	unsigned int seed = 12345;
	int parsed = 0;

	for (int iter = 0; iter < 20000; iter++) {
		size_t len = (size_t)(rand_r(&seed) % 24);
		char *buf = malloc(len ? len : 1);	/* exact size: no NUL */
		struct tally_cpu_map *m, *m2;
		char out[8192];

		assert_non_null(buf);
		for (size_t i = 0; i < len; i++)
			buf[i] = alpha[rand_r(&seed) % (sizeof(alpha) - 1)];
		m = tally__cpu_map_parse(buf, len);
		if (m) {
			parsed++;
			assert_true(tally_cpu_map__nr(m) > 0);
			for (int i = 1; i < tally_cpu_map__nr(m); i++)
				assert_true(tally_cpu_map__cpu(m, i).cpu >
					    tally_cpu_map__cpu(m, i - 1).cpu);
			assert_true(tally_cpu_map__snprint(m, out, sizeof(out)) > 0);
			m2 = tally_cpu_map__new(out);
			assert_non_null(m2);
			assert_int_equal(tally_cpu_map__nr(m2), tally_cpu_map__nr(m));
			for (int i = 0; i < tally_cpu_map__nr(m); i++)
				assert_int_equal(tally_cpu_map__cpu(m2, i).cpu,
						 tally_cpu_map__cpu(m, i).cpu);
			tally_cpu_map__put(m2);
			tally_cpu_map__put(m);
		} else {
			assert_true(errno == EINVAL || errno == ENOMEM);
		}
		free(buf);
	}
	/* The alphabet makes valid lists often enough to test the round trip. */
	assert_true(parsed > 100);
}

/*
 * Regression: overlapping ranges are valid cpulists, but the parser
 * counted every CPU of every range against its bound and refused
 * "0-8192,0-8192" (EINVAL). The bound is on CPU numbers, not on how
 * often the text repeats them.
 */
static void test_overlapping_ranges(void **state)
{
	static const struct {
		const char *text;
		int nr, last;
	} ok[] = {
		{ "0-8192,0-8192", 8193, 8192 },
		{ "0-5000,0-5000,0-5000", 5001, 5000 },
		{ "0-8192,0-8192,0-8192,0-8192,17", 8193, 8192 },
		{ "100-8000,0-8192,5-6", 8193, 8192 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct tally_cpu_map *m = tally_cpu_map__new(ok[i].text);

		assert_non_null(m);
		assert_int_equal(tally_cpu_map__nr(m), ok[i].nr);
		assert_int_equal(tally_cpu_map__cpu(m, 0).cpu, 0);
		assert_int_equal(tally_cpu_map__cpu(m, ok[i].nr - 1).cpu, ok[i].last);
		tally_cpu_map__put(m);
	}
	expect("0-8192,0-8192", "0-8192");
	/* The CPU number bound itself stays. */
	errno = 0;
	assert_null(tally_cpu_map__new("0-8192,8193"));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_online),
		cmocka_unit_test(test_any_and_refs),
		cmocka_unit_test(test_intersect),
		cmocka_unit_test(test_snprint_small),
		cmocka_unit_test(test_pmu),
		cmocka_unit_test(test_parse_random),
		cmocka_unit_test(test_overlapping_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
