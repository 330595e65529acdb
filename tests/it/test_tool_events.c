// SPDX-License-Identifier: MIT
/*
 * perf's tool events (duration_time, user_time, system_time) through the
 * library: parsed into evsels that are never opened on the kernel, a
 * one-slot table that tally_evlist__set_tool_times fills and that
 * tally_evlist__read leaves alone, aggregated and diffed like any count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "oracle_util.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

static struct tally_evlist *parsed(const char *spec)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_parse_opts po = { .sz = sizeof(po), .no_pfm = true };
	struct tally_parse_error pe;

	assert_non_null(l);
	if (tally_evlist__add_parsed(l, spec, &po, &pe))
		print_error("'%s': col %d: %s\n", spec, pe.column, pe.msg);
	return l;
}

static struct tally_evsel *nth(struct tally_evlist *l, int n)
{
	struct tally_evsel *e = tally_evlist__first(l);

	while (e && n--)
		e = tally_evlist__next(l, e);
	assert_non_null(e);
	return e;
}

/* The GLOBAL aggregate of e: exactly one entry, returned by value. */
static struct tally_aggr global(const struct tally_evsel *e, bool delta)
{
	struct tally_aggr *a = NULL, r;

	assert_int_equal(tally_evsel__aggregate(e, TALLY_AGGR_GLOBAL, NULL, delta, &a), 1);
	r = a[0];
	free(a);
	return r;
}

/*
 * The brief's oracle: `work spin 50` burns 50 ms of CPU, so the wall
 * time from start to exit is at least 50 ms and the child's rusage user
 * time is not zero; both come back through set_tool_times + aggregate
 * unchanged, and a later evlist read does not clobber them.
 */
