// SPDX-License-Identifier: MIT
/* The browser of report and top: see browser.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "browser.h"
#include "flame.h"
#include "tui.h"

enum zoom { Z_COMM, Z_DSO, Z_SYM, Z__NR };

struct item { int row, g; };	/* g -1: the row itself, else its graph's line g */

struct browser {
	struct view v;
	const struct browser_ops *ops;
	int ev, sel, top;
	char *zoom[Z__NR];
	enum zoom zorder[Z__NR];	/* the order zooms came in: back undoes the last */
	int nz;
	char *filter;
	bool flame;
	char msg[256];
	struct item *items;
	int nitems;
};

static const char *const zoom_col[Z__NR] = { "Command", "Shared Object", "Symbol" };
static const char *const zoom_word[Z__NR] = { "thread", "DSO", "symbol" };

static const char *const help[] = {
	"UP/DOWN/PGUP/PGDN/HOME/END  move",
	"ENTER, +     open/close the selected row's call graph",
	"e / c        open / close every call graph",
	"t            zoom into the selected row's thread (command)",
	"d            zoom into the selected row's DSO",
	"s            zoom into the selected row's symbol",
	"LEFT, BACKSPACE  zoom out (the last zoom)",
	"/            filter by symbol name (empty: none)",
	"TAB / S-TAB  next / previous event",
	"i            the header info",
	"F            flame view of the current selection (again: back)",
	"P            write the current view as text (tally.hist.N)",
	"H            write the HTML page of the current filter (tally.N.html)",
	"a            annotate the selected symbol (LEFT, ESC, q: back)",
	"?, h         this help",
	"ESC          zoom out, else asks to quit",
	"q            quit",
	NULL,
};

static struct view_event *cur(struct browser *b)
{
	return b->v.nev ? &b->v.ev[b->ev] : NULL;
}

/* The current event's stacks, from the caller the first time they are needed. */
static const char *folded(struct browser *b)
{
	struct view_event *e = cur(b);

	if (e && !e->folded && b->ops->folded)
		e->folded = b->ops->folded(b->ops->ctx, b->ev);
	return e ? e->folded : NULL;
}

static bool row_shown(struct browser *b, const struct view_row *r)
{
	return view_match(cur(b), r, b->zoom[Z_COMM], b->zoom[Z_DSO], b->zoom[Z_SYM], b->filter);
}

static void build_items(struct browser *b)
{
	struct view_event *e = cur(b);
	int n = 0;

	b->nitems = 0;
	if (!e)
		return;
	for (int r = 0; r < e->nrows; r++)
		if (row_shown(b, &e->rows[r]))
			n += 1 + (e->rows[r].open ? e->rows[r].ngraph : 0);
	free(b->items);
	b->items = n ? malloc((size_t)n * sizeof(*b->items)) : NULL;
	if (!b->items)
		return;
	for (int r = 0; r < e->nrows; r++) {
		if (!row_shown(b, &e->rows[r]))
			continue;
		b->items[b->nitems++] = (struct item){ r, -1 };
		for (int g = 0; e->rows[r].open && g < e->rows[r].ngraph; g++)
			b->items[b->nitems++] = (struct item){ r, g };
	}
	if (b->sel >= b->nitems)
		b->sel = b->nitems ? b->nitems - 1 : 0;
}

int browser_write_text(const struct view_event *e, const char *comm, const char *dso,
		       const char *sym, const char *filter, FILE *fp)
{
	for (int i = 0; i < e->nhead; i++)
		fprintf(fp, "%s\n", e->head[i]);
	if (e->colhead)
		fprintf(fp, "%s\n#\n", e->colhead);
	for (int r = 0; r < e->nrows; r++) {
		if (!view_match(e, &e->rows[r], comm, dso, sym, filter))
			continue;
		fprintf(fp, "%s\n", e->rows[r].line);
		for (int g = 0; e->rows[r].open && g < e->rows[r].ngraph; g++)
			fprintf(fp, "%s\n", e->rows[r].graph[g]);
		if (e->rows[r].open && e->rows[r].ngraph)
			fprintf(fp, "\n");
	}
	return ferror(fp) ? -1 : 0;
}

/* The first free NAME.N (or prefix.N.suffix), created exclusively. */
static FILE *numbered(const char *prefix, const char *suffix, char *path, size_t n)
{
	for (int i = 0; i < 1000; i++) {
		int fd;

		snprintf(path, n, "%s.%d%s", prefix, i, suffix);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fdopen(fd, "w");
		if (errno != EEXIST)
			return NULL;
	}
	errno = EEXIST;
	return NULL;
}

