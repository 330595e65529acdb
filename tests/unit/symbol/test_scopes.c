// SPDX-License-Identifier: MIT
/*
 * An address's inline chain from srcline.c's per-CU index is the one
 * libdw's dwarf_getscopes() + dwarf_getscopes_die() give (what tally used
 * before the index): checked on addresses all over this test's own
 * executable, built -O2 -g with the library's inlined helpers in it.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/symbols.h>

#define MAXF 16

/* tally_dso__srcline_inlines's answer, through libdw's own scope walks. */
static int ref_chain(Dwarf *dw, uint64_t pc, struct tally_srcline *out)
{
	Dwarf_Die cu, *scopes = NULL, *chain = NULL, inner;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	Dwarf_Line *l;
	int n, k = 0, ln;

	if (!dwarf_addrdie(dw, pc, &cu) || !(l = dwarf_getsrc_die(&cu, pc)) ||
	    dwarf_lineno(l, &ln))
		return -1;
	out[0] = (struct tally_srcline){ .file = dwarf_linesrc(l, NULL, NULL), .line = ln };
	n = dwarf_getscopes(&cu, pc, &scopes);
	if (n <= 0) {
		free(scopes);
		return 1;
	}
	inner = scopes[0];
	free(scopes);
	n = dwarf_getscopes_die(&inner, &chain);
	dwarf_getsrcfiles(&cu, &files, &nfiles);
	for (int i = 0; i < n && k < MAXF; i++) {
		int tag = dwarf_tag(&chain[i]);
		Dwarf_Attribute a;
		Dwarf_Word cf, cl;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[k].func = dwarf_diename(&chain[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (k + 1 >= MAXF || !files ||
		    dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_file, &a), &cf) ||
		    dwarf_formudata(dwarf_attr(&chain[i], DW_AT_call_line, &a), &cl) || cf >= nfiles)
			break;
		k++;
		out[k] = (struct tally_srcline){ .file = dwarf_filesrc(files, cf, NULL, NULL),
						 .line = (int)cl };
	}
	free(chain);
	return k + 1;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static void test_chains_are_libdws(void **state)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct tally_symbols *s = tally_symbols__new(NULL);
	struct tally_dso *d;
	Dwarf_Aranges *ar;
	size_t nar, checked = 0, inlined = 0;
	Dwarf *dw;
	int fd;

	assert_true(len > 0);
	exe[len] = '\0';
	assert_non_null(s);
	d = tally_symbols__dso_path(s, exe);
	assert_non_null(d);
	fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	dw = dwarf_begin(fd, DWARF_C_READ);
	assert_non_null(dw);
	assert_int_equal(dwarf_getaranges(dw, &ar, &nar), 0);
	for (size_t i = 0; i < nar; i++) {
		Dwarf_Addr start;
		Dwarf_Word alen;
		Dwarf_Off off;

		if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &start, &alen, &off))
			continue;
		/* a prime stride: every kind of place in the functions, in seconds */
		for (uint64_t pc = start; pc < start + alen; pc += 13) {
			struct tally_srcline want[MAXF], got[MAXF];
			int nw = ref_chain(dw, pc, want);
			int ng = tally_dso__srcline_inlines(d, pc, got, MAXF);

			if (nw < 0) {
				assert_true(ng < 0);
				continue;
			}
			assert_int_equal(ng, nw);
			for (int k = 0; k < nw; k++) {
				if (!same_str(got[k].func, want[k].func) ||
				    !same_str(got[k].file, want[k].file) || got[k].line != want[k].line)
					fail_msg("%#llx frame %d: %s %s:%d, libdw %s %s:%d",
						 (unsigned long long)pc, k, got[k].func, got[k].file,
						 got[k].line, want[k].func, want[k].file, want[k].line);
			}
			checked++;
			inlined += nw > 1;
		}
	}
	/* the walk saw real inline chains, not only plain functions */
	assert_true(checked > 1000);
	assert_true(inlined > 100);
	dwarf_end(dw);
	close(fd);
	tally_symbols__free(s);
}

/*
 * tally_dso__release_dwarf (annotate frees a DSO's DWARF after each
 * function): the next lookup opens it again and answers the same.
 */
static void test_release_reopens(void **state)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct tally_symbols *s = tally_symbols__new(NULL);
	struct tally_dso *d;
	Dwarf_Aranges *ar;
	size_t nar, checked = 0;
	Dwarf *dw;
	int fd;

	(void)state;
	assert_true(len > 0);
	exe[len] = '\0';
	assert_non_null(d = tally_symbols__dso_path(s, exe));
	assert_true((fd = open(exe, O_RDONLY)) >= 0);
	assert_non_null(dw = dwarf_begin(fd, DWARF_C_READ));
	assert_int_equal(dwarf_getaranges(dw, &ar, &nar), 0);
	for (size_t i = 0; i < nar; i++) {
		Dwarf_Addr start;
		Dwarf_Word alen;
		Dwarf_Off off;

		if (dwarf_getarangeinfo(dwarf_onearange(ar, i), &start, &alen, &off))
			continue;
		for (uint64_t pc = start; pc < start + alen; pc += 101) {
			struct tally_srcline want[MAXF], got[MAXF];
			int nw = ref_chain(dw, pc, want), ng;

			tally_dso__release_dwarf(d);
			ng = tally_dso__srcline_inlines(d, pc, got, MAXF);
			if (nw < 0)
				continue;
			assert_int_equal(ng, nw);
			assert_true(same_str(got[0].file, want[0].file) && got[0].line == want[0].line);
			checked++;
		}
	}
	assert_true(checked > 100);
	tally_dso__release_dwarf(d);
	tally_dso__release_dwarf(NULL);
	dwarf_end(dw);
	close(fd);
	tally_symbols__free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chains_are_libdws),
		cmocka_unit_test(test_release_reopens),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
