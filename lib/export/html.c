// SPDX-License-Identifier: MIT
/*
 * One offline HTML page of a profile: a summary, the functions (self and
 * total, sortable), the flame graph and the callers' icicle. Everything
 * is aggregated here in C; the page carries the two SVGs (each in an
 * iframe's srcdoc, so their scripts run apart) and a few lines of script
 * for the table. No remote resources.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <tally/annotate.h>
#include "internal.h"
#include "stacks_internal.h"

static void html(FILE *fp, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '<': fputs("&lt;", fp); break;
		case '>': fputs("&gt;", fp); break;
		case '&': fputs("&amp;", fp); break;
		case '"': fputs("&quot;", fp); break;
		default: fputc(s[i], fp);
		}
	}
}

static void hstr(FILE *fp, const char *s)
{
	html(fp, s ? s : "", s ? strlen(s) : 0);
}

struct fn_row {
	int frame;
	uint64_t self, total;
};

static int cmp_self(const void *a, const void *b)
{
	const struct fn_row *x = a, *y = b;

	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->frame - y->frame;
}

/* An SVG written to memory, then into an iframe's srcdoc (base: a differential graph). */
static int svg_frame(FILE *fp, const struct tally_stacks *s, const char *title, bool inverted,
		     const char *id, const struct tally_stacks *base)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int err;

	if (!m)
		return -ENOMEM;
	err = base ? tally_stacks__write_svg_diff(base, s, m, title) :
		     tally__stacks_svg(s, m, title, inverted);
	if (fclose(m) && !err)
		err = -ENOMEM;
	if (!err) {
		fprintf(fp, "<iframe id=\"%s\" title=\"", id);
		hstr(fp, title);
		fprintf(fp, "\" srcdoc=\"");
		html(fp, buf, len);
		fprintf(fp, "\"></iframe>\n");
	}
	free(buf);
	return err;
}

static const char page_script[] =
"function sortBy(th){var t=th.closest('table'),i=[].indexOf.call(th.parentNode.children,th),\n"
" num=th.dataset.num=='1',rows=[].slice.call(t.tBodies[0].rows),up=th.dataset.up=='1';\n"
" rows.sort(function(a,b){var x=a.cells[i].dataset.v||a.cells[i].textContent,\n"
"  y=b.cells[i].dataset.v||b.cells[i].textContent;\n"
"  var c=num?(+y)-(+x):x.localeCompare(y);return up?-c:c;});\n"
" th.dataset.up=up?'0':'1';rows.forEach(function(r){t.tBodies[0].appendChild(r);});}\n"
"document.addEventListener('click',function(e){if(e.target.tagName=='TH')sortBy(e.target);});\n"
"function openAnn(s){if(!s)return;document.querySelectorAll('section.ann.open').forEach(\n"
" function(o){o.classList.remove('open');});s.classList.add('open');s.scrollIntoView();}\n"
"document.addEventListener('click',function(e){var r=e.target.closest('tr[data-ann]');\n"
" if(r)openAnn(document.getElementById(r.dataset.ann));});\n"
"function openHash(){var m=/^#ann=(.*)$/.exec(location.hash);if(!m)return;var n=decodeURIComponent(m[1]);\n"
" openAnn([].filter.call(document.querySelectorAll('section.ann'),function(s){return s.dataset.fn==n;})[0]);}\n"
"window.addEventListener('hashchange',openHash);openHash();\n";

/* The annotate symbol of a table row, by event, name and file: its index, or -1. */
static int ann_sym(struct tally_annotate *a, int nr, int attr, const struct stk_frame *f)
{
	for (int i = 0; i < nr; i++) {
		const struct tally_annotate_sym *sym = tally_annotate__sym(a, i);

		if (sym->attr == attr && f->name && !strcmp(sym->name, f->name) && f->dso &&
		    !strcmp(sym->dso_name, f->dso))
			return i;
	}
	return -1;
}

/*
 * One function's annotation, hidden until its row is clicked: perf
 * annotate's lines (local period), each instruction's background as hot
 * as its share, the hottest one marked; or why there is none.
 */
