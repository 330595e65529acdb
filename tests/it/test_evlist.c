// SPDX-License-Identifier: MIT
/*
 * The event list on the real kernel: order, groups, ids, unsupported
 * events (no hardware PMU here), enable/disable/reset, deltas, own CPUs,
 * the fd limit, and events from the parser.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "oracle_util.h"

static struct tally_thread_map *self_map(void)
{
	return tally_thread_map__new_pid((pid_t)syscall(SYS_gettid));
}

static void do_getpid(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static struct tally_evsel *sw(uint64_t config)
{
	struct perf_event_attr a;

	tally_attr__init(&a, PERF_TYPE_SOFTWARE, config);
	return tally_evsel__new(&a, NULL);
}

static struct tally_evsel *hw_cycles(void)
{
	struct perf_event_attr a;

	tally_attr__init(&a, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	return tally_evsel__new(&a, NULL);
}

static bool have_hw_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

static void test_order_and_groups(void **state)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *e[4], *pos;
	int i = 0;

	for (int k = 0; k < 4; k++) {
		e[k] = sw(PERF_COUNT_SW_CPU_CLOCK);
		tally_evlist__add(l, e[k]);
	}
	assert_int_equal(tally_evlist__nr(l), 4);
	assert_string_equal(tally_evsel__name(e[0]), "cpu-clock");
	tally_evlist__for_each_evsel(l, pos)
		assert_ptr_equal(pos, e[i++]);
	assert_int_equal(i, 4);
	assert_ptr_equal(tally_evlist__last(l), e[3]);
	assert_null(tally_evlist__next(l, e[3]));
	assert_int_equal(tally_evlist__nr_groups(l), 0);
	assert_true(tally_evsel__is_leader(e[1]));
	/* Past the end, twice, empty. */
	assert_int_equal(tally_evlist__set_group(l, e[2], 3), -EINVAL);
	assert_int_equal(tally_evlist__set_group(l, e[1], 0), -EINVAL);
	/* Regression: start + nr overflowed, so INT_MAX passed the check. */
	assert_int_equal(tally_evlist__set_group(l, e[1], INT_MAX), -EINVAL);
	assert_int_equal(tally_evsel__nr_members(e[1]), 1);
	assert_int_equal(tally_evlist__set_group(l, e[1], 2), 0);
	assert_int_equal(tally_evlist__set_group(l, e[0], 2), -EINVAL);	/* e[1] taken */
	assert_int_equal(tally_evlist__set_group(l, e[2], 2), -EINVAL);
	assert_int_equal(tally_evlist__nr_groups(l), 1);
	assert_ptr_equal(tally_evsel__leader(e[2]), e[1]);
	assert_false(tally_evsel__is_leader(e[2]));
	assert_int_equal(tally_evsel__nr_members(e[1]), 2);
	assert_int_equal(tally_evsel__nr_members(e[2]), 2);
	assert_int_equal(tally_evsel__nr_members(e[0]), 1);
	tally_evlist__free(l);
	tally_evlist__free(NULL);
}

static void test_ids(void **state)
{
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *any = tally_thread_map__new_any();
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *e[3];
	int err, seen = 0;

	for (int k = 0; k < 3; k++) {
		e[k] = sw(k == 1 ? PERF_COUNT_SW_PAGE_FAULTS : PERF_COUNT_SW_CPU_CLOCK);
		tally_evlist__add(l, e[k]);
	}
	tally_evlist__set_group(l, e[1], 2);
	err = tally_evlist__open(l, cpus, any, NULL);
	if (err == -EACCES || err == -EPERM)
		skip();
	assert_int_equal(err, 0);
	for (int k = 0; k < 3; k++) {
		for (int c = 0; c < tally_evsel__nr_cpus(e[k]); c++) {
			uint64_t id;

			assert_true(tally_evsel__fd(e[k], c, 0) >= 0);
			assert_int_equal(tally_evsel__id(e[k], c, 0, &id), 0);
			assert_ptr_equal(tally_evlist__find_id(l, id), e[k]);
			seen++;
		}
	}
	assert_int_equal(seen, 3 * tally_cpu_map__nr(cpus));
	/* Opening an open list is refused and leaves it open. */
	assert_int_equal(tally_evlist__open(l, cpus, any, NULL), -EBUSY);
	assert_true(tally_evsel__is_open(e[0]));
	assert_null(tally_evlist__find_id(l, 0));
	assert_null(tally_evlist__find_id(l, UINT64_MAX));
	assert_int_equal(tally_evsel__fd(e[0], 99, 0), -1);
	tally_evlist__close(l);
	assert_false(tally_evsel__is_open(e[0]));
	assert_int_equal(tally_evsel__fd(e[0], 0, 0), -1);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(any);
}

