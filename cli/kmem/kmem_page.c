// SPDX-License-Identifier: MIT
/*
 * tally kmem stat --page --caller/--alloc: the page allocator's tables as
 * perf kmem 6.1 prints them: the GFP flags met (perf's compact names and
 * the tracepoint's own text), the allocations per page (pfn), order,
 * migrate type and flags, and per call site, order, migrate type and
 * flags, sorted by -s (bytes,hit by default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kmem_cmd.h"

struct prow {
	uint64_t key;			/* the page (pfn) or the call site */
	unsigned order, gfp;
	int migrate;
	unsigned long nr_alloc;
	uint64_t alloc_bytes, callsite;
	const char *cs_name;		/* the call site's kernel symbol, or NULL */
	bool gone;			/* --live: freed, out of perf's tree */
};

struct gfp {
	unsigned flags;
	char *human, *compact;
};

/* Rows with an index by their key, order, migrate type and flags. */
struct rows {
	struct prow *v;
	size_t nr, cap;
	size_t *idx;			/* slot: row + 1, 0 empty */
	size_t idx_cap;
	bool by_key;			/* --live's pages: by the page alone (perf's live tree) */
};

struct kmem_pages {
	struct rows alloc, caller;
	struct gfp *gfps;
	size_t nr_gfps;
	size_t max_gfp_len;
	bool use_pfn;
	bool live;			/* --live: the pages not freed, the callers' net */
};

struct kmem_pages *kmem_pages_new(bool live)
{
	struct kmem_pages *p = calloc(1, sizeof(struct kmem_pages));

	if (p) {
		p->live = live;
		p->alloc.by_key = live;
	}
	return p;
}

void kmem_pages_free(struct kmem_pages *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_gfps; i++) {
		free(p->gfps[i].human);
		free(p->gfps[i].compact);
	}
	free(p->gfps);
	free(p->alloc.v);
	free(p->alloc.idx);
	free(p->caller.v);
	free(p->caller.idx);
	free(p);
}

/* perf's gfp_compact_table: a flag's short name in the tables */
static const char *compact_of(const char *flag)
{
	static const struct { const char *original, *compact; } table[] = {
		{ "GFP_TRANSHUGE", "THP" }, { "GFP_TRANSHUGE_LIGHT", "THL" },
		{ "GFP_HIGHUSER_MOVABLE", "HUM" }, { "GFP_HIGHUSER", "HU" }, { "GFP_USER", "U" },
		{ "GFP_KERNEL_ACCOUNT", "KAC" }, { "GFP_KERNEL", "K" }, { "GFP_NOFS", "NF" },
		{ "GFP_ATOMIC", "A" }, { "GFP_NOIO", "NI" }, { "GFP_NOWAIT", "NW" }, { "GFP_DMA", "D" },
		{ "__GFP_HIGHMEM", "HM" }, { "GFP_DMA32", "D32" }, { "__GFP_HIGH", "H" },
		{ "__GFP_ATOMIC", "_A" }, { "__GFP_IO", "I" }, { "__GFP_FS", "F" },
		{ "__GFP_NOWARN", "NWR" }, { "__GFP_RETRY_MAYFAIL", "R" }, { "__GFP_NOFAIL", "NF" },
		{ "__GFP_NORETRY", "NR" }, { "__GFP_COMP", "C" }, { "__GFP_ZERO", "Z" },
		{ "__GFP_NOMEMALLOC", "NMA" }, { "__GFP_MEMALLOC", "MA" }, { "__GFP_HARDWALL", "HW" },
		{ "__GFP_THISNODE", "TN" }, { "__GFP_RECLAIMABLE", "RC" }, { "__GFP_MOVABLE", "M" },
		{ "__GFP_ACCOUNT", "AC" }, { "__GFP_WRITE", "WR" }, { "__GFP_RECLAIM", "R" },
		{ "__GFP_DIRECT_RECLAIM", "DR" }, { "__GFP_KSWAPD_RECLAIM", "KR" },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i].original, flag))
			return table[i].compact;
	return NULL;
}

static int gfp_cmp(const void *a, const void *b)
{
	const struct gfp *x = a, *y = b;

	return x->flags < y->flags ? -1 : x->flags > y->flags;
}

