// SPDX-License-Identifier: MIT
/*
 * Topology from a fake sysfs tree (tests/data/topology/2s2c2t, see its
 * README) and aggregation of synthetic counts per CPU, core, die, socket,
 * node and globally.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdlib.h>
#include <cmocka.h>
#include <tally/evsel.h>
#include "evsel_internal.h"

#define DATA "tests/data/topology/2s2c2t"

static struct tally_cpu C(int c)
{
	return (struct tally_cpu){ c };
}

static void test_ids(void **state)
{
	struct tally_topology *t = tally_topology__new(DATA);

	assert_non_null(t);
	for (int c = 0; c < 8; c++) {
		assert_int_equal(tally_topology__socket(t, C(c)), c / 4);
		assert_int_equal(tally_topology__die(t, C(c)), 0);
		assert_int_equal(tally_topology__core(t, C(c)), (c / 2) % 2);
		assert_int_equal(tally_topology__node(t, C(c)), c / 4);
	}
	/* Offline cpu8 and out-of-range CPUs read as unknown. */
	assert_int_equal(tally_topology__socket(t, C(8)), -1);
	assert_int_equal(tally_topology__core(t, C(8)), -1);
	assert_int_equal(tally_topology__socket(t, C(9)), -1);
	assert_int_equal(tally_topology__socket(t, C(-1)), -1);
	tally_topology__free(t);
	tally_topology__free(NULL);
	errno = 0;
	assert_null(tally_topology__new("tests/data/topology/does-not-exist"));
	assert_int_equal(errno, ENOENT);
}

static void test_real_sysfs(void **state)
{
	struct tally_topology *t = tally_topology__new(NULL);
	struct tally_cpu_map *m = tally_cpu_map__new_online();

	if (!t)
		skip();
	/* Every online CPU of this machine has a socket and core id. */
	for (int i = 0; i < tally_cpu_map__nr(m); i++) {
		assert_true(tally_topology__socket(t, tally_cpu_map__cpu(m, i)) >= 0);
		assert_true(tally_topology__core(t, tally_cpu_map__cpu(m, i)) >= 0);
	}
	tally_cpu_map__put(m);
	tally_topology__free(t);
}

/* An evsel "opened" on cpus 0-7 x one thread with synthetic counts. */
static struct tally_evsel *fake_evsel(bool unsupported)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .config = 0 };
	struct tally_evsel *e = tally_evsel__new(&a, "fake");

	assert_non_null(e);
	e->cpus = tally_cpu_map__new("0-7");
	e->threads = tally_thread_map__new_any();
	e->nr_cpus = 8;
	e->nr_threads = 1;
	e->fds = calloc(8, sizeof(int));
	e->ids = calloc(8, sizeof(uint64_t));
	e->counts = calloc(8, sizeof(struct tally_counts));
	e->prev = calloc(8, sizeof(struct tally_counts));
	for (int c = 0; c < 8; c++) {
		e->fds[c] = -1;
		/* cpu c counted 100*(c+1); cpu 7 multiplexed half the time. */
		e->counts[c] = (struct tally_counts){ .val = 100u * (c + 1), .ena = 1000,
						      .run = c == 7 ? 500 : 1000 };
		e->prev[c] = (struct tally_counts){ .val = 10u * (c + 1), .ena = 400,
						    .run = c == 7 ? 200 : 400 };
	}
	e->unsupported = unsupported;
	return e;
}

