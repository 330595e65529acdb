// SPDX-License-Identifier: MIT
/*
 * HEADER_SC_STRINGS (tally trace record's path strings): entries written
 * come back equal, through the writer and the reader too (bit 192 set,
 * perf's bits as before, the section after perf's); a damaged or cut
 * section is refused whole, with where and why, and hands nothing.
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
#include "data_swap.h"
#include "sc_strings_feat.h"

static const struct tally_sc_string want[] = {
	{ 1000, 42, 257, 1, "/tmp/alpha" },
	{ 1000, 42, 257, 2, "" },
	{ 2000, 43, 21, 0 | TALLY_SC_STRING_AT_EXIT, "/etc/ld.so.preload" },
	{ 3000, 42, 4, 0, "/a/path/of/exactly/24/b" },	/* 24 bytes with its NUL: no padding */
};
#define NWANT (sizeof(want) / sizeof(want[0]))

struct got {
	struct tally_sc_string v[8];
	char s[8][64];
	int n;
};

static int collect(void *ctx, const struct tally_sc_string *e)
{
	struct got *g = ctx;

	if (g->n >= 8)
		return -1;
	g->v[g->n] = *e;
	snprintf(g->s[g->n], sizeof(g->s[0]), "%s", e->str);
	g->v[g->n].str = g->s[g->n];
	g->n++;
	return 0;
}

static void assert_same(const struct got *g)
{
	assert_int_equal(g->n, NWANT);
	for (size_t i = 0; i < NWANT; i++) {
		assert_int_equal(g->v[i].time, want[i].time);
		assert_int_equal(g->v[i].tid, want[i].tid);
		assert_int_equal(g->v[i].nr, want[i].nr);
		assert_int_equal(g->v[i].arg, want[i].arg);
		assert_string_equal(g->v[i].str, want[i].str);
	}
}

/* the section as the writer lays it out */
static void section(struct tally__buf *b)
{
	memset(b, 0, sizeof(*b));
	tally__buf_u32(b, TALLY__SC_STRINGS_VERSION);
	tally__buf_u32(b, NWANT);
	for (size_t i = 0; i < NWANT; i++)
		assert_int_equal(tally__sc_string_put(b, &want[i]), 0);
	assert_false(b->oom);
}

static void test_round_trip(void **state)
{
	struct tally__buf b;
	struct got g = { .n = 0 };
	size_t bad = 99;
	char msg[128];

	(void)state;
	section(&b);
	/* 8 bytes of head, 24 per entry and each string padded to 8 */
	assert_int_equal(b.len, 8 + 4 * 24 + 16 + 8 + 24 + 24);
	assert_int_equal(tally__sc_strings_walk(b.p, b.len, collect, &g, &bad, msg, sizeof(msg)),
			 NWANT);
	assert_same(&g);
	assert_int_equal(tally__sc_strings_walk(b.p, b.len, NULL, NULL, &bad, msg, sizeof(msg)),
			 NWANT);
	tally__buf_free(&b);
}

static void test_put_refuses(void **state)
{
	struct tally__buf b = { 0 };
	struct tally_sc_string e = { 1, 2, 3, 6, "x" };
	char *long_str = malloc(TALLY__SC_STRING_MAX + 1);

	(void)state;
	assert_int_equal(tally__sc_string_put(&b, &e), -EINVAL);	/* arg 6 */
	e.arg = 0x200;
	assert_int_equal(tally__sc_string_put(&b, &e), -EINVAL);	/* an unknown flag */
	e.arg = 0;
	e.str = NULL;
	assert_int_equal(tally__sc_string_put(&b, &e), -EINVAL);
	assert_non_null(long_str);
	memset(long_str, 'a', TALLY__SC_STRING_MAX);
	long_str[TALLY__SC_STRING_MAX] = '\0';
	e.str = long_str;
	assert_int_equal(tally__sc_string_put(&b, &e), -EINVAL);
	assert_int_equal(b.len, 0);
	free(long_str);
}

