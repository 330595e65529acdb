/* SPDX-License-Identifier: MIT */
/*
 * The one browser of report and top over a struct view: the rows with
 * their columns, call graphs opened under them, zoom, filter, events,
 * header info, help, a flame view, and the current view written as text
 * or as the HTML page. `tally top` refreshes it every delay.
 */
#ifndef TALLY_CLI_BROWSER_H
#define TALLY_CLI_BROWSER_H

#include "annot.h"
#include "view.h"

struct browser_ops {
	const char *title;		/* "tally report", "tally top" */
	int delay_ms;			/* refresh's period; 0: never */
	/* The next view into out: 0; 1: nothing new; -1 after saying why. */
	int (*refresh)(void *ctx, struct view *out);
	/* Called often (every 100 ms at most) between refreshes: top drains its rings. */
	void (*tick)(void *ctx);
	/*
	 * Event ev's collapsed stacks (malloc'd, or NULL), asked for when the
	 * flame view or the HTML page first needs them: they cost the
	 * pictures' frame resolution, which rows alone do not.
	 */
	char *(*folded)(void *ctx, int ev);
	/* A key of the caller's (top's 'z'), with what to say; 0: not its key. */
	int (*key)(void *ctx, int key, char *msg, size_t n);
	/*
	 * 'a': the annotate view of event ev's symbol sym in dso (the row's
	 * columns as shown), or NULL with the reason in msg. NULL: the
	 * caller cannot annotate, why in no_annotate.
	 */
	struct annot_view *(*annotate)(void *ctx, int ev, const char *dso, const char *sym,
				       char *msg, size_t n);
	const char *no_annotate;
	void *ctx;
};

/*
 * Browse v (the browser owns it from here) until q. 0; 128+sig when a
 * signal ended it; -1 when the terminal could not be taken (said why).
 */
int browser_run(struct view *v, const struct browser_ops *ops);

/* The view's rows as shown (filters, opened graphs) as text, for the 'P' key and the tests. */
int browser_write_text(const struct view_event *e, const char *comm, const char *dso,
		       const char *sym, const char *filter, FILE *fp);

#endif