static void write_text(struct browser *b)
{
	char path[64];
	FILE *fp = numbered("tally.hist", "", path, sizeof(path));
	int err;

	if (!fp) {
		snprintf(b->msg, sizeof(b->msg), "cannot write %s: %s", path, strerror(errno));
		return;
	}
	err = browser_write_text(cur(b), b->zoom[Z_COMM], b->zoom[Z_DSO], b->zoom[Z_SYM], b->filter, fp);
	if (fclose(fp) || err)
		snprintf(b->msg, sizeof(b->msg), "cannot write %s: %s", path, strerror(errno));
	else
		snprintf(b->msg, sizeof(b->msg), "%s written", path);
}

static void write_html(struct browser *b)
{
	char path[64];
	FILE *fp = numbered("tally", ".html", path, sizeof(path));
	int err;

	if (!fp) {
		snprintf(b->msg, sizeof(b->msg), "cannot write %s: %s", path, strerror(errno));
		return;
	}
	err = flame_write_html(folded(b), cur(b)->name, b->zoom[Z_COMM],
			       b->zoom[Z_SYM] ? b->zoom[Z_SYM] : b->filter, fp);
	if (fclose(fp) || err) {
		snprintf(b->msg, sizeof(b->msg), "cannot write %s: %s", path,
			 err == -ENODATA ? "no call stacks to draw" : strerror(errno));
		unlink(path);
	} else {
		snprintf(b->msg, sizeof(b->msg), "%s written", path);
	}
}

static void zoom(struct browser *b, enum zoom z)
{
	struct view_event *e = cur(b);
	int c = e ? view_col(e, zoom_col[z]) : -1;
	char buf[512];

	if (!b->nitems)
		return;
	if (c < 0) {
		snprintf(b->msg, sizeof(b->msg), "no %s column to zoom into (-s)", zoom_word[z]);
		return;
	}
	if (b->zoom[z]) {	/* again: out */
		free(b->zoom[z]);
		b->zoom[z] = NULL;
		for (int i = 0; i < b->nz; i++)
			if (b->zorder[i] == z)
				memmove(&b->zorder[i], &b->zorder[i + 1], (size_t)(--b->nz - i) * sizeof(b->zorder[0]));
		return;
	}
	view_field(e, e->rows[b->items[b->sel].row].line, c, buf, sizeof(buf));
	b->zoom[z] = strdup(buf);
	if (b->zoom[z])
		b->zorder[b->nz++] = z;
	b->sel = b->top = 0;
}

static bool zoom_out(struct browser *b)
{
	if (!b->nz)
		return false;
	b->nz--;
	free(b->zoom[b->zorder[b->nz]]);
	b->zoom[b->zorder[b->nz]] = NULL;
	b->sel = b->top = 0;
	return true;
}

static void title(struct browser *b)
{
	struct view_event *e = cur(b);
	char t[512];
	int n;

	n = snprintf(t, sizeof(t), "%s:", b->ops->title);
	for (int i = 0, k = 0; e && i < e->nhead && n < (int)sizeof(t); i++)
		if (!strncmp(e->head[i], "# ", 2) && e->head[i][2])
			n += snprintf(t + n, sizeof(t) - (size_t)n, "%s %s", k++ ? "," : "", e->head[i] + 2);
	for (int z = 0; z < Z__NR && n < (int)sizeof(t); z++)
		if (b->zoom[z])
			n += snprintf(t + n, sizeof(t) - (size_t)n, " [%s: %s]", zoom_word[z], b->zoom[z]);
	if (b->filter && n < (int)sizeof(t))
		snprintf(t + n, sizeof(t) - (size_t)n, " [filter: %s]", b->filter);
	tui_text(0, 0, tui_cols(), TUI_TITLE, t, true);
}

static void draw_rows(struct browser *b)
{
	struct view_event *e = cur(b);
	int h = tui_rows() - 3, cols = tui_cols();

	if (e && e->colhead) {
		char *hd = strdup(e->colhead);

		if (hd)
			hd[0] = ' ';
		tui_text(1, 0, cols, TUI_DIM, hd, true);
		free(hd);
	}
	if (b->sel < b->top)
		b->top = b->sel;
	if (h > 0 && b->sel >= b->top + h)
		b->top = b->sel - h + 1;
	for (int y = 0; y < h; y++) {
		int i = b->top + y;
		const struct view_row *r;
		char *line;

		if (i >= b->nitems)
			break;
		r = &e->rows[b->items[i].row];
		if (b->items[i].g >= 0) {
			tui_text(2 + y, 0, cols, i == b->sel ? TUI_SELECTED : TUI_NORMAL,
				 r->graph[b->items[i].g], true);
			continue;
		}
		line = strdup(r->line);
		if (line && r->ngraph)	/* perf's mark of a row with a graph */
			line[0] = r->open ? '-' : '+';
		tui_text(2 + y, 0, cols, i == b->sel ? TUI_SELECTED : TUI_NORMAL, line ? line : r->line, true);
		free(line);
	}
	if (!b->nitems)
		tui_text(3, 2, cols - 2, TUI_DIM, e ? "no rows (zoom or filter: LEFT, /)" : "no samples yet", false);
}

