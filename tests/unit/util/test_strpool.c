// SPDX-License-Identifier: MIT
/* strpool.c: the one interning set (tally_strpool, tally__intern) and
 * tally/hash.h's FNV-1a and mixer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <tally/hash.h>
#include "internal.h"

static void test_pool_interns(void **state)
{
	struct tally_strpool *p = tally_strpool__new();
	const char *v[1000];
	char buf[32];

	assert_non_null(p);
	/* past several doublings: every string keeps its one copy */
	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "sym%d", i);
		v[i] = tally_strpool__add(p, buf);
		assert_non_null(v[i]);
		assert_ptr_not_equal(v[i], buf);
		assert_string_equal(v[i], buf);
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "sym%d", i);
		assert_ptr_equal(tally_strpool__add(p, buf), v[i]);
	}
	assert_ptr_not_equal(tally_strpool__add(p, ""), NULL);
	assert_ptr_equal(tally_strpool__add(p, ""), tally_strpool__add(p, ""));
	errno = 0;
	assert_null(tally_strpool__add(p, NULL));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(tally_strpool__add(NULL, "x"));
	assert_int_equal(errno, EINVAL);
	tally_strpool__free(p);
	tally_strpool__free(NULL);
}

static void test_intern(void **state)
{
	char a[] = "/usr/bin/prog", b[] = "/usr/bin/prog";
	const char *x = tally__intern(a);

	assert_non_null(x);
	assert_ptr_equal(tally__intern(b), x);
	assert_ptr_not_equal(tally__intern("/usr/bin/other"), x);
	errno = 0;
	assert_null(tally__intern(NULL));
	assert_int_equal(errno, EINVAL);
}

static void test_fnv(void **state)
{
	/* FNV-1a 64's published vectors */
	assert_int_equal(tally_fnv_str(TALLY_FNV_BASIS, ""), 0xcbf29ce484222325ull);
	assert_int_equal(tally_fnv_str(TALLY_FNV_BASIS, "a"), 0xaf63dc4c8601ec8cull);
	assert_int_equal(tally_fnv_str(TALLY_FNV_BASIS, "foobar"), 0x85944171f73967e8ull);
	assert_int_equal(tally_fnv(TALLY_FNV_BASIS, "foobar", 6), 0x85944171f73967e8ull);
	assert_int_equal(tally_fnv_str(7, NULL), 7);
	/* murmur3's fmix64, first half: 0 stays, 1 becomes C ^ C >> 33 */
	assert_int_equal(tally_hash_mix(0), 0);
	assert_int_equal(tally_hash_mix(1), 0xff51afd7ed558ccdull ^ (0xff51afd7ed558ccdull >> 33));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_interns),
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_fnv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
