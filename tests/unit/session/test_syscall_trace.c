// SPDX-License-Identifier: MIT
/* syscall_trace.c: pairing enters with exits per thread, never wrongly, and perf's -s numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include <tally/syscall_trace.h>
#include <tally/syscalls.h>

#define GETPID	39
#define OPENAT	257
#define READ	0
#define RT_SIGRETURN	15
#define EXECVE	59
#define FUTEX	202
#define CLONE3	435

static const uint64_t args[6] = { 1, 2, 3, 4, 5, 6 };

static void test_pairs(void **state)
{
	struct tally_sc_tracer *t = tally_sc_tracer__new();
	struct tally_sc_call c, u;

	(void)state;
	assert_non_null(t);
	assert_int_equal(tally_sc_tracer__enter(t, 10, 100, OPENAT, args, false, &u), 0);
	/* another thread in between does not disturb it */
	assert_int_equal(tally_sc_tracer__enter(t, 11, 110, GETPID, args, false, &u), 0);
	assert_non_null(tally_sc_tracer__open_call(t, 10));
	assert_int_equal(tally_sc_tracer__exit(t, 10, 150, OPENAT, 3, &c, &u), 1);
	assert_true(c.has_enter && c.has_exit);
	assert_int_equal(c.tid, 10);
	assert_int_equal(c.enter_time, 100);
	assert_int_equal(c.exit_time, 150);
	assert_int_equal(c.ret, 3);
	assert_memory_equal(c.args, args, sizeof(args));
	assert_null(tally_sc_tracer__open_call(t, 10));
	assert_int_equal(tally_sc_tracer__exit(t, 11, 160, GETPID, 11, &c, &u), 1);
	assert_int_equal(c.tid, 11);
	assert_int_equal(c.enter_time, 110);
	assert_int_equal(tally_sc_tracer__events(t, 10), 2);
	assert_int_equal(tally_sc_tracer__events(t, -1), 4);
	tally_sc_tracer__free(t);
}

static void test_unpaired(void **state)
{
	struct tally_sc_tracer *t = tally_sc_tracer__new();
	struct tally_sc_call c, u;

	(void)state;
	/* an exit whose enter came before the trace: a call with no start */
	assert_int_equal(tally_sc_tracer__exit(t, 10, 50, 59 /* execve */, 0, &c, &u), 1);
	assert_false(c.has_enter);
	assert_true(c.has_exit);
	/* an enter whose exit was lost: the next enter reports it alone */
	tally_sc_tracer__enter(t, 10, 100, READ, args, false, &u);
	assert_int_equal(tally_sc_tracer__enter(t, 10, 200, GETPID, args, false, &u), 1);
	assert_int_equal(u.nr, READ);
	assert_int_equal(u.enter_time, 100);
	assert_false(u.has_exit);
	/* an exit of another syscall than the open one: both alone, never paired */
	memset(&c, 0, sizeof(c));
	assert_int_equal(tally_sc_tracer__exit(t, 10, 300, OPENAT, -2, &c, &u), 3);
	assert_int_equal(u.nr, GETPID);
	assert_int_equal(c.nr, OPENAT);
	assert_false(c.has_enter);
	/* exit/exit_group: nothing stays open */
	assert_int_equal(tally_sc_tracer__enter(t, 10, 400, 231, args, true, &u), 0);
	assert_null(tally_sc_tracer__open_call(t, 10));
	tally_sc_tracer__free(t);
}

static void on_open(void *priv, const struct tally_sc_call *c)
{
	int *n = priv;

	assert_true(c->after_lost);
	(*n)++;
}

