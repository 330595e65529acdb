// SPDX-License-Identifier: MIT
/*
 * top's rows: each live sample counted in its row (perf's sort keys),
 * children along its chain, its chain merged into the row's graph
 * (report_graph.c's trees, printed as perf's). See top.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <tally/tally.h>
#include "top.h"

#define CHAIN_MAX 256

struct row {
	uint64_t hash;
	const char *comm, *dso, *sym;	/* the session's strings: valid until close */
	int32_t pid, tid, cpu;
	uint64_t addr;
	char level;
	uint64_t self, children, nself;
	uint64_t last_seen;		/* children: each row once per sample */
	struct cg_node *cg;
	struct row *next;
};

struct ev {
	struct row **tab;
	size_t nb, n;
	uint64_t total, samples;
	uint64_t rate_samples, rate_kernel, all_samples;
	/* collapsed stacks: one line per distinct stack text */
	struct stack { char *text; uint64_t n; struct stack *next; } **stk;
	size_t nstk;
};

struct top_hist {
	struct tally_session *ss;
	struct top_hist_opts o;
	struct ev *ev;
	int nev;
	uint64_t seq;
	struct tally_strpool *comms;	/* the threads' names, kept past their callback */
};

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h * 0x9e3779b97f4a7c15ULL;
}

struct top_hist *top_hist_new(struct tally_session *ss, int nr_events,
			      const struct top_hist_opts *o)
{
	struct top_hist *h = calloc(1, sizeof(*h));

	if (!h || !(h->ev = calloc((size_t)nr_events, sizeof(*h->ev))) ||
	    !(h->comms = tally_strpool__new())) {
		if (h)
			free(h->ev);
		free(h);
		return NULL;
	}
	h->ss = ss;
	h->o = *o;
	h->nev = nr_events;
	return h;
}

static void free_rows(struct ev *e)
{
	for (size_t b = 0; b < e->nb; b++)
		while (e->tab[b]) {
			struct row *r = e->tab[b];

			e->tab[b] = r->next;
			cg_free(r->cg);
			free(r);
		}
	free(e->tab);
	e->tab = NULL;
	e->nb = e->n = 0;
	for (size_t b = 0; e->stk && b < 1024; b++)
		while (e->stk[b]) {
			struct stack *s = e->stk[b];

			e->stk[b] = s->next;
			free(s->text);
			free(s);
		}
	free(e->stk);
	e->stk = NULL;
	e->nstk = 0;
	e->total = e->samples = 0;
}

void top_hist_free(struct top_hist *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->nev; i++)
		free_rows(&h->ev[i]);
	free(h->ev);
	tally_strpool__delete(h->comms);
	free(h);
}

void top_hist_zero(struct top_hist *h)
{
	for (int i = 0; i < h->nev; i++)
		free_rows(&h->ev[i]);
}

void top_hist_hide(struct top_hist *h, bool kernel, bool user)
{
	h->o.hide_kernel = kernel;
	h->o.hide_user = user;
}

int top_hist_nr_events(const struct top_hist *h)
{
	return h->nev;
}

uint64_t top_hist_samples(const struct top_hist *h, int idx)
{
	return h->ev[idx].samples;
}

void top_hist_take_rate(struct top_hist *h, int idx, struct top_rate *r)
{
	struct ev *e = &h->ev[idx];

	r->samples = e->rate_samples;
	r->kernel = e->rate_kernel;
	r->total_samples = e->all_samples;
	e->rate_samples = e->rate_kernel = 0;
}

static bool has(const struct top_hist *h, enum top_key k)
{
	for (int i = 0; i < h->o.nkeys; i++)
		if (h->o.keys[i] == k)
			return true;
	return false;
}

