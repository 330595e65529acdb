/* SPDX-License-Identifier: MIT */
/*
 * x86-64 disassembly in objdump's words (capstone underneath): one
 * instruction at a time, as `objdump -d --no-show-raw-insn` prints it
 * after its address, jump and call targets as "<sym+0xoff>" and
 * RIP-relative operands resolved in objdump's "# addr <sym>" comment,
 * through a callback that names an address.
 */
#ifndef TALLY_DISASM_H
#define TALLY_DISASM_H

#include <stddef.h>
#include <stdint.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_disasm;

enum tally_disasm_syntax {
	TALLY_DISASM_ATT = 0,		/* objdump's default */
	TALLY_DISASM_INTEL,		/* -M intel */
};

/*
 * The symbol holding addr (for "<name+0xoff>"): its name and *off, or
 * NULL when none does (objdump then prints the bare address).
 */
typedef const char *(*tally_disasm_sym_fn)(void *ctx, uint64_t addr, uint64_t *off);

/* NULL + errno (ENOMEM, or ENOSYS when capstone has no x86). */
TALLY_API struct tally_disasm *tally_disasm__new(enum tally_disasm_syntax syntax);
TALLY_API void tally_disasm__free(struct tally_disasm *d);

/*
 * The instruction at code[0..len) (its address addr) as objdump's text,
 * "mnemonic operands" with the mnemonic padded to 6 columns, into
 * text[size]. Returns its length in bytes (>= 1): bytes capstone cannot
 * decode come out as objdump's "(bad)", one byte long. -EINVAL for
 * len 0. sym NULL: a file without symbols (kcore's code), whose
 * targets objdump prints bare, "0xffffffff81000010".
 */
TALLY_API int tally_disasm__insn(struct tally_disasm *d, const uint8_t *code, size_t len,
				 uint64_t addr, tally_disasm_sym_fn sym, void *ctx,
				 char *text, size_t size);

/*
 * Added in 0.5: the instruction's length, as perf's insnlen gives it:
 * capstone's, else, for a VEX or EVEX encoded instruction capstone does
 * not decode (AVX-512's opmask moves in capstone 4), the length of its
 * encoding. 0 when neither knows it; -EINVAL for len 0.
 */
TALLY_API int tally_disasm__length(struct tally_disasm *d, const uint8_t *code, size_t len);

#ifdef __cplusplus
}
#endif
#endif
