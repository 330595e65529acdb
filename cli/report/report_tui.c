// SPDX-License-Identifier: MIT
/* report's browser: its text and each event's collapsed stacks, handed to cli/tui. */
#include <stdio.h>
#include <stdlib.h>
#include "browser.h"
#include "report.h"

/* The event's collapsed stacks, as --folded writes them, or NULL. */
static char *folded_of(struct tally_hist *h, struct tally_session *ss, const char *path, int idx)
{
	struct report_exports x = { .folded = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len), *out = stdout;
	int err;

	if (!mem)
		return NULL;
	stdout = mem;
	err = report_export(&x, h, ss, path, idx);
	stdout = out;
	if (fclose(mem) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

struct browse {
	struct tally_hist *h;
	struct tally_session *ss;
	const char *path;
	const int *idx;
	int n;
};

static char *folded_cb(void *ctx, int ev)
{
	struct browse *b = ctx;

	return ev < b->n ? folded_of(b->h, b->ss, b->path, b->idx[ev]) : NULL;
}

int report_browse(const char *text, struct tally_hist *h, struct tally_session *ss,
		  const char *path, const int *idx, int n)
{
	struct view v;
	struct browse b = { h, ss, path, idx, n };
	const struct browser_ops ops = { .title = "tally report", .folded = folded_cb, .ctx = &b };
	int rc;

	if (view_parse(&v, text)) {
		view_free(&v);
		fprintf(stderr, "tally report: out of memory for the browser\n");
		return 1;
	}
	rc = browser_run(&v, &ops);
	/* a terminal curses cannot drive (said why): the text instead */
	if (rc < 0 && fputs(text, stdout) < 0)
		return 1;
	return rc < 0 ? 0 : rc;
}
