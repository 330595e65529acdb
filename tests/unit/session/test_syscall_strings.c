// SPDX-License-Identifier: MIT
/*
 * syscall_strings.c without BPF: a recording's matching (note, flush)
 * gives each string to the call it belongs to, whatever order the CPUs'
 * rings gave the samples in, and a file's strings are taken back by
 * their calls as live ones are.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/data_read.h>
#include <tally/data_write.h>
#include <tally/syscall_strings.h>

#define OPENAT	257
#define OPEN	2
#define STAT	4
#define AT_EXIT	TALLY_SC_STRING_AT_EXIT

/* as the BPF program stamps them: just before their call's sample */
static const struct tally_sc_string bpf[] = {
	{ 1000, 42, OPENAT, 1, "/a" },
	{ 3000, 43, OPENAT, 1, "/d" },
	{ 5000, 42, OPENAT, 1, "/b" },
	{ 7000, 42, STAT, 0, "/lost" },		/* its call's sample was not kept */
	{ 9000, 42, OPEN, 0, "/c" },
	{ 12000, 42, OPENAT, 1 | AT_EXIT, "/late" },	/* read at the exit */
};

static char path[] = "/tmp/test_syscall_strings_XXXXXX";

/* A file holding strs[n] as its section; the reader open on it. */
static struct tally_data_reader *file_of(const struct tally_sc_string *strs, size_t n)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
	};
	uint64_t id = 1;
	struct tally_data_writer *w;
	int fd;

	strcpy(path, "/tmp/test_syscall_strings_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id, 1, "task-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(tally_data_writer__add_sc_string(w, &strs[i]), 0);
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
	return tally_data_reader__open(path);
}

struct out {
	char line[16][64];
	int n;
};

static int keep(void *ctx, const struct tally_sc_string *s)
{
	struct out *o = ctx;

	assert_true(o->n < 16);
	snprintf(o->line[o->n++], 64, "%llu %u %u %#x %s", (unsigned long long)s->time, s->tid,
		 s->nr, s->arg, s->str);
	return 0;
}

static void test_flush_in_time_order(void **state)
{
	struct tally_data_reader *r = file_of(bpf, sizeof(bpf) / sizeof(bpf[0]));
	struct tally_sc_strings *s;
	struct out o = { .n = 0 };
	char why[128];

	(void)state;
	assert_non_null(r);
	s = tally_sc_strings__from_file(r, why, sizeof(why));
	assert_non_null(s);
	/* thread 42 moved between CPUs: its later calls drained first */
	assert_int_equal(tally_sc_strings__note(s, 42, OPENAT, 5100, false), 0);
	assert_int_equal(tally_sc_strings__note(s, 42, OPEN, 9100, false), 0);
	assert_int_equal(tally_sc_strings__note(s, 42, OPENAT, 1100, false), 0);
	assert_int_equal(tally_sc_strings__note(s, 43, OPENAT, 3100, false), 0);
	/* up to 6000: the calls before it, not the one after */
	assert_int_equal(tally_sc_strings__flush(s, 6000, keep, &o), 0);
	assert_int_equal(o.n, 3);
	assert_string_equal(o.line[0], "1100 42 257 0x1 /a");
	assert_string_equal(o.line[1], "3100 43 257 0x1 /d");
	assert_string_equal(o.line[2], "5100 42 257 0x1 /b");
	assert_int_equal(tally_sc_strings__note(s, 42, OPENAT, 11000, false), 0);
	assert_int_equal(tally_sc_strings__note(s, 42, OPENAT, 12100, true), 0);
	assert_int_equal(tally_sc_strings__flush(s, UINT64_MAX, keep, &o), 0);
	/* open's own, not stat's of the call not kept; the late one at its exit */
	assert_int_equal(o.n, 5);
	assert_string_equal(o.line[3], "9100 42 2 0 /c");
	assert_string_equal(o.line[4], "12100 42 257 0x101 /late");
	tally_sc_strings__close(s);
	tally_data_reader__close(r);
	unlink(path);
}

/* what flush kept, read back: each call takes its own, as from BPF */
static void test_file_take(void **state)
{
	static const struct tally_sc_string kept[] = {
		{ 1100, 42, OPENAT, 1, "/a" },
		{ 5100, 42, OPENAT, 1, "/b" },
		{ 3100, 43, OPENAT, 1, "/d" },
		{ 12100, 42, OPENAT, 1 | AT_EXIT, "/late" },
	};
	struct tally_data_reader *r = file_of(kept, 4);
	struct tally_sc_strings *s;
	const char *strs[6];
	char why[128];

	(void)state;
	s = tally_sc_strings__from_file(r, why, sizeof(why));
	assert_non_null(s);
	assert_int_equal(tally_sc_strings__read(s), 0);
	assert_int_equal(tally_sc_strings__take(s, 42, OPENAT, 1100, false, strs), 1);
	assert_string_equal(strs[1], "/a");
	assert_null(strs[0]);
	assert_int_equal(tally_sc_strings__take(s, 43, OPENAT, 3100, false, strs), 1);
	assert_string_equal(strs[1], "/d");
	/* a call of another syscall between: nothing of theirs */
	assert_int_equal(tally_sc_strings__take(s, 42, OPEN, 3000, false, strs), 0);
	assert_int_equal(tally_sc_strings__take(s, 42, OPENAT, 5100, false, strs), 1);
	assert_string_equal(strs[1], "/b");
	assert_int_equal(tally_sc_strings__take(s, 42, OPENAT, 12000, false, strs), 0);
	assert_int_equal(tally_sc_strings__take(s, 42, OPENAT, 12100, true, strs), 1);
	assert_string_equal(strs[1], "/late");
	tally_sc_strings__close(s);
	tally_data_reader__close(r);
	unlink(path);
}

static void test_file_without(void **state)
{
	struct tally_data_reader *r = file_of(NULL, 0);
	char why[128] = "x";

	(void)state;
	errno = 0;
	assert_null(tally_sc_strings__from_file(r, why, sizeof(why)));
	assert_int_equal(errno, ENOENT);
	tally_data_reader__close(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flush_in_time_order),
		cmocka_unit_test(test_file_take),
		cmocka_unit_test(test_file_without),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