static void test_lost(void **state)
{
	struct tally_sc_tracer *t = tally_sc_tracer__new();
	struct tally_sc_call c, u;
	int n = 0;

	(void)state;
	tally_sc_tracer__enter(t, 10, 100, READ, args, false, &u);
	tally_sc_tracer__enter(t, 11, 100, READ, args, false, &u);
	tally_sc_tracer__enter(t, 12, 50, GETPID, args, false, &u);
	tally_sc_tracer__exit(t, 12, 60, GETPID, 12, &c, &u);
	tally_sc_tracer__lost(t, 5);
	assert_int_equal(tally_sc_tracer__nr_lost(t), 5);
	tally_sc_tracer__for_each_open(t, on_open, &n);
	assert_int_equal(n, 2);
	/* the calls cut by the loss say so */
	tally_sc_tracer__exit(t, 10, 150, READ, 1, &c, &u);
	assert_true(c.after_lost);
	tally_sc_tracer__exit(t, 12, 150, READ, 1, &c, &u);
	assert_true(c.after_lost && !c.has_enter);
	/* a thread's first record is no loss: a child's return from clone */
	tally_sc_tracer__exit(t, 13, 150, 435 /* clone3 */, 0, &c, &u);
	assert_false(c.after_lost);
	/* a call begun after the loss is whole */
	tally_sc_tracer__enter(t, 10, 200, READ, args, false, &u);
	tally_sc_tracer__exit(t, 10, 250, READ, 1, &c, &u);
	assert_false(c.after_lost);
	tally_sc_tracer__free(t);
}

static void test_stats(void **state)
{
	struct tally_sc_tracer *t = tally_sc_tracer__new();
	const struct tally_sc_stats *s;
	struct tally_sc_call c, u;
	/* durations 1, 2, 3, 6 ms; the last two fail */
	const uint64_t d[] = { 1000000, 2000000, 3000000, 6000000 };
	const int64_t r[] = { 3, 3, -2, -13 };
	double mean = 3e6, var = (4e12 + 1e12 + 0 + 9e12) / 3;
	pid_t tids[4];

	(void)state;
	for (int i = 0; i < 4; i++) {
		tally_sc_tracer__enter(t, 10, 1000000000ull * i, OPENAT, args, false, &u);
		tally_sc_tracer__exit(t, 10, 1000000000ull * i + d[i], OPENAT, r[i], &c, &u);
	}
	/* a call without its enter counts, with no duration (as perf) */
	tally_sc_tracer__exit(t, 20, 5, GETPID, 20, &c, &u);
	s = tally_sc_tracer__stats(t, 10, OPENAT);
	assert_non_null(s);
	assert_int_equal(s->calls, 4);
	assert_int_equal(s->errors, 2);
	assert_int_equal(s->errnos[2], 1);
	assert_int_equal(s->errnos[13], 1);
	assert_int_equal(s->total_ns, 12000000);
	assert_int_equal(s->min_ns, 1000000);
	assert_int_equal(s->max_ns, 6000000);
	assert_true(fabs(s->mean - mean) < 1e-3);
	/* perf's stddev: the standard error of the mean, in % of the mean */
	assert_true(fabs(tally_sc_stats__stddev_pct(s) - 100.0 * sqrt(var / 4) / mean) < 1e-9);
	assert_null(tally_sc_tracer__stats(t, 10, GETPID));
	s = tally_sc_tracer__stats(t, 20, GETPID);
	assert_int_equal(s->calls, 1);
	assert_int_equal(s->total_ns, 0);
	assert_true(tally_sc_stats__stddev_pct(s) == 0.0);
	assert_int_equal(tally_sc_tracer__threads(t, tids, 4), 2);
	assert_int_equal(tids[0], 10);
	assert_int_equal(tids[1], 20);
	tally_sc_tracer__free(t);
}

/* Many threads: the table grows and every thread keeps its own call. */
/* rt_sigreturn's exit says syscall -1: it ends rt_sigreturn, one call */
static void test_sigreturn(void **state)
{
	struct tally_sc_tracer *t = tally_sc_tracer__new();
	struct tally_sc_call c, u;

	(void)state;
	tally_sc_tracer__enter(t, 10, 100, RT_SIGRETURN, args, false, &u);
	assert_int_equal(tally_sc_tracer__exit(t, 10, 120, -1, 19788, &c, &u), 1);
	assert_true(c.has_enter);
	assert_int_equal(c.nr, RT_SIGRETURN);
	assert_int_equal(c.ret, 19788);
	assert_int_equal(tally_sc_tracer__stats(t, 10, RT_SIGRETURN)->calls, 1);
	/* -1 after another call is no pair */
	tally_sc_tracer__enter(t, 10, 200, GETPID, args, false, &u);
	assert_int_equal(tally_sc_tracer__exit(t, 10, 220, -1, 0, &c, &u), 3);
	tally_sc_tracer__free(t);
}

