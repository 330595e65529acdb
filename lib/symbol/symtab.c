// SPDX-License-Identifier: MIT
/*
 * Symbol tables by perf's rules: raw symbols from ELF, kallsyms or a
 * JIT map become one sorted table (perf's choose_best_symbol() for
 * aliases, sizes to the next symbol), and the lookup of an address.
 * Moved from dso.c.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "dso_internal.h"
#include "rbtree.h"

int tally__symvec_add(struct tally__symvec *v, uint64_t start, uint64_t size,
		      uint8_t binding, const char *name, bool module_edge)
{
	if (v->nr == v->alloc) {
		size_t n = v->alloc ? v->alloc * 2 : 256;
		void *p = tally__reallocarray(v->v, n, sizeof(*v->v));

		if (!p)
			return -ENOMEM;
		v->v = p;
		v->alloc = n;
	}
	char *dup = NULL;
	size_t len = strlen(name) + 1;

	if (!v->arena) {
		if (!(dup = strdup(name)))
			return -ENOMEM;
	} else if (v->plen + len > v->pcap) {
		size_t cap = v->pcap ? v->pcap * 2 : 65536;
		char *p;

		while (cap < v->plen + len)
			cap *= 2;
		if (!(p = realloc(v->pool, cap)))
			return -ENOMEM;
		v->pool = p;
		v->pcap = cap;
	}
	v->v[v->nr++] = (struct tally__rawsym){
		.start = start, .end = start + size, .binding = binding,
		.name = dup, .idx = v->seq++, .noff = v->plen, .module_edge = module_edge,
	};
	if (v->arena) {
		memcpy(v->pool + v->plen, name, len);
		v->plen += len;
	}
	return 0;
}

static size_t lead_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

int tally__symvec_add_object(struct tally__symvec *v, size_t idx, uint64_t start,
			     uint64_t size, uint8_t binding, const char *name)
{
	if (v->nobj == v->aobj) {
		size_t n = v->aobj ? v->aobj * 2 : 256;
		void *p = tally__reallocarray(v->obj, n, sizeof(*v->obj));

		if (!p)
			return -ENOMEM;
		v->obj = p;
		v->aobj = n;
	}
	size_t u = lead_underscores(name), l = strlen(name);

	v->obj[v->nobj++] = (struct tally__rawobj){
		.start = start, .end = start + size, .idx = idx, .binding = binding,
		.unders = u > UINT16_MAX ? UINT16_MAX : (uint16_t)u,
		.len = l > UINT16_MAX ? UINT16_MAX : (uint16_t)l,
	};
	return 0;
}

void tally__symvec_trim(struct tally__symvec *v, size_t n, size_t nobj)
{
	if (v->arena && v->nr > n)
		v->plen = v->v[n].noff;	/* their names were the pool's last */
	while (v->nr > n) {
		v->nr--;
		if (!v->arena)
			free(v->v[v->nr].name);
	}
	if (v->nobj > nobj)
		v->nobj = nobj;
}

