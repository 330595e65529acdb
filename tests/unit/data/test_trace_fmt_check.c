// SPDX-License-Identifier: MIT
/*
 * lib/trace_fmt_check.c: which print formats libtraceevent may be handed
 * (kernel ones, quirks included) and which it may not (issue 17's two
 * damages and their class), against an event of fields a (4 bytes),
 * b[16] (16) and z (size 0).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "internal.h"

static int field(void *ctx, const char *name)
{
	return !strcmp(name, "a") ? 4 : !strcmp(name, "b") ? 16 : !strcmp(name, "z") ? 0 : -1;
}

static int check(const char *text, char *why, size_t whylen)
{
	return tally__trace_fmt_check(text, strlen(text), field, NULL, why, whylen);
}

static void test_kernel_formats_pass(void **state)
{
	static const char *const good[] = {
		"print fmt: \"a=%d b=%s\", REC->a, REC->b",
		"print fmt: \"%s\", __print_flags(REC->a, \"|\", { 0x01, \"S\" }, { 0x02, \"D\" })",
		"print fmt: \"%lu\", (jiffies - REC->a) / 250",
		"print fmt: \"%lu\", REC->a % 64",
		"print fmt: \"%lu.%03lu\", REC->a / 1000L, REC->a % 1000L",
		"print fmt: \"%s\", __print_array(__get_dynamic_array(b), "
		"__get_dynamic_array_len(b) / sizeof(u64), sizeof(u64))",
		"print fmt: \"%d\", REC->a / sizeof(REC->b)",
		"print fmt: \"a\" \"b=%s\", __get_str(b)",
		"print fmt: \"x\\\"y\" , REC->a",
		"print fmt: \"%s\", REC->a ? \"+\" : \"\", REC->a",
		"print fmt: \"%d\", REC->a ? 1 : 2 ? 3 : 4",
		"print fmt: \"%d\", REC->a ? 1 : -REC->a + 2",
		"print fmt: \"%d\", REC->b[0] + REC->b[1] >= 2",
	};
	/* kvmmmu's: libtraceevent fails at "({", reading nothing after it */
	static const char *const unread[] = {
		"print fmt: \"%s %s\", ({ static const char *s[] = { \"-\", \"x\" }; "
		"s[REC->a & 1]; }), REC->a ? \"new\" : \"existing\"",
		"print fmt: \"%d %s\", REC->a, ( { x = REC->a / 0; } )",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		char why[96] = "";
		int ret = check(good[i], why, sizeof(why));

		if (ret)
			print_error("%s: %s\n", good[i], why);
		assert_int_equal(ret, 0);
	}
	for (size_t i = 0; i < sizeof(unread) / sizeof(unread[0]); i++)
		assert_int_equal(check(unread[i], NULL, 0), 1);
}

static void test_damaged_refused(void **state)
{
	static const struct { const char *text, *why; } bad[] = {
		/* issue 17's two files */
		{ "print fmt: \"%s\", __print_flags(REC->pre\xd5_state & 1, \"|\", { 1, \"S\" })",
		  "REC->pre names no field" },
		{ "print fmt: \"%s\", __print_flags(REC->a & ((0x000000%0 | 1) + 1), \"|\")",
		  "a '%' whose divisor can be 0" },
		{ "print fmt: \"%d\", REC->a / 0", "a '/' whose divisor can be 0" },
		{ "print fmt: \"%d\", REC->a / 0x", "a '/' whose divisor can be 0" },
		{ "print fmt: \"%d\", REC->a / REC->a", "a '/' whose divisor can be 0" },
		{ "print fmt: \"%d\", REC->a / -1", "a '/' whose divisor can be 0" },
		{ "print fmt: \"%d\", REC->a / (2 - 2)", "a '/' whose divisor can be 0" },
		{ "print fmt: \"%d\", REC->a / sizeof(REC->z)", "a '/' whose divisor can be 0" },
		{ "print fmt: \"%s\", __print_symbolic(REC->a, { 1/0, \"x\" })",
		  "a '/' whose divisor can be 0" },
		{ "print fmt: \"%s\", __get_cpumask(nope)", "__get_cpumask(nope) names no field" },
		/* found by fuzz_trace_fmt: process_op() with a NULL arg */
		{ "print fmt: \"%d\", REC->a ? 1 : 0;", "a ';' after a '? :' or an index" },
		{ "print fmt: \"%d\", REC->a ? 1 : REC->b[0]", "a '[' after a '? :' or an index" },
		{ "print fmt: \"%d\", REC->a ? 1 : (2) = 3", "a '=' after a '? :' or an index" },
		{ "print fmt: \"%d\", REC->b[0][1]", "a '[' after a '? :' or an index" },
		{ "print fmt: \"%d\", REC->b[0] >>= 1", "a '>>=' after a '? :' or an index" },
		{ "print fmt: \"%d\", (REC->a", "an unclosed '('" },
		/* what comes before a statement expression is read */
		{ "print fmt: \"%d\", REC->a / 0, ({ 1; })", "a '/' whose divisor can be 0" },
		{ "print fmt: \"%d\", REC->a)", "an unbalanced ')'" },
		{ "print fmt: \"%d\", REC->a[1}", "an unbalanced '}'" },
		{ "print fmt: \"%d, REC->a", "an unterminated string at byte 11" },
		{ "print fmt: \"%d\", REC->a \x01", "a byte that is not text at byte 24" },
		/*
		 * maple_tree's formats (Linux 6.1): a tab inside the string ends it
		 * for libtraceevent, whose parse then fails on the rest; the rest
		 * as it reads it has a '%' before a non-number
		 */
		{ "print fmt: \"%s\tNode: %p\", REC->b", "a '%' whose divisor can be 0" },
		{ "print fmt: \"\xff\", REC->a", "an unterminated string at byte 11" },
		{ "print fmt: \"%d\", (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((("
		  "(((REC->a", "brackets nested over 64 deep" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char why[96] = "";

		assert_int_equal(check(bad[i].text, why, sizeof(why)), -EBADMSG);
		assert_string_equal(why, bad[i].why);
	}
	/* no room for why: still refused */
	assert_int_equal(check("print fmt: \"%d\", REC->a / 0", NULL, 0), -EBADMSG);
}

/* The text before "print fmt:" (found by fuzz_trace_fmt: a NULL token after '['). */
static void test_fields(void **state)
{
	static const char good[] = "name: x\nID: 1\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:char comm[16];\toffset:12;\tsize:16;\tsigned:0;\n\n";
	static const struct { const char *text, *why; } bad[] = {
		{ "format:\n\tfield:__data_loc char[\xfa\xfa] name;", "a byte that is not text at byte 31" },
		{ "format:\n\tfield:char x[\0];", "a byte that is not text at byte 22" },
		{ "format:\n\tfield:char x[  ", "an unclosed '[' in the fields" },
		{ "format:\n\tfield:char \"x;", "an unterminated string at byte 20" },
	};
	char why[96];

	assert_int_equal(tally__trace_fmt_check_fields(good, strlen(good), why, sizeof(why)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = strlen(bad[i].text);

		if (strstr(bad[i].why, "byte 22"))
			len += 3;	/* past the NUL */
		why[0] = '\0';
		assert_int_equal(tally__trace_fmt_check_fields(bad[i].text, len, why, sizeof(why)),
				 -EBADMSG);
		assert_string_equal(why, bad[i].why);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_formats_pass),
		cmocka_unit_test(test_damaged_refused),
		cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
