// SPDX-License-Identifier: MIT
/*
 * The flame graph: the stacks merged by text (command at the bottom,
 * then the frames, as collapsed stacks name them), laid out in C, drawn
 * as one SVG with its own script (hover, click to zoom, search, reset;
 * #z=ID and #s=REGEX in the address do the same on load). No remote
 * resources: it opens offline. One thread writes the file: stdio's
 * unlocked calls (a lock taken per call was a third of the writing, 100k
 * calls); a big graph's second half is drawn into memory on a helper.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fmt.h"
#include "internal.h"
#include "stacks_internal.h"

#define WIDTH 1200
#define PAD 10
#define ROW 16
#define TOP 36
#define BOTTOM 34

struct dnode {
	const char *text;		/* not owned */
	uint8_t kind;			/* 0 root, 1 command, 2 user frame, 3 kernel frame */
	uint32_t depth;
	uint64_t count, x;		/* samples, offset in samples */
	uint64_t base;			/* a differential graph: the baseline's samples */
	int first, next, parent;	/* children in a list; sorted before layout */
	uint64_t hash;
};

struct dtree {
	struct dnode *v;
	size_t n, cap;
	int *tab;			/* (parent, text) -> index + 1 */
	size_t tsize;
	bool us;			/* counts are microseconds (the on/off-CPU view), not samples */
};

