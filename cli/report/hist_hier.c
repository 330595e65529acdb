// SPDX-License-Identifier: MIT
/*
 * --hierarchy, as perf 6.1's hists__fprintf in hierarchy mode: a level
 * per sort key, each entry the sum of the rows under it, siblings
 * biggest first, each level indented three more, the shares of the
 * event's whole. Made here from the histogram's rows (keyed by every
 * key): sorted by the keys in turn, a level's entries are runs of equal
 * keys. See hist_cols.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include "hist_cols.h"

#define INDENT 3	/* perf's HIERARCHY_INDENT */

static int strcmp_null(const char *a, const char *b)
{
	if (a == b)
		return 0;
	if (!a || !b)
		return a ? -1 : 1;
	return strcmp(a, b);
}

static int u64_cmp(uint64_t a, uint64_t b)
{
	return a != b ? (a < b ? -1 : 1) : 0;
}

/* the sample fields' keys: the part of the field the library keys by */
static int mem_cmp(const struct tally_hist_row *a, const struct tally_hist_row *b,
		   enum tally_hist_key k)
{
	union perf_mem_data_src l = { .val = a->data_src }, r = { .val = b->data_src };

	switch (k) {
	case TALLY_HIST_MEM: return u64_cmp(l.mem_lvl, r.mem_lvl);
	case TALLY_HIST_SNOOP: return u64_cmp(l.mem_snoop, r.mem_snoop);
	case TALLY_HIST_TLB: return u64_cmp(l.mem_dtlb, r.mem_dtlb);
	case TALLY_HIST_LOCKED: return u64_cmp(l.mem_lock, r.mem_lock);
	case TALLY_HIST_BLOCKED: return u64_cmp(l.mem_blk, r.mem_blk);
	case TALLY_HIST_PHYS_DADDR: return u64_cmp(a->phys_addr, b->phys_addr);
	case TALLY_HIST_DATA_PAGE_SIZE: return u64_cmp(a->data_page_size, b->data_page_size);
	case TALLY_HIST_CODE_PAGE_SIZE: return u64_cmp(a->code_page_size, b->code_page_size);
	case TALLY_HIST_WEIGHT:
	case TALLY_HIST_LOCAL_WEIGHT: return u64_cmp(a->weight, b->weight);
	case TALLY_HIST_INS_LAT:
	case TALLY_HIST_LOCAL_INS_LAT: return u64_cmp(a->ins_lat, b->ins_lat);
	case TALLY_HIST_SYM_DADDR: return u64_cmp(a->daddr, b->daddr);
	case TALLY_HIST_DSO_DADDR: return strcmp_null(a->data_dso, b->data_dso);
	case TALLY_HIST_SYM_IADDR: return u64_cmp(a->iaddr, b->iaddr);
	case TALLY_HIST_TRANSACTION: return u64_cmp(b->transaction, a->transaction);	/* perf's left - right */
	case TALLY_HIST_CGROUP: return u64_cmp(a->cgroup, b->cgroup);
	case TALLY_HIST_TIME: return u64_cmp(a->time, b->time);
	case TALLY_HIST_SRCFILE: {
		size_t la = a->srcfile_len, lb = b->srcfile_len;
		int c = memcmp(la ? a->srcline : "", lb ? b->srcline : "", la < lb ? la : lb);

		return c ? c : la < lb ? -1 : la > lb;
	}
	case TALLY_HIST_ADDR: return u64_cmp(a->ip, b->ip);
	case TALLY_HIST_DSO_SIZE: return u64_cmp(a->dso_size, b->dso_size);
	case TALLY_HIST_SYM_SIZE: return u64_cmp(a->sym_size, b->sym_size);
	case TALLY_HIST_SOCKET: return a->socket != b->socket ? (a->socket < b->socket ? -1 : 1) : 0;
	case TALLY_HIST_CGROUP_ID:	/* the greater first, as perf's equal entries */
		return u64_cmp(b->cgroup_dev, a->cgroup_dev) ?: u64_cmp(b->cgroup_ino, a->cgroup_ino);
	case TALLY_HIST_DCACHELINE:
		return a->data_mapped != b->data_mapped ? (a->data_mapped ? 1 : -1) :
		       u64_cmp(a->data_cacheline, b->data_cacheline);
	default: return 0;
	}
}

