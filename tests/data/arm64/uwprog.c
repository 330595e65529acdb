// SPDX-License-Identifier: MIT
/*
 * The arm64 fixture of tests/it/arm64_file.sh, cross-built once and kept
 * with its output (uwprog, uwprog.regs): leaf() saves its own registers
 * in perf's arm64 order (x0..x30, sp, pc) and the 4 KiB of stack above
 * sp, as a --call-graph dwarf sample would carry them, three calls below
 * main. Rebuild: aarch64-linux-gnu-gcc -O1 -fno-omit-frame-pointer -no-pie
 * -fno-pie -Wl,-z,max-page-size=4096 -o uwprog uwprog.c && QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
 * qemu-aarch64 ./uwprog > uwprog.regs
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define STACK 4096

static uint64_t regs[33];
static uint8_t stack[STACK];

__attribute__((noinline)) void leaf(void)
{
	__asm__ volatile(
		"stp x0, x1, [%0, #0]\n\tstp x2, x3, [%0, #16]\n\tstp x4, x5, [%0, #32]\n\t"
		"stp x6, x7, [%0, #48]\n\tstp x8, x9, [%0, #64]\n\tstp x10, x11, [%0, #80]\n\t"
		"stp x12, x13, [%0, #96]\n\tstp x14, x15, [%0, #112]\n\tstp x16, x17, [%0, #128]\n\t"
		"stp x18, x19, [%0, #144]\n\tstp x20, x21, [%0, #160]\n\tstp x22, x23, [%0, #176]\n\t"
		"stp x24, x25, [%0, #192]\n\tstp x26, x27, [%0, #208]\n\tstp x28, x29, [%0, #224]\n\t"
		"str x30, [%0, #240]\n\tmov x9, sp\n\tstr x9, [%0, #248]\n\t"
		"adr x9, .\n\tstr x9, [%0, #256]\n\t"
		: : "r"(regs) : "x9", "memory");
	memcpy(stack, (const void *)(uintptr_t)regs[31], STACK);
}

__attribute__((noinline)) int middle(int n)
{
	leaf();
	return n + 1;
}

__attribute__((noinline)) int outer(int n)
{
	return middle(n * 2) + 1;
}

int main(void)
{
	int r = outer(3);

	fwrite(regs, sizeof(regs), 1, stdout);
	fwrite(stack, sizeof(stack), 1, stdout);
	return r == 8 ? 0 : 1;
}
