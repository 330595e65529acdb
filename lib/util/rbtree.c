// SPDX-License-Identifier: MIT
/* Red-black trees by index (rbtree.h): the textbook cases, in Linux's order. */
#include "rbtree.h"

#define N(x) (t->n[x])

static bool is_red(const struct tally__rbt *t, int32_t x)
{
	return x >= 0 && N(x).red;
}

/* Makes parent p's link to old (the root's when p < 0) point at new. */
static void relink(struct tally__rbt *t, int32_t p, int32_t old, int32_t new)
{
	if (p < 0)
		t->root = new;
	else if (N(p).l == old)
		N(p).l = new;
	else
		N(p).r = new;
	if (new >= 0)
		N(new).p = p;
}

/* x's child on the other side comes up in x's place. */
static void rotate(struct tally__rbt *t, int32_t x, bool left)
{
	int32_t y = left ? N(x).r : N(x).l, c = left ? N(y).l : N(y).r;

	if (left)
		N(x).r = c;
	else
		N(x).l = c;
	if (c >= 0)
		N(c).p = x;
	relink(t, N(x).p, x, y);
	if (left)
		N(y).l = x;
	else
		N(y).r = x;
	N(x).p = y;
}

void tally__rb_link(struct tally__rbt *t, int32_t z, int32_t parent, bool left)
{
	N(z) = (struct tally__rbn){ -1, -1, parent, true };
	if (parent < 0)
		t->root = z;
	else if (left)
		N(parent).l = z;
	else
		N(parent).r = z;
	while (is_red(t, N(z).p)) {
		int32_t pa = N(z).p, g = N(pa).p;
		bool pl = N(g).l == pa;
		int32_t u = pl ? N(g).r : N(g).l;

		if (is_red(t, u)) {
			N(pa).red = N(u).red = false;
			N(g).red = true;
			z = g;
			continue;
		}
		if (z == (pl ? N(pa).r : N(pa).l)) {
			z = pa;
			rotate(t, z, pl);
			pa = N(z).p;
		}
		N(pa).red = false;
		N(g).red = true;
		rotate(t, g, !pl);
	}
	N(t->root).red = false;
}

static void erase_fixup(struct tally__rbt *t, int32_t x, int32_t xp)
{
	while (x != t->root && !is_red(t, x)) {
		bool xl = N(xp).r != x;		/* Linux's test: a missing x is on the left when the right is there */
		int32_t w = xl ? N(xp).r : N(xp).l;

		if (is_red(t, w)) {
			N(w).red = false;
			N(xp).red = true;
			rotate(t, xp, xl);
			w = xl ? N(xp).r : N(xp).l;
		}
		int32_t near = xl ? N(w).l : N(w).r, far = xl ? N(w).r : N(w).l;

		if (!is_red(t, near) && !is_red(t, far)) {
			N(w).red = true;
			x = xp;
			xp = N(x).p;
			continue;
		}
		if (!is_red(t, far)) {
			N(near).red = false;
			N(w).red = true;
			rotate(t, w, !xl);
			w = xl ? N(xp).r : N(xp).l;
			far = xl ? N(w).r : N(w).l;
		}
		N(w).red = N(xp).red;
		N(xp).red = false;
		N(far).red = false;
		rotate(t, xp, xl);
		x = t->root;
		break;
	}
	if (x >= 0)
		N(x).red = false;
}

void tally__rb_erase(struct tally__rbt *t, int32_t z)
{
	int32_t x, xp;
	bool was_red = N(z).red;

	if (N(z).l < 0 || N(z).r < 0) {
		x = N(z).l < 0 ? N(z).r : N(z).l;
		xp = N(z).p;
		relink(t, xp, z, x);
	} else {
		int32_t y = N(z).r;

		while (N(y).l >= 0)
			y = N(y).l;
		was_red = N(y).red;
		x = N(y).r;
		if (N(y).p == z) {
			xp = y;
		} else {
			xp = N(y).p;
			relink(t, xp, y, x);
			N(y).r = N(z).r;
			N(N(y).r).p = y;
		}
		relink(t, N(z).p, z, y);
		N(y).l = N(z).l;
		N(N(y).l).p = y;
		N(y).red = N(z).red;
	}
	if (!was_red)
		erase_fixup(t, x, xp);
	N(z) = (struct tally__rbn){ -1, -1, -1, false };
}

int32_t tally__rb_first(const struct tally__rbt *t)
{
	int32_t x = t->root;

	while (x >= 0 && N(x).l >= 0)
		x = N(x).l;
	return x;
}

int32_t tally__rb_next(const struct tally__rbt *t, int32_t x)
{
	if (N(x).r >= 0) {
		for (x = N(x).r; N(x).l >= 0; x = N(x).l)
			;
		return x;
	}
	while (N(x).p >= 0 && N(N(x).p).r == x)
		x = N(x).p;
	return N(x).p;
}
