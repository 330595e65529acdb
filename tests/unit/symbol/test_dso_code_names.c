// SPDX-License-Identifier: MIT
/*
 * objdump's label for an address several symbols share (what annotate
 * prints above a function's code, "<name>:"): a global function before a
 * weak one before a local one, as objdump's compare_symbols sorts them.
 * libc's _exit (global) and _Exit (weak) share an address: the label is
 * _exit, with or without the debug file's names, as objdump and perf
 * annotate print it.
 */
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <tally/symbols.h>

struct find {
	uintptr_t addr;
	char path[512];
	uintptr_t base;
};

/* the loaded object holding f->addr: its path and load base */
static int holder(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct find *f = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && f->addr >= lo && f->addr < lo + ph->p_memsz &&
		    info->dlpi_name && info->dlpi_name[0]) {
			snprintf(f->path, sizeof(f->path), "%s", info->dlpi_name);
			f->base = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

static void label_is(unsigned flags)
{
	void *ex = dlsym(RTLD_DEFAULT, "_exit"), *Ex = dlsym(RTLD_DEFAULT, "_Exit");
	struct find f = { .addr = (uintptr_t)ex };
	struct tally_symbols *s;
	struct tally_dso *d;
	struct tally_dso_code *c;
	const char *name;
	uint64_t off = 1;

	if (!ex || ex != Ex || !dl_iterate_phdr(holder, &f))
		skip();		/* a libc whose _exit and _Exit are apart: nothing to choose */
	s = tally_symbols__new(NULL);
	assert_non_null(s);
	d = tally_symbols__dso_path(s, f.path);
	assert_non_null(d);
	c = tally_dso_code__open(d, flags);
	assert_non_null(c);
	name = tally_dso_code__sym(c, f.addr - f.base, &off);	/* the ELF address */
	assert_non_null(name);
	assert_int_equal(off, 0);
	/* "_exit" from a .symtab, "_exit@@GLIBC_2.2.5" from the .dynsym */
	if (strcmp(name, "_exit") && strncmp(name, "_exit@", 6))
		fail_msg("%s's label at _exit: '%s', objdump's is _exit", f.path, name);
	tally_dso_code__close(c);
	tally_symbols__free(s);
}

static void test_global_before_weak(void **state)
{
	(void)state;
	label_is(0);
}

static void test_global_before_weak_debug_names(void **state)
{
	(void)state;
	label_is(TALLY_DSO_CODE_DEBUG_NAMES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_global_before_weak),
		cmocka_unit_test(test_global_before_weak_debug_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
