// SPDX-License-Identifier: MIT
/* The stacks model: frames and stacks deduplicated, counts per (thread,
 * stack), collapsed stacks exact, every writer's output well formed,
 * bad arguments refused. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/stacks.h>
#include "stacks_internal.h"

static int frame(struct tally_stacks *s, const char *name, const char *dso, bool k)
{
	struct tally_stack_frame f = { .name = name, .dso = dso, .kernel = k, .addr = 0x10,
				       .map_start = 0x400000, .map_end = 0x500000 };

	return tally_stacks__frame(s, &f);
}

/* root first */
static int stack(struct tally_stacks *s, const char *const *names, int n)
{
	int node = -1;

	for (int i = 0; i < n; i++)
		node = tally_stacks__push(s, node, frame(s, names[i], "/bin/prog", false));
	return node;
}

static char *capture(struct tally_stacks *s, int (*fn)(const struct tally_stacks *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	assert_non_null(m);
	assert_int_equal(fn(s, m), 0);
	fclose(m);
	return buf;
}

static void test_dedup(void **state)
{
	struct tally_stacks *s = tally_stacks__new();
	struct tally_stack_frame unres = { .name = NULL, .dso = "/bin/prog", .addr = 0x1234 };
	struct tally_stack_frame unres2 = { .name = NULL, .dso = "/bin/prog", .addr = 0x5678 };
	int a = frame(s, "main", "/bin/prog", false);

	assert_true(a >= 0);
	assert_int_equal(frame(s, "main", "/bin/prog", false), a);
	assert_int_not_equal(frame(s, "main", "/lib/other.so", false), a);
	assert_int_not_equal(frame(s, "main", "/bin/prog", true), a);
	/* unresolved frames are their address */
	assert_int_equal(tally_stacks__frame(s, &unres), tally_stacks__frame(s, &unres));
	assert_int_not_equal(tally_stacks__frame(s, &unres), tally_stacks__frame(s, &unres2));
	/* a stack is its path: the same path, the same node */
	static const char *const p1[] = { "main", "f", "g" }, *const p2[] = { "main", "f", "h" };
	int n1 = stack(s, p1, 3), n2 = stack(s, p2, 3);

	assert_true(n1 >= 0 && n2 >= 0 && n1 != n2);
	assert_int_equal(stack(s, p1, 3), n1);
	tally_stacks__free(s);
}

static void test_folded(void **state)
{
	struct tally_stacks *s = tally_stacks__new();
	static const char *const p1[] = { "main", "f" }, *const p2[] = { "main", "g" };
	int t1 = tally_stacks__thread(s, 10, 10, "prog"), t2 = tally_stacks__thread(s, 10, 11, "prog");
	int t3 = tally_stacks__thread(s, 20, 20, "other");
	int n1 = stack(s, p1, 2), n2 = stack(s, p2, 2);
	int k = tally_stacks__push(s, n1, frame(s, "sys_read", "[kernel.kallsyms]", true));
	char *out;

	assert_int_equal(tally_stacks__thread(s, 10, 10, "prog"), t1);
	assert_int_equal(tally_stacks__sample(s, t1, n1, 3, 300), 0);
	/* two threads of one command: one line */
	assert_int_equal(tally_stacks__sample(s, t2, n1, 2, 200), 0);
	assert_int_equal(tally_stacks__sample(s, t3, n2, 1, 100), 0);
	assert_int_equal(tally_stacks__sample(s, t1, k, 4, 400), 0);
	assert_int_equal(tally_stacks__samples(s), 10);
	out = capture(s, tally_stacks__write_folded);
	assert_string_equal(out, "other;main;g 1\nprog;main;f 5\nprog;main;f;sys_read_[k] 4\n");
	free(out);
	tally_stacks__free(s);
}

static void test_writers(void **state)
{
	struct tally_stacks *s = tally_stacks__new();
	static const char *const p[] = { "main", "work & <stuff>" };
	struct tally_stacks_info info = { .event = "cpu-clock", .unit = "nanoseconds",
					  .period = 1000, .command = "prog \"x\"" };
	int t = tally_stacks__thread(s, 1, 1, "prog"), n = stack(s, p, 2);
	char *out;

	assert_int_equal(tally_stacks__sample(s, t, n, 7, 7000), 0);
	for (int i = 0; i < 7; i++)
		assert_int_equal(tally_stacks__timed_weight(s, t, n, 5000000 + 1000 * i, 1000), 0);
	assert_int_equal(tally_stacks__set_info(s, &info), 0);
	out = capture(s, tally_stacks__write_speedscope);
	/* a run of one stack is one sample of the run's weight */
	assert_non_null(strstr(out, "\"samples\":[[0,1]],\"weights\":[7000]"));
	assert_non_null(strstr(out, "work & <stuff>"));
	assert_non_null(strstr(out, "\"exporter\":\"tally@"));
	assert_non_null(strstr(out, "\"name\":\"prog \\\"x\\\" (cpu-clock)\""));
	free(out);
	out = capture(s, tally_stacks__write_firefox);
	assert_non_null(strstr(out, "\"stackTable\""));
	assert_non_null(strstr(out, "[1,0.000000,0]"));
	free(out);
	out = capture(s, tally_stacks__write_pprof);
	assert_true((unsigned char)out[0] == 0x1f && (unsigned char)out[1] == 0x8b);	/* gzip */
	free(out);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		assert_int_equal(tally_stacks__write_svg(s, m, "a <title>"), 0);
		assert_int_equal(tally_stacks__write_html(s, m, "a page"), 0);
		fclose(m);
		/* names are escaped: no raw markup from the data */
		assert_non_null(strstr(buf, "work &amp; &lt;stuff&gt;"));
		assert_null(strstr(buf, "<stuff>"));
		free(buf);
	}
	tally_stacks__free(s);
}