static void test_workload_times(void **state)
{
	char *argv[] = { (char *)helper_path(), "spin", "50", NULL };
	struct tally_evlist_open_opts oo = { .sz = sizeof(oo), .skip_unsupported = true };
	struct tally_evlist *l;
	struct tally_workload *wl;
	struct tally_thread_map *threads;
	struct tally_aggr dur, usr, sys, tc;
	struct rusage ru;
	uint64_t t0, t1;
	int st;

	if (!have_helper())
		skip();
	l = parsed("duration_time,user_time,system_time,task-clock");
	assert_int_equal(tally_evlist__nr(l), 4);
	assert_int_equal(tally_evsel__tool(nth(l, 0)), TALLY_TOOL_DURATION);
	assert_int_equal(tally_evsel__tool(nth(l, 1)), TALLY_TOOL_USER);
	assert_int_equal(tally_evsel__tool(nth(l, 2)), TALLY_TOOL_SYSTEM);
	assert_int_equal(tally_evsel__tool(nth(l, 3)), TALLY_TOOL_NONE);
	assert_true(tally_evsel__flags(nth(l, 0)) & TALLY_EV_TOOL_DURATION);
	assert_string_equal(tally_evsel__name(nth(l, 1)), "user_time");
	assert_string_equal(tally_evsel__unit(nth(l, 2)), "ns");

	wl = tally_workload__new(argv);
	assert_non_null(wl);
	threads = tally_thread_map__new_pid(tally_workload__pid(wl));
	assert_non_null(threads);
	tally_evlist__set_attr_bits(l, true, true, true);
	assert_int_equal(tally_evlist__open(l, NULL, threads, &oo), 0);
	for (int i = 0; i < 3; i++) {
		struct tally_evsel *e = nth(l, i);

		/* "open" and supported, but nothing on the kernel */
		assert_true(tally_evsel__is_open(e));
		assert_true(tally_evsel__supported(e));
		assert_int_equal(tally_evsel__open_error(e), 0);
		assert_int_equal(tally_evsel__nr_cpus(e), 1);
		assert_int_equal(tally_evsel__nr_threads(e), 1);
		assert_int_equal(tally_evsel__fd(e, 0, 0), -1);
		assert_int_equal(tally_thread_map__pid(tally_evsel__threads(e), 0),
				 tally_workload__pid(wl));
	}
	assert_true(tally_evsel__fd(nth(l, 3), 0, 0) >= 0);

	t0 = mono_ns();
	assert_int_equal(tally_workload__start(wl), 0);
	assert_int_equal(tally_workload__wait(wl, &st, &ru), 0);
	t1 = mono_ns();
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_int_equal(tally_evlist__read(l), 0);
	/* before set_tool_times: nothing counted, not "not supported" */
	assert_int_equal(global(nth(l, 0), false).scaled.state, TALLY_COUNT_NOT_COUNTED);

	assert_int_equal(tally_evlist__set_tool_times(l, t1 - t0, tv_ns(ru.ru_utime),
						      tv_ns(ru.ru_stime)), 3);
	/* a read after the set (an interval tick) leaves them be */
	assert_int_equal(tally_evlist__read(l), 0);

	dur = global(nth(l, 0), false);
	assert_int_equal(dur.scaled.state, TALLY_COUNT_COUNTED);
	assert_int_equal(dur.nr, 1);
	assert_int_equal(dur.counts.val, t1 - t0);
	assert_int_equal(dur.counts.ena, t1 - t0);
	assert_int_equal(dur.counts.run, t1 - t0);
	assert_true(dur.scaled.val >= 50 * 1000000ull);

	usr = global(nth(l, 1), false);
	assert_int_equal(usr.scaled.state, TALLY_COUNT_COUNTED);
	assert_true(usr.scaled.val > 0);
	assert_int_equal(usr.scaled.val, tv_ns(ru.ru_utime));

	/* system time: counted when there is any, else "not counted" as perf */
	sys = global(nth(l, 2), false);
	assert_int_equal(sys.scaled.val, tv_ns(ru.ru_stime));
	assert_int_equal(sys.scaled.state, tv_ns(ru.ru_stime) ? TALLY_COUNT_COUNTED :
								TALLY_COUNT_NOT_COUNTED);

	/* the kernel event next to them counted the spin (not clobbered) */
	tc = global(nth(l, 3), false);
	assert_int_equal(tc.scaled.state, TALLY_COUNT_COUNTED);
	assert_true(tc.scaled.val > 0);

	tally_evlist__free(l);
	tally_thread_map__put(threads);
	tally_workload__free(wl);
}

/*
 * Interval mode: read (cur -> prev), then set the totals so far; the
 * delta is the interval's share, ena and run included.
 */
static void test_deltas(void **state)
{
	struct tally_evlist *l = parsed("cs,duration_time,user_time");
	struct tally_thread_map *self = tally_thread_map__new_pid((pid_t)syscall(SYS_gettid));
	struct tally_aggr a;

	assert_non_null(self);
	assert_int_equal(tally_evlist__open(l, NULL, self, NULL), 0);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evlist__set_tool_times(l, 10000, 0, 0), 2);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evlist__set_tool_times(l, 25000, 0, 0), 2);

	a = global(nth(l, 1), true);
	assert_int_equal(a.counts.val, 15000);
	assert_int_equal(a.counts.ena, 15000);
	assert_int_equal(a.counts.run, 15000);
	assert_int_equal(a.scaled.state, TALLY_COUNT_COUNTED);
	a = global(nth(l, 1), false);
	assert_int_equal(a.counts.val, 25000);
	/* user time has no per-interval value (perf: not counted) */
	a = global(nth(l, 2), true);
	assert_int_equal(a.scaled.state, TALLY_COUNT_NOT_COUNTED);
	assert_int_equal(tally_evsel__prev_counts(nth(l, 1), 0, 0)->val, 10000);
	tally_evlist__free(l);
	tally_thread_map__put(self);
}

/*
 * Groups: perf 6.1 keeps the tool event in the kernel group as an opened
 * dummy, and `{duration_time,task-clock}` then shows task-clock
 * <not counted>. Here the tool event keeps its place but stays alone;
 * the kernel group is the others, led by the first of them, and counts.
 */