static uint64_t hs(const char *s, uint8_t kind)
{
	uint64_t h = 1469598103934665603ULL ^ kind;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint64_t key(int parent, uint64_t h)
{
	uint64_t x = h ^ ((uint64_t)(uint32_t)parent * 0x9e3779b97f4a7c15ULL);

	x ^= x >> 31;
	return x * 0xbf58476d1ce4e5b9ULL;
}

/* The child of parent for text, made if new; h: hs(text, kind). */
static int child_h(struct dtree *t, int parent, const char *text, uint8_t kind, uint64_t h)
{
	uint64_t k;
	size_t i;

	if ((t->n + 1) * 2 > t->tsize) {
		size_t n = t->tsize ? t->tsize * 2 : 4096;
		int *v = calloc(n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t j = 0; j < t->tsize; j++) {
			if (!t->tab[j])
				continue;
			const struct dnode *d = &t->v[t->tab[j] - 1];

			for (i = key(d->parent, d->hash) & (n - 1); v[i]; i = (i + 1) & (n - 1))
				;
			v[i] = t->tab[j];
		}
		free(t->tab);
		t->tab = v;
		t->tsize = n;
	}
	k = key(parent, h);
	for (i = k & (t->tsize - 1); t->tab[i]; i = (i + 1) & (t->tsize - 1)) {
		const struct dnode *d = &t->v[t->tab[i] - 1];

		if (d->parent == parent && d->hash == h && d->kind == kind &&
		    (d->text == text || !strcmp(d->text, text)))
			return t->tab[i] - 1;
	}
	if (t->n == t->cap) {
		size_t n = t->cap ? t->cap * 2 : 1024;
		void *p = realloc(t->v, n * sizeof(*t->v));

		if (!p)
			return -ENOMEM;
		t->v = p;
		t->cap = n;
	}
	t->v[t->n] = (struct dnode){ .text = text, .kind = kind, .parent = parent, .first = -1,
				     .next = -1, .hash = h,
				     .depth = parent < 0 ? 0 : t->v[parent].depth + 1 };
	if (parent >= 0) {
		t->v[t->n].next = t->v[parent].first;
		t->v[parent].first = (int)t->n;
	}
	t->tab[i] = (int)++t->n;
	return (int)t->n - 1;
}

static int child(struct dtree *t, int parent, const char *text, uint8_t kind)
{
	return child_h(t, parent, text, kind, hs(text, kind));
}

static int cmp_text(const void *a, const void *b, void *ctx)
{
	const struct dnode *v = ctx;

	return strcmp(v[*(const int *)a].text, v[*(const int *)b].text);
}

/* Children in name order (as FlameGraph), each at its offset in samples. */
static int layout(struct dtree *t)
{
	int *stack = malloc((t->n + 1) * sizeof(*stack)), *kids = malloc((t->n + 1) * sizeof(*kids));
	size_t sp = 0;

	if (!stack || !kids) {
		free(stack);
		free(kids);
		return -ENOMEM;
	}
	stack[sp++] = 0;
	while (sp) {
		int n = stack[--sp], k = 0;
		uint64_t x = t->v[n].x;

		for (int c = t->v[n].first; c >= 0; c = t->v[c].next)
			kids[k++] = c;
		qsort_r(kids, (size_t)k, sizeof(*kids), cmp_text, t->v);
		for (int i = 0; i < k; i++) {
			t->v[kids[i]].x = x;
			x += t->v[kids[i]].count;
			stack[sp++] = kids[i];
		}
	}
	free(stack);
	free(kids);
	return 0;
}

/*
 * The frames' lines through a buffer of our own: a picture of a real
 * program is 100,000 writes of a few bytes, and stdio's calls were a
 * tenth of its instructions.
 */
struct sink {
	FILE *fp;
	size_t n;
	char b[32768];
};

static void s_flush(struct sink *o)
{
	if (o->n)
		fwrite_unlocked(o->b, 1, o->n, o->fp);
	o->n = 0;
}

static inline void s_put(struct sink *o, const char *p, size_t len)
{
	if (len > sizeof(o->b) - o->n) {
		s_flush(o);
		if (len > sizeof(o->b)) {
			fwrite_unlocked(p, 1, len, o->fp);
			return;
		}
	}
	memcpy(o->b + o->n, p, len);
	o->n += len;
}

static inline void s_puts(struct sink *o, const char *p)
{
	s_put(o, p, strlen(p));
}

static inline void s_putc(struct sink *o, char c)
{
	if (o->n == sizeof(o->b))
		s_flush(o);
	o->b[o->n++] = c;
}

static void xml(struct sink *o, const char *s)
{
	const char *run = s;

	/* plain characters a run at a time */
	for (; s && *s; s++) {
		const char *esc = NULL;

		switch (*s) {
		case '<': esc = "&lt;"; break;
		case '>': esc = "&gt;"; break;
		case '&': esc = "&amp;"; break;
		case '"': esc = "&quot;"; break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				continue;
			esc = "";	/* a control character: left out */
		}
		s_put(o, run, (size_t)(s - run));
		s_puts(o, esc);
		run = s + 1;
	}
	if (s && s > run)
		s_put(o, run, (size_t)(s - run));
}

/* the frames' numbers without fprintf (fmt.h): a picture of a real program has thousands */
static void put_u(struct sink *o, uint64_t v)
{
	char b[32];

	s_put(o, b, (size_t)tally__fmt_u64(b, sizeof(b), v));
}

/* "%.1f" */
static void put_f1(struct sink *o, double v)
{
	char b[64];

	s_put(o, b, (size_t)tally__fmt_fixed(b, sizeof(b), v, 1));
}

/* "rgb(%u,%u,%u)" */
static void put_rgb(struct sink *o, unsigned r, unsigned g, unsigned b)
{
	s_puts(o, "rgb(");
	put_u(o, r);
	s_putc(o, ',');
	put_u(o, g);
	s_putc(o, ',');
	put_u(o, b);
	s_putc(o, ')');
}

/* FlameGraph's warm palette, stable per name; kernel frames orange, commands grey-blue */
static void color(struct sink *o, const struct dnode *d)
{
	uint64_t h = hs(d->text, 0);
	unsigned a = (unsigned)(h & 0xff), b = (unsigned)((h >> 8) & 0xff), c = (unsigned)((h >> 16) & 0xff);

	switch (d->kind) {
	case 0:
	case 1:
		put_rgb(o, 150 + a % 40, 170 + b % 40, 210 + c % 40);
		break;
	case 3:
		put_rgb(o, 225 + a % 30, 130 + b % 70, 20 + c % 40);
		break;
	default:
		put_rgb(o, 205 + a % 50, 80 + b % 120, 50 + c % 50);
	}
}

/* the change of a frame's share: red grew, blue shrank, white the same */
static void diff_color(struct sink *o, const struct dnode *d, uint64_t total, uint64_t btotal)
{
	double now = total ? (double)d->count / (double)total : 0;
	double then = btotal ? (double)d->base / (double)btotal : 0;
	double r = (now - then) * 5;	/* a 20-point change saturates */
	unsigned v;

	if (r > 1)
		r = 1;
	if (r < -1)
		r = -1;
	v = (unsigned)(255 - 200 * (r < 0 ? -r : r));
	if (r >= 0)
		put_rgb(o, 255, v, v);
	else
		put_rgb(o, v, v, 255);
}

static const char script[] =
"var W=" "1180" ",X0=10,total=0,fr=[],zoomed=null;\n"
"function num(g,a){return +g.getAttribute(a);}\n"
"function init(){fr=Array.prototype.slice.call(document.querySelectorAll('g.f'));\n"
" if(!fr.length)return;total=num(fr[0],'data-w');\n"
" document.addEventListener('click',function(e){var g=e.target.closest?e.target.closest('g.f'):null;\n"
"  if(g)return zoom(g);var id=e.target.id;if(id=='reset')return reset();\n"
"  if(id=='search'){var t=prompt('Search for (regular expression):','');if(t!==null)search(t);}});\n"
" document.addEventListener('mouseover',function(e){var g=e.target.closest?e.target.closest('g.f'):null;\n"
"  if(g)document.getElementById('details').textContent=g.querySelector('title').textContent;});\n"
" var h=decodeURIComponent(location.hash.slice(1));\n"
" h.split('&').forEach(function(kv){var i=kv.indexOf('=');if(i<0)return;var k=kv.slice(0,i),v=kv.slice(i+1);\n"
"  if(k=='z'){var g=document.getElementById('f'+v);if(g)zoom(g);}if(k=='s')search(v);});}\n"
"function place(g,x,w){var r=g.querySelector('rect'),t=g.querySelector('text');\n"
" r.setAttribute('x',x);r.setAttribute('width',Math.max(w,0));t.setAttribute('x',x+3);\n"
" var name=g.getAttribute('data-n'),fit=Math.floor((w-6)/7);\n"
" t.textContent=fit<3?'':name.length<=fit?name:name.slice(0,fit-2)+'..';}\n"
"function zoom(g){var x0=num(g,'data-x'),w=num(g,'data-w'),d=num(g,'data-d');zoomed=g;\n"
" fr.forEach(function(f){var fx=num(f,'data-x'),fw=num(f,'data-w'),fd=num(f,'data-d');\n"
"  if(fd<d&&fx<=x0&&fx+fw>=x0+w){f.style.display='';place(f,X0,W);f.setAttribute('class','f parent');}\n"
"  else if(fd>=d&&fx>=x0&&fx+fw<=x0+w){f.style.display='';f.setAttribute('class','f');\n"
"   place(f,X0+(fx-x0)*W/w,fw*W/w);}\n"
"  else f.style.display='none';});\n"
" document.getElementById('reset').style.opacity='1';}\n"
"function reset(){zoomed=null;fr.forEach(function(f){f.style.display='';f.setAttribute('class','f');\n"
"  place(f,X0+num(f,'data-x')*W/total,num(f,'data-w')*W/total);});\n"
" document.getElementById('reset').style.opacity='0';}\n"
"function search(t){var re;try{re=new RegExp(t);}catch(e){return;}var spans=[];\n"
" fr.forEach(function(f){var r=f.querySelector('rect'),m=t!==''&&re.test(f.getAttribute('data-n'));\n"
"  if(!r.hasAttribute('data-fill'))r.setAttribute('data-fill',r.getAttribute('fill'));\n"
"  r.setAttribute('fill',m?'rgb(230,0,230)':r.getAttribute('data-fill'));\n"
"  f.setAttribute('data-match',m?'1':'0');if(m)spans.push([num(f,'data-x'),num(f,'data-w')]);});\n"
" spans.sort(function(a,b){return a[0]-b[0]||b[1]-a[1];});var sum=0,end=-1;\n"
" spans.forEach(function(s){if(s[0]>=end){sum+=s[1];end=s[0]+s[1];}});\n"
" document.getElementById('matched').textContent=t===''?'':'Matched: '+(100*sum/total).toFixed(1)+'%';}\n"
"window.addEventListener('load',init);\n";

int tally_stacks__write_svg(const struct tally_stacks *s, FILE *fp, const char *title)
{
	return tally__stacks_svg(s, fp, title, false);
}

static int stacks_svg(const struct tally_stacks *s, const struct tally_stacks *base, FILE *fp,
		      const char *title, bool inverted);

/* The stacks of s into the tree (into base counts for a baseline). */
static int add_stacks(struct dtree *t, const struct tally_stacks *s, int *path, bool inverted,
		      bool is_base)
{
	/* each frame's text hashed once, not in every stack it is in (0: not yet) */
	uint64_t *fh = calloc(s->nframes + 1, sizeof(*fh));
	int n = 0;

	if (!fh)
		return -ENOMEM;
	for (size_t i = 0; i < s->naggs && n >= 0; i++) {
		const struct stk_agg *a = &s->aggs[i];
		size_t np = tally__stacks_path(s, a->node, path);
		const char *comm = s->threads[a->thread].comm;

		n = child(t, 0, comm ? comm : "[unknown]", 1);

		if (is_base)
			t->v[0].base += a->count;
		else
			t->v[0].count += a->count;
		for (size_t k = 0; n >= 0; k++) {
			if (is_base)
				t->v[n].base += a->count;
			else
				t->v[n].count += a->count;
			if (k == np)
				break;
			int fi = path[inverted ? np - 1 - k : k];
			const struct stk_frame *f = &s->frames[fi];
			const char *text = f->name ? f->name : "[unknown]";
			uint8_t kind = f->kernel ? 3 : 2;

			if (!fh[fi])
				fh[fi] = hs(text, kind);
			n = child_h(t, n, text, kind, fh[fi]);
		}
	}
	free(fh);
	return n < 0 ? n : 0;
}

/* inverted: an icicle of callers, the sampled functions on top, their callers below */
int tally__stacks_svg(const struct tally_stacks *s, FILE *fp, const char *title, bool inverted)
{
	return stacks_svg(s, NULL, fp, title, inverted);
}

int tally_stacks__write_svg_diff(const struct tally_stacks *base, const struct tally_stacks *s,
				 FILE *fp, const char *title)
{
	if (!base)
		return -EINVAL;
	return stacks_svg(s, base, fp, title, false);
}

/*
 * The graph of s; with base, a differential one: widths are s's samples,
 * colors the change of each frame's share (red grew, blue shrank).
 */
/* What drawing a frame reads. */
struct draw {
	const struct dtree *t;
	const struct tally_stacks *base;
	double scale;
	size_t height;
	bool inverted;
};

/* Frames lo..hi-1 of the laid-out tree, each a <g> element. */
static void draw_range(struct sink *o, const struct draw *dr, size_t lo, size_t hi)
{
	const struct dtree *t = dr->t;
	const struct tally_stacks *base = dr->base;
	double scale = dr->scale;
	size_t height = dr->height;
	bool inverted = dr->inverted;
	char buf[4096];

	for (size_t i = lo; i < hi; i++) {
		const struct dnode *d = &t->v[i];
		double x = PAD + (double)d->x * scale, w = (double)d->count * scale;
		double pct = t->v[0].count ? 100.0 * (double)d->count / (double)t->v[0].count : 0;
		size_t y = inverted ? TOP + d->depth * ROW : height - BOTTOM - (d->depth + 1) * ROW;
		int fit = (int)((w - 6) / 7);

		if (w < 0.1)
			continue;	/* invisible: left out, as FlameGraph does */
		s_puts(o, "<g class=\"f\" id=\"f");
		put_u(o, i);
		s_puts(o, "\" data-x=\"");
		put_u(o, d->x);
		s_puts(o, "\" data-w=\"");
		put_u(o, d->count);
		s_puts(o, "\" data-d=\"");
		put_u(o, d->depth);
		s_puts(o, "\" data-n=\"");
		xml(o, d->text);
		s_puts(o, "\"><title>");
		xml(o, d->text);
		s_puts(o, d->kind == 3 ? " [k] (" : " (");
		put_u(o, d->count);
		s_puts(o, t->us ? " \u00b5s, " : " samples, ");
		s_put(o, buf, (size_t)tally__fmt_fixed(buf, sizeof(buf), pct, 2));
		s_putc(o, '%');
		if (base)
			s_put(o, buf, (size_t)snprintf(buf, sizeof(buf), "; %+.2f%% since the baseline", pct -
				(t->v[0].base ? 100.0 * (double)d->base / (double)t->v[0].base : 0)));
		s_puts(o, ")</title><rect x=\"");
		put_f1(o, x);
		s_puts(o, "\" y=\"");
		put_u(o, y);
		s_puts(o, "\" width=\"");
		put_f1(o, w);
		s_puts(o, "\" height=\"");
		put_u(o, ROW - 1);
		s_puts(o, "\" rx=\"2\" fill=\"");
		if (base)
			diff_color(o, d, t->v[0].count, t->v[0].base);
		else
			color(o, d);
		s_puts(o, "\"/><text x=\"");
		put_f1(o, x + 3);
		s_puts(o, "\" y=\"");
		put_u(o, y + ROW - 4);
		s_puts(o, "\">");
		if (fit >= 3) {
			size_t l = strlen(d->text);

			if (l <= (size_t)fit) {
				xml(o, d->text);
			} else {
				snprintf(buf, sizeof(buf), "%.*s..", fit - 2, d->text);
				xml(o, buf);
			}
		}
		s_puts(o, "</text></g>\n");
	}
}

/* The second half of the frames, drawn into memory on a helper thread. */
struct half {
	const struct draw *dr;
	size_t lo, hi;
	struct sink o;
	char *text;
	size_t len;
};

static void *draw_half(void *arg)
{
	struct half *h = arg;

	draw_range(&h->o, h->dr, h->lo, h->hi);
	s_flush(&h->o);
	fflush(h->o.fp);
	return NULL;
}

/* A graph of so many frames is drawn on two threads. */
#define DRAW_THREAD_MIN 1024

/*
 * Every frame, in order: the second half on a helper where there is one
 * (its text a third of a big graph's instructions), written after the
 * first.
 */
static void draw_frames(struct sink *o, const struct draw *dr)
{
	size_t n = dr->t->n, mid = n / 2;
	struct half *h = NULL;
	pthread_t th;
	bool helper = false;

	if (n >= DRAW_THREAD_MIN && tally__two_threads() && (h = malloc(sizeof(*h)))) {
		*h = (struct half){ .dr = dr, .lo = mid, .hi = n };
		h->o.n = 0;
		if ((h->o.fp = open_memstream(&h->text, &h->len)))
			helper = !pthread_create(&th, NULL, draw_half, h);
		if (!helper && h->o.fp)
			fclose(h->o.fp);
	}
	draw_range(o, dr, 0, helper ? mid : n);
	if (!helper) {
		free(h);
		return;
	}
	pthread_join(th, NULL);
	s_flush(o);
	fclose(h->o.fp);
	fwrite_unlocked(h->text, 1, h->len, o->fp);
	free(h->text);
	free(h);
}

/* The laid-out tree t (its deepest frame at least depth) as the SVG; diff: a differential one. */
static int draw_tree(struct dtree *t, size_t depth, FILE *fp, const char *title, bool inverted,
		     const struct tally_stacks *base)
{
	size_t height;
	double scale;
	struct sink *o;
	int err;

	if ((err = layout(t)))
		return err;
	if (!(o = malloc(sizeof(*o))))
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].depth > depth)
			depth = t->v[i].depth;
	height = TOP + (depth + 1) * ROW + BOTTOM;
	scale = t->v[0].count ? (double)(WIDTH - 2 * PAD) / (double)t->v[0].count : 0;
	fprintf(fp, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		    "<svg version=\"1.1\" width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\" "
		    "xmlns=\"http://www.w3.org/2000/svg\">\n", WIDTH, height, WIDTH, height);
	fprintf(fp, "<style>text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}"
		    "#title{font-size:17px}#reset,#search{cursor:pointer}"
		    "g.f:hover rect{stroke:#000;stroke-width:0.5}g.f{cursor:pointer}"
		    "g.parent rect{opacity:0.6}</style>\n");
	fprintf(fp, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", script);
	fprintf(fp, "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n");
	fprintf(fp, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">", WIDTH / 2);
	o->fp = fp;
	o->n = 0;
	xml(o, title ? title : "Flame Graph");
	s_flush(o);
	fprintf(fp, "</text>\n<text id=\"reset\" x=\"%d\" y=\"24\" style=\"opacity:0\">Reset Zoom</text>\n"
		    "<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
		    "<text id=\"details\" x=\"%d\" y=\"%zu\"> </text>\n"
		    "<text id=\"matched\" x=\"%d\" y=\"%zu\"> </text>\n<g id=\"frames\">\n",
		PAD, WIDTH - 110, PAD, height - 10, WIDTH - 110, height - 10);
	{
		struct draw dr = { .t = t, .base = base, .scale = scale, .height = height,
				   .inverted = inverted };

		draw_frames(o, &dr);
	}
	s_flush(o);
	fprintf(fp, "</g>\n</svg>\n");
	if (ferror(fp))
		err = -EIO;
	free(o);
	return err;
}