static void ann_section(FILE *fp, struct tally_annotate *a, int k, int idx, const char *name,
			const char *dso)
{
	const struct tally_annotate_sym *sym = idx >= 0 ? tally_annotate__sym(a, idx) : NULL;
	struct tally_annotate_lines l;
	double max = 0;
	int hot = -1, err, nr;

	fprintf(fp, "<section class=\"ann\" id=\"ann-%d\" data-fn=\"", k);
	hstr(fp, name);
	fprintf(fp, "\"><h3>");
	hstr(fp, name);
	fprintf(fp, " in ");
	hstr(fp, dso);
	if (!sym) {
		fprintf(fp, "</h3>\n<p class=\"none\">No annotation: no samples of it were "
			    "counted at an address of its code.</p></section>\n");
		return;
	}
	fprintf(fp, " (%" PRIu64 " samples, percent: local period)</h3>\n", sym->nr_samples);
	if ((err = tally_annotate__lines(a, idx, &l))) {
		const char *why = err == -ENOMEM ? "out of memory" : tally_annotate__strerror(a);

		/* perf's "Couldn't annotate NAME:\n" leads: the rest says why */
		if (strchr(why, '\n'))
			why = strchr(why, '\n') + 1;
		fprintf(fp, "<p class=\"none\">No annotation: ");
		hstr(fp, why);
		fprintf(fp, "</p></section>\n");
		return;
	}
	nr = l.nr < TALLY_HTML_ANNOTATE_LINES ? l.nr : TALLY_HTML_ANNOTATE_LINES;
	for (int i = 0; i < l.nr; i++)
		if (l.v[i].offset >= 0 && l.v[i].percent[TALLY_PERCENT_LOCAL_PERIOD] > max) {
			max = l.v[i].percent[TALLY_PERCENT_LOCAL_PERIOD];
			hot = i;
		}
	fprintf(fp, "<table class=\"asm\">\n");
	for (int i = 0; i < nr || (hot >= nr && i == hot); i++) {
		const struct tally_annotate_line *al = &l.v[i];
		double p = al->percent[TALLY_PERCENT_LOCAL_PERIOD];

		/* past the bound only the hottest instruction still shows */
		if (i >= nr && i != hot)
			continue;
		if (al->offset < 0) {
			if (!*al->text)
				continue;
			fprintf(fp, "<tr class=\"s\"><td></td><td colspan=\"2\">");
			hstr(fp, al->text);
			fprintf(fp, "</td></tr>\n");
			continue;
		}
		fprintf(fp, "<tr class=\"i%s\" data-p=\"%.2f\"", i == hot ? " hottest" : "", p);
		if (p > 0 && max > 0)
			fprintf(fp, " style=\"background:rgba(255,%d,0,%.2f)\"",
				(int)(160 * (1 - p / max)), 0.15 + 0.6 * p / max);
		fprintf(fp, "><td class=\"n\">%.2f</td><td>%" PRIx64 ":</td><td>", p, al->addr);
		hstr(fp, al->text);
		fprintf(fp, "</td></tr>\n");
	}
	if (l.nr > nr)
		fprintf(fp, "<tr class=\"s\"><td></td><td colspan=\"2\">(%d more lines not shown: "
			    "tally annotate prints them all)</td></tr>\n", l.nr - nr);
	fprintf(fp, "</table></section>\n");
	tally_annotate_lines__free(&l);
}

int tally_stacks__write_html(const struct tally_stacks *s, FILE *fp, const char *title)
{
	return tally_stacks__write_html_annotated(s, fp, title, NULL, 0);
}

int tally_stacks__write_html_annotated(const struct tally_stacks *s, FILE *fp, const char *title,
				       struct tally_annotate *ann, int attr)
{
	size_t depth, nrows;
	int nann = 0, nsyms = 0, ann_idx[TALLY_HTML_ANNOTATE_MAX];
	const struct stk_frame *ann_f[TALLY_HTML_ANNOTATE_MAX];
	struct fn_row *rows;
	int *path, *seen, err;
	uint64_t total = 0;
	char ttl[600];

