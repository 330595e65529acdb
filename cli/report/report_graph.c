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
#include <stdlib.h>
#include <string.h>
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

static const char *frame_name(const struct tally_hist_node *n, char *buf, size_t len)
{
	const struct tally_hist_frame *f = tally_hist_node__frame(n);

	if (f->sym)
		return f->sym;
	snprintf(buf, len, f->ip ? "%#llx" : "0", (unsigned long long)f->ip);
	return buf;
}

struct printer {
	FILE *fp;
	const struct cg_param *p;
	uint64_t min_hit;		/* graph mode: one threshold for the row */
};

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
		fprintf(pr->fp, "%.2f%%", total ? period * 100.0 / total : 0.0);
	}
}

/*
 * perf keeps a node's children in a tree ordered by DSO and then address
 * (the symbol's start, or the ip unresolved), the higher first as its
 * insertion goes; equal branches are shown in that order.
 */
static int cmp_tree(const void *pa, const void *pb)
{
	const struct tally_hist_frame *a = tally_hist_node__frame(*(const struct tally_hist_node *const *)pa);
	const struct tally_hist_frame *b = tally_hist_node__frame(*(const struct tally_hist_node *const *)pb);
	/* no map sorts below all (perf: a NULL DSO pointer) */
	uint64_t da = a->mapped ? a->dso_rank + 1ULL : 0, db = b->mapped ? b->dso_rank + 1ULL : 0;
	uint64_t ka = a->sym ? a->sym_start : a->ip, kb = b->sym ? b->sym_start : b->ip;

	if (da != db)
		return da > db ? -1 : 1;
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return 0;
}

/* biggest first, equal ones in the tree's order */
static int cmp_shown(const void *pa, const void *pb)
{
	const struct tally_hist_node *a = *(const struct tally_hist_node *const *)pa;
	const struct tally_hist_node *b = *(const struct tally_hist_node *const *)pb;

	if (cumul(a) != cumul(b))
		return cumul(a) > cumul(b) ? -1 : 1;
	return cmp_tree(pa, pb);
}

/*
 * The children shown, biggest first: those at or above the threshold
 * (ties keep the order they came in).
 */
static size_t shown_children(const struct printer *pr, const struct tally_hist_node *n,
			     const struct tally_hist_node ***out)
{
	const struct tally_hist_node **v = malloc((node_info(n).nr_children + 1) * sizeof(*v));
	uint64_t min = pr->min_hit;
	size_t k = 0;

	if (!v) {
		*out = NULL;
		return 0;
	}
	if (pr->p->mode == CG_FRACTAL) {
		double m = (double)node_info(n).below * (pr->p->min_percent / 100.0);

		min = (uint64_t)m + ((double)(uint64_t)m < m);	/* ceil */
	}
	for (const struct tally_hist_node *c = tally_hist_node__child(n); c; c = tally_hist_node__next(c))
		if (cumul(c) >= min)
			v[k++] = c;
	qsort(v, k, sizeof(*v), cmp_shown);
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
	char buf[32];

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
	fputs(val ? frame_name(val, buf, sizeof(buf)) : "[...]", pr->fp);
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
	size_t nk = shown_children(pr, root, &kids);
	bool printed = false;
	int left = 0;
	char buf[32];

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
				fprintf(pr->fp, "%s\n", frame_name(v, buf, sizeof(buf)));
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
	const struct tally_hist_node **v;
	size_t n, cap;
};

static void collect(const struct tally_hist_node *n, uint64_t min, struct flat *f)
{
	const struct tally_hist_node **kids = malloc((node_info(n).nr_children + 1) * sizeof(*kids));
	size_t k = 0;

	if (!kids)
		return;
	for (const struct tally_hist_node *c = tally_hist_node__child(n); c; c = tally_hist_node__next(c))
		kids[k++] = c;
	qsort(kids, k, sizeof(*kids), cmp_tree);
	for (size_t i = 0; i < k; i++)
		collect(kids[i], min, f);
	free(kids);
	if (tally_hist_node__parent(n) && node_info(n).self && node_info(n).self >= min) {
		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 64;
			const struct tally_hist_node **v = realloc(f->v, cap * sizeof(*v));

			if (!v)
				return;
			f->v = v;
			f->cap = cap;
		}
		f->v[f->n++] = n;
	}
}

static void print_path(struct printer *pr, const struct tally_hist_node *n, const char *sep, bool *first)
{
	char buf[32];

	if (!tally_hist_node__parent(n))
		return;
	print_path(pr, tally_hist_node__parent(n), sep, first);
	if (sep) {
		fprintf(pr->fp, "%s%s", *first ? "" : sep, frame_name(n, buf, sizeof(buf)));
		*first = false;
	} else {
		fprintf(pr->fp, "                %s\n", frame_name(n, buf, sizeof(buf)));
	}
}

static void print_flat(struct printer *pr, const struct tally_hist_node *root, uint64_t total)
{
	struct flat f = { 0 };

	collect(root, pr->min_hit, &f);
	for (size_t i = 1; i < f.n; i++) {	/* stable: hit, biggest first */
		const struct tally_hist_node *x = f.v[i];
		size_t j = i;

		for (; j > 0 && node_info(f.v[j - 1]).self < node_info(x).self; j--)
			f.v[j] = f.v[j - 1];
		f.v[j] = x;
	}
	for (size_t i = 0; i < f.n && (!pr->p->print_limit || i < pr->p->print_limit); i++) {
		bool first = true;

		if (pr->p->mode == CG_FOLDED) {
			print_value(pr, node_info(f.v[i]).self, node_info(f.v[i]).self_samples, total);
			fputc(' ', pr->fp);
			print_path(pr, f.v[i], ";", &first);
			fputc('\n', pr->fp);
		} else {
			fputs("           ", pr->fp);
			print_value(pr, cumul(f.v[i]), cumul_count(f.v[i]), total);
			fputc('\n', pr->fp);
			print_path(pr, f.v[i], NULL, &first);
			fputc('\n', pr->fp);
		}
	}
	free(f.v);
}

void cg_print(FILE *fp, const struct tally_hist_node *root, const struct cg_param *p, uint64_t total,
	      uint64_t parent, bool skip_first)
{
	struct printer pr = { .fp = fp, .p = p };

	if (!root || p->mode == CG_NONE)
		return;
	/* perf: the whole period times the threshold, as an integer */
	pr.min_hit = (uint64_t)((double)total * (p->min_percent / 100.0));
	if (p->mode == CG_FLAT || p->mode == CG_FOLDED)
		print_flat(&pr, root, total);
	else
		print_graph(&pr, root, total, parent, skip_first);
}