/* s's flame graph, written with the threads env allows */
static char *svg_of(struct tally_stacks *s, const char *threads, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);

	assert_non_null(m);
	if (threads)
		setenv("TALLY_THREADS", threads, 1);
	assert_int_equal(tally_stacks__write_svg(s, m, "wide"), 0);
	unsetenv("TALLY_THREADS");
	fclose(m);
	return buf;
}

/*
 * A graph of thousands of frames is drawn on two threads, its second
 * half into memory: the same file, byte for byte, frames in order.
 */
static void test_svg_halves(void **state)
{
	struct tally_stacks *s = tally_stacks__new();
	int t = tally_stacks__thread(s, 1, 1, "prog");
	char name[32], *one, *two;
	size_t n1, n2;

	(void)state;
	for (int i = 0; i < 3000; i++) {
		const char *p[] = { "main", i % 2 ? "odd" : "even", name };

		snprintf(name, sizeof(name), "leaf_%04d", i);
		assert_int_equal(tally_stacks__sample(s, t, stack(s, p, 3), 1 + i % 5, 1), 0);
	}
	one = svg_of(s, "1", &n1);
	two = svg_of(s, NULL, &n2);
	assert_true(n1 > 100000);
	assert_int_equal(n1, n2);
	assert_memory_equal(one, two, n1);
	/* the last frame drawn is the last: the halves joined in order */
	assert_non_null(strstr(two, "leaf_2999"));
	assert_true(strstr(two, "id=\"f3002\"") > strstr(two, "id=\"f1502\""));
	free(one);
	free(two);
	tally_stacks__free(s);
}

/*
 * speedscope: each thread's samples in time order (its Time Order view),
 * not merged by stack; the file opens on the busiest thread; without a
 * timeline, each stack once.
 */
