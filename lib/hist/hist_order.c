// SPDX-License-Identifier: MIT
/*
 * The histogram's rows in perf 6.1's order: its output tree replayed
 * (perf_order's passes over a red-black tree, whose comparisons are not
 * transitive), or a sort where they are; -s's keys ranked as perf ranks
 * them.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/hash.h>
#include "internal.h"
#include "hist_priv.h"

/* ---- order ---- */

/*
 * One ordering's state, on its caller's stack and handed to every
 * comparison (qsort_r's argument): two histograms sort on two threads.
 * npre: how many of the leading sort keys (none a symbol) each entry's
 * pre packs, as ranks in cmp_key's order, and rdso whether its rdso is
 * set: one integer compare where each key's was a switch and a strcmp
 * (perf_order's; 0 and false elsewhere).
 */
struct order_ctx {
	const struct tally_hist *h;
	const struct hist_ev *g;	/* a group leader's: its members' counts order too */
	int npre;
	bool rdso;
};

/* One order item: a key ascending, a count biggest first. */
static int cmp_item(const struct tally_hist *h, const struct entry *a, const struct entry *b, int f)
{
	uint64_t x, y;

	if (HIST_KEY(f))
		return cmp_key(a, b, (enum tally_hist_key)f);
	if (f == TALLY_HIST_BY_CHILDREN) {
		x = a->children;
		y = b->children;
	} else {
		x = tally__hist_entry_count(a, f);
		y = tally__hist_entry_count(b, f);
	}
	if (x != y)
		return x > y ? -1 : 1;
	/*
	 * perf puts a caller above its callee at equal children: with call
	 * graphs on, the row of the same thread whose longest chain is
	 * longer comes first (shorter first in callee order).
	 */
	if (f == TALLY_HIST_BY_CHILDREN && h->children && h->graph && a->graphed && b->graphed &&
	    a->tid == b->tid && a->pid == b->pid && a->max_depth != b->max_depth)
		return (a->max_depth > b->max_depth) == h->caller ? -1 : 1;
	return 0;
}

/*
 * perf's first tests of two rows, on entries or their row_key copies (the
 * same fields): children when counted, the caller above its callee at
 * equal children within one thread (the longer chain first, shorter in
 * callee order), then self. Returns from the caller where they differ.
 */
#define CMP_CHILDREN(h, a, b)									\
	do {											\
		if ((h)->children && (a)->children != (b)->children)				\
			return (a)->children > (b)->children ? -1 : 1;				\
		if ((h)->children && (h)->graph &&							\
		    (a)->tid == (b)->tid &&								\
		    (a)->pid == (b)->pid && (a)->max_depth != (b)->max_depth)			\
			return ((a)->max_depth > (b)->max_depth) == (h)->caller ? -1 : 1;	\
	} while (0)
#define CMP_COUNTS(h, a, b)									\
	do {											\
		CMP_CHILDREN(h, a, b);								\
		if ((a)->self != (b)->self)							\
			return (a)->self > (b)->self ? -1 : 1;					\
	} while (0)

static __attribute__((always_inline)) inline int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
	const struct order_ctx *o = arg;
	const struct tally_hist *h = o->h;
	int c;

	if (h->nr_order) {
		for (int i = 0; i < h->nr_order; i++) {
			int f = h->order[i] & ~TALLY_HIST_ORDER_AS_KEY;

			/* perf's sort__sym_sort: two unresolved rows tie (the input order decides) */
			if (f == K_SYM && !a->sym && !b->sym && !(h->order[i] & TALLY_HIST_ORDER_AS_KEY))
				continue;
			/* perf's group view: the members' counts with the leader's */
			if ((c = o->g && f != TALLY_HIST_BY_CHILDREN && !HIST_KEY(f) ?
				 tally__hist_cmp_group(h, o->g, a, b, f) : cmp_item(h, a, b, f)))
				/* perf's "not equal" of a flag key puts the new row left (first) */
				return HIST_KEY(f) && FLAG_KEY(f) ? -c : c;
		}
		return 0;
	}
	/* perf's default: children (when counted), self, then the keys (cmp_item's, inline) */
	if (o->g) {
		CMP_CHILDREN(h, a, b);
		if ((c = tally__hist_cmp_group(h, o->g, a, b, TALLY_HIST_BY_SELF)))
			return c;
	} else {
		CMP_COUNTS(h, a, b);
	}
	if (o->npre && a->pre != b->pre)
		return a->pre < b->pre ? -1 : 1;
	for (int i = o->npre; i < h->nsort; i++) {
		/* perf's sort__sym_sort: two unresolved rows tie (the input order decides) */
		if (h->sort[i] == K_SYM && !a->sym && !b->sym)
			continue;
		/* an elided column's key: perf_hpp__should_skip */
		if (h->elide >> h->sort[i] & 1)
			continue;
		/* perf's "not equal" of a flag key puts the new row left of the other (first) */
		if ((c = cmp_key(a, b, h->sort[i])))
			return FLAG_KEY(h->sort[i]) ? -c : c;
	}
	return 0;
}