static int stacks_svg(const struct tally_stacks *s, const struct tally_stacks *base, FILE *fp,
		      const char *title, bool inverted)
{
	struct dtree t = { 0 };
	size_t depth;
	int *path = NULL, err = 0;

	if (!s || !fp)
		return -EINVAL;
	depth = tally__stacks_max_depth(s);
	if (base && tally__stacks_max_depth(base) > depth)
		depth = tally__stacks_max_depth(base);
	path = malloc((depth + 1) * sizeof(*path));
	if (!path || child(&t, -1, "all", 0) < 0) {
		err = -ENOMEM;
		goto out;
	}
	/* tally_stacks__from_hist_offcpu's: time, its counts in microseconds */
	t.us = s->info.unit && !strcmp(s->info.unit, "microseconds");
	err = add_stacks(&t, s, path, inverted, false);
	if (!err && base)
		err = add_stacks(&t, base, path, inverted, true);
	if (!err)
		err = draw_tree(&t, depth, fp, title, inverted, base);
out:
	free(path);
	free(t.v);
	free(t.tab);
	return err;
}

/* ---- a flame graph fed stack by stack (tally_stacks__svg_from_hist) ---- */

struct tally__flame {
	struct dtree t;
	/*
	 * Each frame's text hashed once: the names come from the resolver,
	 * one pointer per name, and hashing them again for each of a
	 * function's stacks was a tenth of a picture's time (300k frames).
	 */
	struct { const char *text; uint64_t h; uint8_t kind; } hc[4096];
	/*
	 * The last stack's path: its command, each frame's text and kind and
	 * node. The next stack shares its root part most often (a thread's
	 * samples come together), found again without a lookup each.
	 */
	const char *pcomm;
	struct prev { const char *text; int node; uint8_t kind; } *prev;
	size_t nprev, cprev;
};

