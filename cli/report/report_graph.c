// SPDX-License-Identifier: MIT
/*
 * Call graphs under report rows, printed from the histogram's trees
 * (tally/hist.h: one frame per node); perf keeps runs of frames in one
 * node until a chain branches or ends inside them, which is the same as
 * a maximal run of nodes with one child and no samples of their own
 * ending there, so the printer groups such runs and prints what perf
 * prints.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <linux/perf_event.h>
#include <string.h>
#include "report_fmt.h"
#include "report_graph.h"

int cg_parse(struct cg_param *p, const char *arg, const char *cmd)
{
	char *dup = strdup(arg), *tok, *save = NULL;
	int nums = 0;

	if (!dup)
		return -1;
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double v;

		if (!strcmp(tok, "graph"))
			p->mode = CG_GRAPH;
		else if (!strcmp(tok, "fractal"))
			p->mode = CG_FRACTAL;
		else if (!strcmp(tok, "flat"))
			p->mode = CG_FLAT;
		else if (!strcmp(tok, "folded"))
			p->mode = CG_FOLDED;
		else if (!strcmp(tok, "none"))
			p->mode = CG_NONE;
		else if (!strcmp(tok, "caller") || !strcmp(tok, "callee"))
			p->caller = tok[4] == 'e' && tok[5] == 'r', p->order_set = true;
		else if (!strcmp(tok, "function"))
			p->address = false;
		else if (!strcmp(tok, "address"))
			p->address = true;
		else if (!strcmp(tok, "percent"))
			p->value = CG_PERCENT;
		else if (!strcmp(tok, "period"))
			p->value = CG_PERIOD;
		else if (!strcmp(tok, "count"))
			p->value = CG_COUNT;
		else if ((v = strtod(tok, &end)), end != tok && !*end && v >= 0 && nums < 2) {
			if (nums++ == 0)
				p->min_percent = v;
			else
				p->print_limit = (unsigned)v;
		} else {
			fprintf(stderr, "tally %s: -g '%s': unknown item '%s' (graph, fractal, flat, folded, none; "
				"caller, callee; function, address; percent, period, count; a threshold and a limit)\n",
				cmd, arg, tok);
			free(dup);
			return -1;
		}
	}
	free(dup);
	return 0;
}

/* The tree's nodes, through the library's accessors. */
static struct tally_hist_node_info node_info(const struct tally_hist_node *n)
{
	TALLY_OPTS(tally_hist_node_info, v);

	tally_hist_node__info(n, &v);
	return v;
}

static uint64_t cumul(const struct tally_hist_node *n)
{
	struct tally_hist_node_info v = node_info(n);

	return v.self + v.below;
}

static uint64_t cumul_count(const struct tally_hist_node *n)
{
	struct tally_hist_node_info v = node_info(n);

	return v.self_samples + v.below_samples;
}

/* The last node of a run that perf keeps as one. */
static const struct tally_hist_node *run_end(const struct tally_hist_node *n)
{
	struct tally_hist_node_info v;

	while ((v = node_info(n)).nr_children == 1 && !v.self)
		n = tally_hist_node__child(n);
	return n;
}

struct printer {
	FILE *fp;
	const struct cg_param *p;
	uint64_t min_hit;		/* graph mode: one threshold for the row */
};

/* A frame's label: perf's callchain_list__sym_name (with --branch-history its address key's). */
static const char *frame_name(const struct printer *pr, const struct tally_hist_node *n, char *buf,
			      size_t len)
{
	const struct tally_hist_frame *f = tally_hist_node__frame(n);
	TALLY_OPTS(tally_hist_node_branch, b);

	if (f->sym && pr->p->brhist && !tally_hist__node_branch(pr->p->brhist, n, &b)) {
		if (b.srcline)
			snprintf(buf, len, "%s %s", f->sym, b.srcline);
		else	/* perf's srcline where no line is known: the offset in the symbol */
			snprintf(buf, len, "%s +%llu", f->sym, (unsigned long long)b.sym_off);
		return buf;
	}
	if (f->sym)
		return f->sym;
	snprintf(buf, len, f->ip ? "%#llx" : "0", (unsigned long long)f->ip);
	return buf;
}