/* each damage: refused whole (fn never called), where and why said */
static void expect_bad(const void *p, size_t len, const char *why, size_t at)
{
	struct got g = { .n = 0 };
	size_t bad = 12345;
	char msg[128] = "";

	assert_int_equal(tally__sc_strings_walk(p, len, collect, &g, &bad, msg, sizeof(msg)),
			 -EBADMSG);
	assert_int_equal(g.n, 0);
	if (!strstr(msg, why))
		fail_msg("'%s' does not say '%s'", msg, why);
	assert_int_equal(bad, at);
}

static void test_damaged(void **state)
{
	struct tally__buf b;
	unsigned char *c;
	uint32_t v;

	(void)state;
	section(&b);
	c = malloc(b.len + 8);
	assert_non_null(c);
	expect_bad(b.p, 7, "too short", 0);
	/* another version */
	memcpy(c, b.p, b.len);
	v = 2;
	memcpy(c, &v, 4);
	expect_bad(c, b.len, "version 2", 0);
	/* a count the bytes cannot hold */
	memcpy(c, b.p, b.len);
	v = 1000;
	memcpy(c + 4, &v, 4);
	expect_bad(c, b.len, "cannot fit", 4);
	/* one more than there is */
	memcpy(c, b.p, b.len);
	v = NWANT + 1;
	memcpy(c + 4, &v, 4);
	expect_bad(c, b.len, "string 5 of the count is missing", b.len);
	/* the second entry's argument */
	memcpy(c, b.p, b.len);
	v = 7;
	memcpy(c + 8 + 40 + 16, &v, 4);
	expect_bad(c, b.len, "names argument 0x7", 8 + 40);
	/* the first entry's length past the end, then 0 */
	memcpy(c, b.p, b.len);
	v = 0x7fffffff;
	memcpy(c + 8 + 20, &v, 4);
	expect_bad(c, b.len, "1 to 4096", 8);
	v = 1000;
	memcpy(c + 8 + 20, &v, 4);
	expect_bad(c, b.len, "past the section's end", 8);
	v = 0;
	memcpy(c + 8 + 20, &v, 4);
	expect_bad(c, b.len, "1 to 4096", 8);
	/* a string whose NUL is not at its length */
	memcpy(c, b.p, b.len);
	c[8 + 24 + 3] = '\0';
	expect_bad(c, b.len, "does not end at its length", 8);
	memcpy(c, b.p, b.len);
	c[8 + 24 + 10] = 'x';	/* "/tmp/alpha" without its NUL */
	expect_bad(c, b.len, "does not end at its length", 8);
	/* cut inside the last entry, and bytes after the last one */
	expect_bad(b.p, b.len - 8, "past the section's end", b.len - 48);
	memcpy(c, b.p, b.len);
	memset(c + b.len, 0, 8);
	expect_bad(c, b.len + 8, "8 bytes after its 4 strings", b.len);
	free(c);
	tally__buf_free(&b);
}

/* written on a machine of the other byte order: brought back, then read alike */
static void test_swapped(void **state)
{
	struct tally__buf b;
	struct got g = { .n = 0 };
	size_t off = 8, bad;
	char msg[128];
	uint32_t v;
	uint64_t t;

	(void)state;
	section(&b);
	/* the other order: every number turned, the strings as they are */
	for (int i = 0; i < 2; i++) {
		memcpy(&v, b.p + 4 * i, 4);
		v = __builtin_bswap32(v);
		memcpy(b.p + 4 * i, &v, 4);
	}
	for (size_t k = 0; k < NWANT; k++) {
		uint32_t n;

		memcpy(&t, b.p + off, 8);
		t = __builtin_bswap64(t);
		memcpy(b.p + off, &t, 8);
		memcpy(&n, b.p + off + 20, 4);
		for (int i = 0; i < 4; i++) {
			memcpy(&v, b.p + off + 8 + 4 * i, 4);
			v = __builtin_bswap32(v);
			memcpy(b.p + off + 8 + 4 * i, &v, 4);
		}
		off += 24 + ((n + 7) & ~7u);
	}
	assert_int_equal(tally__sc_strings_walk(b.p, b.len, NULL, NULL, &bad, msg, sizeof(msg)),
			 -EBADMSG);
	assert_true(tally__swap_feature(TALLY_HEADER_SC_STRINGS, b.p, b.len));
	assert_int_equal(tally__sc_strings_walk(b.p, b.len, collect, &g, &bad, msg, sizeof(msg)),
			 NWANT);
	assert_same(&g);
	tally__buf_free(&b);
}