static int rawsym_cmp(const void *a, const void *b)
{
	const struct tally__rawsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* Equal starts keep table order: perf's rb-tree inserts them right. */
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * A stable radix sort of the starts, a byte at a time, skipping the bytes
 * all starts share (glibc's qsort of whole entries was a tenth of a small
 * report's time).
 */
int tally__sort_keys(struct tally__skey *a, size_t n)
{
	struct tally__skey *b = malloc((n ? n : 1) * sizeof(*b)), *in = a, *t;

	if (!b)
		return -ENOMEM;
	for (int shift = 0; shift < 64; shift += 8) {
		size_t cnt[256] = { 0 }, sum = 0;

		for (size_t i = 0; i < n; i++)
			cnt[in[i].start >> shift & 255]++;
		if (!n || cnt[in[0].start >> shift & 255] == n)
			continue;
		for (int d = 0; d < 256; d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[cnt[in[i].start >> shift & 255]++] = in[i];
		t = in;
		in = b;
		b = t;
	}
	if (in != a) {
		memcpy(a, in, n * sizeof(*a));
		b = in;
	}
	free(b);
	return 0;
}

/*
 * r in start order, equal starts in table order (rawsym_cmp); the entries
 * moved in place, cycle by cycle (a sorted copy of node's 106k was 4 MB
 * more at a report's peak).
 */
static int sort_by_start(struct tally__rawsym *r, size_t n)
{
	struct tally__skey *a = malloc(n * sizeof(*a));

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		a[i] = (struct tally__skey){ r[i].start, i };
	if (tally__sort_keys(a, n)) {
		free(a);
		return -ENOMEM;
	}
	/* r[j] takes r[a[j].i]; a[j].i = j once placed */
	for (size_t i = 0; i < n; i++) {
		struct tally__rawsym tmp;
		size_t j = i, k;

		if (a[i].i == i)
			continue;
		tmp = r[i];
		while ((k = a[j].i) != i) {
			r[j] = r[k];
			a[j].i = j;
			j = k;
		}
		r[j] = tmp;
		a[j].i = j;
	}
	free(a);
	return 0;
}

/* What choose_best_symbol weighs of a symbol; an object has no name, its counts instead. */
struct cand {
	uint64_t size;
	uint8_t binding;
	const char *name;
	size_t unders, len;
	uint32_t *dm;			/* where the name's unders and len are kept (rawsym's dm) */
};

/*
 * perf's tree replay and the table's fixup weigh the same aliases: each
 * name is demangled once (a C++ file's constructors and destructors come
 * in pairs: 18k demangles, 55% of a report of node). dm: 0 not yet, else
 * len + 1 above the low 8 bits, unders in them (kept when both fit).
 */
static void cand_demangled(struct cand *c, bool demangle)
{
	char *dm;

	if (c->dm && *c->dm) {
		c->unders = *c->dm & 0xff;
		c->len = (*c->dm >> 8) - 1;
		return;
	}
	dm = demangle ? tally_demangle(c->name) : NULL;
	c->unders = lead_underscores(dm ? dm : c->name);
	c->len = strlen(dm ? dm : c->name);
	free(dm);
	if (c->dm && c->unders < 0xff && c->len < 0xfffffe)
		*c->dm = (uint32_t)((c->len + 1) << 8 | c->unders);
}

/* perf's choose_best_symbol(): true when a beats (or ties) b. */
static bool cand_best(struct cand *a, struct cand *b, bool demangle)
{
	if (!b->size && a->size)
		return true;
	if (!a->size && b->size)
		return false;
	bool wa = a->binding == STB_WEAK, wb = b->binding == STB_WEAK;

	if (wb && !wa)
		return true;
	if (wa && !wb)
		return false;
	bool ga = a->binding == STB_GLOBAL, gb = b->binding == STB_GLOBAL;

	if (ga && !gb)
		return true;
	if (gb && !ga)
		return false;
	/* perf demangles as it loads: "operator new[]" beats "operator new" */
	struct cand *c[2] = { a, b };

	for (int i = 0; i < 2; i++)
		if (c[i]->name)
			cand_demangled(c[i], demangle);
	return a->unders != b->unders ? b->unders > a->unders : a->len >= b->len;
}

static bool best_is_a(struct tally__rawsym *a, struct tally__rawsym *b, bool demangle)
{
	struct cand x = { a->end - a->start, a->binding, a->name, 0, 0, &a->dm };
	struct cand y = { b->end - b->start, b->binding, b->name, 0, 0, &b->dm };

	return cand_best(&x, &y, demangle);
}

/*
 * perf's symbol tree, for the files where a symbol holds the start of
 * the next (a label inside a function, node's
 * construct_stub_create_deopt_addr): perf's symbols__find returns the
 * first node from the root that holds the address, so there the shape of
 * its red-black tree decides which of the two a sample gets. The tree is
 * replayed: the file's functions, objects and text labels inserted in
 * table order, sizeless ones run on to the next start
 * (symbols__fixup_end), aliases dropped (symbols__fixup_duplicate, a
 * drop rebalancing as rb_erase does), then the PLT entries.
 */
struct tally__symnode {
	uint64_t start, end;
	int32_t sym;			/* in the table; -1: none (an object, a dropped alias) */
};

struct tally__symtree {
	struct tally__rbt t;
	struct tally__symnode *node;
	size_t nn;
};

void tally__symtree_free(struct tally__symtree *t)
{
	if (!t)
		return;
	free(t->t.n);
	free(t->node);
	free(t);
}

/* A table symbol starting inside an earlier, sized one (r sorted by start). */
static bool nested(const struct tally__rawsym *r, size_t n)
{
	uint64_t reach = 0;	/* the furthest end of the symbols before this start */

	for (size_t i = 0; i < n;) {
		size_t j = i;
		uint64_t far = reach;

		for (; j < n && r[j].start == r[i].start; j++) {
			if (r[j].tree_only)
				continue;
			if (r[j].start < reach)
				return true;
			if (r[j].end > far)
				far = r[j].end;
		}
		reach = far;
		i = j;
	}
	return false;
}

static void tree_insert(struct tally__symtree *t, int32_t z)
{
	int32_t x = t->t.root, p = -1;
	bool left = false;

	while (x >= 0) {	/* equal starts go right, as perf's __symbols__insert */
		p = x;
		left = t->node[z].start < t->node[x].start;
		x = left ? t->t.n[x].l : t->t.n[x].r;
	}
	tally__rb_link(&t->t, z, p, left);
}

struct seq_node {
	size_t idx;
	int32_t node;
};

static int by_seq(const void *a, const void *b)
{
	const struct seq_node *x = a, *y = b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * ord by idx, equal ones in their order (glibc's qsort, a merge sort, is
 * stable too), leaving each one's idx its place: the idx are a symbol
 * table's indices, so each is counted into its slot (node's 150k
 * symbols: a sixth of its report in qsort), and moved there in place.
 */
static void sort_by_seq(struct seq_node *ord, size_t n)
{
	size_t lo = SIZE_MAX, hi = 0;
	uint32_t *at;			/* n <= INT32_MAX (replay) */

	for (size_t i = 0; i < n; i++) {
		lo = ord[i].idx < lo ? ord[i].idx : lo;
		hi = ord[i].idx > hi ? ord[i].idx : hi;
	}
	if (!n || hi - lo > 4 * n || !(at = calloc(hi - lo + 2, sizeof(*at)))) {
		qsort(ord, n, sizeof(*ord), by_seq);
		return;
	}
	for (size_t i = 0; i < n; i++)
		at[ord[i].idx - lo + 1]++;
	for (size_t k = 1; k <= hi - lo + 1; k++)
		at[k] += at[k - 1];
	for (size_t i = 0; i < n; i++)
		ord[i].idx = at[ord[i].idx - lo]++;
	free(at);
	for (size_t i = 0; i < n; i++)
		while (ord[i].idx != i) {
			struct seq_node x = ord[ord[i].idx];

			ord[ord[i].idx] = ord[i];
			ord[i] = x;
		}
}

/*
 * Node i < n is r[i] (r sorted by start), node n + j object j. Nodes to
 * be table symbols get sym 0 here (the index is set once the table is
 * made), the others -1.
 */
static struct tally__symtree *replay(struct tally__rawsym *r, size_t n,
				     const struct tally__rawobj *o, size_t no, bool demangle)
{
	struct tally__symtree *t = tally__calloc(1, sizeof(*t));
	size_t nn = n + no;
	struct seq_node *ord = NULL;

	if (!t || nn > INT32_MAX || !(t->t.n = tally__calloc(nn, sizeof(*t->t.n))) ||
	    !(t->node = tally__calloc(nn, sizeof(*t->node))) ||
	    !(ord = tally__calloc(nn, sizeof(*ord)))) {
		free(ord);
		tally__symtree_free(t);
		return NULL;
	}
	t->t.root = -1;
	t->nn = nn;
	for (size_t i = 0; i < nn; i++) {
		bool sym = i < n;

		t->node[i] = (struct tally__symnode){ sym ? r[i].start : o[i - n].start,
						      sym ? r[i].end : o[i - n].end,
						      sym && !r[i].tree_only ? 0 : -1 };
		ord[i] = (struct seq_node){ sym ? r[i].idx : o[i - n].idx, (int32_t)i };
	}
	sort_by_seq(ord, nn);
	/* the file's symbols in table order */
	for (size_t k = 0; k < nn; k++)
		if (ord[k].node >= (int32_t)n || !r[ord[k].node].late)
			tree_insert(t, ord[k].node);
	/* symbols__fixup_end */
	for (int32_t x = tally__rb_first(&t->t), nx; x >= 0; x = nx) {
		struct tally__symnode *c = &t->node[x];

		nx = tally__rb_next(&t->t, x);
		if (c->end == c->start)
			c->end = nx >= 0 ? t->node[nx].start : ((c->start + 4095) & ~4095ull) + 4096;
	}
	/* symbols__fixup_duplicate */
	for (int32_t x = tally__rb_first(&t->t), nx; x >= 0;) {
		nx = tally__rb_next(&t->t, x);
		if (nx < 0)
			break;
		if (t->node[x].start != t->node[nx].start) {
			x = nx;
			continue;
		}
		struct cand c[2];
		int32_t z[2] = { x, nx };

		for (int i = 0; i < 2; i++) {
			const struct tally__symnode *d = &t->node[z[i]];
			bool sym = z[i] < (int32_t)n;
			const struct tally__rawobj *ob = sym ? NULL : &o[z[i] - (int32_t)n];

			c[i] = (struct cand){ d->end - d->start, sym ? r[z[i]].binding : ob->binding,
					      sym ? r[z[i]].name : NULL, sym ? 0 : ob->unders,
					      sym ? 0 : ob->len, sym ? &r[z[i]].dm : NULL };
		}
		if (cand_best(&c[0], &c[1], demangle)) {
			tally__rb_erase(&t->t, nx);
			t->node[nx].sym = -1;
		} else {
			tally__rb_erase(&t->t, x);
			t->node[x].sym = -1;
			x = nx;
		}
	}
	/* then the PLT's */
	for (size_t k = 0; k < nn; k++)
		if (ord[k].node < (int32_t)n && r[ord[k].node].late)
			tree_insert(t, ord[k].node);
	free(ord);
	return t;
}

/*
 * Each kept node's symbol in the table s (by its start; the table has one
 * per start). The nodes that can be kept come first, by start (replay's
 * r), so the search goes on from where the last one ended.
 */
static void tree_link_table(struct tally__symtree *t, size_t nn, const struct tally_symbol *s,
			    size_t n)
{
	size_t from = 0;

	for (size_t i = 0; i < nn; i++) {
		struct tally__symnode *c = &t->node[i];
		size_t lo = 0, hi = n;

		if (c->sym < 0) {
			c->sym = -1;
			continue;
		}
		/* a step or two from the last: ascending starts */
		if (from < n && s[from].start <= c->start) {
			while (from < n && s[from].start < c->start)
				from++;
			c->sym = from < n && s[from].start == c->start ? (int32_t)from : -1;
			continue;
		}
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (s[mid].start < c->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		c->sym = lo < n && s[lo].start == c->start ? (int32_t)lo : -1;
	}
}

const struct tally_symbol *tally__symtree_find(const struct tally__symtree *t,
					       const struct tally_symbol *s, uint64_t addr)
{
	int32_t x = t->t.root;

	while (x >= 0) {
		const struct tally__symnode *c = &t->node[x];

		if (addr < c->start)
			x = t->t.n[x].l;
		else if (addr > c->end || (addr == c->end && addr != c->start))
			x = t->t.n[x].r;
		else
			return c->sym >= 0 ? &s[c->sym] : NULL;
	}
	return NULL;
}

size_t tally__symtree_nodes(const struct tally__symtree *t, int32_t *root)
{
	*root = t->t.root;
	return t->nn;
}

void tally__symtree_get(const struct tally__symtree *t, size_t i, struct tally__symtree_rec *r)
{
	*r = (struct tally__symtree_rec){ t->node[i].start, t->node[i].end, t->node[i].sym,
					  t->t.n[i].l, t->t.n[i].r, 0 };
}

/*
 * Only what a lookup walks is checked and kept: from the root, indices in
 * range and each node met once (so every walk ends); the nodes it never
 * reaches (dropped aliases) get no children.
 */
struct tally__symtree *tally__symtree_make(const struct tally__symtree_rec *r, size_t nn,
					   int32_t root, size_t nsyms)
{
	struct tally__symtree *t = NULL;
	uint8_t *seen = NULL;
	int32_t *stack = NULL;
	size_t top = 0;
	bool ok = nn <= INT32_MAX && root >= -1 && (root < 0 || (size_t)root < nn);

	if (!ok || !(seen = calloc(nn ? nn : 1, 1)) ||
	    !(stack = malloc((nn ? nn : 1) * sizeof(*stack))))
		goto out;
	if (root >= 0) {
		stack[top++] = root;
		seen[root] = 1;
	}
	while (ok && top) {
		int32_t x = stack[--top], c[2] = { r[x].l, r[x].r };

		ok = r[x].sym >= -1 && (r[x].sym < 0 || (size_t)r[x].sym < nsyms);
		for (int k = 0; ok && k < 2; k++) {
			if (c[k] == -1)
				continue;
			ok = c[k] >= 0 && (size_t)c[k] < nn && !seen[c[k]];
			if (ok) {	/* at most nn pushes: each node once */
				seen[c[k]] = 1;
				stack[top++] = c[k];
			}
		}
	}
	if (!ok || !(t = calloc(1, sizeof(*t))))
		goto out;
	if (!(t->t.n = calloc(nn ? nn : 1, sizeof(*t->t.n))) ||
	    !(t->node = calloc(nn ? nn : 1, sizeof(*t->node)))) {
		tally__symtree_free(t);
		t = NULL;
		goto out;
	}
	t->t.root = root;
	t->nn = nn;
	for (size_t i = 0; i < nn; i++) {
		t->node[i] = (struct tally__symnode){ r[i].start, r[i].end, seen[i] ? r[i].sym : -1 };
		t->t.n[i] = (struct tally__rbn){ .l = seen[i] ? r[i].l : -1,
						 .r = seen[i] ? r[i].r : -1, .p = -1 };
	}
out:
	free(seen);
	free(stack);
	return t;
}

static void sort_raw(struct tally__symvec *v)
{
	/* kallsyms and most symbol tables come in order: sort only when not */
	for (size_t i = 1; i < v->nr; i++)
		if (rawsym_cmp(&v->v[i - 1], &v->v[i]) > 0) {
			/* in place; without memory for the keys, qsort (same order) */
			if (sort_by_start(v->v, v->nr))
				qsort(v->v, v->nr, sizeof(*v->v), rawsym_cmp);
			break;
		}
}

bool tally__symvec_nested(struct tally__symvec *v)
{
	sort_raw(v);
	return nested(v->v, v->nr);
}

/*
 * Sort, give zero-sized symbols the room up to the next one (perf's
 * symbols__fixup_end, which runs first), then keep one symbol per
 * address (symbols__fixup_duplicate, which weighs the demangled names as
 * perf demangles at load; the table keeps the file's, demangled at
 * lookup: tally__dso_symbol).
 */
int tally__symvec_finish(struct tally__symvec *v, struct tally_symbol **out,
			 size_t *nr_out)
{
	return tally__symvec_finish_tree(v, out, nr_out, NULL);
}

int tally__symvec_finish_tree(struct tally__symvec *v, struct tally_symbol **out,
			      size_t *nr_out, struct tally__symtree **tree)
{
	struct tally__rawsym *r = v->v;
	size_t n = v->nr, k = 0, nn = v->nr, nobj = v->nobj;
	struct tally__symtree *t = NULL;

	*out = NULL;
	*nr_out = 0;
	if (tree)
		*tree = NULL;
	if (!n)
		return 0;
	/* the pool moves no more: the names' places are known now */
	for (size_t i = 0; v->arena && i < n; i++)
		r[i].name = v->pool + r[i].noff;
	sort_raw(v);
	if (tree && v->perf_tree && nested(r, n) &&
	    !(t = replay(r, n, v->obj, v->nobj, v->demangle)))
		return -ENOMEM;
	/* perf's tree only: out of the table */
	for (size_t i = 0; i < nn; i++) {
		if (r[i].tree_only) {
			if (!v->arena)
				free(r[i].name);
		} else {
			r[k++] = r[i];
		}
	}
	n = v->nr = k;
	k = 0;
	if (!n) {
		tally__symtree_free(t);
		return 0;
	}
	for (size_t i = 0; i + 1 < n; i++) {
		if (r[i].end != r[i].start)
			continue;
		/* kallsyms: the last symbol before the modules ends at a page. */
		if (r[i].module_edge != r[i + 1].module_edge)
			r[i].end = (r[i].end + 4096 + 4095) & ~4095ull;
		else
			r[i].end = r[i + 1].start;
	}
	if (r[n - 1].end == r[n - 1].start)
		r[n - 1].end = ((r[n - 1].start + 4095) & ~4095ull) + 4096;
	for (size_t i = 1; i < n; i++) {
		struct tally__rawsym *cur = &r[k];

		if (r[i].start != cur->start) {
			r[++k] = r[i];
			continue;
		}
		if (best_is_a(cur, &r[i], v->demangle)) {
			if (!v->arena)
				free(r[i].name);
		} else {
			if (!v->arena)
				free(cur->name);
			*cur = r[i];
		}
	}
	n = k + 1;
	struct tally_symbol *s = tally__calloc(n, sizeof(*s));

	if (!s) {
		v->nr = n;
		tally__symtree_free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		s[i] = (struct tally_symbol){ .start = r[i].start, .end = r[i].end,
					      .name = r[i].name, .binding = r[i].binding,
					      .object = r[i].object };
	free(v->v);
	free(v->obj);
	v->v = NULL;
	v->obj = NULL;
	v->nr = v->alloc = v->nobj = v->aobj = 0;	/* the pool stays, for the table's owner */
	if (t) {
		tree_link_table(t, nn + nobj, s, n);
		*tree = t;
	}
	*out = s;
	*nr_out = n;
	return 0;
}

void tally__symvec_free(struct tally__symvec *v)
{
	for (size_t i = 0; !v->arena && i < v->nr; i++)
		free(v->v[i].name);
	free(v->v);
	free(v->obj);
	free(v->pool);
	memset(v, 0, sizeof(*v));
}

const struct tally_symbol *tally__syms_find(const struct tally_symbol *s, size_t n,
					    uint64_t addr)
{
	size_t lo = 0, hi = n;

	/* Last symbol with start <= addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* A nested symbol may end early: the enclosing one is a few back. */
	for (size_t i = lo, tries = 0; i > 0 && tries < 4; i--, tries++)
		if (addr < s[i - 1].end)
			return &s[i - 1];
	return NULL;
}