static void test_unsupported(void **state)
{
	struct tally_thread_map *tm = self_map();
	struct tally_evlist *l;
	struct tally_evsel *clk, *cyc, *lead, *mem;
	struct tally_aggr *a;
	TALLY_OPTS(tally_evlist_open_opts, skip, .skip_unsupported = true);
	int err;

	if (have_hw_pmu())
		skip();	/* this test is about machines without one */
	/* Without skip_unsupported: the error, and nothing left open. */
	l = tally_evlist__new();
	clk = sw(PERF_COUNT_SW_TASK_CLOCK);
	cyc = hw_cycles();
	tally_evlist__add(l, clk);
	tally_evlist__add(l, cyc);
	err = tally_evlist__open(l, NULL, tm, NULL);
	assert_true(err == -ENOENT || err == -EOPNOTSUPP);
	assert_false(tally_evsel__is_open(clk));
	assert_false(tally_evsel__supported(cyc));
	/* With it: the rest opens, cycles is marked. */
	err = tally_evlist__open(l, NULL, tm, &skip);
	assert_int_equal(err, 0);
	assert_true(tally_evsel__is_open(clk));
	assert_false(tally_evsel__is_open(cyc));
	assert_false(tally_evsel__supported(cyc));
	assert_true(tally_evsel__open_error(cyc) == -ENOENT ||
		    tally_evsel__open_error(cyc) == -EOPNOTSUPP);
	{	/* its open error explained: named, and why (no PMU here) */
		char buf[512];

		tally_evsel__strerror(cyc, 0, buf, sizeof(buf));
		assert_non_null(strstr(buf, tally_evsel__name(cyc)));
		assert_non_null(strstr(buf, "no hardware PMU"));
	}
	assert_int_equal(tally_evsel__fd(cyc, 0, 0), -1);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__aggregate(cyc, TALLY_AGGR_GLOBAL, NULL, false, &a), 1);
	assert_int_equal(a[0].scaled.state, TALLY_COUNT_NOT_SUPPORTED);
	free(a);
	tally_evlist__free(l);

	/* Only unsupported events: an error even with skip. */
	l = tally_evlist__new();
	tally_evlist__add(l, hw_cycles());
	err = tally_evlist__open(l, NULL, tm, &skip);
	assert_true(err == -ENOENT || err == -EOPNOTSUPP);
	tally_evlist__free(l);

	/* An unsupported leader takes its group with it. */
	l = tally_evlist__new();
	lead = hw_cycles();
	mem = sw(PERF_COUNT_SW_PAGE_FAULTS);
	clk = sw(PERF_COUNT_SW_TASK_CLOCK);
	tally_evlist__add(l, lead);
	tally_evlist__add(l, mem);
	tally_evlist__add(l, clk);
	tally_evlist__set_group(l, lead, 2);
	assert_int_equal(tally_evlist__open(l, NULL, tm, &skip), 0);
	assert_false(tally_evsel__supported(lead));
	assert_false(tally_evsel__supported(mem));
	assert_false(tally_evsel__is_open(mem));
	assert_true(tally_evsel__is_open(clk));
	assert_int_equal(tally_evsel__aggregate(mem, TALLY_AGGR_THREAD, NULL, false, &a), 1);
	assert_int_equal(a[0].scaled.state, TALLY_COUNT_NOT_SUPPORTED);
	free(a);
	tally_evlist__free(l);

	/* An unsupported member: the group reads without it. */
	l = tally_evlist__new();
	lead = sw(PERF_COUNT_SW_TASK_CLOCK);
	cyc = hw_cycles();
	mem = sw(PERF_COUNT_SW_PAGE_FAULTS);
	tally_evlist__add(l, lead);
	tally_evlist__add(l, cyc);
	tally_evlist__add(l, mem);
	tally_evlist__set_group(l, lead, 3);
	assert_int_equal(tally_evlist__open(l, NULL, tm, &skip), 0);
	assert_false(tally_evsel__supported(cyc));
	assert_true(tally_evsel__is_open(mem));
	assert_int_equal(tally_evlist__enable(l), 0);
	{
		volatile char *p = malloc(1 << 20);

		for (int i = 0; i < (1 << 20); i += 4096)
			p[i] = 1;
		free((void *)p);
	}
	assert_int_equal(tally_evlist__disable(l), 0);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_true(tally_evsel__counts(lead, 0, 0)->val > 0);
	assert_true(tally_evsel__counts(mem, 0, 0)->val > 0);
	assert_true(tally_evsel__counts(mem, 0, 0)->ena == tally_evsel__counts(lead, 0, 0)->ena);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
}