bool kmem_pages_gfp_known(const struct kmem_pages *p, unsigned flags)
{
	struct gfp key = { .flags = flags };

	return p->nr_gfps && bsearch(&key, p->gfps, p->nr_gfps, sizeof(*p->gfps), gfp_cmp);
}

/* perf's parse_gfp_flags: the "gfp_flags=..." word of the event's text, and its compact form. */
int kmem_pages_add_gfp(struct kmem_pages *p, unsigned flags, const char *info)
{
	const char *w = strstr(info, "gfp_flags=");
	struct gfp *n, g = { .flags = flags };
	char *dup, *tok, *save = NULL;
	size_t len = 0;

	if (!w || (w != info && w[-1] != ' '))
		return 0;
	w += 10;
	if (!(g.human = strndup(w, strcspn(w, " "))) || !(dup = strdup(g.human))) {
		free(g.human);
		return -1;
	}
	if (!(g.compact = calloc(1, strlen(g.human) * 2 + 2))) {
		free(dup);
		free(g.human);
		return -1;
	}
	for (tok = strtok_r(dup, "|", &save); tok; tok = strtok_r(NULL, "|", &save)) {
		const char *c = compact_of(tok);

		if (!c)
			continue;	/* a flag perf's table lacks: left out, as perf */
		if (len)
			strcat(g.compact, "|"), len++;
		strcat(g.compact, c);
		len += strlen(c);
	}
	free(dup);
	if (p->max_gfp_len < len)
		p->max_gfp_len = len;
	if (!(n = realloc(p->gfps, (p->nr_gfps + 1) * sizeof(*n)))) {
		free(g.human);
		free(g.compact);
		return -1;
	}
	p->gfps = n;
	p->gfps[p->nr_gfps++] = g;
	qsort(p->gfps, p->nr_gfps, sizeof(*p->gfps), gfp_cmp);
	return 0;
}

static const char *compact_str(const struct kmem_pages *p, unsigned flags)
{
	struct gfp key = { .flags = flags }, *g;

	g = p->nr_gfps ? bsearch(&key, p->gfps, p->nr_gfps, sizeof(*p->gfps), gfp_cmp) : NULL;
	return g && g->compact ? g->compact : "";
}

