// SPDX-License-Identifier: MIT
/*
 * The capstone wrapper against objdump 2.40's text for the same bytes
 * (each expected string is what `objdump -d --no-show-raw-insn` prints
 * after the address): the places where capstone's own text differs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <tally/disasm.h>

static const char *sym_at(void *ctx, uint64_t addr, uint64_t *off)
{
	(void)ctx;
	if (addr >= 0x4040 && addr < 0x4040 + 8192) {
		*off = addr - 0x4040;
		return "table";
	}
	if (addr >= 0x1149 && addr < 0x11ae) {
		*off = addr - 0x1149;
		return "work";
	}
	return NULL;
}

struct want {
	const char *hex;
	uint64_t addr;
	const char *att, *intel;	/* NULL: not checked in that syntax */
};

static const struct want cases[] = {
	{ "55", 0x1149, "push   %rbp", "push   rbp" },
	{ "48897de8", 0x114d, "mov    %rdi,-0x18(%rbp)", "mov    QWORD PTR [rbp-0x18],rdi" },
	/* no register gives the size: the suffix stays */
	{ "48c745f800000000", 0x1151, "movq   $0x0,-0x8(%rbp)", NULL },
	{ "eb3b", 0x1161, "jmp    119e <work+0x55>", "jmp    119e <work+0x55>" },
	{ "488d14c500000000", 0x116c, "lea    0x0(,%rax,8),%rdx", "lea    rdx,[rax*8+0x0]" },
	{ "488d05c52e0000", 0x1174, "lea    0x2ec5(%rip),%rax        # 4040 <table>",
	  "lea    rax,[rip+0x2ec5]        # 4040 <table>" },
	{ "488b0402", 0x117b, "mov    (%rdx,%rax,1),%rax", NULL },
	{ "c3", 0x11ad, "ret", "ret" },
	{ "e8fbfeffff", 0x1000, "call   f00", NULL },
	{ "4883e4f0", 0x1000, "and    $0xfffffffffffffff0,%rsp", NULL },
	/* padding: a segment prefix and extra 0x66 bytes on a nop */
	{ "662e0f1f840000000000", 0x1000, "cs nopw 0x0(%rax,%rax,1)", NULL },
	{ "66662e0f1f840000000000", 0x1000, "data16 cs nopw 0x0(%rax,%rax,1)", NULL },
	{ "0f1f4000", 0x1000, "nopl   0x0(%rax)", "nop    DWORD PTR [rax+0x0]" },
	{ "6690", 0x1000, "xchg   %ax,%ax", "xchg   ax,ax" },
	{ "48d1fe", 0x1000, "sar    %rsi", NULL },
	{ "66480f6ec0", 0x1000, "movq   %rax,%xmm0", NULL },
	{ "f3ab", 0x1000, "rep stos %eax,%es:(%rdi)", NULL },
	{ "f348a5", 0x1000, "rep movsq %ds:(%rsi),%es:(%rdi)", NULL },
	{ "dec9", 0x1000, "fmulp  %st,%st(1)", NULL },
	{ "dfe9", 0x1000, "fucomip %st(1),%st", NULL },
	{ "ff2582200000", 0x1030, "jmp    *0x2082(%rip)        # 30b8", NULL },
	/* an integer from memory: objdump names its size, capstone does not */
	{ "f2480f2a45f0", 0x1000, "cvtsi2sdq -0x10(%rbp),%xmm0", NULL },
	{ "f20f2a45f0", 0x1000, "cvtsi2sdl -0x10(%rbp),%xmm0", NULL },
	{ "f3480f2a45f0", 0x1000, "cvtsi2ssq -0x10(%rbp),%xmm0", NULL },
	{ "f2480f2ac0", 0x1000, "cvtsi2sd %rax,%xmm0", NULL },
	{ "c5fb2a45f0", 0x1000, "vcvtsi2sdl -0x10(%rbp),%xmm0,%xmm0", NULL },
	{ "c4e1fb2a45f0", 0x1000, "vcvtsi2sdq -0x10(%rbp),%xmm0,%xmm0", NULL },
};

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = 0;

	for (; h[0] && h[1]; h += 2) {
		unsigned v;

		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

static void check(enum tally_disasm_syntax syntax)
{
	struct tally_disasm *d = tally_disasm__new(syntax);
	char text[256];

	assert_non_null(d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *want = syntax == TALLY_DISASM_ATT ? cases[i].att : cases[i].intel;
		uint8_t code[16];
		size_t n = unhex(cases[i].hex, code), l;
		int len;

		if (!want)
			continue;
		len = tally_disasm__insn(d, code, n, cases[i].addr, sym_at, NULL, text, sizeof(text));
		assert_int_equal(len, (int)n);
		l = strlen(text);	/* objdump pads a bare mnemonic: perf trims it */
		while (l && text[l - 1] == ' ')
			text[--l] = '\0';
		assert_string_equal(text, want);
	}
	tally_disasm__free(d);
}

static void test_att(void **state)
{
	(void)state;
	check(TALLY_DISASM_ATT);
}

static void test_intel(void **state)
{
	(void)state;
	check(TALLY_DISASM_INTEL);
}

/* Bytes that are no instruction: "(bad)", one byte, and a short buffer is never overrun. */
static void test_bad_and_short(void **state)
{
	struct tally_disasm *d = tally_disasm__new(TALLY_DISASM_ATT);
	const uint8_t trunc[] = { 0x48, 0x8b };	/* mov, its ModRM missing */
	char text[8];

	(void)state;
	assert_int_equal(tally_disasm__insn(d, trunc, sizeof(trunc), 0, NULL, NULL, text,
					    sizeof(text)), 1);
	assert_string_equal(text, "(bad)");
	assert_int_equal(tally_disasm__insn(d, trunc, 0, 0, NULL, NULL, text, sizeof(text)), -EINVAL);
	memset(text, 'x', sizeof(text));
	assert_int_equal(tally_disasm__insn(d, (const uint8_t *)"\x48\x8d\x05\xc5\x2e\x00\x00", 7,
					    0x1174, sym_at, NULL, text, 5), 7);
	assert_int_equal(strlen(text), 4);
	assert_int_equal(text[5], 'x');
	tally_disasm__free(d);
}

/*
 * perf's insnlen: the lengths objdump (binutils 2.40) gives; kmovd,
 * kmovq and ktestq are ones capstone 4 does not decode (the encoding's
 * length then), the others capstone's; cut short, none.
 */
static void test_length(void **state)
{
	static const struct { const char *bytes; int len; } v[] = {
		{ "\xc5\xfb\x93\xc0", 4 },			/* kmovd %k0,%eax */
		{ "\xc4\xe1\xf8\x90\xca", 5 },		/* kmovq %k2,%k1 */
		{ "\xc4\xe1\xfb\x93\xc1", 5 },		/* kmovq %k1,%rax */
		{ "\xc4\xe1\xf8\x99\xca", 5 },		/* ktestq %k2,%k1 */
		{ "\xc5\xf8\x91\x4c\x24\x08", 6 },		/* kmovw %k1,0x8(%rsp) */
		{ "\xc4\xe2\x7d\x18\x05\x00\x00\x00\x00", 9 },	/* vbroadcastss 0x0(%rip),%ymm0 */
		{ "\x62\xf1\x7c\x48\x10\x00", 6 },		/* vmovups (%rax),%zmm0 */
		{ "\xc5\xf8\x77", 3 },				/* vzeroupper */
		{ "\xc4\xe3\x79\x17\xc0\x01", 6 },		/* vextractps $0x1,%xmm0,%eax */
		{ "\x62\xf3\xfd\x48\x3b\xc1\x01", 7 },	/* vextracti64x4 $0x1,%zmm0,%ymm1 */
		{ "\xc5\xf9\x70\x44\x24\x08\x05", 7 },	/* vpshufd $0x5,0x8(%rsp),%xmm0 */
		{ "\x62\xf1\x7c\x48\x10\x44\x24\x01", 8 },	/* vmovups 0x40(%rsp),%zmm0 */
		{ "\x62\xb1\x7c\x48\x10\x04\x05\x10\x00\x00\x00", 11 },	/* vmovups 0x10(,%r8,1),%zmm0 */
		{ "\x48\x8d\x05\xc5\x2e\x00\x00", 7 },	/* lea: capstone's */
	};
	struct tally_disasm *d = tally_disasm__new(TALLY_DISASM_ATT);
	uint8_t buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		memset(buf, 0x90, sizeof(buf));	/* nops after it: the length is the instruction's */
		memcpy(buf, v[i].bytes, (size_t)v[i].len);
		assert_int_equal(tally_disasm__length(d, buf, sizeof(buf)), v[i].len);
	}
	/* kmovd cut short: no length */
	assert_int_equal(tally_disasm__length(d, (const uint8_t *)"\xc5\xfb\x93", 3), 0);
	assert_int_equal(tally_disasm__length(d, buf, 0), -EINVAL);
	tally_disasm__free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_att),
		cmocka_unit_test(test_intel),
		cmocka_unit_test(test_bad_and_short),
		cmocka_unit_test(test_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