/* hs(text, kind), remembered by text's pointer and kind */
static uint64_t flame_hash(struct tally__flame *f, const char *text, uint8_t kind)
{
	size_t i = (((uintptr_t)text >> 3) * 4 + kind) & 4095;

	if (f->hc[i].text != text || f->hc[i].kind != kind) {
		f->hc[i].text = text;
		f->hc[i].kind = kind;
		f->hc[i].h = hs(text, kind);
	}
	return f->hc[i].h;
}

struct tally__flame *tally__flame_new(void)
{
	struct tally__flame *f = calloc(1, sizeof(*f));

	if (f && child(&f->t, -1, "all", 0) < 0) {
		free(f);
		return NULL;
	}
	return f;
}

int tally__flame_stack(struct tally__flame *f, const char *comm, const char *const *text,
		       const bool *kernel, size_t n, uint64_t count)
{
	struct dtree *t = &f->t;
	const char *c = comm ? comm : "[unknown]";
	/* the same text (a pointer) and kind under the same node is the same child */
	bool same = f->pcomm == c;
	int k = same ? f->prev[0].node : child(t, 0, c, 1);

	if (n + 1 > f->cprev) {
		size_t cap = (n + 1) * 2;
		struct prev *v = realloc(f->prev, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->prev = v;
		f->cprev = cap;
	}
	f->pcomm = NULL;	/* a path made whole only */
	t->v[0].count += count;
	for (size_t i = 0; k >= 0; i++) {
		t->v[k].count += count;
		f->prev[i].node = k;
		if (i == n)
			break;
		const char *x = text[i] ? text[i] : "[unknown]";
		uint8_t kind = kernel[i] ? 3 : 2;

		same = same && i + 1 < f->nprev && f->prev[i + 1].text == x &&
		       f->prev[i + 1].kind == kind;
		if (!same) {
			f->prev[i + 1].text = x;
			f->prev[i + 1].kind = kind;
			k = child_h(t, k, x, kind, flame_hash(f, x, kind));
		} else {
			k = f->prev[i + 1].node;
		}
	}
	if (k < 0)
		return k;
	f->pcomm = c;
	f->nprev = n + 1;
	return 0;
}

int tally__flame_write(struct tally__flame *f, FILE *fp, const char *title)
{
	return fp ? draw_tree(&f->t, 0, fp, title, false, NULL) : -EINVAL;
}

void tally__flame_free(struct tally__flame *f)
{
	if (!f)
		return;
	free(f->t.v);
	free(f->t.tab);
	free(f->prev);
	free(f);
}