static void test_aggr_cpu_global(void **state)
{
	struct tally_evsel *e = fake_evsel(false);
	struct tally_aggr *a;
	int n;

	n = tally_evsel__aggregate(e, TALLY_AGGR_CPU, NULL, false, &a);
	assert_int_equal(n, 8);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(a[i].key, i);
		assert_int_equal(a[i].nr, 1);
		assert_int_equal(a[i].counts.val, 100 * (i + 1));
	}
	assert_int_equal(a[6].scaled.state, TALLY_COUNT_COUNTED);
	assert_int_equal(a[7].scaled.state, TALLY_COUNT_SCALED);
	assert_int_equal(a[7].scaled.val, 1600);
	free(a);

	n = tally_evsel__aggregate(e, TALLY_AGGR_GLOBAL, NULL, false, &a);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].nr, 8);
	assert_int_equal(a[0].counts.val, 3600);
	assert_int_equal(a[0].counts.ena, 8000);
	assert_int_equal(a[0].counts.run, 7500);
	assert_int_equal(a[0].scaled.state, TALLY_COUNT_SCALED);
	assert_int_equal(a[0].scaled.val, 3840);	/* 3600 * 8000 / 7500 */
	free(a);

	/* delta = cur - prev */
	n = tally_evsel__aggregate(e, TALLY_AGGR_GLOBAL, NULL, true, &a);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].counts.val, 3600 - 360);
	assert_int_equal(a[0].counts.ena, 8 * 600);
	free(a);

	/* Topology modes need a topology. */
	assert_int_equal(tally_evsel__aggregate(e, TALLY_AGGR_CORE, NULL, false, &a), -EINVAL);
	tally_evsel__free(e);
}

static void test_aggr_topology(void **state)
{
	struct tally_topology *t = tally_topology__new(DATA);
	struct tally_evsel *e = fake_evsel(false);
	struct tally_aggr *a;
	int n;

	assert_non_null(t);
	n = tally_evsel__aggregate(e, TALLY_AGGR_CORE, t, false, &a);
	assert_int_equal(n, 4);
	/* Sorted by socket, die, core: S0-C0 {0,1}, S0-C1 {2,3}, S1-C0 {4,5}, S1-C1 {6,7}. */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(a[i].socket, i / 2);
		assert_int_equal(a[i].die, 0);
		assert_int_equal(a[i].core, i % 2);
		assert_int_equal(a[i].key, i % 2);
		assert_int_equal(a[i].nr, 2);
		assert_int_equal(a[i].counts.val, 100 * (2 * i + 1) + 100 * (2 * i + 2));
	}
	free(a);

	n = tally_evsel__aggregate(e, TALLY_AGGR_SOCKET, t, false, &a);
	assert_int_equal(n, 2);
	assert_int_equal(a[0].key, 0);
	assert_int_equal(a[0].counts.val, 100 + 200 + 300 + 400);
	assert_int_equal(a[0].scaled.state, TALLY_COUNT_COUNTED);
	assert_int_equal(a[1].key, 1);
	assert_int_equal(a[1].counts.val, 500 + 600 + 700 + 800);
	assert_int_equal(a[1].scaled.state, TALLY_COUNT_SCALED);
	free(a);

	n = tally_evsel__aggregate(e, TALLY_AGGR_DIE, t, false, &a);
	assert_int_equal(n, 2);
	assert_int_equal(a[1].socket, 1);
	assert_int_equal(a[1].die, 0);
	assert_int_equal(a[1].nr, 4);
	free(a);

	n = tally_evsel__aggregate(e, TALLY_AGGR_NODE, t, false, &a);
	assert_int_equal(n, 2);
	assert_int_equal(a[0].key, 0);
	assert_int_equal(a[0].counts.val, 1000);
	assert_int_equal(a[1].key, 1);
	free(a);

	n = tally_evsel__aggregate(e, TALLY_AGGR_THREAD, NULL, false, &a);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].key, -1);
	free(a);
	tally_evsel__free(e);
	tally_topology__free(t);
}

static void test_aggr_unsupported(void **state)
{
	struct tally_evsel *e = fake_evsel(true);
	struct tally_aggr *a;
	int n = tally_evsel__aggregate(e, TALLY_AGGR_CPU, NULL, false, &a);

	assert_int_equal(n, 8);
	for (int i = 0; i < n; i++)
		assert_int_equal(a[i].scaled.state, TALLY_COUNT_NOT_SUPPORTED);
	free(a);
	tally_evsel__free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_real_sysfs),
		cmocka_unit_test(test_aggr_cpu_global),
		cmocka_unit_test(test_aggr_topology),
		cmocka_unit_test(test_aggr_unsupported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