static void draw(struct browser *b)
{
	char st[256];

	tui_clear();
	title(b);
	if (b->flame)
		flame_draw(folded(b), b->zoom[Z_COMM],
			   b->zoom[Z_SYM] ? b->zoom[Z_SYM] : b->filter, 1, tui_rows() - 2);
	else
		draw_rows(b);
	snprintf(st, sizeof(st), "%s", b->msg[0] ? b->msg :
		 b->flame ? "flame view: F or ESC back, q quit" :
		 "? help  ENTER graph  / filter  t/d/s zoom  F flame  P text  H html  q quit");
	tui_text(tui_rows() - 1, 0, tui_cols(), b->msg[0] ? TUI_HOT : TUI_DIM, st, true);
	tui_show();
}

/* A framed box of lines over the screen (perf's), with foot on its last line; until a key. */
static int popup_foot(const char *const *lines, int n, const char *foot)
{
	int w = tui_width(foot), rows = tui_rows(), cols = tui_cols(), h, y0, x0, k;

	for (int i = 0; i < n; i++)
		if (tui_width(lines[i]) > w)
			w = tui_width(lines[i]);
	w += 4;			/* the frame and a blank each side */
	if (w > cols)
		w = cols;
	h = n + 3;		/* the frame, the lines, the foot */
	if (h > rows)
		h = rows;
	y0 = (rows - h) / 2;
	x0 = (cols - w) / 2;
	for (int y = y0; y < y0 + h; y++)
		tui_text(y, x0, w, TUI_TITLE, "", true);
	tui_box(y0, x0, h, w, TUI_TITLE);
	for (int i = 0; i < n && 1 + i < h - 2; i++)
		tui_text(y0 + 1 + i, x0 + 2, w - 4, TUI_TITLE, lines[i], false);
	tui_text(y0 + h - 2, x0 + 2, w - 4, TUI_TITLE, foot, false);
	tui_show();
	while ((k = tui_key(-1)) == TUI_KEY_RESIZE || k == TUI_KEY_NONE)
		;
	return k;
}

static int popup(const char *const *lines, int n)
{
	return popup_foot(lines, n, "(any key)");
}

/* perf's ESC with nothing to zoom out of: "Do you really want to exit?" y or ENTER: yes */
static bool confirm_exit(void)
{
	static const char *const q[] = { "Do you really want to exit?" };
	int k = popup_foot(q, 1, "y/ENTER: yes, any other key: no");

	return k == 'y' || k == 'Y' || k == TUI_KEY_ENTER || k == TUI_KEY_QUIT;
}

static int info(struct browser *b)
{
	struct view_event *e = cur(b);
	const char **l = calloc((size_t)(b->v.npre + (e ? e->nhead : 0)) + 1, sizeof(*l));
	int n = 0, k;

	if (!l)
		return 0;
	for (int i = 0; i < b->v.npre; i++)
		l[n++] = b->v.pre[i];
	for (int i = 0; e && i < e->nhead; i++)
		l[n++] = e->head[i];
	k = popup(l, n);
	free(l);
	return k;
}

/* The row's identity across refreshes: its columns after the numbers. */
static const char *row_key(const struct view_event *e, const char *line)
{
	static const char *const nums[] = { "Overhead", "Children", "Self", "Samples", "Period", NULL };

	for (int c = 0; c < e->ncols; c++) {
		bool num = false;

		for (int k = 0; nums[k]; k++)
			num |= !strcmp(e->col[c].name, nums[k]);
		if (!num)
			return (size_t)e->col[c].start < strlen(line) ? line + e->col[c].start : "";
	}
	return line;
}

