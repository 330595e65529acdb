// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the disassembly path (tally/disasm.h): the first
 * byte picks the syntax (bit 0) and the output buffer's size (the rest),
 * the others are machine code, walked instruction by instruction as
 * annotate does. Each step must consume 1..left bytes and leave a
 * NUL-terminated text inside the buffer, whatever the bytes; targets get
 * names from a callback, so "<sym+0xoff>" is made too.
 *
 *   make -f fuzz/Makefile && fuzz/out/fuzz_disasm fuzz/corpus/disasm
 * Every file of fuzz/corpus/disasm is replayed by `make test`
 * (tests/unit/fuzz/test_fuzz_disasm.c includes this file).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/disasm.h>

#include "fuzz_check.h"

#define FUZZ_BASE 0x401000ull

/* A name for every other 64 bytes: both branches of the target's spelling. */
static const char *fuzz_sym(void *ctx, uint64_t addr, uint64_t *off)
{
	(void)ctx;
	if (addr < FUZZ_BASE || (addr - FUZZ_BASE) / 64 % 2)
		return NULL;
	*off = (addr - FUZZ_BASE) % 64;
	return "fuzz_sym";
}

static int fuzz_disasm_one(const uint8_t *data, size_t size)
{
	static struct tally_disasm *d[2];
	char text[512 + 8];
	size_t tsz, pos = 0;
	int syntax;

	if (size < 1)
		return 0;
	syntax = data[0] & 1;
	/* sizes 1..512: a short buffer must truncate, never overflow */
	tsz = 1 + (size_t)(data[0] >> 1) * 4;
	if (!d[syntax])
		d[syntax] = tally_disasm__new(syntax ? TALLY_DISASM_INTEL : TALLY_DISASM_ATT);
	FUZZ_CHECK(d[syntax]);
	data++;
	size--;
	FUZZ_CHECK(tally_disasm__insn(d[syntax], data, 0, FUZZ_BASE, NULL, NULL, text, tsz) < 0);
	while (pos < size) {
		int n;

		memset(text, 'x', sizeof(text));
		n = tally_disasm__insn(d[syntax], data + pos, size - pos, FUZZ_BASE + pos, fuzz_sym,
				       NULL, text, tsz);
		FUZZ_CHECK(n >= 1 && (size_t)n <= size - pos && n <= 15);
		FUZZ_CHECK(memchr(text, '\0', tsz) != NULL);
		FUZZ_CHECK(text[tsz] == 'x');	/* nothing written past the buffer */
		pos += (size_t)n;
	}
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_disasm_one(data, size);
}
#endif
