// SPDX-License-Identifier: MIT
/*
 * Call graphs under report rows. The chains are merged into a trie, one
 * frame per node; perf keeps runs of frames in one node until a chain
 * branches or ends inside them, which is the same as a maximal run of
 * trie nodes with one child and no samples of their own ending there, so
 * the printer groups such runs and prints what perf prints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report_graph.h"

struct cg_node {
	struct cg_frame f;
	uint64_t hit, children_hit;	/* period ending here, below here */
	uint64_t count, children_count;
	struct cg_node *first, *last, *next, *parent;
	unsigned nchild;
};

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

static bool same_frame(const struct cg_frame *a, const struct cg_frame *b, bool address)
{
	if (!address && a->sym && b->sym)
		return a->sym == b->sym;	/* one name per symbol of a loaded DSO */
	if (a->ip != b->ip)
		return false;
	if (!a->dso || !b->dso)
		return a->dso == b->dso;
	return a->dso == b->dso || !strcmp(a->dso, b->dso);
}

/*
 * Nodes come from blocks, given back when the last graph is freed: a
 * report makes a node per distinct frame under each row (a third of a
 * million on a 4 s -a -g file), and a calloc and a free each were a
 * tenth of its time.
 */
struct cg_block {
	struct cg_block *next;
	size_t used;
	struct cg_node n[];
};

#define CG_BLOCK 4096
static struct cg_block *blocks;
static size_t live_roots;

static struct cg_node *node_new(void)
{
	if (!blocks || blocks->used == CG_BLOCK) {
		struct cg_block *b = calloc(1, sizeof(*b) + CG_BLOCK * sizeof(b->n[0]));

		if (!b)
			return NULL;
		b->next = blocks;
		blocks = b;
	}
	return &blocks->n[blocks->used++];
}

int cg_append(struct cg_node **root, const struct cg_frame *frames, size_t n, uint64_t period,
	      uint64_t count, bool address)
{
	struct cg_node *node;

	if (!*root) {
		if (!(*root = node_new()))
			return -ENOMEM;
		live_roots++;
	}
	node = *root;
	for (size_t i = 0; i < n; i++) {
		struct cg_node *c;

		node->children_hit += period;
		node->children_count += count;
		for (c = node->first; c && !same_frame(&c->f, &frames[i], address); c = c->next)
			;
		if (!c) {
			if (!(c = node_new()))
				return -ENOMEM;
			c->f = frames[i];
			c->parent = node;
			if (node->last)
				node->last->next = c;
			else
				node->first = c;
			node->last = c;
			node->nchild++;
		}
		node = c;
	}
	node->hit += period;
	node->count += count;
	return 0;
}

void cg_free(struct cg_node *root)
{
	if (!root || --live_roots)
		return;
	while (blocks) {	/* the last graph: every node goes */
		struct cg_block *b = blocks;

		blocks = b->next;
		free(b);
	}
}

static uint64_t cumul(const struct cg_node *n)
{
	return n->hit + n->children_hit;
}

static uint64_t cumul_count(const struct cg_node *n)
{
	return n->count + n->children_count;
}

/* The last node of a run that perf keeps as one. */
static const struct cg_node *run_end(const struct cg_node *n)
{
	while (n->nchild == 1 && !n->hit)
		n = n->first;
	return n;
}

static const char *frame_name(const struct cg_frame *f, char *buf, size_t len)
{
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
	const struct cg_node *a = *(const struct cg_node *const *)pa;
	const struct cg_node *b = *(const struct cg_node *const *)pb;
	/* no map sorts below all (perf: a NULL DSO pointer) */
	uint64_t da = a->f.dso_id ? a->f.dso_rank + 1ULL : 0, db = b->f.dso_id ? b->f.dso_rank + 1ULL : 0;
	uint64_t ka = a->f.sym ? a->f.start : a->f.ip, kb = b->f.sym ? b->f.start : b->f.ip;

	if (da != db)
		return da > db ? -1 : 1;
	if (ka != kb)
		return ka > kb ? -1 : 1;
	return 0;
}

/* biggest first, equal ones in the tree's order */
static int cmp_shown(const void *pa, const void *pb)
{
	const struct cg_node *a = *(const struct cg_node *const *)pa;
	const struct cg_node *b = *(const struct cg_node *const *)pb;

	if (cumul(a) != cumul(b))
		return cumul(a) > cumul(b) ? -1 : 1;
	return cmp_tree(pa, pb);
}

/*
 * The children shown, biggest first: those at or above the threshold
 * (ties keep the order they came in).
 */
