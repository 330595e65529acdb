// SPDX-License-Identifier: MIT
/* The browser's flame view and HTML page: see flame.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tally/stacks.h>
#include "flame.h"
#include "tui.h"

#define MAX_DEPTH 256

int flame_each(const char *folded, const char *comm, const char *sym, flame_stack_fn fn, void *arg)
{
	int ret = 0;

	for (const char *s = folded; s && *s && !ret;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = strndup(s, len), *sp, *f[MAX_DEPTH];
		unsigned long long count;
		int n = 0;
		bool ok = !sym;

		s = nl ? nl + 1 : NULL;
		if (!line)
			return -ENOMEM;
		sp = strrchr(line, ' ');
		if (!sp) {
			free(line);
			continue;
		}
		*sp = 0;
		count = strtoull(sp + 1, NULL, 10);
		for (char *save = NULL, *t = strtok_r(line, ";", &save); t && n < MAX_DEPTH;
		     t = strtok_r(NULL, ";", &save)) {
			f[n++] = t;
			if (sym && n > 1 && strstr(t, sym))
				ok = true;
		}
		if (n && ok && (!comm || !strcmp(f[0], comm)))
			ret = fn(f, n, count, arg);
		free(line);
	}
	return ret;
}

/* The icicle's tree: each node's children in a list, the biggest drawn first. */
struct node {
	char *name;
	unsigned long long value;
	struct node *kids, *next;
};

static int add_stack(char **f, int n, unsigned long long count, void *arg)
{
	struct node *p = arg;

	p->value += count;
	for (int i = 0; i < n; i++) {
		struct node *k;

		for (k = p->kids; k && strcmp(k->name, f[i]); k = k->next)
			;
		if (!k) {
			if (!(k = calloc(1, sizeof(*k))) || !(k->name = strdup(f[i]))) {
				free(k);
				return -ENOMEM;
			}
			k->next = p->kids;
			p->kids = k;
		}
		k->value += count;
		p = k;
	}
	return 0;
}

static void free_node(struct node *p)
{
	while (p) {
		struct node *next = p->next;

		free_node(p->kids);
		free(p->name);
		free(p);
		p = next;
	}
}

static int by_value(const void *a, const void *b)
{
	const struct node *x = *(struct node *const *)a, *y = *(struct node *const *)b;

	return x->value < y->value ? 1 : x->value > y->value ? -1 : strcmp(x->name, y->name);
}

static void draw_node(const struct node *p, int depth, int x, int w, int y0, int h)
{
	struct node *kids[4096];
	int n = 0;
	unsigned long long cum = 0;

	if (depth >= h || w < 1)
		return;
	tui_text(y0 + depth, x, w, (enum tui_attr)(TUI_FRAME0 + depth % 2), "", true);
	tui_text(y0 + depth, x, w, (enum tui_attr)(TUI_FRAME0 + depth % 2), p->name, false);
	for (struct node *k = p->kids; k && n < 4096; k = k->next)
		kids[n++] = k;
	qsort(kids, (size_t)n, sizeof(kids[0]), by_value);
	for (int i = 0; i < n; i++) {
		int a = x + (int)(cum * (unsigned long long)w / p->value);
		int b;

		cum += kids[i]->value;
		b = x + (int)(cum * (unsigned long long)w / p->value);
		draw_node(kids[i], depth + 1, a, b - a, y0, h);
	}
}

void flame_draw(const char *folded, const char *comm, const char *sym, int y0, int h)
{
	struct node root = { 0 };
	char name[64];

	if (flame_each(folded, comm, sym, add_stack, &root) || !root.value) {
		tui_text(y0 + 1, 2, tui_cols() - 2, TUI_DIM, "no call stacks pass the filters", false);
		free_node(root.kids);
		return;
	}
	snprintf(name, sizeof(name), "all");
	root.name = name;
	draw_node(&root, 0, 0, tui_cols(), y0, h);
	free_node(root.kids);
}

struct html_arg {
	struct tally_stacks *st;
	char **comms;
	int ncomms;
};

static int add_html(char **f, int n, unsigned long long count, void *arg)
{
	struct html_arg *a = arg;
	int t, parent = -1, i;

	for (i = 0; i < a->ncomms && strcmp(a->comms[i], f[0]); i++)
		;
	if (i == a->ncomms) {
		char **nc = realloc(a->comms, (size_t)(i + 1) * sizeof(*nc));

		if (!nc || !(nc[i] = strdup(f[0])))
			return -ENOMEM;
		a->comms = nc;
		a->ncomms++;
	}
	/* a thread per name: the folded text kept no pids */
	t = tally_stacks__thread(a->st, i + 1, i + 1, f[0]);
	if (t < 0)
		return t;
	for (int k = 1; k < n; k++) {
		size_t l = strlen(f[k]);
		bool kernel = l > 4 && !strcmp(f[k] + l - 4, "_[k]");
		struct tally_stack_frame fr = { .kernel = kernel };
		int id;

		if (kernel)
			f[k][l - 4] = 0;
		fr.name = strcmp(f[k], "[unknown]") ? f[k] : NULL;
		if ((id = tally_stacks__frame(a->st, &fr)) < 0 ||
		    (parent = tally_stacks__push(a->st, parent, id)) < 0)
			return id < 0 ? id : parent;
	}
	if (parent < 0)
		return 0;
	return tally_stacks__sample(a->st, t, parent, count, count);
}

int flame_write_html(const char *folded, const char *event, const char *comm, const char *sym,
		     FILE *fp)
{
	struct html_arg a = { .st = tally_stacks__new() };
	int err;

	if (!a.st)
		return -ENOMEM;
	err = flame_each(folded, comm, sym, add_html, &a);
	if (!err && !tally_stacks__samples(a.st))
		err = -ENODATA;
	if (!err) {
		struct tally_stacks_info info = { .event = event, .unit = "count" };

		tally_stacks__set_info(a.st, &info);
		err = tally_stacks__write_html(a.st, fp, event);
	}
	for (int i = 0; i < a.ncomms; i++)
		free(a.comms[i]);
	free(a.comms);
	tally_stacks__free(a.st);
	return err;
}