/*
 * perf's hist_entry__cmp, the order of its input trees: whether entry a,
 * put into a tree, goes left of b (< 0). As cmp_key, except that a symbol
 * is its DSO and address (sort__sym_cmp), and addresses, unresolved ones'
 * and symbols' starts, compare by the sign of their difference as an
 * int64 (so not transitively: 0x7f.. comes before 0x00.., which comes
 * before 0xc3..).
 */
static __attribute__((always_inline)) inline int cmp_in(const struct order_ctx *o, const struct entry *a,
							const struct entry *b)
{
	const struct tally_hist *h = o->h;
	int c;

	if (o->npre && a->pre != b->pre)
		return a->pre < b->pre ? -1 : 1;
	for (int i = o->npre; i < h->nsort; i++) {
		if (h->sort[i] == K_SYM && (a->sym || b->sym)) {
			if (o->rdso && a->rdso != b->rdso)
				return a->rdso < b->rdso ? -1 : 1;
			if (!o->rdso && (c = strcmp_null(a->dso, b->dso)))
				return c;
			if (!a->sym || !b->sym)
				return a->sym ? -1 : 1;
			if ((a->inlined || b->inlined) && (c = strcmp(b->sym, a->sym)))
				return c;
			int64_t d = (int64_t)(a->sym_start - b->sym_start);

			if (d)
				return d < 0 ? -1 : 1;
			continue;
		}
		if ((c = cmp_key(a, b, h->sort[i])))
			return c;
	}
	return 0;
}

/*
 * With the usual keys (all but a last symbol packed in pre), the tree
 * passes compare copies of the fields they read, side by side: an entry
 * is 200 bytes, scattered, and the passes touch each one some 40 times.
 */
struct in_key {			/* cmp_in's */
	uint64_t pre;
	uint64_t at;			/* the symbol's start, else the unresolved address */
	const char *sym;		/* an inlined function's name */
	uint32_t rdso;
	bool resolved, inlined;
};

struct row_key {		/* cmp_rows' */
	uint64_t children, self, pre;
	const char *sym;
	int32_t tid, pid;
	uint32_t max_depth;
	bool graphed;
};

/* Whether the keys' copies hold all that cmp_in reads: every key in pre but a last symbol. */
static bool keys_packed(const struct order_ctx *o)
{
	const struct tally_hist *h = o->h;

	return o->npre == h->nsort ||
	       (o->npre == h->nsort - 1 && h->sort[h->nsort - 1] == K_SYM && o->rdso);
}

/* and all that cmp_rows reads: perf's default order, no group's members */
static bool rows_packed(const struct order_ctx *o)
{
	return keys_packed(o) && !o->h->nr_order && !o->g;
}

static void in_key_of(struct in_key *k, const struct entry *e)
{
	*k = (struct in_key){ .pre = e->pre, .at = e->sym ? e->sym_start : e->addr, .sym = e->sym,
			      .rdso = e->rdso, .resolved = e->sym != NULL, .inlined = e->inlined };
}

