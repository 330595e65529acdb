/* SPDX-License-Identifier: MIT */
/*
 * What the browser shows, read from the text `--stdio` prints (report's,
 * top's): events ("# Samples: N of event 'E'"), their '#' header, the
 * columns the dotted line marks, each row with the call graph printed
 * under it. Built from that text, the rows on screen are the rows of
 * --stdio by construction. No terminal here: the unit tests parse it.
 */
#ifndef TALLY_CLI_VIEW_H
#define TALLY_CLI_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#define VIEW_COLS 16

struct view_row {
	char *line;		/* as printed */
	char **graph;		/* the call graph's lines under it */
	int ngraph;
	bool open;		/* its graph shown */
};

struct view_event {
	char *name;		/* "cpu-clock:ppp" */
	char **head;		/* its '#' lines ("# Samples: ...", "# Event count ...") */
	int nhead;
	char *colhead;		/* "# Overhead  Command ..." */
	int ncols;
	struct { int start, end; char name[32]; } col[VIEW_COLS];	/* end -1: to the line's end */
	struct view_row *rows;
	int nrows;
	char *folded;		/* "comm;root;...;leaf count" lines, or NULL */
};

struct view {
	char **pre;		/* the '#' lines before the first event */
	int npre;
	struct view_event *ev;
	int nev;
};

/* 0, or -1 out of memory (v then holds what was read). */
int view_parse(struct view *v, const char *text);
void view_free(struct view *v);
/* The column named name ("Command", "Shared Object", "Symbol"), or -1. */
int view_col(const struct view_event *e, const char *name);
/* Row r's text in column c, trimmed (the symbol without its "[.] "), into buf. */
const char *view_field(const struct view_event *e, const char *line, int c, char *buf, size_t n);
/* Whether a row passes the filters (NULL: none): the columns as zoomed, sym a substring. */
bool view_match(const struct view_event *e, const struct view_row *r, const char *comm,
		const char *dso, const char *sym, const char *filter);

#endif
