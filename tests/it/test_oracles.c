// SPDX-License-Identifier: MIT
/*
 * Exact-count oracles through the library on the real kernel, with the
 * events that work without a hardware PMU: syscall tracepoints,
 * breakpoints, uprobes, software page faults; a group read; system-wide
 * and inherited counting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <sys/syscall.h>
#include <cmocka.h>
#include "oracle_util.h"

#define N 1000

/* Count attr on this thread around fn(n). */
static int count_self(struct perf_event_attr *a, void (*fn)(long), long n, uint64_t *val)
{
	struct tally_thread_map *tm = tally_thread_map__new_pid((pid_t)syscall(SYS_gettid));
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *e;
	const struct tally_counts *c;
	int err;

	a->disabled = 1;
	e = tally_evsel__new(a, NULL);
	tally_evlist__add(l, e);
	err = tally_evlist__open(l, NULL, tm, NULL);
	if (!err) {
		tally_evlist__enable(l);
		fn(n);
		tally_evlist__disable(l);
		err = tally_evlist__read(l);
		c = tally_evsel__counts(e, 0, 0);
		*val = c->val;
		/* A lone event never multiplexes here: enabled == running. */
		if (!err && c->ena != c->run)
			err = -EIO;
	}
	tally_evlist__free(l);
	tally_thread_map__put(tm);
	return err;
}

static void do_getpid(long n)
{
	for (long i = 0; i < n; i++)
		syscall(SYS_getpid);
}

static volatile uint64_t var;

static void do_writes(long n)
{
	for (long i = 0; i < n; i++)
		var = (uint64_t)i;
}

static void test_getpid_self(void **state)
{
	struct perf_event_attr a;
	uint64_t v = 0;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	assert_int_equal(count_self(&a, do_getpid, N, &v), 0);
	assert_int_equal(v, N);
	assert_int_equal(count_self(&a, do_getpid, 0, &v), 0);
	assert_int_equal(v, 0);
}

static void test_getpid_workload(void **state)
{
	struct perf_event_attr a;
	struct tally_counts c;
	char *args[] = { "getpid", "4321", NULL };
	int code;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid") || !have_helper())
		skip();
	assert_int_equal(count_workload(&a, args, &c, &code), 0);
	assert_int_equal(code, 0);
	assert_int_equal(c.val, 4321);
	assert_true(c.ena > 0 && c.ena == c.run);
}

static void test_breakpoint_self(void **state)
{
	struct perf_event_attr a;
	uint64_t v = 0;
	int err;

	bp_attr(&a, (uint64_t)(uintptr_t)&var);
	err = count_self(&a, do_writes, N, &v);
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENOSPC)
		skip();
	assert_int_equal(err, 0);
	assert_int_equal(v, N);
}

static void test_breakpoint_workload(void **state)
{
	struct perf_event_attr a;
	struct tally_counts c;
	char *args[] = { "write", "2500", NULL };
	uint64_t addr;
	int err;

	if (!have_helper())
		skip();
	addr = helper_target_addr();
	assert_true(addr != 0);
	bp_attr(&a, addr);
	err = count_workload(&a, args, &c, NULL);
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENOSPC)
		skip();
	assert_int_equal(err, 0);
	assert_int_equal(c.val, 2500);
}

static void uprobe_count(bool ret)
{
	struct perf_event_attr a;
	struct tally_counts c;
	char *args[] = { "call", "777", NULL };
	int type = uprobe_type();
	uint64_t off;
	int err;

	if (type < 0 || !have_helper())
		skip();
	off = elf_sym_offset(helper_path(), "tally_target_fn");
	assert_true(off != 0);
	tally_attr__init(&a, (uint32_t)type, ret ? 1 : 0);	/* bit 0: retprobe */
	a.config1 = (uint64_t)(uintptr_t)helper_path();	/* uprobe_path */
	a.config2 = off;				/* probe_offset */
	err = count_workload(&a, args, &c, NULL);
	if (err == -ENOENT || err == -EOPNOTSUPP)
		skip();
	assert_int_equal(err, 0);
	assert_int_equal(c.val, 777);
}

