// SPDX-License-Identifier: MIT
/*
 * Kernel code from kcore (lib/symbol/kcore.c and tally_dso_code's
 * kernel mode) on a core file written here: one PT_LOAD segment at a
 * kernel address, a kallsyms naming the functions in it. A symbol's
 * bytes come back whole and exact, reads stop at the segment, and a
 * missing or non-core file is refused with the errno annotate explains.
 */
#include <elf.h>
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
#include <tally/data_write.h>
#include <tally/disasm.h>
#include <tally/symbols.h>
#include "kcore.h"

#define SEG_VADDR 0xffffffff81000000ull
#define SEG_OFF 4096
#define SEG_LEN 256

static char core[] = "/tmp/tally-test-kcore-XXXXXX";
static char ks[] = "/tmp/tally-test-kallsyms-XXXXXX";
static uint8_t code[SEG_LEN];

static int setup(void **state)
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph[2] = { { 0 } };
	int fd = mkstemp(core), kfd = mkstemp(ks);
	FILE *f;

	(void)state;
	if (fd < 0 || kfd < 0)
		return -1;
	for (int i = 0; i < SEG_LEN; i++)
		code[i] = (uint8_t)(i * 7 + 1);
	/* hot_fn at +0x10: "call 0x...40", then nops to next_fn */
	memcpy(code + 0x10, "\xe8\x2b\x00\x00\x00", 5);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_CORE;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 2;
	ph[0].p_type = PT_NOTE;
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = SEG_OFF,
			      .p_vaddr = SEG_VADDR, .p_filesz = SEG_LEN, .p_memsz = SEG_LEN };
	if (pwrite(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    pwrite(fd, ph, sizeof(ph), sizeof(eh)) != sizeof(ph) ||
	    pwrite(fd, code, sizeof(code), SEG_OFF) != sizeof(code))
		return -1;
	close(fd);
	f = fdopen(kfd, "w");
	fprintf(f, "ffffffff81000000 T _text\nffffffff81000010 T hot_fn\n"
		   "ffffffff81000030 T next_fn\nffffffff81000100 T _etext\n");
	fclose(f);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(core);
	unlink(ks);
	return 0;
}

static void test_read(void **state)
{
	struct tally__kcore *k;
	uint8_t buf[512];

	(void)state;
	assert_int_equal(tally__kcore_open(core, &k), 0);
	assert_int_equal(tally__kcore_read(k, SEG_VADDR + 0x10, buf, 32), 32);
	assert_memory_equal(buf, code + 0x10, 32);
	/* not past the segment */
	assert_int_equal(tally__kcore_read(k, SEG_VADDR + 0xf0, buf, sizeof(buf)), SEG_LEN - 0xf0);
	assert_memory_equal(buf, code + 0xf0, SEG_LEN - 0xf0);
	assert_int_equal(tally__kcore_read(k, SEG_VADDR + SEG_LEN, buf, 8), -ENOENT);
	assert_int_equal(tally__kcore_read(k, SEG_VADDR - 1, buf, 8), -ENOENT);
	tally__kcore_close(k);
	assert_int_equal(tally__kcore_open("/nonexistent/kcore", &k), -ENOENT);
	assert_null(k);
	/* an ELF file that is no core: not taken for one */
	assert_int_equal(tally__kcore_open("/proc/self/exe", &k), -ENOEXEC);
	assert_int_equal(tally__kcore_open(ks, &k), -ENOEXEC);
}

/* annotate's way in: the kernel DSO's symbol's bytes, no names, the running kernel's id */
static void test_dso_code(void **state)
{
	TALLY_OPTS(tally_symbols_opts, so, .kallsyms = ks);
	struct tally_symbols *s = tally_symbols__new(&so);
	struct tally_map map = { .start = SEG_VADDR, .end = SEG_VADDR + SEG_LEN, .pgoff = SEG_VADDR,
				 .filename = "[kernel.kallsyms]_text", .kernel = true };
	struct tally_dso *d;
	struct tally_dso_code *c;
	struct tally_disasm *dis = tally_disasm__new(TALLY_DISASM_ATT);
	const uint8_t *b;
	const char *sec = NULL;
	uint8_t id[64], run[64];
	char text[128];
	size_t len = 0;
	int n;

	(void)state;
	assert_non_null(s);
	assert_non_null(d = tally_symbols__dso(s, &map, -1));
	assert_null(tally_dso_code__open(d, 0));
	assert_int_equal(errno, ENOEXEC);
	assert_null(tally_dso_code__open_kernel(d, NULL, "/nonexistent/kcore", 0));
	assert_int_equal(errno, ENOEXEC);	/* no vmlinux, no kcore */
	assert_non_null(c = tally_dso_code__open_kernel(d, NULL, core, 0));
	assert_false(tally_dso_code__has_names(c));
	assert_string_equal(tally_dso_code__path(c), core);
	assert_non_null(b = tally_dso_code__bytes(c, SEG_VADDR + 0x10, &len, &sec));
	assert_int_equal(len, 0x20);	/* to next_fn, where kallsyms ends it */
	assert_string_equal(sec, "load0");
	assert_memory_equal(b, code + 0x10, 0x20);
	/* no names: objdump's bare target */
	assert_int_equal(tally_disasm__insn(dis, b, len, SEG_VADDR + 0x10, NULL, NULL, text,
					    sizeof(text)), 5);
	assert_string_equal(text, "call   0xffffffff81000040");
	n = tally_build_id__kernel(run, sizeof(run));
	if (n > 0) {
		assert_int_equal(tally_dso_code__build_id(c, id, sizeof(id)), n);
		assert_memory_equal(id, run, (size_t)n);
	}
	tally_dso_code__close(c);
	tally_disasm__free(dis);
	tally_symbols__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_dso_code),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