static void test_speedscope_order(void **state)
{
	static const char *const a[] = { "main", "phase_a" }, *const b[] = { "main", "phase_b" };
	struct tally_stacks *s = tally_stacks__new();
	struct tally_stacks_info info = { .event = "cpu-clock", .unit = "nanoseconds" };
	int t0 = tally_stacks__thread(s, 1, 1, "prog"), t1 = tally_stacks__thread(s, 1, 2, "worker");
	int na = stack(s, a, 2), nb = stack(s, b, 2);
	/* (thread, stack) in time order: the worker runs a, b, then a again */
	const int seq[][2] = { { t0, na }, { t1, na }, { t1, na }, { t1, nb }, { t0, nb }, { t1, na } };
	char *out;

	for (size_t i = 0; i < sizeof(seq) / sizeof(*seq); i++) {
		assert_int_equal(tally_stacks__sample(s, seq[i][0], seq[i][1], 1, 1000), 0);
		assert_int_equal(tally_stacks__timed_weight(s, seq[i][0], seq[i][1], 100 * i, 1000), 0);
	}
	assert_int_equal(tally_stacks__set_info(s, &info), 0);
	out = capture(s, tally_stacks__write_speedscope);
	assert_non_null(strstr(out, "\"activeProfileIndex\":1,"));
	assert_non_null(strstr(out, "\"name\":\"prog (1)\",\"unit\":\"nanoseconds\",\"startValue\":0,"
				    "\"endValue\":2000,\"samples\":[[0,1],[0,2]],\"weights\":[1000,1000]}"));
	assert_non_null(strstr(out, "\"name\":\"worker (2)\",\"unit\":\"nanoseconds\",\"startValue\":0,"
				    "\"endValue\":4000,\"samples\":[[0,1],[0,2],[0,1]],"
				    "\"weights\":[2000,1000,1000]}"));
	free(out);
	/* a count event: a sample weighs one */
	info.unit = "count";
	assert_int_equal(tally_stacks__set_info(s, &info), 0);
	out = capture(s, tally_stacks__write_speedscope);
	assert_non_null(strstr(out, "\"unit\":\"none\",\"startValue\":0,\"endValue\":4,"
				    "\"samples\":[[0,1],[0,2],[0,1]],\"weights\":[2,1,1]}"));
	free(out);
	tally_stacks__free(s);

	/* no timeline: each (thread, stack) once, the busiest still first shown */
	s = tally_stacks__new();
	t0 = tally_stacks__thread(s, 1, 1, "prog");
	t1 = tally_stacks__thread(s, 1, 2, "worker");
	na = stack(s, a, 2);
	nb = stack(s, b, 2);
	for (size_t i = 0; i < sizeof(seq) / sizeof(*seq); i++)
		assert_int_equal(tally_stacks__sample(s, seq[i][0], seq[i][1], 1, 1000), 0);
	assert_int_equal(tally_stacks__set_info(s, &info), 0);
	out = capture(s, tally_stacks__write_speedscope);
	assert_non_null(strstr(out, "\"activeProfileIndex\":1,"));
	assert_non_null(strstr(out, "\"samples\":[[0,1],[0,2]],\"weights\":[3,1]}"));
	free(out);
	tally_stacks__free(s);
}

/*
 * 0.2's calls keep their meaning: tally_stacks__timed weighs a sample 1,
 * tally_stacks__frame is the function without a line; frame_at's lines of
 * one function are distinct handles drawn as one function.
 */
