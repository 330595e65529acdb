// SPDX-License-Identifier: MIT
/*
 * report's branch statistics (report_branch.h) as perf 6.1's
 * branch_type_count and branch_type_stat_display: each row's branches
 * counted by its type (the extended ones by their new type, outside the
 * total), conditional ones by direction, crossings of 2M before 4K, none
 * of an unknown type or from 0; the lines' layout, none without a known
 * type.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/perf_event.h>
#include <tally/hist.h>
#include "report_branch.h"

/* a row of n branches from -> to of type (new_type with PERF_BR_EXTEND_ABI) */
static struct tally_hist_row row(uint64_t from, uint64_t to, unsigned type, unsigned new_type,
				 uint64_t n)
{
	struct tally_hist_row r = { .sz = sizeof(r), .samples = n };

	r.br_from.raw = from;
	r.br_to.raw = to;
	r.br_flags = (uint64_t)type << 20 | (uint64_t)new_type << 26 | 5 << 4 | 1;
	return r;
}

static char *printed(const struct report_branch_stat *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&buf, &len);

	assert_non_null(fp);
	report_branch_print(fp, st);
	fclose(fp);
	return buf;
}

static void test_counts(void **state)
{
	struct report_branch_stat st = { 0 };
	struct tally_hist_row rows[] = {
		row(0x401000, 0x401010, PERF_BR_COND, 0, 3),		/* forward, same 4K */
		row(0x401ff0, 0x401000, PERF_BR_COND, 0, 2),		/* backward, same 4K */
		row(0x401ff0, 0x402000, PERF_BR_CALL, 0, 1),		/* crosses 4K */
		row(0x401000, 0x7f0000001000, PERF_BR_RET, 0, 4),	/* crosses 2M (not 4K too) */
		row(0x401000, 0x401004, PERF_BR_EXTEND_ABI, 2, 5),	/* FAULT_INST: not in the total */
		row(0x401000, 0x401004, PERF_BR_UNKNOWN, 0, 7),		/* not counted */
		row(0, 0x401004, PERF_BR_CALL, 0, 9),			/* from 0: not counted */
	};

	(void)state;
	report_branch_count(&st, rows, sizeof(rows) / sizeof(rows[0]));
	assert_int_equal(st.counts[PERF_BR_COND], 5);
	assert_int_equal(st.counts[PERF_BR_CALL], 1);
	assert_int_equal(st.counts[PERF_BR_RET], 4);
	assert_int_equal(st.counts[PERF_BR_UNKNOWN], 0);
	assert_int_equal(st.counts[PERF_BR_EXTEND_ABI], 0);
	assert_int_equal(st.new_counts[2], 5);
	assert_int_equal(st.cond_fwd, 3);
	assert_int_equal(st.cond_bwd, 2);
	assert_int_equal(st.cross_4k, 1);
	assert_int_equal(st.cross_2m, 4);

	char *out = printed(&st);

	/* total 10: the known types' branches */
	assert_string_equal(out, "\n#\n# Branch Statistics:\n#"
			    "\nCOND_FWD:  30.0%\nCOND_BWD:  20.0%\nCROSS_4K:  10.0%\nCROSS_2M:  40.0%"
			    "\n    COND:  50.0%\n    CALL:  10.0%\n     RET:  40.0%"
			    "\nFAULT_INST:  50.0%");
	free(out);
}

static void test_none(void **state)
{
	struct report_branch_stat st = { 0 };
	struct tally_hist_row rows[] = { row(0x401000, 0x401004, PERF_BR_UNKNOWN, 0, 3) };
	char *out;

	(void)state;
	report_branch_count(&st, rows, 1);
	out = printed(&st);
	assert_string_equal(out, "");	/* perf prints nothing without a known type */
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
