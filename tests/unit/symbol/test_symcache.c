// SPDX-License-Identifier: MIT
/*
 * The symbol cache's file (symcache.c): a table written reads back equal,
 * tree and all; a flipped byte, a truncated file, a file under another
 * key are each a miss, never a table. And a real file's table from the
 * cache equals the one loaded from ELF.
 */
#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <tally/hash.h>
#include <tally/symbols.h>
#include "dso_internal.h"
#include "symcache.h"

static char dir[] = "/tmp/tally-symcache-XXXXXX";

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	setenv("XDG_CACHE_HOME", dir, 1);
	unsetenv("TALLY_SYMTAB_CACHE");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void dso_clear(struct tally_dso *d)
{
	free(d->names);
	free(d->syms);
	tally__symtree_free(d->tree);
	free(d->symsrc);
	free(d->dwarf_path);
	memset(d, 0, sizeof(*d));
}

/* Four symbols, a label (sym 1) inside the first: perf's tree of three nodes. */
static void make(struct tally_dso *d)
{
	static const char pool[] = "main\0inner\0_init\0f@plt";
	static const struct tally__symtree_rec tr[] = {
		{ 0x1000, 0x1100, 0, -1, 2, 0 },	/* root's left child */
		{ 0x1050, 0x1060, -1, -1, -1, 0 },	/* a dropped alias: unreached */
		{ 0x1100, 0x1200, 2, -1, -1, 0 },
		{ 0x2000, 0x2010, 3, 0, -1, 0 },	/* the root */
	};

	memset(d, 0, sizeof(*d));
	d->name = "test";
	d->names = malloc(sizeof(pool));
	memcpy(d->names, pool, sizeof(pool));
	d->names_len = sizeof(pool);
	d->nr_syms = 4;
	d->syms = calloc(4, sizeof(*d->syms));
	d->syms[0] = (struct tally_symbol){ 0x1000, 0x1100, d->names, 1, false };
	d->syms[1] = (struct tally_symbol){ 0x1050, 0x1060, d->names + 5, 0, true };	/* an object in text */
	d->syms[2] = (struct tally_symbol){ 0x1100, 0x1200, d->names + 11, 2, false };
	d->syms[3] = (struct tally_symbol){ 0x2000, 0x2010, d->names + 17, 1, false };
	d->tree = tally__symtree_make(tr, 4, 3, 4);
	d->symsrc = strdup(".symtab");
	d->dwarf_path = strdup("/usr/lib/debug/x.debug");
	d->plt_lo = 0x2000;
	d->plt_hi = 0x2010;
	d->status = TALLY_DSO_STRIPPED;
}

static void assert_same(struct tally_dso *a, struct tally_dso *b)
{
	int32_t ra, rb;

	assert_int_equal(a->nr_syms, b->nr_syms);
	for (size_t i = 0; i < a->nr_syms; i++) {
		assert_int_equal(a->syms[i].start, b->syms[i].start);
		assert_int_equal(a->syms[i].end, b->syms[i].end);
		assert_int_equal(a->syms[i].binding, b->syms[i].binding);
		assert_int_equal(a->syms[i].object, b->syms[i].object);
		assert_string_equal(a->syms[i].name, b->syms[i].name);
		/* the names in the DSO's pool (symbols.c frees the others one by one) */
		assert_true(tally__dso_pooled(b, b->syms[i].name));
	}
	assert_true(!a->tree == !b->tree);
	if (a->tree) {
		assert_int_equal(tally__symtree_nodes(a->tree, &ra), tally__symtree_nodes(b->tree, &rb));
		assert_int_equal(ra, rb);
	}
	/* every symbol's start, middle and last byte finds the same */
	for (size_t i = 0; i < a->nr_syms; i++) {
		const struct tally_symbol *s = &a->syms[i];
		uint64_t at[] = { s->start, s->start + (s->end - s->start) / 2, s->end - 1, s->end };

		for (int k = 0; k < 4; k++) {
			const struct tally_symbol *x = a->tree ?
				tally__symtree_find(a->tree, a->syms, at[k]) :
				tally__syms_find(a->syms, a->nr_syms, at[k]);
			const struct tally_symbol *y = b->tree ?
				tally__symtree_find(b->tree, b->syms, at[k]) :
				tally__syms_find(b->syms, b->nr_syms, at[k]);

			assert_true(!x == !y);
			if (x)
				assert_int_equal(x - a->syms, y - b->syms);
		}
	}
	assert_string_equal(a->symsrc, b->symsrc);
	assert_true(!a->dwarf_path == !b->dwarf_path);
	if (a->dwarf_path)
		assert_string_equal(a->dwarf_path, b->dwarf_path);
	assert_int_equal(a->plt_lo, b->plt_lo);
	assert_int_equal(a->plt_hi, b->plt_hi);
	assert_int_equal(a->status, b->status);
}

static void path_of(char *buf, size_t len, const char *key)
{
	snprintf(buf, len, "%s/tally/symtab3-%016llx", dir,
		 (unsigned long long)tally_fnv(TALLY_FNV_BASIS, key, strlen(key)));
}

static size_t file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return (size_t)n;
}

