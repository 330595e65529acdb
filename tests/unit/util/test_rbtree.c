// SPDX-License-Identifier: MIT
/* rbtree.c: red-black trees by index, shaped as Linux's lib/rbtree.c shapes them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>
#include "rbtree.h"

#define MAXN 600

static uint32_t key[MAXN];

static void insert(struct tally__rbt *t, int32_t z)
{
	int32_t x = t->root, p = -1;
	bool left = false;

	while (x >= 0) {	/* equal keys go right, as perf's trees */
		p = x;
		left = key[z] < key[x];
		x = left ? t->n[x].l : t->n[x].r;
	}
	tally__rb_link(t, z, p, left);
}

/* The red-black rules and the links; returns the black height. */
static int check(const struct tally__rbt *t, int32_t x, int32_t parent)
{
	if (x < 0)
		return 1;
	assert_int_equal(t->n[x].p, parent);
	if (t->n[x].red) {
		assert_false(t->n[x].l >= 0 && t->n[t->n[x].l].red);
		assert_false(t->n[x].r >= 0 && t->n[t->n[x].r].red);
	}
	int hl = check(t, t->n[x].l, x), hr = check(t, t->n[x].r, x);

	assert_int_equal(hl, hr);
	return hl + !t->n[x].red;
}

static void test_shape(void **state)
{
	struct tally__rbn n[8];
	struct tally__rbt t = { n, -1 };

	(void)state;
	for (int i = 1; i <= 5; i++) {
		key[i] = (uint32_t)i;
		insert(&t, i);
	}
	/* 1..5 in order: 2 (1, 4 (3, 5)), 3 and 5 red */
	assert_int_equal(t.root, 2);
	assert_int_equal(n[2].l, 1);
	assert_int_equal(n[2].r, 4);
	assert_int_equal(n[4].l, 3);
	assert_int_equal(n[4].r, 5);
	assert_true(n[3].red && n[5].red && !n[4].red && !n[1].red);
	/* two children: the successor 3 takes 2's place and colour */
	tally__rb_erase(&t, 2);
	assert_int_equal(t.root, 3);
	assert_int_equal(n[3].l, 1);
	assert_int_equal(n[3].r, 4);
	assert_int_equal(n[4].l, -1);
	assert_int_equal(n[4].r, 5);
	assert_false(n[3].red);
	check(&t, t.root, -1);
	/* a black leaf: the fixup rotates 4 up */
	tally__rb_erase(&t, 1);
	assert_int_equal(t.root, 4);
	assert_int_equal(n[4].l, 3);
	assert_int_equal(n[4].r, 5);
	check(&t, t.root, -1);
}

static void test_random(void **state)
{
	static struct tally__rbn n[MAXN];
	struct tally__rbt t = { n, -1 };
	bool in[MAXN] = { false };
	unsigned seed = 7;

	(void)state;
	for (int i = 0; i < MAXN; i++) {
		key[i] = (uint32_t)(rand_r(&seed) % 200);	/* with ties */
		insert(&t, i);
		in[i] = true;
		if (i % 3 == 2) {
			int32_t z = (int32_t)(rand_r(&seed) % (unsigned)(i + 1));

			if (in[z]) {
				tally__rb_erase(&t, z);
				in[z] = false;
			}
		}
		check(&t, t.root, -1);
	}
	/* in order: keys ascending, each kept node once */
	int cnt = 0, want = 0;
	uint32_t last = 0;

	for (int i = 0; i < MAXN; i++)
		want += in[i];
	for (int32_t x = tally__rb_first(&t); x >= 0; x = tally__rb_next(&t, x)) {
		assert_true(in[x]);
		assert_true(key[x] >= last);
		last = key[x];
		cnt++;
	}
	assert_int_equal(cnt, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