static void test_enable_disable_reset_delta(void **state)
{
	struct perf_event_attr a;
	struct tally_thread_map *tm = self_map();
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *e, *clk;
	struct tally_aggr *d;
	const struct tally_counts *c;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	clk = sw(PERF_COUNT_SW_TASK_CLOCK);
	e = tally_evsel__new(&a, "getpid");
	tally_evlist__add(l, clk);
	tally_evlist__add(l, e);
	tally_evlist__set_group(l, clk, 2);
	tally_evlist__set_attr_bits(l, true, false, false);
	assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
	/* Disabled at open: nothing counted. */
	do_getpid(100);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__counts(e, 0, 0)->val, 0);
	assert_int_equal(tally_evsel__counts(e, 0, 0)->run, 0);
	assert_int_equal(tally_evsel__aggregate(e, TALLY_AGGR_GLOBAL, NULL, false, &d), 1);
	assert_int_equal(d[0].scaled.state, TALLY_COUNT_NOT_COUNTED);
	free(d);
	/* Enabled (group ioctl on the leader enables the member). */
	assert_int_equal(tally_evlist__enable(l), 0);
	do_getpid(300);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__counts(e, 0, 0)->val, 300);
	do_getpid(200);
	assert_int_equal(tally_evlist__read(l), 0);
	c = tally_evsel__counts(e, 0, 0);
	assert_int_equal(c->val, 500);
	assert_int_equal(tally_evsel__prev_counts(e, 0, 0)->val, 300);
	assert_int_equal(tally_evsel__aggregate(e, TALLY_AGGR_GLOBAL, NULL, true, &d), 1);
	assert_int_equal(d[0].counts.val, 200);	/* interval delta */
	assert_int_equal(d[0].scaled.state, TALLY_COUNT_COUNTED);
	free(d);
	/* Disabled again: stays put. */
	assert_int_equal(tally_evlist__disable(l), 0);
	do_getpid(50);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__counts(e, 0, 0)->val, 500);
	/* Reset to zero; the evsel-level ioctls too. */
	assert_int_equal(tally_evlist__reset(l), 0);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__counts(e, 0, 0)->val, 0);
	/*
	 * Member first: a member enabled inside a running group is only
	 * scheduled at the task's next switch (a kernel quirk).
	 */
	assert_int_equal(tally_evsel__enable(e), 0);
	assert_int_equal(tally_evsel__enable(clk), 0);
	do_getpid(7);
	assert_int_equal(tally_evsel__disable(clk), 0);
	{
		struct tally_counts one;

		assert_int_equal(tally_evsel__read(e, 0, 0, &one), 0);
		assert_int_equal(one.val, 7);
		assert_int_equal(tally_evsel__read(e, 5, 0, &one), -EBADF);
	}
	assert_int_equal(tally_evsel__reset(e), 0);
	assert_int_equal(tally_evsel__read_all(e), 0);
	assert_int_equal(tally_evsel__counts(e, 0, 0)->val, 0);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
}

