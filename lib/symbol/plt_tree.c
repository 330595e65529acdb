// SPDX-License-Identifier: MIT
/* perf's symbol tree, replayed for the PLT entries it shadows: see plt_tree.h. */
#include <stdlib.h>
#include "internal.h"
#include "dso_internal.h"
#include "plt_tree.h"

static void rb_rot(struct ptree *t, int32_t x, bool left)
{
	struct ptree_node *n = t->n;
	int32_t y = left ? n[x].r : n[x].l, c = left ? n[y].l : n[y].r;

	if (left)
		n[x].r = c;
	else
		n[x].l = c;
	if (c >= 0)
		n[c].p = x;
	n[y].p = n[x].p;
	if (n[x].p < 0)
		t->root = y;
	else if (n[n[x].p].l == x)
		n[n[x].p].l = y;
	else
		n[n[x].p].r = y;
	if (left)
		n[y].l = x;
	else
		n[y].r = x;
	n[x].p = y;
}

void tally__ptree_insert(struct ptree *t, int32_t z)
{
	struct ptree_node *n = t->n;
	int32_t y = -1, x = t->root;

	while (x >= 0) {	/* equal starts go right, as perf's __symbols__insert */
		y = x;
		x = n[z].start < n[x].start ? n[x].l : n[x].r;
	}
	n[z] = (struct ptree_node){ n[z].start, n[z].end, -1, -1, y, true };
	if (y < 0)
		t->root = z;
	else if (n[z].start < n[y].start)
		n[y].l = z;
	else
		n[y].r = z;
	while (n[z].p >= 0 && n[n[z].p].red) {
		int32_t pa = n[z].p, g = n[pa].p;
		bool pl = n[g].l == pa;
		int32_t u = pl ? n[g].r : n[g].l;

		if (u >= 0 && n[u].red) {
			n[pa].red = n[u].red = false;
			n[g].red = true;
			z = g;
			continue;
		}
		if (z == (pl ? n[pa].r : n[pa].l)) {
			z = pa;
			rb_rot(t, z, pl);
			pa = n[z].p;
		}
		n[pa].red = false;
		n[g].red = true;
		rb_rot(t, g, !pl);
	}
	n[t->root].red = false;
}

int32_t tally__ptree_find(const struct ptree *t, uint64_t ip)
{
	int32_t x = t->root;

	while (x >= 0) {
		const struct ptree_node *c = &t->n[x];

		if (ip < c->start)
			x = c->l;
		else if (ip > c->end || (ip == c->end && ip != c->start))
			x = c->r;
		else
			return x;
	}
	return -1;
}

static int by_start(const void *a, const void *b)
{
	const struct ptree_node *x = *(const struct ptree_node *const *)a, *y = *(const struct ptree_node *const *)b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * perf's symbols__fixup_end on the tree's nodes: in start order (ties in
 * table order), a sizeless symbol runs to the next one's start. With few
 * sizeless symbols (the usual _init and a label or two), one pass over the
 * others: a start is the next one only for the sizeless symbol just below
 * it, or for one of equal start earlier in the table (node's 150k
 * symbols: sorting them all was a tenth of a report's time).
 */
void tally__ptree_fixup_end(struct ptree *t, struct ptree_node **ord, size_t nn)
{
	struct { uint64_t start, next; size_t i; bool found, equal; } z[16];
	size_t k = 0;

	for (size_t i = 0; i < nn && k <= 16; i++)
		if (t->n[i].end == t->n[i].start) {
			if (k < 16)
				z[k] = (typeof(z[0])){ .start = t->n[i].start, .i = i };
			k++;
		}
	if (k > 16) {
		struct tally__skey *o = malloc((nn ? nn : 1) * sizeof(*o));

		for (size_t i = 0; o && i < nn; i++)
			o[i] = (struct tally__skey){ t->n[i].start, i };
		if (o && !tally__sort_keys(o, nn)) {	/* stable: ties in table order */
			for (size_t i = 0; i + 1 < nn; i++)
				if (t->n[o[i].i].end == t->n[o[i].i].start)
					t->n[o[i].i].end = t->n[o[i + 1].i].start;
			free(o);
			return;
		}
		free(o);
		qsort(ord, nn, sizeof(*ord), by_start);	/* stable: glibc's merge sort */
		for (size_t i = 0; i + 1 < nn; i++)
			if (ord[i]->end == ord[i]->start)
				ord[i]->end = ord[i + 1]->start;
		return;
	}
	/* z by start, ties in table order */
	for (size_t a = 1; a < k; a++)
		for (size_t b = a; b > 0 && z[b - 1].start > z[b].start; b--) {
			typeof(z[0]) x = z[b];

			z[b] = z[b - 1];
			z[b - 1] = x;
		}
	for (size_t j = 0; j < nn; j++) {
		uint64_t st = t->n[j].start;
		size_t lo = 0, hi = k;

		while (lo < hi) {	/* the first z starting at or above st */
			size_t mid = (lo + hi) / 2;

			if (z[mid].start < st)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* the next start above the z just below (all of that start) */
		for (size_t q = lo; q > 0 && z[q - 1].start == z[lo - 1].start; q--)
			if (!z[q - 1].found || st < z[q - 1].next) {
				z[q - 1].next = st;
				z[q - 1].found = true;
			}
		/* an equal start later in the table comes next: it ends there */
		for (size_t q = lo; q < k && z[q].start == st; q++)
			if (j > z[q].i)
				z[q].equal = true;
	}
	for (size_t q = 0; q < k; q++)
		if (z[q].equal)
			t->n[z[q].i].end = z[q].start;
		else if (z[q].found)
			t->n[z[q].i].end = z[q].next;
}

