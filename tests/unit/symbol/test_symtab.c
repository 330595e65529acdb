// SPDX-License-Identifier: MIT
/* symtab.c: perf's choice among aliases, and its tree's lookup where symbols nest. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "internal.h"
#include "dso_internal.h"

struct table {
	struct tally_symbol *s;
	size_t n;
	struct tally__symtree *t;
};

static void finish(struct tally__symvec *v, struct table *tb)
{
	assert_int_equal(tally__symvec_finish_tree(v, &tb->s, &tb->n, &tb->t), 0);
}

static void drop(struct table *tb)
{
	for (size_t i = 0; i < tb->n; i++)
		free((char *)tb->s[i].name);
	free(tb->s);
	tally__symtree_free(tb->t);
}

static void add(struct tally__symvec *v, uint64_t start, uint64_t size, uint8_t bind,
		const char *name)
{
	assert_int_equal(tally__symvec_add(v, start, size, bind, name, false), 0);
}

static void test_aliases_demangled(void **state)
{
	for (int dm = 0; dm < 2; dm++) {
		struct tally__symvec v = { .demangle = dm };
		struct table tb;

		(void)state;
		add(&v, 0x1000, 0x40, STB_GLOBAL, "_Znwm");
		add(&v, 0x1000, 0x40, STB_GLOBAL, "_Znam");
		add(&v, 0x2000, 0x40, STB_GLOBAL, "spinw");
		add(&v, 0x2000, 0x40, STB_GLOBAL, "_ZN6shapes14spin_the_wheelEl");
		finish(&v, &tb);
		assert_int_equal(tb.n, 2);
		/* "operator new[]" is longer than "operator new"; the mangled names tie (the first stays) */
		assert_string_equal(tb.s[0].name, dm ? "_Znam" : "_Znwm");
		/* "_Z..." counts an underscore, "shapes::spin_the_wheel" none and is longer */
		assert_string_equal(tb.s[1].name, dm ? "_ZN6shapes14spin_the_wheelEl" : "spinw");
		assert_null(tb.t);	/* no perf_tree asked */
		drop(&tb);
	}
}

/*
 * A function [0x100, 0x180) and a label at 0x140 in it, then a third
 * symbol: before them, the tree stays fn (other, mid) and fn holds the
 * address past the label; after them, it rotates to mid (fn, other) and
 * the label does.
 */
static void test_label_in_function(void **state)
{
	static const uint64_t at[2] = { 0x10, 0x300 };

	for (int i = 0; i < 2; i++) {
		struct tally__symvec v = { .perf_tree = true };
		struct table tb;
		const struct tally_symbol *s;

		(void)state;
		add(&v, 0x100, 0x80, STB_LOCAL, "fn");
		add(&v, 0x140, 0, STB_LOCAL, "mid");
		add(&v, at[i], 0x20, STB_GLOBAL, "other");
		finish(&v, &tb);
		assert_int_equal(tb.n, 3);
		assert_non_null(tb.t);
		s = tally__symtree_find(tb.t, tb.s, 0x120);
		assert_non_null(s);
		assert_string_equal(s->name, "fn");
		s = tally__symtree_find(tb.t, tb.s, 0x150);
		assert_non_null(s);
		assert_string_equal(s->name, i ? "mid" : "fn");
		/* past the function the label runs on to the next symbol (or a page on) */
		s = tally__symtree_find(tb.t, tb.s, 0x200);
		assert_non_null(s);
		assert_string_equal(s->name, "mid");
		s = tally__symtree_find(tb.t, tb.s, at[i] + 8);
		assert_non_null(s);
		assert_string_equal(s->name, "other");
		assert_null(tally__symtree_find(tb.t, tb.s, i ? 0x80 : 0x8));
		/* tally's own table still has the label from its start */
		s = tally__syms_find(tb.s, tb.n, 0x150);
		assert_non_null(s);
		assert_string_equal(s->name, "mid");
		drop(&tb);
	}
}

/* Objects shape the tree but are never a sample's symbol; no nesting, no tree. */
static void test_objects_tree_only(void **state)
{
	struct tally__symvec v = { .perf_tree = true };
	struct table tb;

	(void)state;
	add(&v, 0x100, 0x40, STB_GLOBAL, "f");
	add(&v, 0x200, 0x40, STB_GLOBAL, "g");
	assert_int_equal(tally__symvec_add_object(&v, v.seq++, 0x400, 0x8, STB_GLOBAL, "counter"), 0);
	finish(&v, &tb);
	assert_int_equal(tb.n, 2);
	assert_string_equal(tb.s[1].name, "g");
	assert_null(tb.t);
	drop(&tb);
}

/*
 * Names in one pool (an ELF file's load): they are NULL until finish, yet
 * perf's tree (a label inside a function) and the aliases' demangled
 * compare read them; a trimmed symbol gives its room in the pool back.
 */
static void test_pooled_names(void **state)
{
	struct tally__symvec v = { .arena = true, .demangle = true, .perf_tree = true };
	struct table tb;
	const struct tally_symbol *s;
	size_t keep, plen;

	(void)state;
	add(&v, 0x100, 0x80, STB_LOCAL, "fn");
	add(&v, 0x140, 0x10, STB_GLOBAL, "_Znwm");
	add(&v, 0x140, 0x10, STB_GLOBAL, "_Znam");
	keep = v.nr;
	plen = v.plen;
	add(&v, 0x900, 0x10, STB_GLOBAL, "gone");
	tally__symvec_trim(&v, keep, v.nobj);
	assert_int_equal(v.plen, plen);
	add(&v, 0x300, 0x20, STB_GLOBAL, "other");
	assert_true(tally__symvec_nested(&v));
	assert_int_equal(tally__symvec_finish_tree(&v, &tb.s, &tb.n, &tb.t), 0);
	assert_non_null(tb.t);
	assert_int_equal(tb.n, 3);
	assert_string_equal(tb.s[0].name, "fn");
	assert_string_equal(tb.s[1].name, "_Znam");	/* "operator new[]" */
	assert_string_equal(tb.s[2].name, "other");
	for (size_t i = 0; i < tb.n; i++)	/* the table's names are the pool's */
		assert_true(tb.s[i].name >= v.pool && tb.s[i].name < v.pool + v.plen);
	s = tally__symtree_find(tb.t, tb.s, 0x120);
	assert_non_null(s);
	assert_string_equal(s->name, "fn");
	s = tally__symtree_find(tb.t, tb.s, 0x308);
	assert_non_null(s);
	assert_string_equal(s->name, "other");
	free(tb.s);
	tally__symtree_free(tb.t);
	tally__symvec_free(&v);	/* the pool, not taken by a DSO here */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aliases_demangled),
		cmocka_unit_test(test_label_in_function),
		cmocka_unit_test(test_objects_tree_only),
		cmocka_unit_test(test_pooled_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