/* a call counts once, as strace -c counts it: a child's return from clone is no call */
static void test_clone_once(void **state)
{
	struct tally_sc_tracer *t = tally_sc_tracer__new();
	struct tally_sc_call c, u;

	(void)state;
	tally_sc_tracer__enter(t, 10, 100, CLONE3, args, false, &u);
	/* the child returns first, 0, with no enter of its own */
	assert_int_equal(tally_sc_tracer__exit(t, 11, 110, CLONE3, 0, &c, &u), 1);
	assert_false(c.has_enter);
	assert_int_equal(tally_sc_tracer__exit(t, 10, 120, CLONE3, 11, &c, &u), 1);
	assert_int_equal(tally_sc_tracer__stats(t, 10, CLONE3)->calls, 1);
	assert_null(tally_sc_tracer__stats(t, 11, CLONE3));
	/* the execve tracing began in, returning with no enter: still a call */
	tally_sc_tracer__exit(t, 12, 130, EXECVE, 0, &c, &u);
	assert_int_equal(tally_sc_tracer__stats(t, 12, EXECVE)->calls, 1);
	tally_sc_tracer__free(t);
}

/* a thread but the leader execs: its execve returns as the leader */
static void test_thread_exec(void **state)
{
	struct tally_sc_tracer *t = tally_sc_tracer__new();
	struct tally_sc_call c, u;

	(void)state;
	tally_sc_tracer__enter(t, 10, 100, FUTEX, args, false, &u);
	tally_sc_tracer__enter(t, 11, 110, EXECVE, args, false, &u);
	/* the leader's futex, ended by the exec, then the execve as the leader */
	assert_int_equal(tally_sc_tracer__exit(t, 10, 150, EXECVE, 0, &c, &u), 3);
	assert_int_equal(u.nr, FUTEX);
	assert_true(c.has_enter);
	assert_int_equal(c.tid, 11);
	assert_int_equal(c.enter_time, 110);
	assert_null(tally_sc_tracer__open_call(t, 11));
	assert_null(tally_sc_tracer__open_call(t, 10));
	assert_int_equal(tally_sc_tracer__stats(t, 11, EXECVE)->calls, 1);
	assert_null(tally_sc_tracer__stats(t, 10, EXECVE));
	/* a failed execve elsewhere is no one else's */
	tally_sc_tracer__enter(t, 12, 200, EXECVE, args, false, &u);
	tally_sc_tracer__exit(t, 13, 210, EXECVE, -2, &c, &u);
	assert_false(c.has_enter);
	assert_non_null(tally_sc_tracer__open_call(t, 12));
	tally_sc_tracer__free(t);
}

static void test_many_threads(void **state)
{
	struct tally_sc_tracer *t = tally_sc_tracer__new();
	struct tally_sc_call c, u;

	(void)state;
	for (pid_t tid = 1; tid <= 3000; tid++)
		tally_sc_tracer__enter(t, tid, (uint64_t)tid, GETPID, args, false, &u);
	for (pid_t tid = 3000; tid >= 1; tid--) {
		assert_int_equal(tally_sc_tracer__exit(t, tid, 10000, GETPID, tid, &c, &u), 1);
		assert_true(c.has_enter);
		assert_int_equal(c.enter_time, (uint64_t)tid);
	}
	assert_int_equal(tally_sc_tracer__threads(t, NULL, 0), 3000);
	tally_sc_tracer__free(t);
}

/* The cases use x86-64's syscall numbers, whatever the host. */
static int setup(void **state)
{
	(void)state;
	return tally_syscall__set_arch("x86_64");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_unpaired),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_many_threads),
		cmocka_unit_test(test_sigreturn),
		cmocka_unit_test(test_clone_once),
		cmocka_unit_test(test_thread_exec),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