static void row_key_of(struct row_key *k, const struct entry *e)
{
	*k = (struct row_key){ .children = e->children, .self = e->self, .pre = e->pre,
			       .sym = e->sym, .tid = e->tid, .pid = e->pid,
			       .max_depth = e->max_depth, .graphed = e->graphed };
}

/* cmp_in on the copies (keys_packed) */
static __attribute__((always_inline)) inline int cmp_in_key(const struct in_key *a, const struct in_key *b)
{
	int64_t d;
	int c;

	if (a->pre != b->pre)
		return a->pre < b->pre ? -1 : 1;
	if (!a->resolved && !b->resolved) {
		d = (int64_t)(b->at - a->at);	/* cmp_key's two unresolved addresses */
		return d > 0 ? -1 : d < 0;
	}
	if (a->rdso != b->rdso)
		return a->rdso < b->rdso ? -1 : 1;
	if (!a->resolved || !b->resolved)
		return a->resolved ? -1 : 1;
	if ((a->inlined || b->inlined) && (c = strcmp(b->sym, a->sym)))
		return c;
	d = (int64_t)(a->at - b->at);
	return d ? (d < 0 ? -1 : 1) : 0;
}

/* cmp_rows on the copies (rows_packed) */
static __attribute__((always_inline)) inline int cmp_row_key(const struct order_ctx *o,
							     const struct row_key *a,
							     const struct row_key *b)
{
	const struct tally_hist *h = o->h;

	CMP_COUNTS(h, a, b);
	if (a->pre != b->pre)
		return a->pre < b->pre ? -1 : 1;
	if (o->npre == h->nsort || (!a->sym && !b->sym))
		return 0;	/* perf's sort__sym_sort: two unresolved rows tie */
	return strcmp_null(a->sym, b->sym);
}

enum pass_cmp { BY_IN, BY_ROWS, BY_IN_KEY, BY_ROW_KEY };

/* The inserts of a tree pass, by one comparison (a constant: each caller gets its own loop). */
static __attribute__((always_inline)) inline void tree_insert(const struct order_ctx *ctx,
							      struct tally__rbt *t, struct entry **in,
							      const struct in_key *ik,
							      const struct row_key *rk, size_t n,
							      enum pass_cmp by)
{
	/* a copy no call can change: its fields stay in registers across tally__rb_link */
	const struct order_ctx oc = *ctx, *o = &oc;

	t->root = -1;
	for (size_t i = 0; i < n; i++) {
		int32_t x = t->root, p = -1;
		bool left = false;

		while (x >= 0) {
			p = x;
			switch (by) {
			case BY_IN: left = cmp_in(o, in[i], in[x]) < 0; break;
			case BY_ROWS: left = cmp_rows(&in[i], &in[x], (void *)o) < 0; break;
			case BY_IN_KEY: left = cmp_in_key(&ik[i], &ik[x]) < 0; break;
			case BY_ROW_KEY: left = cmp_row_key(o, &rk[i], &rk[x]) < 0; break;
			}
			x = left ? t->n[x].l : t->n[x].r;
		}
		tally__rb_link(t, (int32_t)i, p, left);
	}
}

/*
 * Each entry of in[] (n) into a red-black tree by cmp (cmp_in or, output,
 * cmp_rows), read back in order; on copies of the keys' fields in kb
 * (room for n of the larger) when keys_packed, else on the entries.
 */
static void tree_pass(const struct order_ctx *o, struct tally__rbt *t, struct entry **in,
		      struct entry **out, size_t n, bool output, void *kb)
{
	struct in_key *ik = kb;
	struct row_key *rk = kb;
	size_t k = 0;

	for (size_t i = 0; kb && i < n; i++) {
		/*
		 * the entries lie anywhere but in the first pass: each fetched
		 * ahead of its copy, every line from its tid to its rdso
		 */
		if (i + 8 < n)
			for (size_t at = offsetof(struct entry, tid);
			     at < offsetof(struct entry, rdso) + 48; at += 48)
				__builtin_prefetch((const char *)in[i + 8] + at);
		if (output)
			row_key_of(&rk[i], in[i]);
		else
			in_key_of(&ik[i], in[i]);
	}
	if (kb && output)
		tree_insert(o, t, in, ik, rk, n, BY_ROW_KEY);
	else if (kb)
		tree_insert(o, t, in, ik, rk, n, BY_IN_KEY);
	else if (output)
		tree_insert(o, t, in, ik, rk, n, BY_ROWS);
	else
		tree_insert(o, t, in, ik, rk, n, BY_IN);
	for (int32_t x = tally__rb_first(t); x >= 0; x = tally__rb_next(t, x))
		out[k++] = in[x];
}

