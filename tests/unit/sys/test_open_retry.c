// SPDX-License-Identifier: MIT
/* open_retry.c: the fallbacks after a refused open, on synthetic attrs and errors (no kernel needed). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include "open_retry.h"

/* An older kernel answered E2BIG and wrote the size it knows. */
static void test_e2big_retry_when_tail_unused(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE };

	a.size = PERF_ATTR_SIZE_VER5;	/* 112: what that kernel knows */
	assert_true(tally__retry_e2big(&a));
	assert_int_equal(a.size, PERF_ATTR_SIZE_VER5);
}

/* A field past the kernel's size was asked for: no silent drop. */
static void test_e2big_no_retry_when_tail_used(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE };

	a.sig_data = 42;		/* past VER5 */
	a.size = PERF_ATTR_SIZE_VER5;
	assert_false(tally__retry_e2big(&a));
	assert_int_equal(a.size, sizeof(a));	/* ours again, for the error */
	a.size = 0;			/* a kernel that wrote nothing */
	assert_false(tally__retry_e2big(&a));
}

static void test_exclude_guest(void **state)
{
	struct perf_event_attr a = { .exclude_guest = 1 };

	assert_false(tally__retry_drop_exclude_guest(&a, -EACCES));
	assert_true(a.exclude_guest);
	assert_true(tally__retry_drop_exclude_guest(&a, -EINVAL));
	assert_false(a.exclude_guest);
	/* nothing left to drop: the error stands */
	assert_false(tally__retry_drop_exclude_guest(&a, -EINVAL));
	a.exclude_host = 1;
	assert_true(tally__retry_drop_exclude_guest(&a, -EOPNOTSUPP));
	assert_false(a.exclude_host);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_e2big_retry_when_tail_unused),
		cmocka_unit_test(test_e2big_no_retry_when_tail_used),
		cmocka_unit_test(test_exclude_guest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