	if (!s || !fp)
		return -EINVAL;
	depth = tally__stacks_max_depth(s);
	rows = calloc(s->nframes + 1, sizeof(*rows));
	path = malloc((depth + 1) * sizeof(*path));
	seen = calloc(s->nframes + 1, sizeof(*seen));
	if (!rows || !path || !seen) {
		free(rows);
		free(path);
		free(seen);
		return -ENOMEM;
	}
	/* self: the leaf's; total: each frame on the stack, once per stack */
	for (size_t i = 0; i < s->nframes; i++)
		rows[i].frame = (int)i;
	for (size_t i = 0; i < s->naggs; i++) {
		const struct stk_agg *a = &s->aggs[i];
		size_t np = tally__stacks_path(s, a->node, path);

		total += a->count;
		if (np)
			rows[path[np - 1]].self += a->count;
		for (size_t k = 0; k < np; k++) {
			if (seen[path[k]] == (int)i + 1)
				continue;	/* recursion: once */
			seen[path[k]] = (int)i + 1;
			rows[path[k]].total += a->count;
		}
	}
	qsort(rows, s->nframes, sizeof(*rows), cmp_self);
	nrows = s->nframes < 500 ? s->nframes : 500;

	fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	hstr(fp, title ? title : "tally profile");
	fprintf(fp, "</title>\n<style>\n"
		    "body{font-family:system-ui,sans-serif;margin:16px;color:#222}\n"
		    "table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;text-align:left}\n"
		    "th{cursor:pointer;background:#eee;position:sticky;top:0}tr:nth-child(even){background:#f6f6f6}\n"
		    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
		    "#funcs{max-height:420px;overflow:auto;display:inline-block;border:1px solid #ddd}\n"
		    "iframe{width:1210px;border:1px solid #ddd;height:%zupx}\n"
		    ".sum td:first-child{color:#666}\n"
		    "tr[data-ann]{cursor:pointer}tr[data-ann] td:nth-child(3){text-decoration:underline}\n"
		    "section.ann{display:none}section.ann.open{display:block}\n"
		    "table.asm{font-family:monospace;font-size:12px;white-space:pre}\n"
		    "table.asm tr.s td{color:#666}table.asm tr.hottest td{font-weight:bold}\n"
		    "</style></head><body>\n",
		(depth + 3) * 16 + 80);
	fprintf(fp, "<h1>");
	hstr(fp, title ? title : "tally profile");
	fprintf(fp, "</h1>\n<table class=\"sum\" id=\"summary\">\n");
	if (s->info.command) {
		fprintf(fp, "<tr><td>command</td><td>");
		hstr(fp, s->info.command);
		fprintf(fp, "</td></tr>\n");
	}
	fprintf(fp, "<tr><td>event</td><td>");
	hstr(fp, s->info.event ? s->info.event : "samples");
	fprintf(fp, "</td></tr>\n<tr><td>samples</td><td id=\"samples\">%llu</td></tr>\n"
		    "<tr><td>lost samples</td><td id=\"lost\">%llu</td></tr>\n"
		    "<tr><td>duration</td><td>%.3f s</td></tr>\n"
		    "<tr><td>threads</td><td>%zu</td></tr>\n</table>\n",
		(unsigned long long)total, (unsigned long long)s->info.lost,
		(double)s->info.duration_ns / 1e9, s->nthreads);
	fprintf(fp, "<h2>Functions</h2>\n<div id=\"funcs\"><table id=\"functions\"><thead><tr>"
		    "<th data-num=\"1\">self</th><th data-num=\"1\">total</th><th>function</th>"
		    "<th>file</th></tr></thead><tbody>\n");
	if (ann && (nsyms = tally_annotate__sort(ann)) < 0)
		nsyms = 0;
	for (size_t i = 0; i < nrows; i++) {
		const struct stk_frame *f = &s->frames[rows[i].frame];
		char addr[40];

		if (!rows[i].total)
			continue;
		/* the hot functions open their annotation: a bounded few */
		if (ann && f->name && nann < TALLY_HTML_ANNOTATE_MAX && total &&
		    100.0 * (double)rows[i].self / (double)total >= TALLY_HTML_ANNOTATE_MIN) {
			ann_f[nann] = f;
			ann_idx[nann] = ann_sym(ann, nsyms, attr, f);
			fprintf(fp, "<tr data-ann=\"ann-%d\">", nann++);
		} else {
			fprintf(fp, "<tr>");
		}
		fprintf(fp, "<td class=\"n\" data-v=\"%llu\">%.2f%%</td>"
			    "<td class=\"n\" data-v=\"%llu\">%.2f%%</td><td>",
			(unsigned long long)rows[i].self, total ? 100.0 * rows[i].self / total : 0,
			(unsigned long long)rows[i].total, total ? 100.0 * rows[i].total / total : 0);
		if (f->name) {
			hstr(fp, f->name);
		} else {
			snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)f->addr);
			hstr(fp, addr);
		}
		fprintf(fp, "%s</td><td>", f->kernel ? " [k]" : "");
		hstr(fp, f->dso ? f->dso : "[unknown]");
		fprintf(fp, "</td></tr>\n");
	}
	fprintf(fp, "</tbody></table></div>\n");
	if (nann) {
		fprintf(fp, "<h2>Annotations</h2>\n<p>The functions with %.0f%% of the samples or more "
			    "(at most %d): click one in the table for its source and instructions, "
			    "each with its share of the function's samples.</p>\n",
			TALLY_HTML_ANNOTATE_MIN, TALLY_HTML_ANNOTATE_MAX);
		for (int k = 0; k < nann; k++)
			ann_section(fp, ann, k, ann_idx[k], ann_f[k]->name,
				    ann_f[k]->dso ? ann_f[k]->dso : "[unknown]");
	}
	fprintf(fp, "<h2>Flame graph</h2>\n"
		    "<p>Click a frame to zoom, Search (top right) to highlight, Reset Zoom to go back.</p>\n");
	snprintf(ttl, sizeof(ttl), "%s", title ? title : "Flame Graph");
	err = svg_frame(fp, s, ttl, false, "flamegraph", NULL);
	if (!err) {
		fprintf(fp, "<h2>Callers (inverted)</h2>\n<p>The sampled functions on top, "
			    "who called them below.</p>\n");
		snprintf(ttl, sizeof(ttl), "Callers: %s", title ? title : "");
		err = svg_frame(fp, s, ttl, true, "icicle", NULL);
	}
	fprintf(fp, "<script>\n%s</script>\n</body></html>\n", page_script);
	free(rows);
	free(path);
	free(seen);
	if (!err && ferror(fp))
		err = -EIO;
	return err;
}