/* cmp_in, ties in the order the entries were made (a tree's insertion order) */
static int cmp_in_seq(const void *pa, const void *pb, void *arg)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
	int c = cmp_in(arg, a, b);

	return c ? c : (a->seq < b->seq ? -1 : a->seq > b->seq);
}

static int by_seq(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* cmp_rows, ties in their order before (rank) */
static int cmp_rows_rank(const void *pa, const void *pb, void *arg)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
	int c = cmp_rows(pa, pb, arg);

	return c ? c : (a->rank < b->rank ? -1 : a->rank > b->rank);
}

/*
 * cmp_in is a true order here when the unresolved addresses all lie
 * within 2^63 of each other (a DSO's symbols always do), and cmp_rows
 * when its caller-above-callee rule holds between every two rows (one
 * thread, each with a call graph).
 */
static bool span_ok(uint64_t lo, uint64_t hi)
{
	return lo > hi || hi - lo <= (uint64_t)INT64_MAX;
}

/* a flag key (equal or not) orders nothing: perf's trees decide */
static bool flag_keys(const struct tally_hist *h)
{
	for (int i = 0; i < h->nsort; i++)
		if (FLAG_KEY(h->sort[i]))
			return true;
	return false;
}

/*
 * cmp_in's symbol key puts a resolved row's DSO first, as perf's
 * sort__sym_cmp, but two unresolved rows compare by address alone: where
 * a key before the symbol does not set the DSO, unresolved rows of two
 * DSOs and a resolved one between those go round in a circle (zzz's
 * 0x10 < aaa's 0x20 < libc's read < zzz's 0x10). Whether the DSO key
 * comes before the symbol's.
 */
static bool dso_leads(const struct tally_hist *h)
{
	for (int i = 0; i < h->nsort && h->sort[i] != K_SYM; i++)
		if (h->sort[i] == K_DSO)
			return true;
	return false;
}

static bool in_transitive(const struct tally_hist *h, struct entry **e, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0, blo = UINT64_MAX, bhi = 0;
	bool sym = false, resolved = false, dsos = false, lead;
	const char *udso = NULL;
	size_t unres = 0;

	if (flag_keys(h))
		return false;
	for (int i = 0; i < h->nsort; i++)
		sym |= h->sort[i] == K_SYM;
	lead = !sym || dso_leads(h);
	for (size_t i = 0; i < n; i++) {
		if (!e[i]->sym) {
			lo = e[i]->addr < lo ? e[i]->addr : lo;
			hi = e[i]->addr > hi ? e[i]->addr : hi;
			/* no later address brings them closer: a profile of garbage frames stops here */
			if (!span_ok(lo, hi))
				return false;
			/* the names are one copy a DSO: two pointers, two DSOs (or one, asked again) */
			dsos |= unres++ && e[i]->dso != udso;
			udso = e[i]->dso;
		} else {
			resolved = true;
		}
		if (!lead && resolved && dsos)
			return false;
		/* branch mode's unresolved ends compare by their addresses likewise */
		for (int k = 0; h->branch && k < 2; k++) {
			const struct where *w = k ? e[i]->bt : e[i]->bf;
			uint64_t a = k ? e[i]->m->bto : e[i]->m->bfrom;

			if (w && !w->sym) {
				blo = a < blo ? a : blo;
				bhi = a > bhi ? a : bhi;
				if (!span_ok(blo, bhi))
					return false;
			}
		}
	}
	return span_ok(lo, hi) && span_ok(blo, bhi);
}

