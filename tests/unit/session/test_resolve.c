// SPDX-License-Identifier: MIT
/* report's address table: a where stays put while the table grows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include <tally/tally.h>
#include <tally/symbols.h>
#include "resolve_internal.h"

static uint32_t no_rank(const struct tally_session *ss, const char *path)
{
	return 0;
}

/*
 * The picture's walk holds an address's frames while it asks that
 * address's source lines: that second look-up, a hit, must not grow the
 * table under the frames (a crash on a `-a -g` file of ~8k addresses).
 */
static void test_hit_keeps_where(void **state)
{
	struct resolver r = { .file_rank = no_rank };
	struct where *fw[INL_MAX], *w;
	const struct tally_srcline *src;
	size_t n = 1 << 10;	/* the table's first size: fill it up to its load limit */

	r.syms = tally_symbols__new(NULL);
	r.m = tally_machine__new();
	assert_non_null(r.syms);
	assert_non_null(r.m);
	for (uint64_t ip = 0x1000; ; ip += 16) {
		assert_int_equal(tally__resolver_frames(&r, 1, 1, ip, TALLY_CPUMODE_USER, false, fw), 1);
		w = fw[0];
		tally__resolver_lines(&r, 1, 1, ip, TALLY_CPUMODE_USER, false, &src);
		assert_ptr_equal(tally__resolver_get(&r, 1, 1, ip, TALLY_CPUMODE_USER), w);
		assert_false(w->mapped);
		if (r.size > n)
			break;	/* grown once, on an address added */
	}
	/* every address is still found after the move */
	for (uint64_t ip = 0x1000; ip < 0x1000 + 16 * (n / 2); ip += 16)
		assert_false(tally__resolver_get(&r, 1, 1, ip, TALLY_CPUMODE_USER)->mapped);
	assert_int_equal(r.used, n / 2 + 1);
	tally__resolver_free(&r);
	tally_machine__free(r.m);
	tally_symbols__free(r.syms);
}

/*
 * A where stays put while addresses are added: callers keep the first
 * frames of a chain while its later ones are resolved (the table of
 * entries moved them when it grew; now it only renumbers them).
 */
static void test_where_stays_put(void **state)
{
	struct resolver r = { .file_rank = no_rank };
	struct where *w0;

	r.syms = tally_symbols__new(NULL);
	r.m = tally_machine__new();
	assert_non_null(r.syms);
	assert_non_null(r.m);
	w0 = tally__resolver_get(&r, 7, 7, 0x1000, TALLY_CPUMODE_USER);
	assert_non_null(w0);
	for (uint64_t ip = 0x2000; ip < 0x2000 + 16 * 20000; ip += 16)
		assert_non_null(tally__resolver_get(&r, 7, 7, ip, TALLY_CPUMODE_USER));
	assert_true(r.size >= 2 * 20000);	/* grown several times */
	assert_ptr_equal(tally__resolver_get(&r, 7, 7, 0x1000, TALLY_CPUMODE_USER), w0);
	assert_int_equal(w0->addr, 0x1000);
	tally__resolver_free(&r);
	tally_machine__free(r.m);
	tally_symbols__free(r.syms);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hit_keeps_where),
		cmocka_unit_test(test_where_stays_put),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
