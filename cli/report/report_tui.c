// SPDX-License-Identifier: MIT
/*
 * report's browser: its text, each event's collapsed stacks and a row's
 * annotation, handed to cli/tui.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/annotate.h>
#include "annotate_text.h"
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

static int annotate_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct tally_annotate **a = ctx;	/* made after the session it counts */

	return tally_annotate__add(*a, smp) == -ENOMEM ? -ENOMEM : 0;
}

/*
 * 'a': the file read again through the annotate library for this one
 * symbol (the report's pass did not keep per-instruction samples: they
 * cost every row, and few rows are ever annotated).
 */
static struct annot_view *annotate_cb(void *ctx, int ev, const char *dso, const char *name,
				      char *msg, size_t n)
{
	struct browse *b = ctx;
	struct tally_annotate *a = NULL;
	struct tally_session *ss;
	struct annot_view *v = NULL;
	int nr, err;

	if (ev >= b->n)
		return NULL;
	/* standard input is the terminal's keys now, a pipe's data is gone */
	if (!strcmp(b->path, "-")) {
		snprintf(msg, n, "annotate: the data came from a pipe, there is no file to read again");
		return NULL;
	}
	{
		TALLY_OPTS(tally_session_opts, so, .sample = annotate_sample, .ctx = &a,
			   .no_unwind = true, .no_comm = true, .symfs = tally_session__symfs(b->ss),
			   .kallsyms = tally_session__kallsyms(b->ss));

		if (!(ss = tally_session__open(b->path, &so))) {
			snprintf(msg, n, "annotate: %s: %s", b->path, strerror(errno));
			return NULL;
		}
	}
	{
		TALLY_OPTS(tally_annotate_opts, ao, .symbol = name, .dsos = dso);

		a = tally_annotate__new(ss, &ao);
	}
	if (!a) {
		snprintf(msg, n, "annotate: %s", strerror(errno));
		tally_session__close(ss);
		return NULL;
	}
	/* a damaged file: what was read before the damage, as tally annotate */
	err = tally_session__run(ss);
	nr = tally_annotate__sort(a);
	for (int i = 0; i < nr; i++)
		if (tally_annotate__sym(a, i)->attr == b->idx[ev]) {
			v = annotate_view_of(a, ss, i, msg, n);
			break;
		}
	if (!v && !msg[0])
		snprintf(msg, n, "annotate: no samples of %s in %s%s%s", name, dso,
			 err < 0 ? ": " : "", err < 0 ? strerror(-err) : "");
	tally_annotate__free(a);
	tally_session__close(ss);
	return v;
}

int report_browse(const char *text, struct tally_hist *h, struct tally_session *ss,
		  const char *path, const int *idx, int n)
{
	struct view v;
	struct browse b = { h, ss, path, idx, n };
	const struct browser_ops ops = {
		.title = "tally report", .folded = folded_cb, .annotate = annotate_cb, .ctx = &b,
	};
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