static size_t nfiles(void)
{
	char pat[128];
	glob_t g;
	size_t n;

	snprintf(pat, sizeof(pat), "%s/tally/symtab3-*", dir);
	if (glob(pat, 0, NULL, &g))
		return 0;
	n = g.gl_pathc;
	globfree(&g);
	return n;
}

static void flip(const char *path, size_t off)
{
	FILE *f = fopen(path, "r+b");
	int c;

	assert_non_null(f);
	fseek(f, (long)off, SEEK_SET);
	c = fgetc(f);
	fseek(f, (long)off, SEEK_SET);
	fputc(c ^ 0x20, f);
	fclose(f);
}

static void test_round_trip(void **state)
{
	static const char key[] = "a key";
	struct tally_dso a, b = { .name = "test" };

	(void)state;
	make(&a);
	assert_non_null(a.tree);
	assert_int_equal(tally__symcache_load(key, strlen(key), &b), -ENOENT);
	assert_int_equal(tally__symcache_store(key, strlen(key), &a), 0);
	assert_int_equal(tally__symcache_load(key, strlen(key), &b), 0);
	assert_same(&a, &b);
	/* the unreached node: no children, no symbol */
	struct tally__symtree_rec r;

	tally__symtree_get(b.tree, 1, &r);
	assert_int_equal(r.sym, -1);
	dso_clear(&a);
	dso_clear(&b);
}

/* each of these is a miss: the header, the key, a symbol, the tree, the names, the end */
static void test_damage_rejected(void **state)
{
	static const char key[] = "damaged", other[] = "another key";
	struct tally_dso a, b = { .name = "test" };
	char path[4096], path2[4096];
	size_t size;

	(void)state;
	make(&a);
	path_of(path, sizeof(path), key);
	path_of(path2, sizeof(path2), other);
	assert_int_equal(tally__symcache_store(key, strlen(key), &a), 0);
	size = file_size(path);
	size_t offs[] = { 0, 9, 16, 16 + 8, 16 + 72 + 2, 16 + 72 + 8 + 3, 16 + 72 + 8 + 4 * 24 + 5,
			  size - 30, size - 1 };

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		flip(path, offs[i]);
		assert_int_not_equal(tally__symcache_load(key, strlen(key), &b), 0);
		assert_null(b.syms);
		flip(path, offs[i]);
		assert_int_equal(tally__symcache_load(key, strlen(key), &b), 0);
		dso_clear(&b);
		b.name = "test";
	}
	/* cut short, or longer */
	assert_int_equal(truncate(path, (off_t)size - 1), 0);
	assert_int_not_equal(tally__symcache_load(key, strlen(key), &b), 0);
	assert_int_equal(truncate(path, (off_t)size + 32), 0);
	assert_int_not_equal(tally__symcache_load(key, strlen(key), &b), 0);
	assert_int_equal(truncate(path, 10), 0);
	assert_int_not_equal(tally__symcache_load(key, strlen(key), &b), 0);
	/* a sound file under another key's name (a hash collision) */
	assert_int_equal(tally__symcache_store(key, strlen(key), &a), 0);
	assert_int_equal(rename(path, path2), 0);
	assert_int_not_equal(tally__symcache_load(other, strlen(other), &b), 0);
	assert_null(b.syms);
	dso_clear(&a);
}

/* a tree whose walk would not end, or point past the table: not taken */
static void test_bad_tree(void **state)
{
	static const struct tally__symtree_rec cyc[] = {
		{ 0x1000, 0x1100, 0, -1, 1, 0 },
		{ 0x1100, 0x1200, 1, 0, -1, 0 },	/* back to the root */
	};
	static const struct tally__symtree_rec out[] = {
		{ 0x1000, 0x1100, 5, -1, -1, 0 },	/* symbol 5 of 2 */
	};
	static const struct tally__symtree_rec kid[] = {
		{ 0x1000, 0x1100, 0, -1, 7, 0 },	/* child 7 of 2 nodes */
		{ 0x1100, 0x1200, 1, -1, -1, 0 },
	};

	(void)state;
	assert_null(tally__symtree_make(cyc, 2, 0, 2));
	assert_null(tally__symtree_make(out, 1, 0, 2));
	assert_null(tally__symtree_make(kid, 2, 0, 2));
	assert_null(tally__symtree_make(kid, 2, 2, 2));
}

/* a real file: loaded from ELF, the cache written; then loaded from it, the same */
static void test_real_file(void **state)
{
	static const char *const paths[] = {
		"/usr/bin/node", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
	};
	int done = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct tally_symbols *s1, *s2;
		struct tally_dso *a, *b;

		if (access(paths[i], R_OK))
			continue;
		size_t before = nfiles();

		s1 = tally_symbols__new(NULL);
		s2 = tally_symbols__new(NULL);
		a = tally_symbols__dso_path(s1, paths[i]);
		assert_non_null(a);
		if (a->nr_syms >= TALLY_SYMCACHE_MIN) {
			/* a's load wrote the file b reads */
			assert_int_equal(nfiles(), before + 1);
			b = tally_symbols__dso_path(s2, paths[i]);
			assert_non_null(b);
			assert_same(a, b);
			done++;
		}
		tally_symbols__free(s1);
		tally_symbols__free(s2);
	}
	if (!done)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damage_rejected),
		cmocka_unit_test(test_bad_tree),
		cmocka_unit_test(test_real_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
