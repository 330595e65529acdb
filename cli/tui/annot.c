// SPDX-License-Identifier: MIT
/* The annotate view's lines: what is hottest, where a jump goes (see annot.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "annot.h"

struct annot_view *annot_new(int nr)
{
	struct annot_view *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->nr = nr;
	a->line = calloc((size_t)nr + 1, sizeof(*a->line));
	a->addr = calloc((size_t)nr + 1, sizeof(*a->addr));
	a->insn = calloc((size_t)nr + 1, sizeof(*a->insn));
	a->percent = calloc((size_t)nr + 1, sizeof(*a->percent));
	if (!a->line || !a->addr || !a->insn || !a->percent) {
		annot_free(a);
		return NULL;
	}
	return a;
}

void annot_free(struct annot_view *a)
{
	if (!a)
		return;
	for (int i = 0; a->line && i < a->nr; i++)
		free(a->line[i]);
	free(a->line);
	free(a->addr);
	free(a->insn);
	free(a->percent);
	free(a->title);
	free(a);
}

int annot_find(const struct annot_view *a, uint64_t addr)
{
	for (int i = 0; i < a->nr; i++)
		if (a->insn[i] && a->addr[i] == addr)
			return i;
	return -1;
}

int annot_hottest(const struct annot_view *a)
{
	int hot = -1;

	for (int i = 0; i < a->nr; i++)
		if (a->insn[i] && (hot < 0 || a->percent[i] > a->percent[hot]))
			hot = i;
	return hot;
}

int annot_target(const struct annot_view *a, int i, uint64_t *to)
{
	const char *p, *op;
	char *end;
	size_t mlen;

	if (i < 0 || i >= a->nr || !a->insn[i])
		return -1;
	/* " 0.00 :   4011e0: jne    4011d6 <burn_a+0x20>": the text after "addr:" */
	p = strchr(a->line[i], ':');
	p = p ? strchr(p + 1, ':') : NULL;
	if (!p)
		return -1;
	p++;
	p += strspn(p, " \t");
	mlen = strcspn(p, " \t");
	/* jumps (j*), calls and their bnd/notrack prefixes; not "jmp *%rax" */
	if (!((*p == 'j' && mlen > 1) || !strncmp(p, "call", 4)))
		return -1;
	op = p + mlen;
	op += strspn(op, " \t");
	*to = strtoull(op, &end, 16);
	if (end == op || strncmp(end, " <", 2))
		return -1;
	return 0;
}