/* the branch keys: a level's entry per distinct value (its symbol by its name and DSO) */
static int branch_cmp(const struct tally_hist_row *a, const struct tally_hist_row *b,
		      enum tally_hist_key k)
{
	bool from = k == TALLY_HIST_SYM_FROM || k == TALLY_HIST_DSO_FROM || k == TALLY_HIST_SRCLINE_FROM ||
		    k == TALLY_HIST_ADDR_FROM;
	const struct tally_hist_branch_end *x = from ? &a->br_from : &a->br_to;
	const struct tally_hist_branch_end *y = from ? &b->br_from : &b->br_to;
	int c;

	switch (k) {
	case TALLY_HIST_ADDR_FROM:
	case TALLY_HIST_ADDR_TO:	/* the DSOs (no map first), then the addresses */
		if (!x->dso || !y->dso)
			return x->dso == y->dso ? u64_cmp(x->raw, y->raw) : x->dso ? 1 : -1;
		return (c = strcmp(y->dso, x->dso)) ? c : u64_cmp(x->raw, y->raw);
	case TALLY_HIST_SYM_FROM:
	case TALLY_HIST_SYM_TO:
		if (!x->sym || !y->sym)
			return x->sym || y->sym ? (x->sym ? -1 : 1) : u64_cmp(x->raw, y->raw);
		return (c = strcmp(x->sym, y->sym)) ? c : strcmp_null(x->dso, y->dso);
	/* perf's orders at equal shares: the DSOs' names and cycles the higher first */
	case TALLY_HIST_DSO_FROM:
	case TALLY_HIST_DSO_TO:
		if (!x->dso || !y->dso)
			return x->dso == y->dso ? 0 : x->dso ? 1 : -1;	/* no map first */
		return strcmp(y->dso, x->dso);
	case TALLY_HIST_SRCLINE_FROM:
	case TALLY_HIST_SRCLINE_TO:
		return strcmp(x->srcline ? x->srcline : "??:0", y->srcline ? y->srcline : "??:0");
	case TALLY_HIST_MISPREDICT: return u64_cmp(a->br_flags & 3, b->br_flags & 3);
	case TALLY_HIST_IN_TX: return u64_cmp(a->br_flags >> 2 & 1, b->br_flags >> 2 & 1);
	case TALLY_HIST_ABORT: return u64_cmp(a->br_flags >> 3 & 1, b->br_flags >> 3 & 1);
	case TALLY_HIST_CYCLES: return u64_cmp(b->br_flags >> 4 & 0xffff, a->br_flags >> 4 & 0xffff);
	default: return 0;
	}
}

/*
 * One level's key: perf's sort order (names) where it has one, and its
 * identity after (a symbol is its name in its DSO at its address, as
 * perf's sort__sym_cmp), so that one entry's rows are one run.
 */
static int key_cmp(const struct tally_hist_row *a, const struct tally_hist_row *b,
		   enum tally_hist_key k)
{
	int c;

	switch (k) {
	case TALLY_HIST_COMM: return strcmp_null(a->comm, b->comm);
	case TALLY_HIST_PID: return a->tid != b->tid ? (a->tid < b->tid ? -1 : 1) : 0;
	case TALLY_HIST_DSO: return strcmp_null(a->dso, b->dso);
	case TALLY_HIST_SYM:
		if (!a->sym || !b->sym) {
			if (a->sym || b->sym)
				return a->sym ? -1 : 1;
			return a->addr != b->addr ? (a->addr < b->addr ? -1 : 1) : 0;
		}
		if ((c = strcmp(a->sym, b->sym)) || (c = strcmp_null(a->dso, b->dso)))
			return c;
		if (a->inlined || b->inlined)
			return 0;
		return a->sym_start != b->sym_start ? (a->sym_start < b->sym_start ? -1 : 1) : 0;
	case TALLY_HIST_CPU: return a->cpu != b->cpu ? (a->cpu < b->cpu ? -1 : 1) : 0;
	case TALLY_HIST_SRCLINE: return strcmp_null(a->srcline, b->srcline);
	case TALLY_HIST_PARENT: return strcmp_null(a->parent, b->parent);
	case TALLY_HIST_TRACE: return strcmp_null(a->trace, b->trace);
	default: return HIST_BRANCH_KEY(k) ? branch_cmp(a, b, k) : mem_cmp(a, b, k);
	}
}