static void test_own_cpus(void **state)
{
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_cpu_map *zero = tally_cpu_map__new("0");
	struct tally_cpu_map *big = tally_cpu_map__new("4095");
	struct tally_thread_map *any = tally_thread_map__new_any();
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *a = sw(PERF_COUNT_SW_CPU_CLOCK);
	struct tally_evsel *b = sw(PERF_COUNT_SW_CPU_CLOCK);
	struct tally_evsel *c = sw(PERF_COUNT_SW_CPU_CLOCK);
	TALLY_OPTS(tally_evlist_open_opts, skip, .skip_unsupported = true);
	int err;

	tally_evsel__set_own_cpus(a, zero);
	tally_evsel__set_own_cpus(c, big);	/* a PMU on no CPU we count */
	assert_ptr_equal(tally_evsel__own_cpus(a), zero);
	tally_evlist__add(l, a);
	tally_evlist__add(l, b);
	tally_evlist__add(l, c);
	err = tally_evlist__open(l, cpus, any, &skip);
	if (err == -EACCES || err == -EPERM)
		skip();
	assert_int_equal(err, 0);
	assert_int_equal(tally_evsel__nr_cpus(a), 1);
	assert_int_equal(tally_cpu_map__cpu(tally_evsel__cpus(a), 0).cpu, 0);
	assert_int_equal(tally_evsel__nr_cpus(b), tally_cpu_map__nr(cpus));
	assert_false(tally_evsel__supported(c));
	assert_int_equal(tally_evsel__open_error(c), -ENODEV);
	assert_ptr_equal(tally_evlist__cpus(l), cpus);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_cpu_map__put(zero);
	tally_cpu_map__put(big);
	tally_thread_map__put(any);
}

/* Neither CPU nor thread: nothing to count on. Bad opts are refused. */
static void test_bad_open(void **state)
{
	struct tally_evlist *l = tally_evlist__new();
	struct {
		struct tally_evlist_open_opts o;
		char extra[8];
	} big;

	assert_int_equal(tally_evlist__open(l, NULL, NULL, NULL), -EINVAL);	/* empty */
	tally_evlist__add(l, sw(PERF_COUNT_SW_CPU_CLOCK));
	assert_int_equal(tally_evlist__open(l, NULL, NULL, NULL), -EINVAL);
	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.extra[3] = 1;
	assert_int_equal(tally_evlist__open(l, NULL, NULL, &big.o), -EINVAL);
	tally_evlist__free(l);
}

/* More fds than the soft RLIMIT_NOFILE: the library raises it. */
static void test_raises_nofile(void **state)
{
	struct rlimit orig, rl;
	struct tally_thread_map *tm = self_map();
	struct tally_evlist *l = tally_evlist__new();

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &orig), 0);
	if (orig.rlim_max < 512)
		skip();
	for (int i = 0; i < 100; i++)
		tally_evlist__add(l, sw(PERF_COUNT_SW_DUMMY));
	rl = orig;
	rl.rlim_cur = 48;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_true(rl.rlim_cur > 48);
	tally_evlist__free(l);
	setrlimit(RLIMIT_NOFILE, &orig);
	tally_thread_map__put(tm);
}

static void test_add_parsed(void **state)
{
	struct tally_evlist *l = tally_evlist__new();
	struct tally_parse_error perr;
	struct tally_thread_map *tm = self_map();
	struct tally_evsel *e;
	int err;

	memset(&perr, 0, sizeof(perr));
	err = tally_evlist__add_parsed(l, "task-clock,{cpu-clock,page-faults}", NULL, &perr);
	assert_int_equal(err, 0);
	assert_int_equal(tally_evlist__nr(l), 3);
	assert_int_equal(tally_evlist__nr_groups(l), 1);
	e = tally_evlist__first(l);
	assert_string_equal(tally_evsel__name(e), "task-clock");
	e = tally_evlist__next(l, e);
	assert_string_equal(tally_evsel__name(e), "cpu-clock");
	assert_int_equal(tally_evsel__nr_members(e), 2);
	assert_ptr_equal(tally_evsel__leader(tally_evlist__last(l)), e);
	/* A parse error appends nothing. */
	err = tally_evlist__add_parsed(l, "task-clock,no-such-event-xyz", NULL, &perr);
	assert_true(err < 0);
	assert_int_equal(tally_evlist__nr(l), 3);
	assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
}