/* count_str_printf and its kin: " (" before the first, " " before the others */
static int put_count(char *bf, size_t len, int *idx, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int put_count(char *bf, size_t len, int *idx, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(bf, len, "%s", (*idx)++ ? " " : " (");

	if (n < 0 || (size_t)n >= len)
		return n < 0 ? 0 : (int)len - 1;
	va_start(ap, fmt);
	int m = vsnprintf(bf + n, len - n, fmt, ap);

	va_end(ap);
	if (m < 0)
		return n;
	return (size_t)(n + m) >= len ? (int)len - 1 : n + m;
}

/*
 * A node's branch counts as perf 6.1's counts_str_build writes them: a
 * target's types (util/branch.c's branch_type_str), predicted and abort
 * shares; a source's average cycles and its removed loops' iterations.
 */
static void branch_counts(const struct tally_hist_node_branch *b, char *bf, size_t len)
{
	static const char *const names[16] = {
		"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL", "SYSRET",
		"COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "EXTEND_ABI",
	};
	static const char *const new_names[8] = {
		"FAULT_ALGN", "FAULT_DATA", "FAULT_INST", "ARCH_1", "ARCH_2", "ARCH_3", "ARCH_4",
		"ARCH_5",
	};
	size_t at = 0;
	int i = 0;

	bf[0] = 0;
	if (!b->branches) {
		snprintf(bf, len, " (calltrace)");
		return;
	}
	if (b->target) {
		uint64_t total = b->cross_2m + b->cross_4k;

		for (int k = 0; k < 16; k++)
			total += b->types[k];
		for (int k = 0; k < 8; k++)
			total += b->new_types[k];
		if (total) {
			if (b->cond_fwd)
				at += put_count(bf + at, len - at, &i, "COND_FWD");
			if (b->cond_bwd)
				at += put_count(bf + at, len - at, &i, "COND_BWD");
			for (int k = 0; k < 16; k++)
				if (k != PERF_BR_COND && b->types[k])
					at += put_count(bf + at, len - at, &i, "%s", names[k]);
			for (int k = 0; k < 8; k++)
				if (b->new_types[k])
					at += put_count(bf + at, len - at, &i, "%s", new_names[k]);
			if (b->cross_4k)
				at += put_count(bf + at, len - at, &i, "CROSS_4K");
			if (b->cross_2m)
				at += put_count(bf + at, len - at, &i, "CROSS_2M");
		}
		/* perf's count_float_printf takes a float; abort's shown from 0.1% */
		if (b->predicted < b->branches)
			at += put_count(bf + at, len - at, &i, "predicted:%.1f%%",
					(double)(float)(b->predicted * 100.0 / b->branches));
		if (b->aborts) {
			float v = (float)(b->aborts * 100.0 / b->branches);

			if (v >= 0.1f)
				at += put_count(bf + at, len - at, &i, "abort:%.1f%%", (double)v);
		}
	} else {
		uint64_t cycles = b->cycles / b->branches;

		if (cycles)
			at += put_count(bf + at, len - at, &i, "cycles:%llu", (unsigned long long)cycles);
		if (b->iters && b->froms && b->iters / b->froms) {
			at += put_count(bf + at, len - at, &i, "iter:%llu",
					(unsigned long long)(b->iters / b->froms));
			at += put_count(bf + at, len - at, &i, "avg_cycles:%llu",
					(unsigned long long)(b->iter_cycles / b->iters));
		}
	}
	if (i && at + 1 < len) {
		bf[at++] = ')';
		bf[at] = 0;
	}
}

/* The label and, with --branch-history, the counts (cut to len - 1 bytes, as perf's line buffer). */
static void put_frame(const struct printer *pr, const struct tally_hist_node *n, size_t len)
{
	char buf[1024], counts[256];
	TALLY_OPTS(tally_hist_node_branch, b);

	fputs(n ? frame_name(pr, n, buf, sizeof(buf)) : "[...]", pr->fp);
	if (!n || !pr->p->brhist || tally_hist__node_branch(pr->p->brhist, n, &b))
		return;
	if (pr->p->calltrace)
		b.branches = 0;		/* branch_counts' " (calltrace)" */
	branch_counts(&b, counts, sizeof(counts));
	if (len < sizeof(counts))
		counts[len - 1] = 0;
	fputs(counts, pr->fp);
}

/* A value as perf's callchain_node__fprintf_value. */
static void print_value(struct printer *pr, uint64_t period, uint64_t count, uint64_t total)
{
	switch (pr->p->value) {
	case CG_PERIOD:
		fprintf(pr->fp, "%llu", (unsigned long long)period);
		break;
	case CG_COUNT:
		fprintf(pr->fp, "%llu", (unsigned long long)count);
		break;
	default:
		put_pct(pr->fp, total ? period * 100.0 / total : 0.0, 0);
	}
}

/* A child with what orders it, taken once (32 bytes: glibc sorts it in place). */
struct place {
	const struct tally_hist_node *n;
	uint64_t cum;
	uint64_t dso, addr;		/* its place in perf's tree (cmp_tree) */
};

static void place_of(struct place *pl, const struct tally_hist_node *n, uint64_t cum, bool brhist)
{
	const struct tally_hist_frame *f = tally_hist_node__frame(n);

	pl->n = n;
	pl->cum = cum;
	/* no map sorts below all (perf: a NULL DSO pointer) */
	pl->dso = f->mapped ? f->dso_rank + 1ULL : 0;
	pl->addr = f->sym && !brhist ? f->sym_start : f->ip;
}

/*
 * perf keeps a node's children in a tree ordered by DSO and then address
 * (the symbol's start, or the ip unresolved), the higher first as its
 * insertion goes; equal branches are shown in that order.
 */
static int cmp_tree(const void *pa, const void *pb)
{
	const struct place *a = pa, *b = pb;

	if (a->dso != b->dso)
		return a->dso > b->dso ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr > b->addr ? -1 : 1;
	return 0;
}

/* biggest first, equal ones in the tree's order */
static int cmp_shown(const void *pa, const void *pb)
{
	const struct place *a = pa, *b = pb;

	if (a->cum != b->cum)
		return a->cum > b->cum ? -1 : 1;
	return cmp_tree(pa, pb);
}

/*
 * The children shown, biggest first: those at or above the threshold
 * (ties keep the order they came in).
 */
static size_t shown_children(const struct printer *pr, const struct tally_hist_node *n,
			     const struct tally_hist_node ***out)
{
	struct tally_hist_node_info ni = node_info(n);
	const struct tally_hist_node **v = malloc((ni.nr_children + 1) * sizeof(*v));
	struct place few[16], *pl = ni.nr_children <= 16 ? few : malloc(ni.nr_children * sizeof(*pl));
	uint64_t min = pr->min_hit;
	size_t k = 0;

	if (!v || !pl) {
		free(v);
		if (pl != few)
			free(pl);
		*out = NULL;
		return 0;
	}
	if (pr->p->mode == CG_FRACTAL) {
		double m = (double)ni.below * (pr->p->min_percent / 100.0);

		min = (uint64_t)m + ((double)(uint64_t)m < m);	/* ceil */
	}
	for (const struct tally_hist_node *c = tally_hist_node__child(n); c; c = tally_hist_node__next(c)) {
		uint64_t cum = cumul(c);

		if (cum >= min)
			place_of(&pl[k++], c, cum, pr->p->brhist);
	}
	qsort(pl, k, sizeof(*pl), cmp_shown);
	for (size_t i = 0; i < k; i++)
		v[i] = pl[i].n;
	if (pl != few)
		free(pl);
	*out = v;
	return k;
}

static void margin(struct printer *pr, int left)
{
	fprintf(pr->fp, "%*s", 12 + left, "");
}

static void graph_line(struct printer *pr, int depth, unsigned long mask, int left)
{
	margin(pr, left);
	for (int i = 0; i < depth; i++)
		fputs(i < 64 && (mask & (1UL << i)) ? "|          " : "           ", pr->fp);
	fputc('\n', pr->fp);
}

static void graph_frame(struct printer *pr, const struct tally_hist_node *val, uint64_t period,
			uint64_t count, int depth, unsigned long mask, bool first, uint64_t total,
			int left)
{
	margin(pr, left);
	for (int i = 0; i < depth; i++) {
		fputc(i < 64 && (mask & (1UL << i)) ? '|' : ' ', pr->fp);
		if (first && i == depth - 1) {
			fputs("--", pr->fp);
			print_value(pr, period, count, total);
			fputs("--", pr->fp);
		} else {
			fputs("          ", pr->fp);
		}
	}
	put_frame(pr, val, 64);	/* perf's ipchain__fprintf_graph: a 64-byte buffer of counts */
	fputc('\n', pr->fp);
}

/* Returns the number of lines printed. */
static size_t graph(struct printer *pr, const struct tally_hist_node *n, uint64_t total, int depth,
		    unsigned long mask, int left)
{
	size_t lines = 0;

	const struct tally_hist_node **kids;
	size_t nk = shown_children(pr, n, &kids);
	uint64_t remaining = total, counted = 0;

	for (size_t k = 0; k < nk; k++) {
		const struct tally_hist_node *c = kids[k], *end = run_end(c);
		unsigned long m = mask;
		bool first = true;

		remaining -= cumul(c);
		counted += cumul_count(c);
		if (k + 1 == nk && (pr->p->mode != CG_FRACTAL || !remaining))
			m &= ~(1UL << (depth - 1));
		graph_line(pr, depth, mask, left);
		lines++;
		for (const struct tally_hist_node *v = c;; v = tally_hist_node__child(v)) {
			graph_frame(pr, v, cumul(c), cumul_count(c), depth, m, first, total, left);
			first = false;
			lines++;
			if (v == end)
				break;
		}
		lines += graph(pr, end, pr->p->mode == CG_FRACTAL ? node_info(end).below : total, depth + 1,
		      m | (depth < 64 ? 1UL << depth : 0), left);
		if (pr->p->print_limit && k + 1 == pr->p->print_limit)
			break;
	}
	/* the hidden rest; counted in samples, none left hides it */
	if (pr->p->mode == CG_FRACTAL && remaining && remaining != total &&
	    (pr->p->value != CG_COUNT || node_info(n).below_samples > counted)) {
		graph_frame(pr, NULL, remaining, node_info(n).below_samples - counted, depth, mask & ~(1UL << (depth - 1)), true,
			    total, left);
		lines++;
	}
	free(kids);
	return lines;
}

static void print_graph(struct printer *pr, const struct tally_hist_node *root, uint64_t total,
			uint64_t parent, bool skip_first)
{
	const struct tally_hist_node **kids;
	size_t nk;
	bool printed = false;
	int left = 0;

	/*
	 * Below graph's one threshold, no child shows and nothing prints
	 * (a child's share is at most the root's below): most rows of a
	 * big profile, asked no more.
	 */
	if (pr->p->mode != CG_FRACTAL && node_info(root).below < pr->min_hit)
		return;
	nk = shown_children(pr, root, &kids);

	if (nk == 1 && cumul(kids[0]) == parent) {
		/* one root with all of the row: no percentage, no column */
		const struct tally_hist_node *c = kids[0], *end = run_end(c);
		unsigned i = 0;

		for (const struct tally_hist_node *v = c;; v = tally_hist_node__child(v)) {
			if (!(i++ == 0 && skip_first)) {
				if (!printed) {
					fputs("            |\n            ---", pr->fp);
					left += 3;
					printed = true;
				} else {
					margin(pr, left);
				}
				put_frame(pr, v, 256);	/* the whole counts here, as perf's */
				fputc('\n', pr->fp);
			}
			if (v == end || (pr->p->print_limit && i == pr->p->print_limit))
				break;
		}
		root = end;
	}
	free(kids);
	if (pr->p->mode == CG_FRACTAL)
		total = parent;
	if (graph(pr, root, total, 1, 1, left) || printed)
		fputc('\n', pr->fp);	/* no blank line for nothing */
}

/* flat and folded: every node where samples end, biggest first */
struct flat {
	struct flat_ent {
		const struct tally_hist_node *n;
		uint64_t self, self_count, cum, cum_count;
	} *v;
	size_t n, cap;
};

static void collect(const struct tally_hist_node *n, const struct tally_hist_node_info *ni,
		    uint64_t min, bool brhist, struct flat *f)
{
	struct place few[16], *pl = ni->nr_children <= 16 ? few :
				    malloc(ni->nr_children * sizeof(*pl));
	size_t k = 0;

	if (!pl)
		return;
	for (const struct tally_hist_node *c = tally_hist_node__child(n); c; c = tally_hist_node__next(c))
		place_of(&pl[k++], c, 0, brhist);
	qsort(pl, k, sizeof(*pl), cmp_tree);
	for (size_t i = 0; i < k; i++) {
		struct tally_hist_node_info ci = node_info(pl[i].n);

		collect(pl[i].n, &ci, min, brhist, f);
	}
	if (pl != few)
		free(pl);
	if (tally_hist_node__parent(n) && ni->self && ni->self >= min) {
		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 64;
			struct flat_ent *v = realloc(f->v, cap * sizeof(*v));

			if (!v)
				return;
			f->v = v;
			f->cap = cap;
		}
		f->v[f->n++] = (struct flat_ent){ n, ni->self, ni->self_samples, ni->self + ni->below,
						  ni->self_samples + ni->below_samples };
	}
}