struct hier {
	const struct hist_table *t;
	const enum tally_hist_key *keys;
	int nkeys;
	int width[TALLY_HIST_KEY__NR];
	double tot;
	int lines;		/* printed so far (-E counts them) */
	bool full;
	int err;
};

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct tally_hist_row *a = *(const struct tally_hist_row *const *)pa,
				    *b = *(const struct tally_hist_row *const *)pb;
	const struct hier *h = arg;
	int c;

	for (int i = 0; i < h->nkeys; i++)
		if ((c = key_cmp(a, b, h->keys[i])))
			return c;
	return a < b ? -1 : a > b;
}

/* a level's entry: rows [lo, hi) of the sorted ones */
struct entry {
	size_t lo, hi;
	uint64_t self, samples;
};

static int cmp_entries(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	/* equal: the key's order, which the runs came in */
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static void spaces(struct line *ln, int n)
{
	for (; n > 0; n--)
		line_putc(ln, ' ');
}

static bool shown(const struct hier *h, uint64_t v)
{
	return 100.0 * (double)v / h->tot >= h->t->percent_limit;
}

/* perf's hists__overhead_width: the counts' columns */
static int overhead_width(const struct hist_table *t)
{
	return 8 + (t->show_nr ? 14 : 0) + (t->show_period ? 14 : 0);
}

static void print_entry(struct hier *h, const struct tally_hist_row *e, const struct entry *en,
			int depth)
{
	const struct hist_table *t = h->t;
	struct line ln = { .fp = t->fp };
	char nb[32];

	if (t->sep) {	/* -t: the level's indent, then the cells joined */
		struct line cell = { .fp = NULL };

		spaces(&ln, depth * INDENT);
		line_sep_pct(&ln, t->sep, true, 100.0 * (double)en->self / h->tot, 8, false);
		if (t->show_nr)
			line_sep_u64(&ln, t->sep, false, (unsigned long long)en->samples, 12, false);
		if (t->show_period)
			line_sep_u64(&ln, t->sep, false, (unsigned long long)en->self, 12, false);
		if (depth + 1 == t->ipc_level)
			line_put(&cell, "-      -            ", 20);
		else
			hist_key_put_level(&cell, t->cells, e, h->keys[depth], h->width[depth]);
		line_sep_text(&ln, t->sep, false, cell.b, cell.n);
		line_putc(&ln, '\n');
		line_flush(&ln);
		return;
	}
	spaces(&ln, depth * INDENT + 2);
	line_pct(&ln, 100.0 * (double)en->self / h->tot, 7);
	if (t->show_nr)
		line_put(&ln, nb, (size_t)snprintf(nb, sizeof(nb), "  %12llu", (unsigned long long)en->samples));
	if (t->show_period)
		line_put(&ln, nb, (size_t)snprintf(nb, sizeof(nb), "  %12llu", (unsigned long long)en->self));
	spaces(&ln, (h->nkeys - 1) * INDENT + 2);
	if (depth + 1 == t->ipc_level)	/* perf's ipc_null: no IPC without branch counts */
		line_put(&ln, "-      -            ", 20);
	else
		hist_key_put_level(&ln, t->cells, e, h->keys[depth], h->width[depth]);
	line_putc(&ln, '\n');
	line_flush(&ln);
}

/* The entries of level depth over sorted rows [lo, hi): how many were shown. */
static int print_level(struct hier *h, const struct tally_hist_row **rows, size_t lo, size_t hi,
		       int depth)
{
	const struct hist_table *t = h->t;
	enum tally_hist_key k = h->keys[depth];
	struct entry *en;
	size_t ne = 0;
	int nshown = 0;

	if (!(en = malloc((hi - lo) * sizeof(*en)))) {
		h->err = -ENOMEM;
		return 0;
	}
	for (size_t i = lo; i < hi; i++) {
		if (!ne || key_cmp(rows[en[ne - 1].lo], rows[i], k))
			en[ne++] = (struct entry){ .lo = i, .hi = i };
		en[ne - 1].hi = i + 1;
		en[ne - 1].self += rows[i]->self;
		en[ne - 1].samples += rows[i]->samples;
	}
	qsort(en, ne, sizeof(*en), cmp_entries);
	for (size_t i = 0; i < ne && !h->full && !h->err; i++) {
		if (!shown(h, en[i].self))
			continue;
		nshown++;
		print_entry(h, rows[en[i].lo], &en[i], depth);
		if (t->entries && ++h->lines >= t->entries)
			h->full = true;
		if (depth == h->nkeys - 1) {
			/* a leaf is one row: its graph under it */
			if (t->graph && en[i].hi - en[i].lo == 1)
				t->graph(t->fp, rows[en[i].lo], t->total, t->arg);
			continue;
		}
		if (h->full)
			break;
		if (!print_level(h, rows, en[i].lo, en[i].hi, depth + 1) && !h->full && !h->err) {
			/* perf's word where every entry below is under --percent-limit */
			fprintf(t->fp, "%*sno entry >= %.2f%%\n",
				(h->nkeys + depth) * INDENT + overhead_width(t) + 4, "",
				t->percent_limit);
			if (t->entries && ++h->lines >= t->entries)
				h->full = true;
		}
	}
	free(en);
	return nshown;
}

static void print_header(struct hier *h)
{
	const struct hist_table *t = h->t;
	FILE *fp = t->fp;
	int indent = (h->nkeys - 1) * INDENT, joined = 0, dots;
	const char *sep = t->sep;

	if (sep) {	/* -t: no indent, the columns joined */
		indent = 0;
		fprintf(fp, "# Overhead%s%s%s%s%s", t->show_nr ? sep : "",
			t->show_nr ? "     Samples" : "", t->show_period ? sep : "",
			t->show_period ? "      Period" : "", sep);
	} else {
		fprintf(fp, "# %*s%8s  %s%s", indent, "", "Overhead", t->show_nr ? "     Samples  " : "",
			t->show_period ? "      Period  " : "");
	}
	for (int i = 0; i < h->nkeys; i++) {
		const char *s = i + 1 == t->ipc_level ? "IPC   [IPC Coverage]" : hist_keys[h->keys[i]].header;

		s += strspn(s, " ");	/* perf's strim */
		joined += fprintf(fp, "%s%s", i ? " / " : "", s);
	}
	dots = joined;
	for (int i = 0; i < h->nkeys; i++)
		if (i * INDENT + h->width[i] > dots)
			dots = i * INDENT + h->width[i];
	fputs("\n# ", fp);
	for (int i = 0; i < indent + 8; i++)
		fputc('.', fp);
	for (int i = 0; i < (t->show_nr ? 1 : 0) + (t->show_period ? 1 : 0); i++)
		fprintf(fp, "%s............", sep ? sep : "..");
	fputs(sep ? sep : "  ", fp);
	for (int i = 0; i < dots; i++)
		fputc('.', fp);
	fputs("\n#\n", fp);
}

int hist_hier_print(const struct hist_table *t, const enum tally_hist_key *keys, int nkeys,
		    const struct tally_hist_row *rows, size_t n)
{
	struct hier h = { .t = t, .keys = keys, .nkeys = nkeys,
			  .tot = t->total ? (double)t->total : 1 };
	const struct tally_hist_row **v;
	size_t nv = 0;

	if (nkeys < 1 || nkeys > TALLY_HIST_KEY__NR)
		return -EINVAL;
	for (int i = 0; i < nkeys; i++)
		h.width[i] = i + 1 == t->ipc_level ? 20 : hist_key_width(t->cells, rows, n, keys[i]);
	if (t->header)
		print_header(&h);
	if (!(v = malloc((n + 1) * sizeof(*v))))
		return -ENOMEM;
	/* rows of no period (aged to nothing, callers' share alone) are no entry's */
	for (size_t i = 0; i < n; i++)
		if (rows[i].self)
			v[nv++] = &rows[i];
	qsort_r(v, nv, sizeof(*v), cmp_rows, &h);
	if (nv)
		print_level(&h, v, 0, nv, 0);
	free(v);
	return h.err;
}
