// SPDX-License-Identifier: MIT
/* The store's batches: TabSeparated escaping, stack ids, stacks once, a dropped batch's stacks moved. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/store.h>
#include "store_internal.h"

static char *esc(void (*fn)(struct tally__buf *, const char *), const char *s)
{
	struct tally__buf b = { 0 };

	fn(&b, s);
	tally__buf_add(&b, "", 1);
	return (char *)b.p;
}

static void test_tsv_escape(void **state)
{
	char *a = esc(tally__tsv_str, "a\tb\nc\\d'e");
	char *b = esc(tally__tsv_arr_str, "a\tb\nc\\d'e");

	/* a field: tab, newline and backslash escaped; a quote is itself */
	assert_string_equal(a, "a\\tb\\nc\\\\d'e");
	/* in an array: quoted, the quote escaped too */
	assert_string_equal(b, "'a\\tb\\nc\\\\d\\'e'");
	free(a);
	free(b);
	a = esc(tally__tsv_arr_str, NULL);
	assert_string_equal(a, "''");
	free(a);
}

static const uint8_t bid[3] = { 0xab, 0x01, 0xff };

static void frames(struct tally_store_frame *f)
{
	memset(f, 0, 3 * sizeof(*f));
	f[0] = (struct tally_store_frame){ '.', "leaf", 4, "/bin/p", bid, 3, 0x1234, NULL };
	f[1] = (struct tally_store_frame){ '.', "main", 9, "/bin/p", bid, 3, 0x1000, "p.c:3" };
	f[2] = (struct tally_store_frame){ 'k', "sys_x", 1, "[kernel.kallsyms]", NULL, 0, 0xffffffff81000000ull, NULL };
}

static void test_stack_id(void **state)
{
	struct tally_store_frame f[3], g[3];
	uint64_t id;

	frames(f);
	frames(g);
	id = tally_store__stack_id(f, 3);
	assert_true(id != 0);
	/* the same frames: the same id, on any host */
	assert_true(tally_store__stack_id(g, 3) == id);
	/* every field counts: an offset, a name, a level, the frames' borders */
	g[0].offset++;
	assert_true(tally_store__stack_id(g, 3) != id);
	frames(g);
	g[1].func = "mai";
	g[1].dso = "n/bin/p";
	assert_true(tally_store__stack_id(g, 3) != id);
	frames(g);
	g[2].level = '.';
	assert_true(tally_store__stack_id(g, 3) != id);
	assert_true(tally_store__stack_id(f, 2) != id);
	assert_true(tally_store__stack_id(f, 0) == 0);
}

static void test_batch(void **state)
{
	struct tally_store_batch *a = tally_store_batch__new("h1", 42, 1796000000);
	struct tally_store_batch *b = tally_store_batch__new("h1", 43, 1796000010);
	struct tally_store_frame f[3];
	uint64_t id;
	size_t bytes;

	assert_non_null(a);
	assert_non_null(b);
	frames(f);
	id = tally_store_batch__stack(a, f, 3);
	assert_true(id == tally_store__stack_id(f, 3));
	bytes = tally_store_batch__bytes(a);
	assert_true(bytes > 0);
	/* a stack is put once however many rows use it */
	assert_true(tally_store_batch__stack(a, f, 3) == id);
	assert_int_equal(tally_store_batch__bytes(a), bytes);
	assert_int_equal(tally_store_batch__stacks(a), 1);
	assert_int_equal(tally_store_batch__add(a, &(struct tally_store_row){
		.pid = 1, .tid = 2, .comm = "p", .thread = "t\tx", .stack_id = id, .value = 3, .period = 30 }), 0);
	assert_int_equal(tally_store_batch__add(a, &(struct tally_store_row){
		.pid = 1, .tid = 3, .comm = "p", .thread = "t", .stack_id = id, .value = 2, .period = 20 }), 0);
	assert_int_equal(tally_store_batch__rows(a), 2);
	assert_int_equal(tally_store_batch__samples(a), 5);
	assert_true(tally_store_batch__id(a) == 42);
	/* a row without a stack is refused */
	assert_int_equal(tally_store_batch__add(a, &(struct tally_store_row){ .value = 1 }), -EINVAL);
	/* a dropped batch's stacks go to the next, which then does not put them again */
	assert_int_equal(tally_store_batch__give_stacks(a, b), 0);
	assert_int_equal(tally_store_batch__stacks(b), 1);
	assert_int_equal(tally_store_batch__bytes(b), bytes);
	assert_true(tally_store_batch__stack(b, f, 3) == id);
	assert_int_equal(tally_store_batch__stacks(b), 1);
	assert_int_equal(tally_store_batch__rows(b), 0);
	tally_store_batch__free(a);
	tally_store_batch__free(b);
}

static void test_open_url(void **state)
{
	TALLY_OPTS(tally_store_opts, o, .url = "http://127.0.0.1:1/?database=prof_1&max_threads=2");
	struct tally_store *s = tally_store__open(&o);

	if (!s && errno == ENOSYS)
		skip();		/* no libcurl here: nothing else to check */
	assert_non_null(s);
	assert_string_equal(tally_store__database(s), "prof_1");
	/* nothing listens on port 1: no answer, curl's words */
	assert_int_equal(tally_store__query(s, "SELECT 1", NULL, 0, NULL, NULL), -ECONNREFUSED);
	assert_non_null(strstr(tally_store__error(s), "onnect"));
	tally_store__close(s);
	o.url = "http://h/?database=a;DROP";
	assert_null(tally_store__open(&o));
	assert_int_equal(errno, EINVAL);
	o.url = "ftp://h/";
	assert_null(tally_store__open(&o));
	assert_int_equal(errno, EINVAL);
	o.url = "http://h:8123";
	s = tally_store__open(&o);
	assert_non_null(s);
	assert_string_equal(tally_store__database(s), "tally");
	tally_store__close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tsv_escape),
		cmocka_unit_test(test_stack_id),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_open_url),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