static void test_groups(void **state)
{
	struct tally_evlist *l = parsed("{duration_time,task-clock,cs},{cpu-clock,system_time,faults}");
	struct tally_thread_map *self = tally_thread_map__new_pid((pid_t)syscall(SYS_gettid));
	struct tally_evsel *dur = nth(l, 0), *tc = nth(l, 1), *cs = nth(l, 2);
	struct tally_evsel *cc = nth(l, 3), *sys = nth(l, 4), *flt = nth(l, 5);
	volatile uint64_t x = 0;

	assert_non_null(self);
	assert_int_equal(tally_evlist__nr(l), 6);
	assert_int_equal(tally_evlist__nr_groups(l), 2);
	assert_true(tally_evsel__is_leader(dur));
	assert_int_equal(tally_evsel__nr_members(dur), 1);
	assert_true(tally_evsel__is_leader(tc));
	assert_int_equal(tally_evsel__nr_members(tc), 2);
	assert_ptr_equal(tally_evsel__leader(cs), tc);
	assert_true(tally_evsel__is_leader(cc));
	assert_int_equal(tally_evsel__nr_members(cc), 2);
	assert_true(tally_evsel__is_leader(sys));
	assert_int_equal(tally_evsel__nr_members(sys), 1);
	assert_ptr_equal(tally_evsel__leader(flt), cc);

	tally_evlist__set_attr_bits(l, true, false, false);
	assert_int_equal(tally_evlist__open(l, NULL, self, NULL), 0);
	assert_true(tally_evsel__attr(tc)->read_format & PERF_FORMAT_GROUP);
	assert_int_equal(tally_evlist__enable(l), 0);
	for (int i = 0; i < 2000000; i++)
		x += (uint64_t)i;
	assert_true(x > 0);
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evlist__set_tool_times(l, 1234, 99, 0), 2);

	assert_int_equal(global(tc, false).scaled.state, TALLY_COUNT_COUNTED);
	assert_true(global(tc, false).scaled.val > 0);
	assert_int_equal(global(cs, false).scaled.state, TALLY_COUNT_COUNTED);
	assert_int_equal(global(cc, false).scaled.state, TALLY_COUNT_COUNTED);
	assert_int_equal(global(flt, false).scaled.state, TALLY_COUNT_COUNTED);
	/* the group read did not land anything on the tool events */
	assert_int_equal(global(dur, false).scaled.val, 1234);
	assert_int_equal(global(sys, false).scaled.state, TALLY_COUNT_NOT_COUNTED);
	assert_int_equal(global(sys, false).scaled.val, 0);
	tally_evlist__free(l);
	tally_thread_map__put(self);
}

