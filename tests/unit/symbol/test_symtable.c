// SPDX-License-Identifier: MIT
/*
 * tally_symbols__set_table: a DSO named by its caller's table, no file
 * read (a store's profile from another host): a user map's file offsets
 * and the kernel's addresses resolve to the table's names; the kernel's
 * table replaces kallsyms (a kallsyms file here names the same address
 * otherwise); a DSO already loaded is not replaced.
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
#include <tally/tally.h>

static char kallsyms[64];

static int setup(void **state)
{
	FILE *f;
	int fd;

	(void)state;
	strcpy(kallsyms, "/tmp/test_symtable.XXXXXX");
	if ((fd = mkstemp(kallsyms)) < 0 || !(f = fdopen(fd, "w")))
		return -1;
	fprintf(f, "ffffffff81000000 T _text\nffffffff81001000 T host_func\n"
		   "ffffffff81002000 T host_next\nffffffff82000000 D _edata\n");
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(kallsyms);
	return 0;
}

static struct tally_symbols *symbols(void)
{
	TALLY_OPTS(tally_symbols_opts, so, .kallsyms = kallsyms, .home_debug = "",
		   .debug_root = "/nonexistent");
	struct tally_symbols *s = tally_symbols__new(&so);

	assert_non_null(s);
	return s;
}

static const char *name_at(struct tally_symbols *s, struct tally_machine *m, int32_t pid,
			   uint64_t ip, enum tally_cpumode mode, uint64_t *off)
{
	struct tally_addr_info ai;

	if (tally_symbols__resolve(s, m, pid, pid, ip, mode, &ai))
		return NULL;
	*off = ai.sym_off;
	return ai.sym->name;
}

static void test_user_table(void **state)
{
	static const struct tally_symbol tab[] = {
		{ .start = 0x1100, .end = 0x1180, .name = "main" },
		{ .start = 0x1040, .end = 0x1100, .name = "work" },
		{ .start = 0x2000, .end = 0x2000, .name = "tail" },	/* unsized: to the map's end */
	};
	static const uint8_t bid[] = { 0xab, 0xcd, 0xef, 0x01 };
	struct tally_symbols *s = symbols();
	struct tally_machine *m = tally_machine__new();
	struct tally_mmap_event ev = {
		.pid = 42, .tid = 42, .start = 0x7000000, .len = 0x100000, .pgoff = 0,
		.filename = "/opt/elsewhere/app", .prot = 5, .build_id = bid,
		.build_id_size = sizeof(bid),
	};
	uint64_t off = 0;
	struct tally_addr_info ai;

	(void)state;
	assert_non_null(m);
	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	assert_int_equal(tally_symbols__set_table(s, "/opt/elsewhere/app", tab, 3, "store"), 0);
	assert_string_equal(name_at(s, m, 42, 0x7001104, TALLY_CPUMODE_USER, &off), "main");
	assert_int_equal(off, 4);
	assert_string_equal(name_at(s, m, 42, 0x7001040, TALLY_CPUMODE_USER, &off), "work");
	assert_int_equal(off, 0);
	assert_string_equal(name_at(s, m, 42, 0x7002010, TALLY_CPUMODE_USER, &off), "tail");
	/* below the first function: no symbol, the DSO still the table's */
	assert_int_equal(tally_symbols__resolve(s, m, 42, 42, 0x7000010, TALLY_CPUMODE_USER, &ai),
			 -ENOENT);
	assert_non_null(ai.dso);
	assert_string_equal(tally_dso__symsrc(ai.dso), "store");
	/* loaded already: not replaced */
	assert_int_equal(tally_symbols__set_table(s, "/opt/elsewhere/app", tab, 1, NULL), -EEXIST);
	assert_int_equal(tally_symbols__set_table(NULL, "x", tab, 1, NULL), -EINVAL);
	tally_machine__free(m);
	tally_symbols__free(s);
}

static void test_kernel_table(void **state)
{
	static const struct tally_symbol tab[] = {
		{ .start = 0xffffffff81001000, .end = 0xffffffff81001800, .name = "their_func" },
	};
	struct tally_symbols *s = symbols();
	struct tally_machine *m = tally_machine__new();
	struct tally_mmap_event ev = {
		.pid = -1, .tid = 0, .start = 0xffffffff81000000, .len = 0x1000000,
		.pgoff = 0xffffffff81000000, .filename = "[kernel.kallsyms]_text",
	};
	uint64_t off = 0;

	(void)state;
	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	/* kallsyms names it host_func: the table's name wins */
	assert_int_equal(tally_symbols__preload_kernel(s), 0);
	assert_int_equal(tally_symbols__set_table(s, "[kernel.kallsyms]", tab, 1, "store"), 0);
	assert_string_equal(name_at(s, m, 7, 0xffffffff81001010, TALLY_CPUMODE_KERNEL, &off),
			    "their_func");
	assert_int_equal(off, 0x10);
	tally_machine__free(m);
	tally_symbols__free(s);

	/* without the table, the same address is kallsyms' (the test's own check) */
	s = symbols();
	m = tally_machine__new();
	assert_int_equal(tally_machine__mmap(m, &ev), 0);
	assert_string_equal(name_at(s, m, 7, 0xffffffff81001010, TALLY_CPUMODE_KERNEL, &off),
			    "host_func");
	tally_machine__free(m);
	tally_symbols__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_user_table),
		cmocka_unit_test(test_kernel_table),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