/* top's next view: the same event, the opened rows and the selection kept by their keys */
static void swap_view(struct browser *b, struct view *nv)
{
	struct view_event *o = cur(b);
	char *sel_key = NULL;

	if (o && b->sel < b->nitems)
		sel_key = strdup(row_key(o, o->rows[b->items[b->sel].row].line));
	/* the opened rows are few: each new row is checked against those alone */
	if (o && b->ev < nv->nev) {
		struct view_event *n = &nv->ev[b->ev];
		const char **open = NULL;
		int nopen = 0;

		for (int q = 0; q < o->nrows; q++)
			if (o->rows[q].open) {
				const char **no = realloc(open, (size_t)(nopen + 1) * sizeof(*no));

				if (!no)
					break;
				open = no;
				open[nopen++] = row_key(o, o->rows[q].line);
			}
		for (int r = 0; nopen && r < n->nrows; r++)
			for (int q = 0; q < nopen; q++)
				if (!strcmp(row_key(n, n->rows[r].line), open[q])) {
					n->rows[r].open = true;
					break;
				}
		free(open);
	}
	view_free(&b->v);
	b->v = *nv;
	if (b->ev >= b->v.nev)
		b->ev = 0;
	build_items(b);
	for (int i = 0; sel_key && i < b->nitems; i++)
		if (b->items[i].g < 0 &&
		    !strcmp(row_key(cur(b), cur(b)->rows[b->items[i].row].line), sel_key)) {
			b->sel = i;
			break;
		}
	free(sel_key);
}

/* 'a': the selected row's symbol annotated, until back; TUI_KEY_QUIT ends it all */
static int annotate(struct browser *b)
{
	struct view_event *e = cur(b);
	int cd = e ? view_col(e, "Shared Object") : -1, cs = e ? view_col(e, "Symbol") : -1, k;
	char dso[512], sym[1024];
	const char *line;
	struct annot_view *a;

	if (!b->ops->annotate) {
		snprintf(b->msg, sizeof(b->msg), "annotate: %s",
			 b->ops->no_annotate ? b->ops->no_annotate : "not available here");
		return 0;
	}
	if (!b->nitems)
		return 0;
	if (cd < 0 || cs < 0) {
		snprintf(b->msg, sizeof(b->msg), "annotate: no symbol and DSO columns (-s ...,dso,sym)");
		return 0;
	}
	line = e->rows[b->items[b->sel].row].line;
	view_field(e, line, cd, dso, sizeof(dso));
	view_field(e, line, cs, sym, sizeof(sym));
	/* perf's row of an address no symbol holds: "[.] 0x0000000000001139" */
	if (!*sym || !strncmp(sym, "0x", 2) || !strcmp(dso, "[unknown]")) {
		snprintf(b->msg, sizeof(b->msg), "annotate: no symbol at %.64s in %.128s, nothing to annotate",
			 *sym ? sym : "this address", dso);
		return 0;
	}
	snprintf(b->msg, sizeof(b->msg), "annotating %.200s...", sym);
	draw(b);
	b->msg[0] = 0;
	if (!(a = b->ops->annotate(b->ops->ctx, b->ev, dso, sym, b->msg, sizeof(b->msg))))
		return 0;
	k = annot_run(a, b->ops->title);
	annot_free(a);
	return k;
}

static void open_all(struct browser *b, bool open)
{
	struct view_event *e = cur(b);

	for (int r = 0; e && r < e->nrows; r++)
		e->rows[r].open = open && e->rows[r].ngraph;
	if (b->nitems && b->items[b->sel].g >= 0) {
		b->sel = 0;
	}
}