static bool streq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Equal in every key (the columns not keyed show the first sample's). */
static bool same(const struct top_hist *h, const struct row *r, const struct row *k)
{
	for (int i = 0; i < h->o.nkeys; i++)
		switch (h->o.keys[i]) {
		case TK_COMM: if (!streq(r->comm, k->comm)) return false; break;
		case TK_PID: if (r->tid != k->tid) return false; break;
		case TK_DSO: if (!streq(r->dso, k->dso)) return false; break;
		case TK_SYM:
			if (r->level != k->level || r->addr != k->addr || !streq(r->sym, k->sym))
				return false;
			break;
		case TK_CPU: if (r->cpu != k->cpu) return false; break;
		default: break;
		}
	return true;
}

/* The row of frame f in sample smp's thread, made when new. */
static struct row *find(struct top_hist *h, struct ev *e, const struct tally_session_sample *smp,
			const char *comm, const struct tally_frame *f)
{
	struct row key = { .level = f->level, .cpu = -1, .pid = -1, .tid = -1 };
	uint64_t hv = 0xcbf29ce484222325ULL;
	struct row *r;

	if (has(h, TK_COMM))
		key.comm = comm, hv = fnv(hv, comm);
	if (has(h, TK_PID))
		key.pid = smp->thread.pid, key.tid = smp->thread.tid, key.comm = comm,
		hv = fnv(hv ^ (uint64_t)smp->thread.tid, comm);
	if (has(h, TK_DSO))
		key.dso = f->dso, hv = fnv(hv, f->dso ? f->dso : "[unknown]");
	if (has(h, TK_SYM)) {
		key.sym = f->sym;
		key.addr = f->sym ? 0 : f->addr;
		hv = fnv(hv ^ key.addr ^ (uint64_t)f->level, f->sym);
	}
	if (has(h, TK_CPU))
		key.cpu = (int32_t)smp->sample->cpu, hv ^= (uint64_t)key.cpu * 0x9e3779b97f4a7c15ULL;
	if (!e->nb || e->n > e->nb) {
		size_t nb = e->nb ? e->nb * 2 : 256;
		struct row **tab = calloc(nb, sizeof(*tab));

		if (!tab)
			return NULL;
		for (size_t b = 0; b < e->nb; b++)
			while (e->tab[b]) {
				r = e->tab[b];
				e->tab[b] = r->next;
				r->next = tab[r->hash & (nb - 1)];
				tab[r->hash & (nb - 1)] = r;
			}
		free(e->tab);
		e->tab = tab;
		e->nb = nb;
	}
	for (r = e->tab[hv & (e->nb - 1)]; r; r = r->next)
		if (r->hash == hv && same(h, r, &key))
			return r;
	if (!(r = malloc(sizeof(*r))))
		return NULL;
	*r = key;
	/* the columns not keyed still show the first sample's */
	r->comm = comm;
	r->dso = f->dso;
	r->sym = f->sym;
	r->addr = f->sym ? 0 : f->addr;
	r->hash = hv;
	r->next = e->tab[hv & (e->nb - 1)];
	e->tab[hv & (e->nb - 1)] = r;
	e->n++;
	return r;
}

static int add_folded(struct ev *e, const char *comm, const struct tally_frame *fr, int n,
		      uint64_t period)
{
	char buf[8192];
	size_t len = (size_t)snprintf(buf, sizeof(buf), "%s", comm ? comm : "[unknown]");
	uint64_t hv;
	struct stack *s;

	for (int i = n - 1; i >= 0 && len < sizeof(buf); i--)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, ";%s%s",
					fr[i].sym ? fr[i].sym : "[unknown]",
					fr[i].level == 'k' ? "_[k]" : "");
	if (len >= sizeof(buf))
		return 0;
	hv = fnv(0xcbf29ce484222325ULL, buf);
	if (!e->stk && !(e->stk = calloc(1024, sizeof(*e->stk))))
		return -ENOMEM;
	for (s = e->stk[hv & 1023]; s && strcmp(s->text, buf); s = s->next)
		;
	if (!s) {
		if (!(s = calloc(1, sizeof(*s))) || !(s->text = strdup(buf))) {
			free(s);
			return -ENOMEM;
		}
		s->next = e->stk[hv & 1023];
		e->stk[hv & 1023] = s;
		e->nstk++;
	}
	s->n += period;
	return 0;
}

int top_hist_add(struct top_hist *h, const struct tally_session_sample *smp)
{
	static struct tally_frame fr[CHAIN_MAX];
	static struct row *rows[CHAIN_MAX];
	struct cg_frame rf[CHAIN_MAX], lf[CHAIN_MAX];
	struct ev *e;
	const char *comm;
	struct row *self;
	int n;

	if (smp->attr < 0 || smp->attr >= h->nev)
		return 0;
	e = &h->ev[smp->attr];
	comm = smp->thread.comm ? smp->thread.comm : tally_session__comm(h->ss, smp);
	if (comm && !(comm = tally_strpool__add(h->comms, comm)))
		return -ENOMEM;
	e->rate_samples++;
	e->all_samples++;
	if (smp->mode == TALLY_CPUMODE_KERNEL)
		e->rate_kernel++;
	n = h->o.chains ? tally_session__frames(h->ss, smp, fr, CHAIN_MAX)
			: (tally_session__resolve(h->ss, smp, fr) ? -ENOMEM : 1);
	if (n <= 0)
		return n < 0 ? n : 0;
	e->samples++;
	e->total += smp->period;
	h->seq++;
	if (!(self = find(h, e, smp, comm, &fr[0])))
		return -ENOMEM;
	self->self += smp->period;
	self->nself++;
	if (!h->o.chains)
		return 0;
	if (add_folded(e, comm, fr, n, smp->period))
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		const struct tally_frame *f = &fr[i];
		struct cg_frame c = { .sym = f->sym, .dso = f->dso, .dso_id = f->path,
				      .start = f->sym_start, .ip = f->ip };

		lf[i] = c;
		rf[n - 1 - i] = c;
		if (!(rows[i] = find(h, e, smp, comm, f)))
			return -ENOMEM;
	}
	/* the row's own graph: the whole chain, root first with children (perf's caller order) */
	if (h->o.cg.mode != CG_NONE &&
	    cg_append(&self->cg, h->o.cg.caller ? rf : lf, (size_t)n, smp->period, 1, false))
		return -ENOMEM;
	if (!h->o.children)
		return 0;
	/* each distinct row on the chain once: its callers' share, and the chain through it */
	self->last_seen = h->seq;
	self->children += smp->period;
	for (int i = 1; i < n; i++) {
		struct row *r = rows[i];
		int j = n - 1 - i;	/* root-first index */

		if (r->last_seen == h->seq)
			continue;
		r->last_seen = h->seq;
		r->children += smp->period;
		if (h->o.cg.mode != CG_NONE &&
		    cg_append(&r->cg, h->o.cg.caller ? rf + j : lf + i, h->o.cg.caller ? (size_t)(n - j) : (size_t)(j + 1),
			      smp->period, 1, false))
			return -ENOMEM;
	}
	return 0;
}