/* Each frame's samples as the leaf, keyed by name and file. */
struct dfn {
	const char *name, *dso;
	bool kernel;
	uint64_t self[2];
};

static int cmp_delta(const void *a, const void *b, void *ctx)
{
	const struct dfn *x = a, *y = b;
	const uint64_t *tot = ctx;
	double dx = (tot[1] ? (double)x->self[1] / tot[1] : 0) - (tot[0] ? (double)x->self[0] / tot[0] : 0);
	double dy = (tot[1] ? (double)y->self[1] / tot[1] : 0) - (tot[0] ? (double)y->self[0] / tot[0] : 0);

	dx = dx < 0 ? -dx : dx;
	dy = dy < 0 ? -dy : dy;
	return dx != dy ? (dx > dy ? -1 : 1) : 0;
}

static int add_self(struct dfn **v, size_t *n, size_t *cap, const struct tally_stacks *s, int side,
		    uint64_t *total)
{
	size_t depth = tally__stacks_max_depth(s);
	int *path = malloc((depth + 1) * sizeof(*path));

	if (!path)
		return -ENOMEM;
	for (size_t i = 0; i < s->naggs; i++) {
		const struct stk_agg *a = &s->aggs[i];
		size_t np = tally__stacks_path(s, a->node, path), k;
		const struct stk_frame *f;

		total[side] += a->count;
		if (!np)
			continue;
		f = &s->frames[path[np - 1]];
		for (k = 0; k < *n; k++)
			if ((*v)[k].kernel == f->kernel && !strcmp((*v)[k].name, f->name ? f->name : "[unknown]") &&
			    !strcmp((*v)[k].dso, f->dso ? f->dso : "[unknown]"))
				break;
		if (k == *n) {
			if (*n == *cap) {
				size_t c = *cap ? *cap * 2 : 256;
				void *p = realloc(*v, c * sizeof(**v));

				if (!p) {
					free(path);
					return -ENOMEM;
				}
				*v = p;
				*cap = c;
			}
			(*v)[k] = (struct dfn){ .name = f->name ? f->name : "[unknown]",
						.dso = f->dso ? f->dso : "[unknown]", .kernel = f->kernel };
			(*n)++;
		}
		(*v)[k].self[side] += a->count;
	}
	free(path);
	return 0;
}