static void print_path(struct printer *pr, const struct tally_hist_node *n, const char *sep, bool *first)
{
	char buf[1024];

	if (!tally_hist_node__parent(n))
		return;
	print_path(pr, tally_hist_node__parent(n), sep, first);
	if (sep) {
		fprintf(pr->fp, "%s%s", *first ? "" : sep, frame_name(pr, n, buf, sizeof(buf)));
		*first = false;
	} else {
		fprintf(pr->fp, "                %s\n", frame_name(pr, n, buf, sizeof(buf)));
	}
}

static void print_flat(struct printer *pr, const struct tally_hist_node *root, uint64_t total)
{
	struct flat f = { 0 };

	struct tally_hist_node_info ri = node_info(root);

	collect(root, &ri, pr->min_hit, pr->p->brhist, &f);
	for (size_t i = 1; i < f.n; i++) {	/* stable: hit, biggest first */
		struct flat_ent x = f.v[i];
		size_t j = i;

		for (; j > 0 && f.v[j - 1].self < x.self; j--)
			f.v[j] = f.v[j - 1];
		f.v[j] = x;
	}
	for (size_t i = 0; i < f.n && (!pr->p->print_limit || i < pr->p->print_limit); i++) {
		bool first = true;

		if (pr->p->mode == CG_FOLDED) {
			print_value(pr, f.v[i].self, f.v[i].self_count, total);
			fputc(' ', pr->fp);
			print_path(pr, f.v[i].n, ";", &first);
			fputc('\n', pr->fp);
		} else {
			fputs("           ", pr->fp);
			print_value(pr, f.v[i].cum, f.v[i].cum_count, total);
			fputc('\n', pr->fp);
			print_path(pr, f.v[i].n, NULL, &first);
			fputc('\n', pr->fp);
		}
	}
	free(f.v);
}

void cg_print(FILE *fp, const struct tally_hist_node *root, const struct cg_param *p, uint64_t total,
	      uint64_t parent, bool skip_first)
{
	cg_print_base(fp, root, p, total, total, parent, skip_first);
}

void cg_print_base(FILE *fp, const struct tally_hist_node *root, const struct cg_param *p,
		   uint64_t total, uint64_t base, uint64_t parent, bool skip_first)
{
	struct printer pr = { .fp = fp, .p = p };

	if (!root || p->mode == CG_NONE)
		return;
	/* perf: the whole period (base) times the threshold, as an integer */
	pr.min_hit = (uint64_t)((double)base * (p->min_percent / 100.0));
	if (p->mode == CG_FLAT || p->mode == CG_FOLDED)
		print_flat(&pr, root, total);
	else
		print_graph(&pr, root, total, parent, skip_first);
}