static void test_weak_group(void **state)
{
	struct tally_thread_map *tm = self_map();
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *lead = sw(PERF_COUNT_SW_TASK_CLOCK);
	struct tally_evsel *bad = hw_cycles();
	struct tally_evsel *pf = sw(PERF_COUNT_SW_PAGE_FAULTS);
	TALLY_OPTS(tally_evlist_open_opts, skip, .skip_unsupported = true);

	if (have_hw_pmu())
		skip();
	tally_evsel__set_flags(lead, TALLY_EV_WEAK_GROUP);
	assert_int_equal(tally_evsel__flags(lead), TALLY_EV_WEAK_GROUP);
	tally_evlist__add(l, lead);
	tally_evlist__add(l, bad);
	tally_evlist__add(l, pf);
	tally_evlist__set_group(l, lead, 3);
	assert_int_equal(tally_evlist__open(l, NULL, tm, &skip), 0);
	/* The group broke up: every event is alone; the others still count. */
	assert_true(tally_evsel__is_leader(pf));
	assert_int_equal(tally_evsel__nr_members(lead), 1);
	assert_true(tally_evsel__is_open(lead));
	assert_true(tally_evsel__is_open(pf));
	assert_false(tally_evsel__supported(bad));
	assert_false(tally_evsel__attr(lead)->read_format & PERF_FORMAT_GROUP);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
}

/*
 * One read() per group per cpu/thread: the syscalls:sys_enter_read
 * tracepoint on ourselves counts the read()s tally_evlist__read makes.
 */
static void test_one_read_per_group(void **state)
{
	struct perf_event_attr rd;
	struct tally_thread_map *tm = self_map();
	int fd;

	if (!tp_attr(&rd, "syscalls", "sys_enter_read"))
		skip();
	rd.disabled = 1;
	fd = tally_sys_open(&rd, 0, -1, -1, 0);
	assert_true(fd >= 0);
	for (int grouped = 0; grouped < 2; grouped++) {
		struct tally_evlist *l = tally_evlist__new();
		struct tally_evsel *first = NULL;
		uint64_t n = 0;

		for (int k = 0; k < 4; k++) {
			struct tally_evsel *e = sw(k % 2 ? PERF_COUNT_SW_PAGE_FAULTS :
						    PERF_COUNT_SW_TASK_CLOCK);

			tally_evlist__add(l, e);
			if (!first)
				first = e;
		}
		if (grouped)
			assert_int_equal(tally_evlist__set_group(l, first, 4), 0);
		assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
		assert_int_equal(tally_sys_reset(fd, false), 0);
		assert_int_equal(tally_sys_enable(fd, false), 0);
		assert_int_equal(tally_evlist__read(l), 0);
		assert_int_equal(tally_sys_disable(fd, false), 0);
		assert_int_equal(tally_sys_read(fd, &n, sizeof(n)), 0);
		assert_int_equal(n, grouped ? 1 : 4);
		tally_evlist__free(l);
	}
	close(fd);
	tally_thread_map__put(tm);
}

/*
 * The msr PMU refuses exclude_guest with EINVAL: the open switches the
 * bit off and counts, as perf's missing-feature probe; an event that
 * fails anyway keeps its attr as given.
 */
static void test_exclude_guest_fallback(void **state)
{
	struct tally_thread_map *tm = self_map();
	struct tally_evlist *l = tally_evlist__new();
	struct perf_event_attr a;
	struct tally_evsel *e, *bad;
	FILE *f = fopen("/sys/bus/event_source/devices/msr/type", "r");
	TALLY_OPTS(tally_evlist_open_opts, skip, .skip_unsupported = true);
	int type = -1;

	if (!f)
		skip();
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		skip();
	tally_attr__init(&a, (uint32_t)type, 0);	/* msr/tsc/ */
	a.exclude_guest = 1;
	e = tally_evsel__new(&a, "msr/tsc/");
	tally_evlist__add(l, e);
	/* An unknown msr event fails with exclude_guest off too. */
	a.config = 0xfff;
	bad = tally_evsel__new(&a, "msr/bogus/");
	tally_evlist__add(l, bad);
	assert_int_equal(tally_evlist__open(l, NULL, tm, &skip), 0);
	assert_true(tally_evsel__is_open(e));
	assert_int_equal(tally_evsel__attr(e)->exclude_guest, 0);
	assert_false(tally_evsel__is_open(bad));
	assert_int_equal(tally_evsel__attr(bad)->exclude_guest, 1);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_true(tally_evsel__counts(e, 0, 0)->val > 0);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
}

