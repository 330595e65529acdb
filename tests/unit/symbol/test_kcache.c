// SPDX-License-Identifier: MIT
/*
 * The kallsyms cache (kcache.c) on a kallsyms of our own with modules
 * (this machine's has none): read, written, read back, every symbol of
 * the kernel and of each module found at its address under its name, in
 * blocks of 64 and in a partial last block; a first read that needs more
 * than one buffer of the file.
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
#include "kcache.h"

#define NK 3000		/* the kernel's: more than one 64 KiB read of the file */
static const size_t nmod[] = { 130, 1, 64 };
static const char *const mods[] = { "ext4", "nf_tables", "xfs" };

static uint64_t kaddr(size_t i)
{
	return 0xffffffff81000000ull + i * 0x40;
}

static uint64_t maddr(size_t m, size_t i)
{
	return 0xffffffffc0000000ull + m * 0x100000 + i * 0x20;
}

static void write_kallsyms(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fprintf(f, "%016llx T _text\n", (unsigned long long)kaddr(0));
	for (size_t i = 1; i < NK; i++)
		fprintf(f, "%016llx %c kernel_function_with_a_long_name_%zu\n",
			(unsigned long long)kaddr(i), i % 3 ? 'T' : 't', i);
	for (size_t m = 0; m < 3; m++)
		for (size_t i = 0; i < nmod[m]; i++)
			fprintf(f, "%016llx t %s_fn_%zu\t[%s]\n", (unsigned long long)maddr(m, i),
				mods[m], i, mods[m]);
	fclose(f);
}

static void test_round_trip(void **state)
{
	char dir[] = "/tmp/test_kcache.XXXXXX", path[64], name[96], cmd[96];
	struct tally__kimage k, c;
	int open_errno = -1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("XDG_CACHE_HOME", dir, 1);
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	write_kallsyms(path);
	assert_int_equal(tally__kallsyms_read(path, &k, &open_errno), 0);
	assert_int_equal(open_errno, 0);
	assert_int_equal(k.nk, NK);
	assert_int_equal(k.nmods, 3);
	assert_int_equal(k.text, kaddr(0));
	assert_int_equal(tally__kcache_store(0x5eed, &k), 0);
	assert_int_equal(tally__kcache_load(0x5eed, &c), 0);
	assert_non_null(c.kc);
	assert_int_equal(c.text, k.text);
	assert_int_equal(c.nmods, 3);
	for (size_t i = 0; i < NK; i++) {
		const struct tally_symbol *s = tally__kcache_symbol(tally__kcache_dso(c.kc, 0),
								    kaddr(i) + 3);

		assert_non_null(s);
		assert_int_equal(s->start, kaddr(i));
		assert_string_equal(s->name, k.ksyms[i].name);
	}
	for (size_t m = 0; m < 3; m++) {
		size_t j;

		for (j = 0; j < c.nmods && strcmp(c.mnames[j], mods[m]); j++)
			;
		assert_true(j < c.nmods);
		assert_int_equal(c.nm[j], nmod[m]);
		for (size_t i = 0; i < nmod[m]; i++) {
			const struct tally_symbol *s =
				tally__kcache_symbol(tally__kcache_dso(c.kc, j + 1), maddr(m, i));

			snprintf(name, sizeof(name), "%s_fn_%zu", mods[m], i);
			assert_non_null(s);
			assert_string_equal(s->name, name);
		}
	}
	/* the kernel's before its first symbol: none */
	assert_null(tally__kcache_symbol(tally__kcache_dso(c.kc, 0), kaddr(0) - 1));
	tally__kcache_image_free(&c);
	tally__kcache_image_free(&k);
	unsetenv("XDG_CACHE_HOME");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Lines split in place: a damaged one skipped, the last one without its newline still read. */
static void test_read_edges(void **state)
{
	char path[] = "/tmp/test_kcache_edges.XXXXXX";
	struct tally__kimage k;
	int open_errno = -1, fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	(void)state;
	assert_non_null(f);
	fprintf(f, "ffffffff81000000 T _text\n");
	fprintf(f, "ffffffff81000040 t first_fn\n");
	fprintf(f, "not a kallsyms line\n\n");
	fprintf(f, "ffffffff81000080 W weak_fn\n");
	fprintf(f, "ffffffffc0000000 t mod_a_fn\t[mod_a]\n");
	fprintf(f, "ffffffffc0000040 T mod_a_last\t[mod_a]");	/* no newline */
	fclose(f);
	assert_int_equal(tally__kallsyms_read(path, &k, &open_errno), 0);
	assert_int_equal(open_errno, 0);
	assert_int_equal(k.nk, 3);
	assert_string_equal(k.ksyms[0].name, "_text");
	assert_string_equal(k.ksyms[1].name, "first_fn");
	assert_string_equal(k.ksyms[2].name, "weak_fn");
	assert_int_equal(k.nmods, 1);
	assert_string_equal(k.mnames[0], "mod_a");
	assert_int_equal(k.nm[0], 2);
	assert_string_equal(k.msyms[0][1].name, "mod_a_last");
	assert_int_equal(k.msyms[0][1].start, 0xffffffffc0000040ull);
	tally__kcache_image_free(&k);
	/* a file that is not there: said, not an error */
	assert_int_equal(tally__kallsyms_read("/nonexistent/kallsyms", &k, &open_errno), 0);
	assert_int_equal(open_errno, ENOENT);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_read_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