static void test_abi_0_2_calls(void **state)
{
	static const char *const a[] = { "main", "f" };
	struct tally_stacks *s = tally_stacks__new();
	struct tally_stacks_info info = { .event = "cpu-clock", .unit = "nanoseconds" };
	struct tally_stack_frame f = { .name = "g", .dso = "/bin/prog", .addr = 0x20 };
	int t = tally_stacks__thread(s, 1, 1, "prog"), n = stack(s, a, 2);
	int l1, l2, plain;
	char *out;

	assert_int_equal(tally_stacks__sample(s, t, n, 3, 3000), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(tally_stacks__timed(s, t, n, 100 * i), 0);
	assert_int_equal(tally_stacks__set_info(s, &info), 0);
	out = capture(s, tally_stacks__write_speedscope);
	assert_non_null(strstr(out, "\"samples\":[[0,1]],\"weights\":[3]}"));
	free(out);
	plain = tally_stacks__frame(s, &f);
	l1 = tally_stacks__frame_at(s, &f, "g.c", 10);
	l2 = tally_stacks__frame_at(s, &f, "g.c", 11);
	assert_true(plain >= 0 && l1 >= 0 && l2 >= 0);
	assert_int_not_equal(l1, l2);
	assert_int_not_equal(plain, l1);
	assert_int_equal(tally_stacks__frame_at(s, &f, "g.c", 10), l1);
	assert_int_equal(tally_stacks__frame_at(s, &f, NULL, 0), plain);
	assert_int_equal(tally_stacks__sample(s, t, tally_stacks__push(s, -1, l1), 1, 1), 0);
	assert_int_equal(tally_stacks__sample(s, t, tally_stacks__push(s, -1, l2), 1, 1), 0);
	out = capture(s, tally_stacks__write_folded);
	assert_non_null(strstr(out, "g 2\n"));
	free(out);
	tally_stacks__free(s);
}

static void test_bad_args(void **state)
{
	struct tally_stacks *s = tally_stacks__new();
	int f = frame(s, "main", NULL, false);

	assert_int_equal(tally_stacks__push(s, -1, 99), -EINVAL);
	assert_int_equal(tally_stacks__push(s, 5, f), -EINVAL);
	assert_int_equal(tally_stacks__push(s, -2, f), -EINVAL);
	assert_int_equal(tally_stacks__sample(s, 0, 0, 1, 1), -EINVAL);	/* no thread yet */
	assert_int_equal(tally_stacks__frame(NULL, NULL), -EINVAL);
	assert_int_equal(tally_stacks__write_folded(NULL, stdout), -EINVAL);
	assert_int_equal(tally_stacks__write_svg_diff(NULL, s, stdout, "x"), -EINVAL);
	/* an empty model writes empty, valid pictures */
	char *out = capture(s, tally_stacks__write_folded);

	assert_string_equal(out, "");
	free(out);
	out = capture(s, tally_stacks__write_speedscope);
	assert_non_null(strstr(out, "\"profiles\":[]"));
	free(out);
	tally_stacks__free(s);
	tally_stacks__free(NULL);
}

/*
 * The flame graph of the stacks, in order; fresh: each one's command a
 * copy of its own (an equal name at another pointer: the same node, but
 * no walk of the last stack's path again, so each stack from the root).
 */
static char *flame_of(const char *const (*st)[5], const char *const *comm, const bool (*kern)[5],
		      const size_t *n, size_t ns, bool fresh, size_t *len)
{
	struct tally__flame *f = tally__flame_new();
	char *buf = NULL, *copies[16];
	FILE *fp;

	assert_non_null(f);
	assert_true(ns <= 16);
	for (size_t i = 0; i < ns; i++) {
		copies[i] = strdup(comm[i]);
		assert_int_equal(tally__flame_stack(f, fresh ? copies[i] : comm[i], st[i], kern[i],
						    n[i], 1 + i), 0);
	}
	fp = open_memstream(&buf, len);
	assert_non_null(fp);
	assert_int_equal(tally__flame_write(f, fp, "t"), 0);
	fclose(fp);
	tally__flame_free(f);
	for (size_t i = 0; i < ns; i++)
		free(copies[i]);
	return buf;
}

/*
 * A stack walks the last one's nodes again where they share their root
 * part (the same command, text pointer and kind): the graph is the one
 * each stack walked from the root makes. A kernel frame of the same name
 * is another node; an equal name at another pointer the same node.
 */
static void test_flame_shared_paths(void **state)
{
	static char main_copy[] = "main";
	static const char *const st[][5] = {
		{ "main", "f", "g" }, { "main", "f", "h" }, { "main", "f" },
		{ "main", "f", "g", "k" }, { "main", "f" }, { "main", "f", "g" },
		{ main_copy, "f", NULL, "x" }, { "main", "f", "g" }, { 0 }, { "main", "f", "g" },
	};
	static const char *const comm[] = { "a", "a", "a", "a", "a", "b", "a", "a", "a", "a" };
	static const bool kern[][5] = {
		{ 0 }, { 0 }, { 0 }, { 0 }, { true, false }, { 0 }, { 0 }, { 0, 0, true }, { 0 }, { 0 },
	};
	static const size_t n[] = { 3, 3, 2, 4, 2, 3, 4, 3, 0, 3 };
	size_t ns = sizeof(n) / sizeof(n[0]), l1, l2;
	char *one, *two;

	(void)state;
	one = flame_of(st, comm, kern, n, ns, true, &l1);
	two = flame_of(st, comm, kern, n, ns, false, &l2);
	assert_true(l1 > 1000);
	assert_int_equal(l1, l2);
	assert_memory_equal(one, two, l1);
	free(one);
	free(two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dedup),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_writers),
		cmocka_unit_test(test_svg_halves),
		cmocka_unit_test(test_flame_shared_paths),
		cmocka_unit_test(test_speedscope_order),
		cmocka_unit_test(test_abi_0_2_calls),
		cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