/* A group too big for the on-stack read buffer: every member lands by id. */
static void test_big_group(void **state)
{
	struct perf_event_attr a;
	struct tally_thread_map *tm = self_map();
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *e[40];

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	for (int k = 0; k < 40; k++) {
		e[k] = tally_evsel__new(&a, NULL);
		tally_evlist__add(l, e[k]);
	}
	assert_int_equal(tally_evlist__set_group(l, e[0], 40), 0);
	assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
	do_getpid(33);
	assert_int_equal(tally_evlist__read(l), 0);
	for (int k = 0; k < 40; k++) {
		uint64_t id;

		assert_int_equal(tally_evsel__id(e[k], 0, 0, &id), 0);
		assert_true(tally_evsel__counts(e[k], 0, 0)->id == id);
		assert_int_equal(tally_evsel__counts(e[k], 0, 0)->val, 33);
	}
	/* An evsel owned by the list is not freed behind its back. */
	tally_evsel__free(e[3]);
	assert_int_equal(tally_evlist__nr(l), 40);
	assert_string_equal(tally_evsel__name(e[3]), tally_evsel__name(e[0]));
	tally_evlist__free(l);
	tally_thread_map__put(tm);
}

/* A thread that exits between the thread map and the open is skipped. */
static void test_thread_gone(void **state)
{
	struct perf_event_attr a;
	struct tally_thread_map *tm;
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *e;
	struct tally_aggr *ag;
	char list[64];
	pid_t child;
	int n;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	snprintf(list, sizeof(list), "%d,%d", (int)getpid(), (int)child);
	tm = tally_thread_map__new_list(list, false);
	assert_non_null(tm);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	e = tally_evsel__new(&a, NULL);
	tally_evlist__add(l, e);
	assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
	assert_true(tally_evsel__fd(e, 0, 0) >= 0);
	assert_int_equal(tally_evsel__fd(e, 0, 1), -1);
	do_getpid(64);
	assert_int_equal(tally_evlist__read(l), 0);
	n = tally_evsel__aggregate(e, TALLY_AGGR_THREAD, NULL, false, &ag);
	assert_int_equal(n, 2);
	assert_int_equal(ag[0].key, getpid());
	assert_int_equal(ag[0].counts.val, 64);
	assert_int_equal(ag[1].key, child);
	assert_int_equal(ag[1].counts.val, 0);
	free(ag);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
}

/*
 * perf_event_paranoid >= 2 without privileges: kernel counting is
 * refused, so the library counts user space only and names it ":u".
 * Run in a child that drops root (when we are root).
 */
static int paranoid_child(void)
{
	struct tally_thread_map *tm;
	struct tally_evlist *l;
	struct tally_evsel *e;
	int err;

	if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
		return 10;
	tm = tally_thread_map__new_pid(getpid());
	l = tally_evlist__new();
	e = sw(PERF_COUNT_SW_TASK_CLOCK);
	tally_evlist__add(l, e);
	err = tally_evlist__open(l, NULL, tm, NULL);
	if (err)
		return 11;
	if (!tally_evsel__attr(e)->exclude_kernel || !tally_evsel__attr(e)->exclude_hv)
		return 12;
	if (strcmp(tally_evsel__name(e), "task-clock:u"))
		return 13;
	tally_evlist__free(l);
	tally_thread_map__put(tm);

	/* CPU-wide needs paranoid <= 0: the user-only retry fails too, and the
	 * event is left as it was, with the kernel's error. */
	{
		struct tally_cpu_map *cpus = tally_cpu_map__new_online();
		struct tally_thread_map *any = tally_thread_map__new_any();

		l = tally_evlist__new();
		e = sw(PERF_COUNT_SW_CPU_CLOCK);
		tally_evlist__add(l, e);
		err = tally_evlist__open(l, cpus, any, NULL);
		if (err != -EACCES && err != -EPERM)
			return 14;
		if (strcmp(tally_evsel__name(e), "cpu-clock") ||
		    tally_evsel__attr(e)->exclude_kernel)
			return 15;
		tally_evlist__free(l);
		tally_cpu_map__put(cpus);
		tally_thread_map__put(any);
	}
	/* A tracepoint is not silently turned into a zero ":u" count. */
	{
		struct perf_event_attr a;

		if (tp_attr(&a, "syscalls", "sys_enter_getpid")) {
			tm = tally_thread_map__new_pid(getpid());
			l = tally_evlist__new();
			e = tally_evsel__new(&a, "syscalls:sys_enter_getpid");
			tally_evlist__add(l, e);
			err = tally_evlist__open(l, NULL, tm, NULL);
			if (err == 0 && tally_evsel__attr(e)->exclude_kernel)
				return 16;
			tally_evlist__free(l);
			tally_thread_map__put(tm);
		}
	}
	return 0;
}

