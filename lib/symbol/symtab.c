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
		.name = dup, .idx = v->nr, .noff = v->plen, .module_edge = module_edge,
	};
	if (v->arena) {
		memcpy(v->pool + v->plen, name, len);
		v->plen += len;
	}
	return 0;
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

static size_t lead_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* perf's choose_best_symbol(): true when a beats (or ties) b. */
static bool best_is_a(const struct tally__rawsym *a, const struct tally__rawsym *b)
{
	uint64_t sa = a->end - a->start, sb = b->end - b->start;

	if (!sb && sa)
		return true;
	if (!sa && sb)
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
	size_t ua = lead_underscores(a->name), ub = lead_underscores(b->name);

	if (ub > ua)
		return true;
	if (ua > ub)
		return false;
	return strlen(a->name) >= strlen(b->name);
}

/*
 * Sort, give zero-sized symbols the room up to the next one (perf's
 * symbols__fixup_end, which runs first), then keep one symbol per
 * address (symbols__fixup_duplicate), on the names as the file has them
 * (demangled at lookup: tally__dso_symbol).
 */
int tally__symvec_finish(struct tally__symvec *v, struct tally_symbol **out,
			 size_t *nr_out)
{
	struct tally__rawsym *r = v->v;
	size_t n = v->nr, k = 0;

	*out = NULL;
	*nr_out = 0;
	if (!n)
		return 0;
	for (size_t i = 0; v->arena && i < n; i++)
		r[i].name = v->pool + r[i].noff;
	/* kallsyms and most symbol tables come in order: sort only when not */
	for (size_t i = 1; i < n; i++)
		if (rawsym_cmp(&r[i - 1], &r[i]) > 0) {
			if (sort_by_start(r, n))
				return -ENOMEM;
			break;
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
		if (best_is_a(cur, &r[i])) {
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

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		s[i] = (struct tally_symbol){ .start = r[i].start, .end = r[i].end,
					      .name = r[i].name, .binding = r[i].binding };
	free(v->v);
	v->v = NULL;
	v->nr = v->alloc = 0;	/* the pool stays, for the table's owner */
	*out = s;
	*nr_out = n;
	return 0;
}

void tally__symvec_free(struct tally__symvec *v)
{
	for (size_t i = 0; !v->arena && i < v->nr; i++)
		free(v->v[i].name);
	free(v->v);
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