static size_t slot_of(uint64_t key, unsigned order, int migrate, unsigned gfp, size_t cap)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ull ^ ((uint64_t)order << 40) ^
		     ((uint64_t)(unsigned)migrate << 48) ^ gfp;

	return (size_t)((h * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static bool same(const struct rows *t, const struct prow *r, uint64_t key, unsigned order,
		 int migrate, unsigned gfp)
{
	if (r->gone || r->key != key)
		return false;
	return t->by_key || (r->order == order && r->migrate == migrate && r->gfp == gfp);
}

/* A row's slot: by the key alone in a by_key table. */
static size_t slot_in(const struct rows *t, uint64_t key, unsigned order, int migrate,
		      unsigned gfp, size_t cap)
{
	return t->by_key ? slot_of(key, 0, 0, 0, cap) : slot_of(key, order, migrate, gfp, cap);
}

static int reindex(struct rows *t, size_t cap)
{
	size_t *idx = calloc(cap, sizeof(*idx));

	if (!idx)
		return -1;
	for (size_t i = 0; i < t->nr; i++) {
		const struct prow *r = &t->v[i];
		size_t j = slot_in(t, r->key, r->order, r->migrate, r->gfp, cap);

		while (idx[j])
			j = (j + 1) & (cap - 1);
		idx[j] = i + 1;
	}
	free(t->idx);
	t->idx = idx;
	t->idx_cap = cap;
	return 0;
}

/* The row of key, order, migrate type and flags (perf's tree of them); NULL without memory. */
static struct prow *row(struct rows *t, uint64_t key, unsigned order, int migrate, unsigned gfp)
{
	size_t j;

	if (t->idx_cap) {
		for (j = slot_in(t, key, order, migrate, gfp, t->idx_cap); t->idx[j];
		     j = (j + 1) & (t->idx_cap - 1))
			if (same(t, &t->v[t->idx[j] - 1], key, order, migrate, gfp))
				return &t->v[t->idx[j] - 1];
	}
	if (t->nr == t->cap) {
		size_t c = t->cap ? t->cap * 2 : 256;
		struct prow *n = realloc(t->v, c * sizeof(*n));

		if (!n)
			return NULL;
		t->v = n;
		t->cap = c;
	}
	if ((t->nr + 1) * 2 > t->idx_cap && reindex(t, t->idx_cap ? t->idx_cap * 2 : 512))
		return NULL;
	t->v[t->nr] = (struct prow){ .key = key, .order = order, .migrate = migrate, .gfp = gfp };
	for (j = slot_in(t, key, order, migrate, gfp, t->idx_cap); t->idx[j];
	     j = (j + 1) & (t->idx_cap - 1))
		;
	t->idx[j] = t->nr + 1;
	return &t->v[t->nr++];
}

int kmem_pages_alloc(struct kmem_pages *p, uint64_t page, bool use_pfn, unsigned order, int migrate,
		     unsigned gfp, uint64_t bytes, uint64_t callsite, const char *cs_name)
{
	struct prow *a = row(&p->alloc, page, order, migrate, gfp);
	struct prow *c;

	if (!a)
		return -1;
	if (!a->nr_alloc) {	/* a live page keeps its first allocation's order, type, flags */
		a->order = order;
		a->migrate = migrate;
		a->gfp = gfp;
	}
	a->nr_alloc++;
	a->alloc_bytes += bytes;
	a->callsite = callsite;
	a->cs_name = cs_name;
	if (!(c = row(&p->caller, callsite, order, migrate, gfp)))
		return -1;
	c->nr_alloc++;
	c->alloc_bytes += bytes;
	c->callsite = callsite;
	c->cs_name = cs_name;
	p->use_pfn = use_pfn;
	return 0;
}

/*
 * perf's free of a page: out of the live tree; with --live the caller's
 * row (by the allocation's call site, type and flags, the free's order)
 * loses it, and goes once none is left.
 */
void kmem_pages_freed(struct kmem_pages *p, uint64_t page, unsigned order, uint64_t bytes)
{
	struct prow *a, *c;

	if (!p->live || !p->alloc.idx_cap)
		return;
	for (size_t j = slot_of(page, 0, 0, 0, p->alloc.idx_cap); p->alloc.idx[j];
	     j = (j + 1) & (p->alloc.idx_cap - 1)) {
		a = &p->alloc.v[p->alloc.idx[j] - 1];
		if (!same(&p->alloc, a, page, 0, 0, 0))
			continue;
		a->gone = true;
		if (!p->caller.idx_cap)
			return;
		for (size_t i = slot_of(a->callsite, order, a->migrate, a->gfp, p->caller.idx_cap);
		     p->caller.idx[i]; i = (i + 1) & (p->caller.idx_cap - 1)) {
			c = &p->caller.v[p->caller.idx[i] - 1];
			if (!same(&p->caller, c, a->callsite, order, a->migrate, a->gfp))
				continue;
			c->nr_alloc--;
			c->alloc_bytes -= bytes;
			c->gone = !c->nr_alloc;
			return;
		}
		return;
	}
}

static const char *const *sort_keys;	/* qsort's: NULL-ended */

static int cmp_key(const struct prow *a, const struct prow *b, const char *k)
{
#define CMP(x, y) ((x) < (y) ? -1 : (x) > (y))
	if (!strcmp(k, "page") || !strcmp(k, "callsite"))
		return CMP(a->key, b->key);
	if (!strcmp(k, "hit"))
		return CMP(a->nr_alloc, b->nr_alloc);
	if (!strcmp(k, "bytes"))
		return CMP(a->alloc_bytes, b->alloc_bytes);
	if (!strcmp(k, "order"))
		return CMP(a->order, b->order);
	if (!strcmp(k, "migtype"))
		return CMP((unsigned)a->migrate, (unsigned)b->migrate);
	return CMP(a->gfp, b->gfp);	/* gfp */
}

/* perf's tree of rows: by key, order, migrate type, flags */
static int cmp_walk(const void *pa, const void *pb)
{
	const struct prow *a = pa, *b = pb;
	int c;

	if ((c = CMP(a->key, b->key)) || (c = CMP(a->order, b->order)) ||
	    (c = CMP((unsigned)a->migrate, (unsigned)b->migrate)))
		return c;
	return CMP(a->gfp, b->gfp);
}

/* perf's live tree: by page, largest first (its walk goes left of a smaller page) */
static int cmp_walk_live(const void *pa, const void *pb)
{
	const struct prow *a = pa, *b = pb;

	return CMP(b->key, a->key);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct prow *a = *(const struct prow *const *)pa, *b = *(const struct prow *const *)pb;

	for (int i = 0; sort_keys[i]; i++) {
		int c = cmp_key(a, b, sort_keys[i]);

		if (c)
			return -c;
	}
	return a < b ? -1 : a > b;	/* the walk's order: rows are sorted by it first */
#undef CMP
}

int kmem_page_keys(const char *list, const char **keys, int max)
{
	static const char *const names[] = { "page", "callsite", "hit", "bytes", "order", "migtype", "gfp" };

	return kmem_keys(list, names, sizeof(names) / sizeof(names[0]), keys, max);
}

static const char *migrate_str(int m)
{
	static const char *const s[] = { "UNMOVABL", "RECLAIM", "MOVABLE", "RESERVED", "CMA/ISLT", "UNKNOWN" };

	return m >= 0 && m < 6 ? s[m] : "UNKNOWN";
}

static const char dots[] = "------------------------------------------------------------"
			   "---------------------------------------------";

static void print_table(struct kmem_pages *p, bool is_caller, const char *sort, int n_lines)
{
	struct rows *t = is_caller ? &p->caller : &p->alloc;
	struct prow *v = t->v;
	size_t nr = t->nr, r;
	int gfp_len = p->max_gfp_len > 9 ? (int)p->max_gfp_len : 9;
	struct prow **rows = malloc((nr ? nr : 1) * sizeof(*rows));
	const char *keys[16];

	if (!rows || kmem_page_keys(sort ? sort : "bytes,hit", keys, 16) < 0) {
		free(rows);
		return;
	}
	/* the walk's order (none: v is NULL, which qsort may not take); the index is stale from here */
	if (nr)
		qsort(v, nr, sizeof(*v), t->by_key ? cmp_walk_live : cmp_walk);
	for (r = 0, nr = 0; r < t->nr; r++)
		if (!v[r].gone)
			rows[nr++] = &v[r];
	sort_keys = keys;
	qsort(rows, nr, sizeof(*rows), cmp_rows);
	printf("\n%.105s\n", dots);
	if (is_caller)
		printf(" %5s alloc (KB) | Hits      | Order | Mig.type | %-*s | Callsite\n",
		       p->live ? "Live" : "Total", gfp_len, "GFP flags");
	else
		printf(" %-16s | %5s alloc (KB) | Hits      | Order | Mig.type | %-*s | Callsite\n",
		       p->use_pfn ? "PFN" : "Page", p->live ? "Live" : "Total", gfp_len, "GFP flags");
	printf("%.105s\n", dots);
	for (r = 0; r < nr && n_lines--; r++) {
		const struct prow *d = rows[r];
		char buf[32];
		const char *cs = d->cs_name;

		if (!cs) {
			snprintf(buf, sizeof(buf), "%llx", (unsigned long long)d->callsite);
			cs = buf;
		}
		if (!is_caller)
			printf(p->use_pfn ? " %16llu |" : " %016llx |", (unsigned long long)d->key);
		printf(" %16llu | %9lu | %5u | %8s | %-*s | %s\n",
		       (unsigned long long)(d->alloc_bytes / 1024), d->nr_alloc, d->order,
		       migrate_str(d->migrate), gfp_len, compact_str(p, d->gfp), cs);
	}
	if (n_lines == -1) {
		if (is_caller)
			printf(" ...              | ...       | ...   | ...      | %-*s | ...\n", gfp_len, "...");
		else
			printf(" ...              | ...              | ...       | ...   | ...      | %-*s | ...\n",
			       gfp_len, "...");
	}
	printf("%.105s\n", dots);
	free(rows);
}

void kmem_pages_print(struct kmem_pages *p, const struct kmem_opts *o)
{
	printf("#\n# GFP flags\n# ---------\n");
	for (size_t i = 0; i < p->nr_gfps; i++)
		printf("# %08x: %*s: %s\n", p->gfps[i].flags, (int)p->max_gfp_len, p->gfps[i].compact,
		       p->gfps[i].human);
	if (o->caller)
		print_table(p, true, o->page_caller_sort, o->caller_lines);
	if (o->alloc)
		print_table(p, false, o->page_alloc_sort, o->alloc_lines);
}