static void test_uprobe(void **state)
{
	uprobe_count(false);
}

static void test_uretprobe(void **state)
{
	uprobe_count(true);
}

static void test_page_faults(void **state)
{
	struct perf_event_attr a;
	struct tally_counts c;
	char *args[] = { "pages", "300", NULL };

	if (!have_helper())
		skip();
	tally_attr__init(&a, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(count_workload(&a, args, &c, NULL), 0);
	assert_true(c.val >= 300);
}

/*
 * {task-clock, getpid, page-faults} as one group on a workload: one read
 * per group, every member with the same time_enabled, values by id.
 */
static void test_group_read(void **state)
{
	struct perf_event_attr a[3];
	char *argv[] = { (char *)helper_path(), "getpid", "1234", NULL };
	struct tally_workload *wl;
	struct tally_thread_map *tm;
	struct tally_evlist *l;
	struct tally_evsel *e[3];
	const struct tally_counts *c[3];
	int st;

	if (!tp_attr(&a[1], "syscalls", "sys_enter_getpid") || !have_helper())
		skip();
	tally_attr__init(&a[0], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	tally_attr__init(&a[2], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	wl = tally_workload__new(argv);
	assert_non_null(wl);
	tm = tally_thread_map__new_pid(tally_workload__pid(wl));
	l = tally_evlist__new();
	for (int i = 0; i < 3; i++) {
		e[i] = tally_evsel__new(&a[i], NULL);
		tally_evlist__add(l, e[i]);
	}
	assert_int_equal(tally_evlist__set_group(l, e[0], 3), 0);
	tally_evlist__set_attr_bits(l, true, true, false);
	assert_int_equal(tally_evlist__open(l, NULL, tm, NULL), 0);
	assert_true(tally_evsel__attr(e[0])->read_format & PERF_FORMAT_GROUP);
	assert_false(tally_evsel__attr(e[1])->read_format & PERF_FORMAT_GROUP);
	/* Only the leader carries disabled/enable_on_exec. */
	assert_int_equal(tally_evsel__attr(e[0])->enable_on_exec, 1);
	assert_int_equal(tally_evsel__attr(e[1])->enable_on_exec, 0);
	assert_int_equal(tally_workload__start(wl), 0);
	assert_int_equal(tally_workload__wait(wl, &st, NULL), 0);
	assert_int_equal(tally_evlist__read(l), 0);
	for (int i = 0; i < 3; i++) {
		uint64_t id;

		c[i] = tally_evsel__counts(e[i], 0, 0);
		assert_int_equal(tally_evsel__id(e[i], 0, 0, &id), 0);
		assert_true(c[i]->id == id);	/* landed by id */
		assert_ptr_equal(tally_evlist__find_id(l, id), e[i]);
	}
	assert_true(c[0]->ena > 0);
	assert_true(c[0]->ena == c[1]->ena && c[1]->ena == c[2]->ena);
	assert_true(c[0]->run == c[1]->run && c[1]->run == c[2]->run);
	assert_true(c[0]->val > 0);		/* task-clock ns */
	assert_int_equal(c[1]->val, 1234);	/* getpid */
	assert_true(c[2]->val > 0);		/* page faults of exec */
	tally_evlist__free(l);
	tally_thread_map__put(tm);
	tally_workload__free(wl);
}

/* System-wide on every online CPU: our own getpids are among the counted. */
static void test_system_wide(void **state)
{
	struct perf_event_attr a;
	struct tally_cpu_map *cpus = tally_cpu_map__new_online();
	struct tally_thread_map *any = tally_thread_map__new_any();
	struct tally_evlist *l = tally_evlist__new();
	struct tally_evsel *e;
	struct tally_aggr *g, *pc;
	uint64_t sum = 0;
	int n, err;

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid"))
		skip();
	a.disabled = 1;
	e = tally_evsel__new(&a, NULL);
	tally_evlist__add(l, e);
	err = tally_evlist__open(l, cpus, any, NULL);
	if (err == -EACCES || err == -EPERM)
		skip();
	assert_int_equal(err, 0);
	assert_int_equal(tally_evsel__nr_cpus(e), tally_cpu_map__nr(cpus));
	assert_int_equal(tally_evsel__nr_threads(e), 1);
	tally_evlist__enable(l);
	do_getpid(N);
	tally_evlist__disable(l);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__aggregate(e, TALLY_AGGR_GLOBAL, NULL, false, &g), 1);
	assert_true(g[0].counts.val >= N);
	assert_int_equal(g[0].nr, tally_cpu_map__nr(cpus));
	n = tally_evsel__aggregate(e, TALLY_AGGR_CPU, NULL, false, &pc);
	assert_int_equal(n, tally_cpu_map__nr(cpus));
	for (int i = 0; i < n; i++) {
		assert_int_equal(pc[i].key, tally_cpu_map__cpu(cpus, i).cpu);
		sum += pc[i].counts.val;
	}
	assert_true(sum == g[0].counts.val);
	free(g);
	free(pc);
	tally_evlist__free(l);
	tally_cpu_map__put(cpus);
	tally_thread_map__put(any);
}

/* inherit: threads created by the workload are counted too. */
static void test_inherit_threads(void **state)
{
	struct perf_event_attr a;
	struct tally_counts c;
	char *args[] = { "threads", "4", "500", NULL };

	if (!tp_attr(&a, "syscalls", "sys_enter_getpid") || !have_helper())
		skip();
	a.inherit = 1;
	assert_int_equal(count_workload(&a, args, &c, NULL), 0);
	assert_int_equal(c.val, 4 * 500);
}

/* A group read with inherit (perf stat's default for a workload): children summed. */
static void test_group_inherit(void **state)
{
	struct perf_event_attr a[2];
	char *argv[] = { (char *)helper_path(), "threads", "3", "400", NULL };
	struct tally_workload *wl;
	struct tally_thread_map *tm;
	struct tally_evlist *l;
	struct tally_evsel *e[2];
	int st, err;

	if (!tp_attr(&a[1], "syscalls", "sys_enter_getpid") || !have_helper())
		skip();
	tally_attr__init(&a[0], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	wl = tally_workload__new(argv);
	assert_non_null(wl);
	tm = tally_thread_map__new_pid(tally_workload__pid(wl));
	l = tally_evlist__new();
	for (int i = 0; i < 2; i++) {
		e[i] = tally_evsel__new(&a[i], NULL);
		tally_evlist__add(l, e[i]);
	}
	assert_int_equal(tally_evlist__set_group(l, e[0], 2), 0);
	tally_evlist__set_attr_bits(l, true, true, true);
	err = tally_evlist__open(l, NULL, tm, NULL);
	assert_int_equal(err, 0);
	assert_int_equal(tally_workload__start(wl), 0);
	assert_int_equal(tally_workload__wait(wl, &st, NULL), 0);
	assert_int_equal(tally_evlist__read(l), 0);
	assert_int_equal(tally_evsel__counts(e[1], 0, 0)->val, 3 * 400);
	assert_true(tally_evsel__counts(e[0], 0, 0)->ena == tally_evsel__counts(e[1], 0, 0)->ena);
	tally_evlist__free(l);
	tally_thread_map__put(tm);
	tally_workload__free(wl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_getpid_self),
		cmocka_unit_test(test_getpid_workload),
		cmocka_unit_test(test_breakpoint_self),
		cmocka_unit_test(test_breakpoint_workload),
		cmocka_unit_test(test_uprobe),
		cmocka_unit_test(test_uretprobe),
		cmocka_unit_test(test_page_faults),
		cmocka_unit_test(test_group_read),
		cmocka_unit_test(test_system_wide),
		cmocka_unit_test(test_inherit_threads),
		cmocka_unit_test(test_group_inherit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
