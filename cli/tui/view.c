// SPDX-License-Identifier: MIT
/* The browser's rows, read from --stdio's text: see view.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "view.h"

static int push(char ***v, int *n, const char *s, size_t len)
{
	char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(**v));

	if (!nv)
		return -1;
	*v = nv;
	if (!(nv[*n] = strndup(s, len)))
		return -1;
	(*n)++;
	return 0;
}

/* "# ........  .......  ...": the columns' spans */
static bool dotted(const char *s, size_t len)
{
	bool dot = false;

	if (len < 2 || s[0] != '#')
		return false;
	for (size_t i = 1; i < len; i++) {
		if (s[i] == '.')
			dot = true;
		else if (s[i] != ' ')
			return false;
	}
	return dot;
}

static void columns(struct view_event *e, const char *s, size_t len)
{
	const char *h = e->colhead;
	size_t hl = h ? strlen(h) : 0;

	e->ncols = 0;
	for (size_t i = 1; i < len && e->ncols < VIEW_COLS;) {
		size_t j;

		while (i < len && s[i] == ' ')
			i++;
		if (i >= len)
			break;
		for (j = i; j < len && s[j] == '.'; j++)
			;
		e->col[e->ncols].start = (int)i;
		e->col[e->ncols].end = (int)j;
		/* the name under the dots, from the line above */
		if (i < hl) {
			size_t k = j < hl ? j : hl, a = i;

			while (a < k && h[a] == ' ')
				a++;
			while (k > a && h[k - 1] == ' ')
				k--;
			snprintf(e->col[e->ncols].name, sizeof(e->col[0].name), "%.*s", (int)(k - a), h + a);
		} else {
			e->col[e->ncols].name[0] = 0;
		}
		e->ncols++;
		i = j;
	}
	if (e->ncols)	/* the last column (a symbol) runs to the line's end */
		e->col[e->ncols - 1].end = -1;
}

/* A row starts with its first column's number; a graph line is indented past it. */
static bool is_row(const struct view_event *e, const char *s, size_t len)
{
	int end = e->ncols ? e->col[0].end : 12;
	size_t i = 0;

	while (i < len && s[i] == ' ')
		i++;
	return i < len && (int)i < end && isdigit((unsigned char)s[i]);
}

int view_parse(struct view *v, const char *text)
{
	struct view_event *e = NULL;
	char *last_hash = NULL;

	memset(v, 0, sizeof(*v));
	for (const char *s = text; s && *s;) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		if (!strncmp(s, "# Samples: ", 11)) {
			struct view_event *nev = realloc(v->ev, (size_t)(v->nev + 1) * sizeof(*nev));
			const char *q = memchr(s, '\'', len), *q2;

			if (!nev)
				return -1;
			v->ev = nev;
			e = &v->ev[v->nev++];
			memset(e, 0, sizeof(*e));
			q2 = q ? memchr(q + 1, '\'', len - (size_t)(q + 1 - s)) : NULL;
			e->name = q2 ? strndup(q + 1, (size_t)(q2 - q - 1)) : strdup("");
			if (!e->name || push(&e->head, &e->nhead, s, len))
				return -1;
		} else if (dotted(s, len) && e) {
			free(e->colhead);
			e->colhead = last_hash;
			last_hash = NULL;
			columns(e, s, len);
		} else if (len && s[0] == '#') {
			if (e && !e->ncols) {	/* the event's header, and maybe the columns' names */
				if (push(&e->head, &e->nhead, s, len))
					return -1;
				free(last_hash);
				if (!(last_hash = strndup(s, len)))
					return -1;
			} else if (!e && push(&v->pre, &v->npre, s, len)) {
				return -1;
			}
		} else if (len && e && e->ncols) {
			if (is_row(e, s, len)) {
				struct view_row *nr = realloc(e->rows, (size_t)(e->nrows + 1) * sizeof(*nr));

				if (!nr)
					return -1;
				e->rows = nr;
				memset(&nr[e->nrows], 0, sizeof(*nr));
				if (!(nr[e->nrows].line = strndup(s, len)))
					return -1;
				e->nrows++;
			} else if (e->nrows) {
				struct view_row *r = &e->rows[e->nrows - 1];

				if (push(&r->graph, &r->ngraph, s, len))
					return -1;
			}
		}
		s = nl ? nl + 1 : NULL;
	}
	/* the columns' names line was the last '#' line of the header: not info */
	for (int i = 0; i < v->nev; i++)
		if (v->ev[i].colhead && v->ev[i].nhead)
			free(v->ev[i].head[--v->ev[i].nhead]);
	free(last_hash);
	return 0;
}

void view_free(struct view *v)
{
	for (int i = 0; i < v->npre; i++)
		free(v->pre[i]);
	free(v->pre);
	for (int i = 0; i < v->nev; i++) {
		struct view_event *e = &v->ev[i];

		for (int r = 0; r < e->nrows; r++) {
			for (int g = 0; g < e->rows[r].ngraph; g++)
				free(e->rows[r].graph[g]);
			free(e->rows[r].graph);
			free(e->rows[r].line);
		}
		for (int h = 0; h < e->nhead; h++)
			free(e->head[h]);
		free(e->head);
		free(e->rows);
		free(e->name);
		free(e->colhead);
		free(e->folded);
	}
	free(v->ev);
	memset(v, 0, sizeof(*v));
}

int view_col(const struct view_event *e, const char *name)
{
	for (int i = 0; i < e->ncols; i++)
		if (!strcmp(e->col[i].name, name))
			return i;
	return -1;
}

const char *view_field(const struct view_event *e, const char *line, int c, char *buf, size_t n)
{
	size_t len = strlen(line), a, b;

	buf[0] = 0;
	if (c < 0 || c >= e->ncols || (size_t)e->col[c].start >= len)
		return buf;
	a = (size_t)e->col[c].start;
	b = e->col[c].end < 0 || (size_t)e->col[c].end > len ? len : (size_t)e->col[c].end;
	/* a value wider than its column pushes the rest: take it to the next two spaces */
	if (e->col[c].end >= 0)
		while (b < len && line[b] != ' ')
			b++;
	while (a < b && line[a] == ' ')
		a++;
	while (b > a && line[b - 1] == ' ')
		b--;
	/* the symbol's "[.] " / "[k] " level */
	if (b - a > 4 && line[a] == '[' && line[a + 2] == ']' && line[a + 3] == ' ')
		a += 4;
	snprintf(buf, n, "%.*s", (int)(b - a), line + a);
	return buf;
}

static bool col_is(const struct view_event *e, const char *line, const char *name, const char *want)
{
	char buf[512];
	int c = view_col(e, name);

	return c < 0 || !strcmp(view_field(e, line, c, buf, sizeof(buf)), want);
}

bool view_match(const struct view_event *e, const struct view_row *r, const char *comm,
		const char *dso, const char *sym, const char *filter)
{
	char buf[512];
	int c;

	if (comm && !col_is(e, r->line, "Command", comm))
		return false;
	if (dso && !col_is(e, r->line, "Shared Object", dso))
		return false;
	if (sym && !col_is(e, r->line, "Symbol", sym))
		return false;
	if (filter && *filter) {
		c = view_col(e, "Symbol");
		return strstr(c < 0 ? r->line : view_field(e, r->line, c, buf, sizeof(buf)), filter) != NULL;
	}
	return true;
}
