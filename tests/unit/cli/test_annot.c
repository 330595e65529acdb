// SPDX-License-Identifier: MIT
/* The annotate view's reading of its lines (cli/tui/annot.c): hottest, targets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>
#include "annot.h"

static const struct { const char *text; bool insn; uint64_t addr; double pct; } lines[] = {
	{ "         : 5      00000000004011b6 <burn_a>:", false, 0, 0 },
	{ "    0.00 :   4011d6: imul   %rsi,%rax", true, 0x4011d6, 0 },
	{ "   11.54 :   4011da: add    %rcx,%rax", true, 0x4011da, 11.54 },
	{ "   87.50 :   4011dd: sub    $0x1,%edx", true, 0x4011dd, 87.50 },
	{ "    0.96 :   4011e0: jne    4011d6 <burn_a+0x20>", true, 0x4011e0, 0.96 },
	{ "    0.00 :   4011e2: call   401030 <puts@plt>", true, 0x4011e2, 0 },
	{ "    0.00 :   4011e7: jmp    *%rax", true, 0x4011e7, 0 },
	{ "    0.00 :   4011e9: mov    0x2e5f(%rip),%rdx        # 404048 <sink>", true, 0x4011e9, 0 },
	{ "   87.50 :   4011f0: ret", true, 0x4011f0, 87.50 },
	{ "         : 30     jne 4011d6 <burn_a+0x20>", false, 0, 0 },
};
#define NR (int)(sizeof(lines) / sizeof(lines[0]))

static struct annot_view *make(void)
{
	struct annot_view *a = annot_new(NR);

	assert_non_null(a);
	for (int i = 0; i < NR; i++) {
		a->line[i] = strdup(lines[i].text);
		a->insn[i] = lines[i].insn;
		a->addr[i] = lines[i].addr;
		a->percent[i] = lines[i].pct;
	}
	return a;
}

static void test_hottest_first_of_equals(void **state)
{
	struct annot_view *a = make();

	(void)state;
	assert_int_equal(annot_hottest(a), 3);
	annot_free(a);
}

static void test_hottest_none(void **state)
{
	struct annot_view *a = annot_new(1);

	(void)state;
	a->line[0] = strdup("         :");
	assert_int_equal(annot_hottest(a), -1);
	annot_free(a);
}

static void test_targets(void **state)
{
	struct annot_view *a = make();
	uint64_t to = 0;

	(void)state;
	assert_int_equal(annot_target(a, 4, &to), 0);
	assert_int_equal(to, 0x4011d6);
	assert_int_equal(annot_find(a, to), 1);
	assert_int_equal(annot_target(a, 5, &to), 0);	/* a call: outside the function */
	assert_int_equal(to, 0x401030);
	assert_int_equal(annot_find(a, to), -1);
	assert_int_equal(annot_target(a, 6, &to), -1);	/* indirect: no target to go to */
	assert_int_equal(annot_target(a, 7, &to), -1);	/* a RIP-relative operand is no jump */
	assert_int_equal(annot_target(a, 3, &to), -1);
	assert_int_equal(annot_target(a, 9, &to), -1);	/* source text that reads like one */
	assert_int_equal(annot_target(a, NR, &to), -1);
	annot_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hottest_first_of_equals),
		cmocka_unit_test(test_hottest_none),
		cmocka_unit_test(test_targets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
