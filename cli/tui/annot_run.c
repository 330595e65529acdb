// SPDX-License-Identifier: MIT
/* The annotate view on the terminal (see annot.h); its lines' logic is annot.c's. */
#include <inttypes.h>
#include <stdio.h>
#include "annot.h"
#include "tui.h"

static void draw(const struct annot_view *a, const char *prog, int sel, int *top, const char *msg)
{
	int h = tui_rows() - 2, cols = tui_cols();
	char t[512], st[256];

	if (sel < *top)
		*top = sel;
	if (h > 0 && sel >= *top + h)
		*top = sel - h + 1;
	tui_clear();
	snprintf(t, sizeof(t), "%s: annotate %s", prog, a->title ? a->title : "");
	tui_text(0, 0, cols, TUI_TITLE, t, true);
	for (int y = 0; y < h && *top + y < a->nr; y++) {
		int i = *top + y;
		enum tui_attr at = i == sel ? TUI_SELECTED :
				   !a->insn[i] ? TUI_DIM :
				   a->percent[i] >= 5 ? TUI_HOT : a->percent[i] > 0 ? TUI_WARM : TUI_NORMAL;

		tui_text(1 + y, 0, cols, at, a->line[i], true);
	}
	/* the selected instruction named: what the tests and the eye look for */
	if (msg && *msg)
		snprintf(st, sizeof(st), "%s", msg);
	else if (sel < a->nr && a->insn[sel])
		snprintf(st, sizeof(st), "%" PRIx64 " %.2f%%  ENTER/RIGHT jump to target  LEFT/ESC/q back",
			 a->addr[sel], a->percent[sel]);
	else
		snprintf(st, sizeof(st), "ENTER/RIGHT jump to target  LEFT/ESC/q back");
	tui_text(tui_rows() - 1, 0, cols, msg && *msg ? TUI_HOT : TUI_DIM, st, true);
	tui_show();
}

int annot_run(const struct annot_view *a, const char *prog)
{
	int hot = annot_hottest(a), sel = hot < 0 ? 0 : hot, top, k;
	char msg[256] = "";

	/* the hottest line in the middle of the screen, its context around it, no blank below */
	top = sel - (tui_rows() - 2) / 2;
	if (top > a->nr - (tui_rows() - 2))
		top = a->nr - (tui_rows() - 2);
	if (top < 0)
		top = 0;
	for (;;) {
		int page = tui_rows() - 2 > 1 ? tui_rows() - 2 : 1;
		uint64_t to;

		draw(a, prog, sel, &top, msg);
		while ((k = tui_key(-1)) == TUI_KEY_NONE)
			;
		if (k != TUI_KEY_RESIZE)
			msg[0] = 0;
		switch (k) {
		case TUI_KEY_QUIT:
			return TUI_KEY_QUIT;
		case 'q': case TUI_KEY_ESC: case TUI_KEY_LEFT: case TUI_KEY_BACKSPACE:
			return 0;
		case TUI_KEY_UP: case 'k':
			if (sel > 0)
				sel--;
			break;
		case TUI_KEY_DOWN: case 'j':
			if (sel + 1 < a->nr)
				sel++;
			break;
		case TUI_KEY_PGUP:
			sel = sel > page ? sel - page : 0;
			break;
		case TUI_KEY_PGDN:
			sel = sel + page < a->nr ? sel + page : a->nr - 1;
			break;
		case TUI_KEY_HOME:
			sel = 0;
			break;
		case TUI_KEY_END:
			sel = a->nr ? a->nr - 1 : 0;
			break;
		case 'H':	/* perf's key: back to the hottest */
			sel = hot < 0 ? sel : hot;
			break;
		case TUI_KEY_ENTER: case TUI_KEY_RIGHT:
			if (annot_target(a, sel, &to))
				snprintf(msg, sizeof(msg), "not a jump or call with a target");
			else if (annot_find(a, to) < 0)
				snprintf(msg, sizeof(msg), "target %" PRIx64 " is outside this function", to);
			else
				sel = annot_find(a, to);
			break;
		default:
			break;
		}
	}
}
