// SPDX-License-Identifier: MIT
/*
 * brstackinsn's "not reaching sample" test (script_insn_is_branch): over
 * the disassembler's own texts of known x86-64 instructions, the jumps,
 * calls, returns, loops, system calls and interrupts perf's decoder calls
 * branches (prefixed ones too) and nothing else.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "script.h"

static const struct {
	uint8_t code[8];
	size_t len;
	bool branch;
} insns[] = {
	{ { 0xc3 }, 1, true },					/* ret */
	{ { 0xf3, 0xc3 }, 2, true },				/* repz ret */
	{ { 0xc2, 0x08, 0x00 }, 3, true },			/* ret $8 */
	{ { 0xe8, 0, 0, 0, 0 }, 5, true },			/* call */
	{ { 0xff, 0xd0 }, 2, true },				/* call *%rax */
	{ { 0xeb, 0xfe }, 2, true },				/* jmp */
	{ { 0xff, 0xe0 }, 2, true },				/* jmp *%rax */
	{ { 0xf2, 0xe9, 0, 0, 0, 0 }, 6, true },		/* bnd jmp */
	{ { 0x74, 0x00 }, 2, true },				/* je */
	{ { 0x0f, 0x85, 0, 0, 0, 0 }, 6, true },		/* jne rel32 */
	{ { 0xe3, 0x00 }, 2, true },				/* jrcxz */
	{ { 0xe2, 0xfe }, 2, true },				/* loop */
	{ { 0x0f, 0x05 }, 2, true },				/* syscall */
	{ { 0xcc }, 1, true },					/* int3 */
	{ { 0xcd, 0x80 }, 2, true },				/* int $0x80 */
	{ { 0x48, 0xcf }, 2, true },				/* iretq */
	{ { 0x90 }, 1, false },					/* nop */
	{ { 0x48, 0x89, 0xe5 }, 3, false },			/* mov %rsp,%rbp */
	{ { 0x0f, 0x1f, 0x44, 0x00, 0x00 }, 5, false },		/* nopl */
	{ { 0xf3, 0x48, 0xab }, 3, false },			/* rep stos */
	{ { 0x0f, 0x48, 0xc7 }, 3, false },			/* cmovs */
	{ { 0x8d, 0x44, 0x7f, 0x01 }, 4, false },		/* lea */
	{ { 0xf0, 0x48, 0x0f, 0xb1, 0x17 }, 5, false },		/* lock cmpxchg */
};

static void test_texts(void **state)
{
	struct tally_disasm *d = tally_disasm__new(TALLY_DISASM_ATT);
	char text[256];

	(void)state;
	if (!d)
		skip();
	for (size_t i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
		int n = tally_disasm__insn(d, insns[i].code, insns[i].len, 0x401000, NULL, NULL, text,
					   sizeof(text));

		assert_int_equal(n, (int)insns[i].len);
		if (script_insn_is_branch(text) != insns[i].branch)
			fail_msg("\"%s\": branch %d, want %d", text, !insns[i].branch, insns[i].branch);
	}
	tally_disasm__free(d);
}

static void test_words(void **state)
{
	(void)state;
	assert_true(script_insn_is_branch("notrack jmpq   *%rax"));
	assert_true(script_insn_is_branch("into"));		/* perf's INT */
	assert_false(script_insn_is_branch(""));
	assert_false(script_insn_is_branch("rep"));		/* a prefix alone */
	assert_false(script_insn_is_branch("movl   $0x1,-0x4(%rbp)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_texts),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