/* -A / --per-thread shapes: one row, on the first CPU / the first thread. */
static void test_shapes(void **state)
{
	struct tally_evlist *l = parsed("duration_time,cpu-clock");
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *any = tally_thread_map__new_any();
	struct tally_aggr *a = NULL;
	int n, err;

	assert_non_null(cpus);
	assert_non_null(any);
	err = tally_evlist__open(l, cpus, any, NULL);
	if (err == -EACCES || err == -EPERM) {
		tally_evlist__free(l);
		tally_cpu_map__put(cpus);
		tally_thread_map__put(any);
		skip();
	}
	assert_int_equal(err, 0);
	assert_int_equal(tally_evsel__nr_cpus(nth(l, 0)), 1);
	assert_int_equal(tally_cpu_map__cpu(tally_evsel__cpus(nth(l, 0)), 0).cpu,
			 tally_cpu_map__cpu(cpus, 0).cpu);
	assert_int_equal(tally_evsel__nr_cpus(nth(l, 1)), tally_cpu_map__nr(cpus));
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evlist__set_tool_times(l, 777, 0, 0), 1);
	n = tally_evsel__aggregate(nth(l, 0), TALLY_AGGR_CPU, NULL, false, &a);
	assert_int_equal(n, 1);
	assert_int_equal(a[0].key, tally_cpu_map__cpu(cpus, 0).cpu);
	assert_int_equal(a[0].scaled.val, 777);
	free(a);
	n = tally_evsel__aggregate(nth(l, 1), TALLY_AGGR_CPU, NULL, false, &a);
	assert_int_equal(n, tally_cpu_map__nr(cpus));
	free(a);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(any);

	/* per thread: two tasks, the tool event on the first */
	{
		char list[64];
		struct tally_thread_map *two;

		snprintf(list, sizeof(list), "%d,%d", (int)getpid(), (int)getppid());
		two = tally_thread_map__new_list(list, false);
		assert_non_null(two);
		l = parsed("task-clock,user_time");
		assert_int_equal(tally_evlist__open(l, NULL, two, NULL), 0);
		assert_int_equal(tally_evsel__nr_threads(nth(l, 0)), 2);
		assert_int_equal(tally_evsel__nr_threads(nth(l, 1)), 1);
		assert_int_equal(tally_evlist__set_tool_times(l, 0, 5, 0), 1);
		n = tally_evsel__aggregate(nth(l, 1), TALLY_AGGR_THREAD, NULL, false, &a);
		assert_int_equal(n, 1);
		assert_int_equal(a[0].key, getpid());
		assert_int_equal(a[0].scaled.val, 5);
		free(a);
		tally_evlist__free(l);
		tally_thread_map__put(two);
	}
}

/* A list of tool events only opens (nothing to open is not an error). */
static void test_only_tools(void **state)
{
	struct tally_evlist *l = parsed("duration_time:u");
	struct tally_thread_map *self = tally_thread_map__new_pid((pid_t)syscall(SYS_gettid));
	struct tally_evsel *e = nth(l, 0);
	uint64_t id;

	assert_non_null(self);
	assert_int_equal(tally_evlist__set_tool_times(l, 1, 2, 3), 0);	/* not open yet */
	assert_int_equal(tally_evlist__set_tool_times(NULL, 1, 2, 3), -EINVAL);
	assert_int_equal(tally_evsel__tool(NULL), TALLY_TOOL_NONE);
	assert_int_equal(tally_evlist__open(l, NULL, self, NULL), 0);
	assert_int_equal(tally_evlist__enable(l), 0);
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_int_equal(tally_evlist__reset(l), 0);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__id(e, 0, 0, &id), -EINVAL);
	assert_int_equal(tally_evlist__set_tool_times(l, 42, 2, 3), 1);
	assert_int_equal(global(e, false).scaled.val, 42);
	assert_string_equal(tally_evsel__name(e), "duration_time:u");
	/* closed and opened again: a fresh, empty slot */
	tally_evlist__close(l);
	assert_false(tally_evsel__is_open(e));
	assert_int_equal(tally_evlist__open(l, NULL, self, NULL), 0);
	assert_int_equal(global(e, false).scaled.state, TALLY_COUNT_NOT_COUNTED);
	tally_evlist__free(l);

	/* an evsel of its own: tally_evsel__open does not open the dummy either */
	{
		struct perf_event_attr a;
		struct tally_evsel *t;

		tally_attr__init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY);
		t = tally_evsel__new(&a, "user_time");
		assert_non_null(t);
		tally_evsel__set_flags(t, TALLY_EV_TOOL_USER);
		assert_int_equal(tally_evsel__tool(t), TALLY_TOOL_USER);
		assert_int_equal(tally_evsel__open(t, NULL, self), 0);
		assert_int_equal(tally_evsel__fd(t, 0, 0), -1);
		assert_int_equal(tally_evsel__open(t, NULL, self), 0);	/* starts over */
		assert_int_equal(tally_evsel__read_all(t), 0);
		tally_evsel__free(t);
	}
	tally_thread_map__put(self);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_workload_times),
		cmocka_unit_test(test_deltas),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_only_tools),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
