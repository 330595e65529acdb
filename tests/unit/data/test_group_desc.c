// SPDX-License-Identifier: MIT
/*
 * HEADER_GROUP_DESC (-e '{a,b}'): the groups the writer is given come
 * back from the reader, leader, size and name; a group whose attrs the
 * file lacks is left out, an attr in two groups refused; a damaged
 * section (a leader past the attrs, a group of one) is refused whole.
 */
#include <errno.h>
#include <fcntl.h>
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

/* A file of nattrs task-clock attrs and the groups given (leader, nr; name NULL: anonymous). */
static void write_file(char *path, int nattrs, const int (*g)[2], const char *const *names, int ng)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME, .sample_id_all = 1,
	};
	struct tally_data_writer *w;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	w = tally_data_writer__new_fd(fd, NULL);
	assert_non_null(w);
	for (int i = 0; i < ng; i++)
		assert_int_equal(tally_data_writer__add_group(w, g[i][0], g[i][1], names[i]), 0);
	for (int i = 0; i < nattrs; i++) {
		uint64_t id = 7 + (uint64_t)i;

		assert_int_equal(tally_data_writer__add_attr(w, &a, &id, 1, "task-clock"), 0);
	}
	assert_int_equal(tally_data_writer__begin(w), 0);
	assert_int_equal(tally_data_writer__finish(w), 0);
	tally_data_writer__free(w);
	close(fd);
}

static void test_round_trip(void **state)
{
	char path[] = "/tmp/test_group_desc_XXXXXX";
	/* added out of order, one past the attrs: written in attr order, that one left out */
	const int g[3][2] = { { 3, 2 }, { 0, 3 }, { 5, 2 } };
	const char *const names[3] = { NULL, "fast", NULL };
	struct tally_event_group got[4];
	struct tally_data_reader *r;

	(void)state;
	write_file(path, 5, g, names, 3);
	assert_non_null(r = tally_data_reader__open(path));
	assert_int_equal(tally_data_reader__groups(r, NULL, 0), 2);
	assert_int_equal(tally_data_reader__groups(r, got, 4), 2);
	assert_int_equal(got[0].leader, 0);
	assert_int_equal(got[0].nr_members, 3);
	assert_string_equal(got[0].name, "fast");
	assert_int_equal(got[1].leader, 3);
	assert_int_equal(got[1].nr_members, 2);
	assert_null(got[1].name);	/* "{anon_group}" */
	/* room for one: the count still all of them */
	assert_int_equal(tally_data_reader__groups(r, got, 1), 2);
	tally_data_reader__close(r);
	unlink(path);

	/* no groups: no section, 0 */
	char none[] = "/tmp/test_group_desc_XXXXXX";

	write_file(none, 2, NULL, NULL, 0);
	assert_non_null(r = tally_data_reader__open(none));
	assert_int_equal(tally_data_reader__groups(r, got, 4), 0);
	tally_data_reader__close(r);
	unlink(none);
}

static void test_refused(void **state)
{
	struct tally_data_writer *w;
	int fd = open("/dev/null", 1);

	(void)state;
	assert_non_null(w = tally_data_writer__new_fd(fd, &(struct tally_data_writer_opts){
		.sz = sizeof(struct tally_data_writer_opts), .pipe = true }));
	assert_int_equal(tally_data_writer__add_group(w, 0, 1, NULL), -EINVAL);
	assert_int_equal(tally_data_writer__add_group(w, -1, 2, NULL), -EINVAL);
	assert_int_equal(tally_data_writer__add_group(w, 0, 2, NULL), 0);
	assert_int_equal(tally_data_writer__add_group(w, 1, 2, NULL), -EINVAL);	/* attr 1 twice */
	assert_int_equal(tally_data_writer__add_group(w, 2, 2, NULL), 0);
	tally_data_writer__free(w);
	close(fd);
}

/* the file's GROUP_DESC section, found by its anonymous name: leader and size after it */
static long desc_at(const char *path)
{
	FILE *f = fopen(path, "rb");
	static char buf[1 << 16];
	size_t n;
	char *p;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	p = memmem(buf, n, "{anon_group}", 12);
	assert_non_null(p);
	return (long)(p - buf) + 64;	/* the name's 64 bytes (perf's padding) */
}

static void patch(const char *path, long at, uint32_t v)
{
	FILE *f = fopen(path, "r+b");

	assert_non_null(f);
	assert_int_equal(fseek(f, at, SEEK_SET), 0);
	assert_int_equal(fwrite(&v, 4, 1, f), 1);
	fclose(f);
}

static void test_damaged(void **state)
{
	char path[] = "/tmp/test_group_desc_XXXXXX";
	const int g[1][2] = { { 0, 2 } };
	const char *const names[1] = { NULL };
	struct tally_event_group got[2];
	struct tally_data_reader *r;
	long at;

	(void)state;
	write_file(path, 2, g, names, 1);
	at = desc_at(path);
	/* a leader past the attrs, a group past them, a group of one: each refused */
	const uint32_t bad[3][2] = { { 2, 2 }, { 1, 2 }, { 0, 1 } };

	for (int i = 0; i < 3; i++) {
		patch(path, at, bad[i][0]);
		patch(path, at + 4, bad[i][1]);
		assert_non_null(r = tally_data_reader__open(path));
		assert_int_equal(tally_data_reader__groups(r, got, 2), -EINVAL);
		tally_data_reader__close(r);
	}
	patch(path, at, 0);
	patch(path, at + 4, 2);
	assert_non_null(r = tally_data_reader__open(path));
	assert_int_equal(tally_data_reader__groups(r, got, 2), 1);
	tally_data_reader__close(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