int tally_stacks__write_html_diff(const struct tally_stacks *base, const struct tally_stacks *s,
				  FILE *fp, const char *title)
{
	struct dfn *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t tot[2] = { 0, 0 };
	int err;

	if (!base || !s || !fp)
		return -EINVAL;
	if ((err = add_self(&v, &n, &cap, base, 0, tot)) || (err = add_self(&v, &n, &cap, s, 1, tot))) {
		free(v);
		return err;
	}
	if (n)
		qsort_r(v, n, sizeof(*v), cmp_delta, tot);
	fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	hstr(fp, title);
	fprintf(fp, "</title>\n<style>\nbody{font-family:system-ui,sans-serif;margin:16px;color:#222}\n"
		    "table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;text-align:left}\n"
		    "th{cursor:pointer;background:#eee;position:sticky;top:0}td.n{text-align:right}\n"
		    "td.up{color:#b00}td.down{color:#00b}\n#funcs{max-height:420px;overflow:auto;"
		    "display:inline-block;border:1px solid #ddd}\niframe{width:1210px;border:1px solid #ddd;"
		    "height:%zupx}\n</style></head><body>\n<h1>", (tally__stacks_max_depth(s) + 3) * 16 + 80);
	hstr(fp, title);
	fprintf(fp, "</h1>\n<table id=\"summary\"><tr><td>baseline samples</td><td id=\"base\">%llu</td></tr>"
		    "<tr><td>new samples</td><td id=\"new\">%llu</td></tr></table>\n"
		    "<h2>Functions, the biggest change first</h2>\n<div id=\"funcs\"><table id=\"functions\">"
		    "<thead><tr><th data-num=\"1\">baseline</th><th data-num=\"1\">new</th>"
		    "<th data-num=\"1\">delta</th><th>function</th><th>file</th></tr></thead><tbody>\n",
		(unsigned long long)tot[0], (unsigned long long)tot[1]);
	for (size_t i = 0; i < n && i < 500; i++) {
		double a = tot[0] ? 100.0 * v[i].self[0] / tot[0] : 0, b = tot[1] ? 100.0 * v[i].self[1] / tot[1] : 0;

		fprintf(fp, "<tr><td class=\"n\" data-v=\"%.4f\">%.2f%%</td><td class=\"n\" data-v=\"%.4f\">%.2f%%</td>"
			    "<td class=\"n %s\" data-v=\"%.4f\">%+.2f%%</td><td>", a, a, b, b,
			b > a ? "up" : b < a ? "down" : "", b - a, b - a);
		hstr(fp, v[i].name);
		fprintf(fp, "%s</td><td>", v[i].kernel ? " [k]" : "");
		hstr(fp, v[i].dso);
		fprintf(fp, "</td></tr>\n");
	}
	fprintf(fp, "</tbody></table></div>\n<h2>Differential flame graph</h2>\n"
		    "<p>The new profile's stacks; red grew, blue shrank since the baseline.</p>\n");
	err = svg_frame(fp, s, title, false, "flamegraph", base);
	fprintf(fp, "<script>\n%s</script>\n</body></html>\n", page_script);
	free(v);
	if (!err && ferror(fp))
		err = -EIO;
	return err;
}