static bool rows_transitive(const struct tally_hist *h, struct entry **e, size_t n)
{
	if (flag_keys(h))
		return false;
	if (!h->children || !h->graph)
		return true;
	for (size_t i = 0; i < n; i++)
		if (!e[i]->graphed || e[i]->tid != e[0]->tid || e[i]->pid != e[0]->pid)
			return false;
	return true;
}

/*
 * in[] (n, every entry) in cmp_in_seq's order: the order kept from the
 * last time with the entries made since sorted and merged in (out: n of
 * room), else all sorted; kept for the next time.
 */
static void in_order(struct order_ctx *o, struct hist_ev *hs, struct entry **in, struct entry **out,
		     size_t n)
{
	size_t m = 0, a = 0, b = 0, k = 0;

	if (!hs->in) {
		qsort_r(in, n, sizeof(*in), cmp_in_seq, o);
	} else {
		/* the new ones, sorted */
		for (size_t i = 0; i < n; i++)
			if (in[i]->seq >= hs->in_made)
				out[m++] = in[i];
		if (m + hs->nin != n) {
			/* not the entries kept plus the new ones: sort them all */
			free(hs->in);
			hs->in = NULL;
			qsort_r(in, n, sizeof(*in), cmp_in_seq, o);
			goto keep;
		}
		qsort_r(out, m, sizeof(*out), cmp_in_seq, o);
		while (a < hs->nin && b < m)
			in[k++] = cmp_in_seq(&hs->in[a], &out[b], o) < 0 ? hs->in[a++] : out[b++];
		while (a < hs->nin)
			in[k++] = hs->in[a++];
		while (b < m)
			in[k++] = out[b++];
	}
keep:
	if (!hs->in || hs->nin < n) {
		struct entry **v = realloc(hs->in, (n ? n : 1) * sizeof(*v));

		if (!v) {
			free(hs->in);
			hs->in = NULL;
			hs->nin = 0;
			return;	/* sorted; nothing kept */
		}
		hs->in = v;
	}
	memcpy(hs->in, in, n * sizeof(*in));
	hs->nin = n;
	hs->in_made = hs->made;
}

/* What a key is, as a number: equal numbers, equal keys (unequal ones may still compare equal: strings not interned). */
static uint64_t key_ident(const struct entry *e, enum tally_hist_key k)
{
	switch (k) {
	case K_COMM: return (uintptr_t)e->comm;
	case K_PID: return (uint32_t)e->tid;
	case K_DSO: return (uintptr_t)e->dso;
	case K_CPU: return (uint32_t)e->cpu;
	case K_SRCLINE: return (uintptr_t)entry_srcline(e);
	case K_PARENT: return (uintptr_t)e->parent;
	case K_TRACE: return (uintptr_t)e->trace;
	default: return tally__hist_mem_ident(e, k);
	}
}

/* qsort_r's: arg points at the key */
static int cmp_rep(const void *pa, const void *pb, void *arg)
{
	return cmp_key(*(struct entry *const *)pa, *(struct entry *const *)pb,
		       *(const enum tally_hist_key *)arg);
}

/*
 * Each entry's key k as its rank (out[i], from 0) among the values the
 * entries have, in cmp_key's order: the distinct values by a hash of
 * their numbers, then those few sorted. Returns how many ranks, or
 * -ENOMEM.
 */
