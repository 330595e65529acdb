// SPDX-License-Identifier: MIT
/*
 * script's field texts (script_fields.h) against what perf script 6.1
 * printed for the same values (tests/it/script_fields.sh compares whole
 * files; these pin the corners): the data source's levels with hops,
 * a remote flag, level numbers and "N/A"; every part of a data source
 * cut to perf's limits; page sizes at unit edges; branch types past the
 * extended ABI; registers without an ABI; cgroup names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "script_fields.h"

static void mem(uint64_t v, const char *want)
{
	char out[256];

	script_mem_decode(out, sizeof(out), v);
	assert_string_equal(out, want);
}

/* perf cut these lines at 99 characters: what it showed of them */
static void mem_prefix(uint64_t v, const char *want)
{
	char out[256];

	script_mem_decode(out, sizeof(out), v);
	assert_true(strlen(out) >= strlen(want));
	out[strlen(want)] = '\0';
	assert_string_equal(out, want);
}

static void test_mem_decode(void **state)
{
	(void)state;
	/* the values perf script printed for mkfields' samples */
	mem(0, "|OP No|LVL N/A|SNP N/A|TLB N/A|LCK No|BLK  N/A");
	mem(0x68100142, "|OP LOAD|LVL L1 hit|SNP None|TLB L1 or L2 hit|LCK No|BLK  N/A");
	mem(0x5080021, "|OP N/A|LVL N/A|SNP N/A|TLB N/A|LCK N/A|BLK  N/A");
	mem(0x9062a200d00, "|OP No|LVL core, same node L3|SNP Hit|TLB L1 hit|LCK Yes|BLK  N/A");
	mem_prefix(0x22870202090,
		   "|OP EXEC|LVL Remote Remote RAM (1 hop) or L4 miss|SNP Hit|TLB L1 or L2 miss|LCK No");
	mem_prefix(0x1421208c90, "|OP EXEC|LVL L2 or L3 or Remote Cache (1 hop) or I/O miss|"
				 "SNP Hit|TLB L1|LCK N/A|B");
	mem(0x1c112000c1, "|OP N/A|LVL PMEM hit miss|SNP Hit|TLB N/A miss|LCK N/A|BLK  N/A");
	mem(0x111e0e201000, "|OP No|LVL node, same socket N/A|SNP Hit|TLB N/A hit|LCK Yes|BLK  N/A");
	mem(0x21004200061, "|OP N/A|LVL N/A or L8 hit|SNP Hit|TLB N/A|LCK No|BLK  Data");
	mem(0x3420c201082, "|OP LOAD|LVL Local RAM or L1 miss|SNP Hit or Fwd|TLB N/A hit|LCK No|BLK  N/A");
}

static void test_mem_decode_cut(void **state)
{
	char out[8];

	(void)state;
	/* never past the buffer, always terminated */
	assert_int_equal(script_mem_decode(out, sizeof(out), 0x68100142), 7);
	assert_string_equal(out, "|OP LOA");
	assert_int_equal(script_mem_decode(out, 0, 0), 0);
}

static void test_page_size(void **state)
{
	static const struct { uint64_t v; const char *want; } t[] = {
		{ 0, "N/A" }, { 4096, "4K" }, { 2 << 20, "2M" }, { 1 << 30, "1024M" },
		{ 65536, "64K" }, { 1024, "1024B" }, { 2048, "2K" }, { 1ull << 40, "1024G" },
	};
	char out[32];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		script_page_size(out, sizeof(out), t[i].v);
		assert_string_equal(out, t[i].want);
	}
}

static void test_branch_type(void **state)
{
	struct perf_branch_entry e = { .type = PERF_BR_UNKNOWN };

	(void)state;
	assert_string_equal(script_branch_type(&e), "");
	e.type = PERF_BR_COND_RET;
	assert_string_equal(script_branch_type(&e), "COND_RET");
	e.type = PERF_BR_EXTEND_ABI;
	e.new_type = PERF_BR_NEW_FAULT_INST;
	assert_string_equal(script_branch_type(&e), "FAULT_INST");
	e.new_type = PERF_BR_NEW_ARCH_5;
	assert_string_equal(script_branch_type(&e), "ARCH_5");
}

static void test_regs(void **state)
{
	static const uint64_t v[] = { 0x1, 0xdead0101, 0x1515 };
	struct tally_sample_regs r = { .abi = PERF_SAMPLE_REGS_ABI_64, .mask = 0x800003, .nr = 3,
				       .regs = v };
	char out[256];

	(void)state;
#if defined(__x86_64__)
	size_t n = script_regs(out, sizeof(out), &r);

	assert_int_equal(n, strlen(out));
	assert_string_equal(out, " ABI:2    AX:0x1    BX:0xdead0101   R15:0x1515 ");
#endif
	r.abi = PERF_SAMPLE_REGS_ABI_NONE;	/* a sample without them: nothing */
	assert_int_equal(script_regs(out, sizeof(out), &r), 0);
	assert_string_equal(out, "");
}

static void test_cgroups(void **state)
{
	struct script_cgroups c = { 0 };

	(void)state;
	assert_string_equal(script_cgroups_name(&c, 1), "unknown");
	for (uint64_t i = 1; i <= 40; i++)
		script_cgroups_add(&c, i, i == 7 ? "/seven" : "/x");
	script_cgroups_add(&c, 7, "/later");	/* the first name stays */
	assert_string_equal(script_cgroups_name(&c, 7), "/seven");
	assert_string_equal(script_cgroups_name(&c, 41), "unknown");
	script_cgroups_free(&c);
	assert_int_equal(c.nr, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem_decode),
		cmocka_unit_test(test_mem_decode_cut),
		cmocka_unit_test(test_page_size),
		cmocka_unit_test(test_branch_type),
		cmocka_unit_test(test_regs),
		cmocka_unit_test(test_cgroups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