static const struct top_hist *sort_h;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct row *a = *(struct row *const *)pa, *b = *(struct row *const *)pb;

	if (sort_h->o.children && a->children != b->children)
		return a->children < b->children ? 1 : -1;
	if (a->self != b->self)
		return a->self < b->self ? 1 : -1;
	return strcmp(a->sym ? a->sym : "", b->sym ? b->sym : "");
}

static const char *const headers[TK__NR] = { "Command", "Pid:Command", "Shared Object", "Symbol", "CPU" };

static int key_text(const struct row *r, enum top_key k, char *buf, size_t n)
{
	switch (k) {
	case TK_COMM: return snprintf(buf, n, "%s", r->comm ? r->comm : ":-1");
	case TK_PID: return snprintf(buf, n, "%7d:%s", r->tid, r->comm ? r->comm : "");
	case TK_DSO: return snprintf(buf, n, "%s", r->dso ? r->dso : "[unknown]");
	case TK_SYM:
		if (r->sym)
			return snprintf(buf, n, "[%c] %s", r->level, r->sym);
		return snprintf(buf, n, "[%c] 0x%016llx", r->level, (unsigned long long)r->addr);
	case TK_CPU: return snprintf(buf, n, "%03d", r->cpu);
	default: return snprintf(buf, n, "?");
	}
}

void top_hist_print(struct top_hist *h, int idx, FILE *fp, bool hash)
{
	struct ev *e = &h->ev[idx];
	struct row **rows = malloc((e->n + 1) * sizeof(*rows));
	int width[TK__NR] = { 0 };
	double tot = e->total ? (double)e->total : 1;
	size_t n = 0;
	int printed = 0;
	char buf[1024];

	if (!rows)
		return;
	for (size_t b = 0; b < e->nb; b++)
		for (struct row *r = e->tab[b]; r; r = r->next)
			if (!(h->o.hide_kernel && r->level == 'k') && !(h->o.hide_user && r->level != 'k'))
				rows[n++] = r;
	sort_h = h;
	qsort(rows, n, sizeof(*rows), cmp_rows);
	for (int i = 0; i < h->o.nkeys; i++) {
		width[i] = (int)strlen(headers[h->o.keys[i]]);
		for (size_t k = 0; k < n; k++) {
			int w = key_text(rows[k], h->o.keys[i], buf, sizeof(buf));

			if (w > width[i])
				width[i] = w;
		}
	}
	if (hash) {
		fprintf(fp, "# %s", h->o.children ? "Children      Self" : "Overhead");
		for (int i = 0; i < h->o.nkeys; i++)
			fprintf(fp, "  %-*s", width[i], headers[h->o.keys[i]]);
		fprintf(fp, "\n# %s", h->o.children ? "........  ........" : "........");
		for (int i = 0; i < h->o.nkeys; i++) {
			fprintf(fp, "  ");
			for (int k = 0; k < width[i]; k++)
				fputc('.', fp);
		}
		fprintf(fp, "\n#\n");
	}
	for (size_t k = 0; k < n; k++) {
		const struct row *r = rows[k];
		uint64_t v = h->o.children ? r->children : r->self;

		if (100.0 * (double)v / tot < h->o.percent_limit || !v)
			continue;
		if (h->o.entries && printed++ >= h->o.entries)
			break;
		if (h->o.children)
			fprintf(fp, "  %7.2f%%  %7.2f%%", 100.0 * (double)r->children / tot,
				100.0 * (double)r->self / tot);
		else
			fprintf(fp, "  %7.2f%%", 100.0 * (double)r->self / tot);
		for (int i = 0; i < h->o.nkeys; i++) {
			key_text(r, h->o.keys[i], buf, sizeof(buf));
			/* the last column unpadded, as perf's */
			fprintf(fp, "  %-*s", i + 1 < h->o.nkeys ? width[i] : 0, buf);
		}
		fputc('\n', fp);
		if (h->o.cg.mode != CG_NONE && r->cg)
			cg_print(fp, r->cg, &h->o.cg, e->total, v, false);
	}
	free(rows);
}

void top_hist_folded(struct top_hist *h, int idx, FILE *fp)
{
	struct ev *e = &h->ev[idx];

	for (size_t b = 0; e->stk && b < 1024; b++)
		for (struct stack *s = e->stk[b]; s; s = s->next)
			fprintf(fp, "%s %llu\n", s->text, (unsigned long long)s->n);
}