int browser_run(struct view *v, const struct browser_ops *ops)
{
	struct browser b = { .v = *v, .ops = ops };
	struct timespec next;
	int ret = 0;

	memset(v, 0, sizeof(*v));
	if (tui_open()) {
		view_free(&b.v);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	build_items(&b);
	for (bool quit = false, dirty = true; !quit;) {
		int k, wait = -1;

		if (ops->refresh && ops->delay_ms > 0) {
			struct timespec now;
			long ms;

			clock_gettime(CLOCK_MONOTONIC, &now);
			ms = (next.tv_sec - now.tv_sec) * 1000 + (next.tv_nsec - now.tv_nsec) / 1000000;
			if (ms <= 0) {
				struct view nv;
				int rc = ops->refresh(ops->ctx, &nv);

				if (rc < 0) {
					ret = 1;
					break;
				}
				if (rc == 0) {
					swap_view(&b, &nv);
					dirty = true;
				}
				next = now;
				next.tv_sec += ops->delay_ms / 1000;
				next.tv_nsec += (long)(ops->delay_ms % 1000) * 1000000;
				if (next.tv_nsec >= 1000000000)
					next.tv_sec++, next.tv_nsec -= 1000000000;
				ms = ops->delay_ms;
			}
			wait = (int)ms;
		}
		if (ops->tick && (wait < 0 || wait > 100))
			wait = 100;
		if (dirty)
			draw(&b);
		k = tui_key(wait);
		if (ops->tick)
			ops->tick(ops->ctx);
		/* only what changed is drawn again: top's idle screen costs nothing */
		dirty = k != TUI_KEY_NONE;
		if (k == TUI_KEY_NONE)
			continue;
		if (k != TUI_KEY_RESIZE)
			b.msg[0] = 0;
		if (b.flame && (k == 'F' || k == TUI_KEY_ESC || k == TUI_KEY_LEFT)) {
			b.flame = false;
			continue;
		}
		switch (k) {
		case TUI_KEY_QUIT:
		case 'q':
			quit = true;
			break;
		case TUI_KEY_ESC:
		case TUI_KEY_LEFT:
		case TUI_KEY_BACKSPACE:
			/* ESC: the last zoom out, else asked as perf asks */
			if (!zoom_out(&b) && k == TUI_KEY_ESC && confirm_exit())
				quit = true;
			break;
		case TUI_KEY_UP: case 'k':
			if (b.sel > 0)
				b.sel--;
			break;
		case TUI_KEY_DOWN: case 'j':
			if (b.sel + 1 < b.nitems)
				b.sel++;
			break;
		case TUI_KEY_PGUP:
			b.sel = b.sel > tui_rows() - 3 ? b.sel - (tui_rows() - 3) : 0;
			break;
		case TUI_KEY_PGDN:
			b.sel += tui_rows() - 3;
			if (b.sel >= b.nitems)
				b.sel = b.nitems ? b.nitems - 1 : 0;
			break;
		case TUI_KEY_HOME:
			b.sel = 0;
			break;
		case TUI_KEY_END:
			b.sel = b.nitems ? b.nitems - 1 : 0;
			break;
		case TUI_KEY_ENTER: case '+': case TUI_KEY_RIGHT:
			if (b.nitems) {
				struct view_row *r = &cur(&b)->rows[b.items[b.sel].row];

				if (!r->ngraph) {
					snprintf(b.msg, sizeof(b.msg), "no call graph (record with -g)");
					break;
				}
				r->open = k == TUI_KEY_RIGHT ? true : !r->open;
				/* closing from a graph line: back on its row */
				while (b.sel > 0 && b.items[b.sel].g >= 0)
					b.sel--;
			}
			break;
		case 'e': case 'E':
			open_all(&b, true);
			break;
		case 'c': case 'C':
			open_all(&b, false);
			break;
		case 't':
			zoom(&b, Z_COMM);
			break;
		case 'd':
			zoom(&b, Z_DSO);
			break;
		case 's':
			zoom(&b, Z_SYM);
			break;
		case '/': {
			char *f = tui_prompt("filter symbols: ");

			if (f) {
				free(b.filter);
				b.filter = *f ? f : NULL;
				if (!*f)
					free(f);
				b.sel = b.top = 0;
			}
			break;
		}
		case TUI_KEY_TAB: case TUI_KEY_BTAB:
			if (b.v.nev > 1) {
				b.ev = (b.ev + (k == TUI_KEY_TAB ? 1 : b.v.nev - 1)) % b.v.nev;
				b.sel = b.top = 0;
			} else {
				snprintf(b.msg, sizeof(b.msg), "one event only");
			}
			break;
		case 'i':
			if (info(&b) == TUI_KEY_QUIT)
				quit = true;
			break;
		case '?': case 'h':
			if (popup(help, (int)(sizeof(help) / sizeof(help[0])) - 1) == TUI_KEY_QUIT)
				quit = true;
			break;
		case 'F':
			if (!folded(&b))
				snprintf(b.msg, sizeof(b.msg), "no call stacks for a flame view");
			else
				b.flame = true;
			break;
		case 'P':
			if (cur(&b))
				write_text(&b);
			break;
		case 'H':
			if (cur(&b))
				write_html(&b);
			break;
		case 'a':
			if (annotate(&b) == TUI_KEY_QUIT)
				quit = true;
			break;
		default:
			if (ops->key && k > 0)
				ops->key(ops->ctx, k, b.msg, sizeof(b.msg));
			break;
		}
		build_items(&b);
	}
	tui_close();
	if (tui_signal())
		ret = 128 + tui_signal();
	for (int z = 0; z < Z__NR; z++)
		free(b.zoom[z]);
	free(b.filter);
	free(b.items);
	view_free(&b.v);
	return ret;
}