/* A file the writer made: its fd, the strings added (NWANT or none), the pipe format refused. */
static int write_file(char *path, bool strings)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME, .sample_id_all = 1,
	};
	uint64_t id = 7;
	struct tally_data_writer *w;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_attr(w, &a, &id, 1, "task-clock"), 0);
	assert_int_equal(tally_data_writer__begin(w), 0);
	for (size_t i = 0; strings && i < NWANT; i++)
		assert_int_equal(tally_data_writer__add_sc_string(w, &want[i]), 0);
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	return fd;
}

static void test_file(void **state)
{
	char with[] = "/tmp/test_sc_strings_XXXXXX", without[] = "/tmp/test_sc_strings_XXXXXX";
	int fd1 = write_file(with, true), fd2 = write_file(without, false);
	struct tally_data_file_info f1, f2;
	struct tally_data_reader *r1 = tally_data_reader__open(with);
	struct tally_data_reader *r2 = tally_data_reader__open(without);
	struct tally_data_error err;
	struct got g = { .n = 0 };
	const void *p;
	size_t len;

	(void)state;
	assert_non_null(r1);
	assert_non_null(r2);
	assert_int_equal(tally_data_reader__sc_strings(r1, collect, &g, &err), NWANT);
	assert_same(&g);
	assert_int_equal(tally_data_reader__sc_strings(r2, collect, &g, &err), -ENOENT);
	/* bit 192 and only it added; perf's sections where they were, ours after them */
	assert_int_equal(tally_data_reader__file_info(r1, &f1), 0);
	assert_int_equal(tally_data_reader__file_info(r2, &f2), 0);
	assert_int_equal(f1.features[3], 1);
	assert_int_equal(f2.features[3], 0);
	assert_memory_equal(f1.features, f2.features, 3 * sizeof(uint64_t));
	assert_int_equal(tally_data_reader__feature(r1, TALLY_HEADER_SC_STRINGS, &p, &len), 0);
	assert_int_equal((const char *)p + len - (const char *)p, len);
	assert_true(f1.file_size == f2.file_size + 16 + len);
	tally_data_reader__close(r1);
	tally_data_reader__close(r2);

	/* the section cut short: said, nothing handed */
	assert_int_equal(ftruncate(fd1, (off_t)(f1.file_size - 8)), 0);
	r1 = tally_data_reader__open(with);
	assert_non_null(r1);
	g.n = 0;
	assert_int_equal(tally_data_reader__sc_strings(r1, collect, &g, &err), -EBADMSG);
	assert_int_equal(g.n, 0);
	assert_non_null(strstr(err.msg, "past the end of the file"));
	tally_data_reader__close(r1);
	close(fd1);
	close(fd2);
	unlink(with);
	unlink(without);
}

static void test_pipe_refused(void **state)
{
	struct tally_data_writer_opts o = { .sz = sizeof(o), .pipe = true };
	int fds[2];
	struct tally_data_writer *w;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	w = tally_data_writer__new_fd(fds[1], &o);
	assert_non_null(w);
	assert_int_equal(tally_data_writer__add_sc_string(w, &want[0]), -EOPNOTSUPP);
	tally_data_writer__free(w);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_put_refuses),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_pipe_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
