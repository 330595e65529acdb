// SPDX-License-Identifier: MIT
/* The browser's annotate view of a symbol (report's and top's 'a'): see annotate_text.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include <tally/annotate.h>
#include "annot.h"
#include "annotate_text.h"

/* The annotate view of the lines tally annotate --stdio prints for symbol idx. */
struct annot_view *annotate_view_of(struct tally_annotate *a, struct tally_session *ss, int idx,
				     char *msg, size_t n)
{
	const struct tally_annotate_sym *sym = tally_annotate__sym(a, idx);
	const char *base = strrchr(sym->dso_name, '/') ? strrchr(sym->dso_name, '/') + 1 : sym->dso_name;
	struct tally_annotate_lines l;
	struct annot_view *v;
	char text[8192];
	int err;

	if ((err = tally_annotate__lines(a, idx, &l))) {
		/* perf's words ("Error:\n...") on the one status line */
		snprintf(msg, n, "annotate: %s", err == -ENOMEM ? strerror(ENOMEM) : tally_annotate__strerror(a));
		for (char *p = msg, *q = msg; ; p++) {
			if (*p == '\n' || *p == '\t')
				*p = ' ';
			if (*p == ' ' && q > msg && q[-1] == ' ')
				continue;
			if (!(*q++ = *p))
				break;
		}
		return NULL;
	}
	if (!(v = annot_new(l.nr))) {
		tally_annotate_lines__free(&l);
		snprintf(msg, n, "annotate: %s", strerror(ENOMEM));
		return NULL;
	}
	for (int i = 0; i < l.nr; i++) {
		int len = annotate_line_text(&l, i, TALLY_PERCENT_LOCAL_PERIOD, text, sizeof(text));

		v->line[i] = len < (int)sizeof(text) ? strdup(text) : malloc((size_t)len + 1);
		if (v->line[i] && len >= (int)sizeof(text))
			annotate_line_text(&l, i, TALLY_PERCENT_LOCAL_PERIOD, v->line[i], (size_t)len + 1);
		v->insn[i] = l.v[i].offset >= 0;
		v->addr[i] = l.v[i].addr;
		v->percent[i] = l.v[i].percent[TALLY_PERCENT_LOCAL_PERIOD];
		if (!v->line[i]) {
			v->nr = i;
			annot_free(v);
			tally_annotate_lines__free(&l);
			snprintf(msg, n, "annotate: %s", strerror(ENOMEM));
			return NULL;
		}
	}
	if (asprintf(&v->title, "%s in %s for %s (%" PRIu64 " samples, percent: local period)",
		     sym->name, base, tally_session__event_name(ss, sym->attr), sym->nr_samples) < 0)
		v->title = NULL;
	tally_annotate_lines__free(&l);
	return v;
}