static void test_paranoid_fallback(void **state)
{
	char buf[16] = "";
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	pid_t child;
	int st;

	if (!f)
		skip();
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	if (atoi(buf) < 2)
		skip();	/* the kernel lets everyone count kernel mode */
	child = fork();
	if (child == 0)
		_exit(paranoid_child());
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/*
 * A group with inherit, read with PERF_FORMAT_GROUP (the man page says
 * inherit "does not work" with GROUP; kernels since 4.3 sum the children
 * into the group read, which is what perf stat relies on): T threads of
 * N getpid each count exactly T*N on the leader, the member's value
 * lands by id, and both share time_enabled. Once more with
 * PERF_FORMAT_LOST (Linux 6.0), which puts a third word into every
 * member's {value, id, lost}.
 */
static void test_inherit_group_read(void **state)
{
	char *argv[] = { (char *)helper_path(), "threads", "3", "1000", NULL };
	struct perf_event_attr a;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid") || !have_helper())
		skip();
	for (int lost = 0; lost < 2; lost++) {
		struct tally_workload *wl = tally_workload__new(argv);
		struct tally_evlist *l = tally_evlist__new();
		struct tally_evsel *lead, *mem;
		struct tally_thread_map *tm;
		const struct tally_counts *lc, *mc;
		int st, err;

		assert_non_null(wl);
		tm = tally_thread_map__new_pid(tally_workload__pid(wl));
		lead = tally_evsel__new(&a, "getpid");
		if (lost)
			tally_evsel__attr(lead)->read_format |= PERF_FORMAT_LOST;
		mem = sw(PERF_COUNT_SW_TASK_CLOCK);
		tally_evlist__add(l, lead);
		tally_evlist__add(l, mem);
		assert_int_equal(tally_evlist__set_group(l, lead, 2), 0);
		tally_evlist__set_attr_bits(l, true, true, true);
		err = tally_evlist__open(l, NULL, tm, NULL);
		if (err == -EINVAL && lost) {
			tally_evlist__free(l);
			tally_thread_map__put(tm);
			tally_workload__free(wl);
			skip();	/* a kernel before 6.0: no PERF_FORMAT_LOST */
		}
		assert_int_equal(err, 0);
		assert_true(tally_evsel__attr(lead)->inherit);
		assert_true(tally_evsel__attr(lead)->read_format & PERF_FORMAT_GROUP);
		assert_int_equal(tally_workload__start(wl), 0);
		assert_int_equal(tally_workload__wait(wl, &st, NULL), 0);
		assert_int_equal(tally_workload__exit_code(wl), 0);
		assert_int_equal(tally_evlist__read(l), 0);
		lc = tally_evsel__counts(lead, 0, 0);
		mc = tally_evsel__counts(mem, 0, 0);
		assert_int_equal(lc->val, 3000);
		assert_true(mc->val > 0);
		assert_true(lc->ena > 0);
		assert_int_equal(lc->ena, mc->ena);
		assert_int_equal(lc->lost, 0);
		assert_int_equal(mc->lost, 0);
		assert_true(lc->id != 0 && mc->id != 0 && lc->id != mc->id);
		tally_evlist__free(l);
		tally_thread_map__put(tm);
		tally_workload__free(wl);
	}
}

/* Puts a pipe in place of fd: EOF once empty (with extra bytes first). */
static void fake_fd(int fd, const void *bytes, size_t n)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	if (n)
		assert_int_equal(write(p[1], bytes, n), (ssize_t)n);
	close(p[1]);
	assert_int_equal(dup2(p[0], fd), fd);
	close(p[0]);
}