static size_t shown_children(const struct printer *pr, const struct cg_node *n,
			     const struct cg_node ***out)
{
	const struct cg_node **v = malloc((n->nchild + 1) * sizeof(*v));
	uint64_t min = pr->min_hit;
	size_t k = 0;

	if (!v) {
		*out = NULL;
		return 0;
	}
	if (pr->p->mode == CG_FRACTAL) {
		double m = (double)n->children_hit * (pr->p->min_percent / 100.0);

		min = (uint64_t)m + ((double)(uint64_t)m < m);	/* ceil */
	}
	for (const struct cg_node *c = n->first; c; c = c->next)
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

static void graph_frame(struct printer *pr, const struct cg_node *val, uint64_t period,
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
	fputs(val ? frame_name(&val->f, buf, sizeof(buf)) : "[...]", pr->fp);
	fputc('\n', pr->fp);
}

/* Returns the number of lines printed. */
static size_t graph(struct printer *pr, const struct cg_node *n, uint64_t total, int depth,
		    unsigned long mask, int left)
{
	size_t lines = 0;

	const struct cg_node **kids;
	size_t nk = shown_children(pr, n, &kids);
	uint64_t remaining = total, counted = 0;

	for (size_t k = 0; k < nk; k++) {
		const struct cg_node *c = kids[k], *end = run_end(c);
		unsigned long m = mask;
		bool first = true;

		remaining -= cumul(c);
		counted += cumul_count(c);
		if (k + 1 == nk && (pr->p->mode != CG_FRACTAL || !remaining))
			m &= ~(1UL << (depth - 1));
		graph_line(pr, depth, mask, left);
		lines++;
		for (const struct cg_node *v = c;; v = v->first) {
			graph_frame(pr, v, cumul(c), cumul_count(c), depth, m, first, total, left);
			first = false;
			lines++;
			if (v == end)
				break;
		}
		lines += graph(pr, end, pr->p->mode == CG_FRACTAL ? end->children_hit : total, depth + 1,
		      m | (depth < 64 ? 1UL << depth : 0), left);
		if (pr->p->print_limit && k + 1 == pr->p->print_limit)
			break;
	}
	/* the hidden rest; counted in samples, none left hides it */
	if (pr->p->mode == CG_FRACTAL && remaining && remaining != total &&
	    (pr->p->value != CG_COUNT || n->children_count > counted)) {
		graph_frame(pr, NULL, remaining, n->children_count - counted, depth, mask & ~(1UL << (depth - 1)), true,
			    total, left);
		lines++;
	}
	free(kids);
	return lines;
}

static void print_graph(struct printer *pr, const struct cg_node *root, uint64_t total,
			uint64_t parent, bool skip_first)
{
	const struct cg_node **kids;
	size_t nk = shown_children(pr, root, &kids);
	bool printed = false;
	int left = 0;
	char buf[32];

	if (nk == 1 && cumul(kids[0]) == parent) {
		/* one root with all of the row: no percentage, no column */
		const struct cg_node *c = kids[0], *end = run_end(c);
		unsigned i = 0;

		for (const struct cg_node *v = c;; v = v->first) {
			if (!(i++ == 0 && skip_first)) {
				if (!printed) {
					fputs("            |\n            ---", pr->fp);
					left += 3;
					printed = true;
				} else {
					margin(pr, left);
				}
				fprintf(pr->fp, "%s\n", frame_name(&v->f, buf, sizeof(buf)));
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
	const struct cg_node **v;
	size_t n, cap;
};

static void collect(const struct cg_node *n, uint64_t min, struct flat *f)
{
	const struct cg_node **kids = malloc((n->nchild + 1) * sizeof(*kids));
	size_t k = 0;

	if (!kids)
		return;
	for (const struct cg_node *c = n->first; c; c = c->next)
		kids[k++] = c;
	qsort(kids, k, sizeof(*kids), cmp_tree);
	for (size_t i = 0; i < k; i++)
		collect(kids[i], min, f);
	free(kids);
	if (n->parent && n->hit && n->hit >= min) {
		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 64;
			const struct cg_node **v = realloc(f->v, cap * sizeof(*v));

			if (!v)
				return;
			f->v = v;
			f->cap = cap;
		}
		f->v[f->n++] = n;
	}
}

static void print_path(struct printer *pr, const struct cg_node *n, const char *sep, bool *first)
{
	char buf[32];

	if (!n->parent)
		return;
	print_path(pr, n->parent, sep, first);
	if (sep) {
		fprintf(pr->fp, "%s%s", *first ? "" : sep, frame_name(&n->f, buf, sizeof(buf)));
		*first = false;
	} else {
		fprintf(pr->fp, "                %s\n", frame_name(&n->f, buf, sizeof(buf)));
	}
}

static void print_flat(struct printer *pr, const struct cg_node *root, uint64_t total)
{
	struct flat f = { 0 };

	collect(root, pr->min_hit, &f);
	for (size_t i = 1; i < f.n; i++) {	/* stable: hit, biggest first */
		const struct cg_node *x = f.v[i];
		size_t j = i;

		for (; j > 0 && f.v[j - 1]->hit < x->hit; j--)
			f.v[j] = f.v[j - 1];
		f.v[j] = x;
	}
	for (size_t i = 0; i < f.n && (!pr->p->print_limit || i < pr->p->print_limit); i++) {
		bool first = true;

		if (pr->p->mode == CG_FOLDED) {
			print_value(pr, f.v[i]->hit, f.v[i]->count, total);
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

void cg_print(FILE *fp, const struct cg_node *root, const struct cg_param *p, uint64_t total,
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