static long rank_key(struct entry **in, size_t n, enum tally_hist_key k, uint32_t *out)
{
	struct slot {
		uint64_t id;
		uint32_t ix;		/* its distinct value's index + 1; 0: empty */
	} *tab;
	size_t cap = 64, d = 0, rcap = 0;
	struct entry **reps = NULL;
	uint32_t *rank = NULL;
	long r = -1;

	if (!(tab = calloc(cap, sizeof(*tab))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t id = key_ident(in[i], k);
		size_t b = tally_hash_mix(id) & (cap - 1);

		while (tab[b].ix && tab[b].id != id)
			b = (b + 1) & (cap - 1);
		if (tab[b].ix) {
			out[i] = tab[b].ix - 1;
			continue;
		}
		if (d == rcap) {
			struct entry **v = realloc(reps, (rcap = rcap ? 2 * rcap : 16) * sizeof(*v));

			if (!v)
				goto out;
			reps = v;
		}
		tab[b].id = id;
		tab[b].ix = (uint32_t)++d;
		reps[d - 1] = in[i];
		out[i] = (uint32_t)(d - 1);
		if (d >= cap / 2) {
			struct slot *nt = calloc(cap * 2, sizeof(*nt));

			if (!nt)
				goto out;
			for (size_t j = 0; j < cap; j++) {
				if (!tab[j].ix)
					continue;
				b = tally_hash_mix(tab[j].id) & (2 * cap - 1);
				while (nt[b].ix)
					b = (b + 1) & (2 * cap - 1);
				nt[b] = tab[j];
			}
			free(tab);
			tab = nt;
			cap *= 2;
		}
	}
	if (!d) {
		r = 0;
		goto out;
	}
	/* the distinct values in order: each rep's index rides in its rank slot */
	struct entry **sorted = malloc(d * sizeof(*sorted));

	if (!sorted || !(rank = malloc(d * sizeof(*rank)))) {
		free(sorted);
		goto out;
	}
	memcpy(sorted, reps, d * sizeof(*sorted));
	qsort_r(sorted, d, sizeof(*sorted), cmp_rep, &k);
	/* a rep's index: its id in the table */
	r = 0;
	for (size_t j = 0; j < d; j++) {
		uint64_t id = key_ident(sorted[j], k);
		size_t b = tally_hash_mix(id) & (cap - 1);

		while (tab[b].id != id)
			b = (b + 1) & (cap - 1);
		if (j && cmp_key(sorted[j - 1], sorted[j], k))
			r++;
		rank[tab[b].ix - 1] = (uint32_t)r;
	}
	r++;
	for (size_t i = 0; i < n; i++)
		out[i] = rank[out[i]];
	free(sorted);
out:
	free(tab);
	free(reps);
	free(rank);
	return r;
}

/*
 * The entries' leading keys (those before the symbol) as one packed
 * number, and their DSOs' ranks for cmp_in's symbol compare: set o's
 * npre and rdso for cmp_in and cmp_rows. Any key that does not fit, or
 * for lack of memory, is compared as it was.
 */
static void rank_entries(struct order_ctx *o, struct entry **in, size_t n, uint32_t *tmp)
{
	const struct tally_hist *h = o->h;
	int bits = 0, npre = 0;
	bool sym = false, rdso = false;

	for (size_t j = 0; j < n; j++)
		in[j]->pre = 0;
	for (int i = 0; i < h->nsort; i++)
		sym |= h->sort[i] == K_SYM;
	for (int i = 0; i < h->nsort && h->sort[i] != K_SYM && !FLAG_KEY(h->sort[i]); i++) {
		long d = rank_key(in, n, h->sort[i], tmp);
		int b = 0;

		if (d < 0)
			break;
		while (b < 64 && ((uint64_t)1 << b) < (uint64_t)d)
			b++;
		if (bits + b > 64)
			break;
		for (size_t j = 0; j < n && b; j++)
			in[j]->pre = in[j]->pre << b | tmp[j];
		/* the DSO's ranks serve the symbol's compare too: not ranked twice */
		for (size_t j = 0; j < n && h->sort[i] == K_DSO; j++)
			in[j]->rdso = tmp[j];
		rdso |= h->sort[i] == K_DSO;
		bits += b;
		npre++;
	}
	o->npre = npre;
	o->rdso = false;
	if (sym && (rdso || rank_key(in, n, K_DSO, tmp) >= 0)) {
		for (size_t j = 0; j < n && !rdso; j++)
			in[j]->rdso = tmp[j];
		o->rdso = true;
	}
}

/* in[] (n) in the order the entries were made: placed by seq where few were taken out since, else sorted */
static void seq_order(const struct hist_ev *hs, struct entry **in, size_t n)
{
	struct entry **at;
	size_t k = 0;

	if (hs->made > 2 * n || !(at = calloc(hs->made, sizeof(*at)))) {
		qsort(in, n, sizeof(*in), by_seq);
		return;
	}
	for (size_t i = 0; i < n; i++)
		at[in[i]->seq] = in[i];
	for (size_t i = 0; i < hs->made; i++)
		if (at[i])
			in[k++] = at[i];
	free(at);
}

/* in[] with the group link's entries (hs->gd_from..gd_to) moved last, in order; how many */
static size_t dummies_last(const struct hist_ev *hs, struct entry **in, size_t n)
{
	size_t k = 0, nd = 0;
	struct entry **d;

	for (size_t i = 0; i < n; i++)
		nd += in[i]->seq >= hs->gd_from && in[i]->seq < hs->gd_to;
	if (!nd || !(d = malloc(nd * sizeof(*d))))
		return 0;
	nd = 0;
	for (size_t i = 0; i < n; i++)
		if (in[i]->seq >= hs->gd_from && in[i]->seq < hs->gd_to)
			d[nd++] = in[i];
		else
			in[k++] = in[i];
	memcpy(in + k, d, nd * sizeof(*d));
	free(d);
	return nd;
}

/*
 * Whether perf collapses the entries into a second tree (its need_collapse:
 * a key with a collapse compare, such as comm). Where every key is one
 * perf 6.1 has none for (pid, dso, sym, cpu) the output tree reads
 * entries_in itself; any other key keeps the second tree, as before.
 */
static bool collapses(const struct tally_hist *h)
{
	for (int i = 0; i < h->nsort; i++)
		if (h->sort[i] != K_PID && h->sort[i] != K_DSO && h->sort[i] != K_SYM &&
		    h->sort[i] != K_CPU)
			return true;
	return false;
}

/*
 * perf's default row order, which no sort gives in general: its rows
 * come out of three red-black trees. The entries go into
 * hists->entries_in as the samples make them, then in that tree's order
 * into entries_collapsed (both by cmp_in; not with only keys that have
 * no collapse compare: collapses), then in that one's order into
 * the output tree by cmp_rows; each goes left of a node it sorts before,
 * right otherwise. cmp_in's int64 differences and cmp_rows' caller-above-
 * callee rule (within one thread) are not transitive: there the trees'
 * shapes decide, and they are replayed, on every entry (filtered ones
 * too, as perf's). Where the order is a true one, a stable sort gives the
 * same rows for less.
 */
/*
 * A row shows when a sample that passed the filters made it and, with
 * --symbol-filter, when its symbol holds the text (perf's
 * hists__filter_by_symbol, a test of the row itself)
 */
static bool row_shown(const struct tally_hist *h, const struct hist_ev *hs, const struct entry *e)
{
	const char *sf = h->filter.symbol_filter;

	/* a group's link comes after perf's filter by symbol: the entries it made are not tested */
	return e->visible && (!sf || (e->sym && strstr(e->sym, sf)) ||
			      (e->seq >= hs->gd_from && e->seq < hs->gd_to));
}

static int perf_order(const struct tally_hist *h, struct hist_ev *hs)
{
	size_t n = hs->n;
	struct tally__rbt t = { NULL, -1 };
	struct order_ctx o = { .h = h, .g = hs->gpair ? hs : NULL };
	struct entry **in, **out;

	hs->nrows = 0;
	if (!n)
		return 0;
	if (n > INT32_MAX)
		return -ENOMEM;
	in = malloc(n * sizeof(*in));
	out = malloc(n * sizeof(*out));
	t.n = malloc(n * sizeof(*t.n));
	if (!in || !out || !t.n) {
		free(in);
		free(out);
		free(t.n);
		return -ENOMEM;
	}
	n = 0;
	for (size_t b = 0; b < hs->nbuckets; b++)
		for (struct entry *e = hs->tab[b]; e; e = e->next)
			in[n++] = e;
	bool trans = in_transitive(h, in, n);

	/*
	 * the tree's inserts in the order the entries were made, which is
	 * mostly their blocks': the ranks' passes over them read memory in
	 * order too (in the table's order each entry was a miss)
	 */
	if (!trans)
		seq_order(hs, in, n);
	/* out[] is free until the first pass: the ranks' room */
	rank_entries(&o, in, n, (uint32_t *)out);
	/* without room for the copies, the passes read the entries */
	void *kb = keys_packed(&o) ? malloc(n * (sizeof(struct row_key) > sizeof(struct in_key) ?
						sizeof(struct row_key) : sizeof(struct in_key))) : NULL;

	if (trans) {
		in_order(&o, hs, in, out, n);
	} else {
		free(hs->in);
		hs->in = NULL;
		hs->nin = 0;
		/*
		 * a group leader's entries made for its members' keys (perf's
		 * dummies) go into the collapsed tree after the others have
		 */
		size_t nd = collapses(h) ? dummies_last(hs, in, n) : 0;

		tree_pass(&o, &t, in, out, n - nd, false, kb);
		memcpy(out + n - nd, in + n - nd, nd * sizeof(*in));
		if (collapses(h))
			tree_pass(&o, &t, out, in, n, false, kb);
		else
			memcpy(in, out, n * sizeof(*in));
	}
	/* an elided key: the output order compares the keys one by one, that one skipped */
	if (h->elide) {
		o.npre = 0;
		free(kb);
		kb = NULL;
	}
	if (rows_transitive(h, in, n)) {
		for (size_t i = 0; i < n; i++)
			in[i]->rank = i;
		qsort_r(in, n, sizeof(*in), cmp_rows_rank, &o);
	} else {
		tree_pass(&o, &t, in, out, n, true, rows_packed(&o) ? kb : NULL);
		memcpy(in, out, n * sizeof(*in));
	}
	free(kb);
	for (size_t i = 0; i < n; i++)
		if (row_shown(h, hs, in[i]))
			hs->rows[hs->nrows++] = in[i];
	free(in);
	free(out);
	free(t.n);
	return 0;
}

/*
 * hs's rows in h's order: perf's by default, else the one tally_hist__sort
 * was given (-F's), both through perf's trees: rows that tie come in the
 * order its input tree gives them, as perf's
 */
int tally__hist_order_rows(const struct tally_hist *h, struct hist_ev *hs)
{
	return perf_order(h, hs);
}

int tally__hist_order_all(struct tally_hist *h)
{
	for (int i = 0; i < h->nev; i++) {
		struct hist_ev *hs = &h->ev[i];
		int err;

		if (!(hs->rows = malloc((hs->n + 1) * sizeof(*hs->rows))))
			return -ENOMEM;
		if ((err = tally__hist_order_rows(h, hs)))
			return err;
	}
	return 0;
}

static void *order_main(void *arg)
{
	struct hist_order_job *j = arg;

	j->err = tally__hist_order_all(j->h);
	return NULL;
}

/* Entries from which the order goes to a second thread (its start is some 50 us). */
#define ORDER_MT 8192

bool tally__hist_order_start(struct tally_hist *h, struct hist_order_job *j)
{
	size_t n = 0;

	for (int i = 0; i < h->nev; i++)
		n += h->ev[i].n;
	if (n < ORDER_MT || !tally__two_threads())
		return false;
	j->h = h;
	j->err = 0;
	return !pthread_create(&j->th, NULL, order_main, j);
}

int tally__hist_order_join(struct hist_order_job *j)
{
	pthread_join(j->th, NULL);
	return j->err;
}

int tally_hist__sort(struct tally_hist *h, const int *order, int n)
{
	if (!h || n < 0 || n > (int)(sizeof(h->order) / sizeof(h->order[0])) || (n && !order))
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		int f = order[i] & ~TALLY_HIST_ORDER_AS_KEY;
		bool count = (f >= TALLY_HIST_BY_SELF && f <= TALLY_HIST_BY_SAMPLES) ||
			     (f >= TALLY_HIST_BY_SYS && f <= TALLY_HIST_BY_GUEST_US);

		/* a key, with the flag or not; a count, without it */
		if (order[i] < 0 || !(HIST_KEY(f) || (count && f == order[i])))
			return -EINVAL;
	}
	memcpy(h->order, order, (size_t)n * sizeof(*order));
	h->nr_order = n;
	for (int e = 0; e < h->nev; e++)
		if (h->ev[e].rows && tally__hist_order_rows(h, &h->ev[e]))
			return -ENOMEM;
	return 0;
}