/*
 * Regression: perf_event_open(2) says a pinned event (group) that cannot
 * go on the PMU is in an error state where read() returns end-of-file.
 * The engine took that for an I/O error (-EIO, counts left stale); it is
 * "not counted": zero counts and times for the whole group in that slot,
 * ids kept, and the read goes on. No PMU here can be made to refuse a
 * pinned group, so the kernel's EOF is played by a drained pipe put in
 * place of the event fd; a short read is still -EIO.
 */
static void test_error_state_read_is_not_counted(void **state)
{
	struct tally_thread_map *tm = self_map();
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *lead = sw(PERF_COUNT_SW_TASK_CLOCK);
	struct tally_evsel *mem = sw(PERF_COUNT_SW_PAGE_FAULTS);
	struct tally_evsel *solo = sw(PERF_COUNT_SW_CPU_CLOCK);
	struct tally_counts out;
	struct tally_scaled sc;
	uint64_t id_lead, id_mem, id_solo, junk = 1;

	tally_evlist__add(l, lead);
	tally_evlist__add(l, mem);
	tally_evlist__add(l, solo);
	assert_int_equal(tally_evlist__set_group(l, lead, 2), 0);
	assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
	do_getpid(1000);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_true(tally_evsel__counts(lead, 0, 0)->run > 0);
	assert_true(tally_evsel__counts(solo, 0, 0)->run > 0);
	assert_int_equal(tally_evsel__id(lead, 0, 0, &id_lead), 0);
	assert_int_equal(tally_evsel__id(mem, 0, 0, &id_mem), 0);
	assert_int_equal(tally_evsel__id(solo, 0, 0, &id_solo), 0);

	fake_fd(tally_evsel__fd(lead, 0, 0), NULL, 0);
	fake_fd(tally_evsel__fd(solo, 0, 0), NULL, 0);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__counts(lead, 0, 0)->val, 0);
	assert_int_equal(tally_evsel__counts(lead, 0, 0)->run, 0);
	assert_int_equal(tally_evsel__counts(lead, 0, 0)->id, id_lead);
	assert_int_equal(tally_evsel__counts(mem, 0, 0)->val, 0);
	assert_int_equal(tally_evsel__counts(mem, 0, 0)->ena, 0);
	assert_int_equal(tally_evsel__counts(mem, 0, 0)->id, id_mem);
	assert_int_equal(tally_evsel__counts(solo, 0, 0)->run, 0);
	assert_int_equal(tally_evsel__counts(solo, 0, 0)->id, id_solo);
	tally_counts__scale(tally_evsel__counts(mem, 0, 0), &sc);
	assert_int_equal(sc.state, TALLY_COUNT_NOT_COUNTED);
	/* The previous (good) read is still there for deltas. */
	assert_true(tally_evsel__prev_counts(lead, 0, 0)->run > 0);
	memset(&out, 0xff, sizeof(out));
	assert_int_equal(tally_evsel__read(solo, 0, 0, &out), 0);
	assert_int_equal(out.val, 0);
	assert_int_equal(out.run, 0);
	assert_int_equal(out.id, id_solo);

	/* A short read is not the error state: still an I/O error. */
	fake_fd(tally_evsel__fd(solo, 0, 0), &junk, sizeof(junk));
	assert_int_equal(tally_evsel__read(solo, 0, 0, &out), -EIO);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_groups),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_enable_disable_reset_delta),
		cmocka_unit_test(test_own_cpus),
		cmocka_unit_test(test_bad_open),
		cmocka_unit_test(test_raises_nofile),
		cmocka_unit_test(test_add_parsed),
		cmocka_unit_test(test_weak_group),
		cmocka_unit_test(test_one_read_per_group),
		cmocka_unit_test(test_exclude_guest_fallback),
		cmocka_unit_test(test_big_group),
		cmocka_unit_test(test_thread_gone),
		cmocka_unit_test(test_paranoid_fallback),
		cmocka_unit_test(test_inherit_group_read),
		cmocka_unit_test(test_error_state_read_is_not_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
