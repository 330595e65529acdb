// SPDX-License-Identifier: MIT
/*
 * perf annotate's model: samples per (event, DSO, symbol) and offset,
 * and a symbol's lines made as perf 6.1 makes them from objdump's
 * `-l -d -S` output: each line trimmed and its tabs expanded, "/file:N"
 * lines setting the running line number instead of showing, the other
 * lines numbered from it, trailing nops dropped, and each instruction's
 * share summed from its address to the next instruction's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <tally/annotate.h>
#include <tally/data_format.h>
#include <tally/data_read.h>
#include <tally/data_write.h>
#include "internal.h"
#include "strpool.h"

#include "annotate_internal.h"

struct tally_annotate *tally_annotate__new(struct tally_session *s,
					   const struct tally_annotate_opts *opts)
{
	struct tally_annotate *a;

	if (!s || !TALLY_OPTS_VALID(opts, tally_annotate_opts))
		return tally__err_ptr(EINVAL);
	if (!(a = calloc(1, sizeof(*a))))
		return tally__err_ptr(ENOMEM);
	a->s = s;
	a->no_source = TALLY_OPTS_GET(opts, no_source, false);
	a->asm_raw = TALLY_OPTS_GET(opts, asm_raw, false);
	if (TALLY_OPTS_GET(opts, symbol, NULL) && !(a->symbol = strdup(opts->symbol)))
		goto nomem;
	if (TALLY_OPTS_GET(opts, dsos, NULL) && !(a->dsos = strdup(opts->dsos)))
		goto nomem;
	if (TALLY_OPTS_GET(opts, vmlinux, NULL) && !(a->vmlinux = strdup(opts->vmlinux)))
		goto nomem;
	if (TALLY_OPTS_GET(opts, kcore, NULL) && !(a->kcore = strdup(opts->kcore)))
		goto nomem;
	if (!(a->dis = tally_disasm__new(TALLY_OPTS_GET(opts, syntax, TALLY_DISASM_ATT))))
		goto nomem;
	return a;
nomem:
	tally_annotate__free(a);
	return tally__err_ptr(ENOMEM);
}

void tally_annotate__free(struct tally_annotate *a)
{
	if (!a)
		return;
	for (int i = 0; i < a->nr; i++)
		free(a->v[i].hits);
	for (int i = 0; i < a->nr_files; i++) {
		free(a->files[i].path);
		free(a->files[i].buf);
		free(a->files[i].line);
	}
	for (int i = 0; i < a->nr_codes; i++)
		tally_dso_code__close(a->codes[i].code);
	free(a->codes);
	free(a->files);
	tally__strpool_free(&a->paths);
	free(a->v);
	free(a->slots);
	free(a->symbol);
	free(a->dsos);
	free(a->vmlinux);
	free(a->kcore);
	tally_disasm__free(a->dis);
	free(a);
}

static size_t slot_of(const struct tally_annotate *a, int attr, const void *key)
{
	uint64_t h = ((uintptr_t)key >> 3) * 0x9e3779b97f4a7c15ull ^ (uint64_t)attr;

	return (size_t)(h ^ h >> 29) & (a->cap - 1);
}

/* A table for twice the entries there are (after a sort: rebuilt from nothing). */
static int grow(struct tally_annotate *a)
{
	size_t cap = a->cap ? a->cap * 2 : 256;
	int *slots;

	while (cap < (size_t)(a->nr + 1) * 2)
		cap *= 2;
	slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(a->slots);
	a->slots = slots;
	a->cap = cap;
	for (int i = 0; i < a->nr; i++) {
		size_t h = slot_of(a, a->v[i].sym.attr, a->v[i].key);

		while (a->slots[h])
			h = (h + 1) & (cap - 1);
		a->slots[h] = i + 1;
	}
	return 0;
}

static struct entry *entry_get(struct tally_annotate *a, int attr, struct tally_dso *dso,
			       const struct tally_symbol *sym)
{
	struct entry *e;
	size_t h;

	if ((size_t)(a->nr + 1) * 2 > a->cap && grow(a))
		return NULL;
	for (h = slot_of(a, attr, sym); a->slots[h]; h = (h + 1) & (a->cap - 1)) {
		e = &a->v[a->slots[h] - 1];
		if (e->key == sym && e->sym.attr == attr)
			return e;
	}
	if (a->nr == a->alloc) {
		int n = a->alloc ? a->alloc * 2 : 64;
		struct entry *v = realloc(a->v, (size_t)n * sizeof(*v));

		if (!v)
			return NULL;
		a->v = v;
		a->alloc = n;
	}
	e = &a->v[a->nr];
	memset(e, 0, sizeof(*e));
	e->key = sym;
	e->sym.attr = attr;
	e->sym.dso = dso;
	e->sym.dso_name = tally_dso__name(dso);
	e->sym.name = sym->name;
	e->sym.start = sym->start;
	e->sym.end = sym->end > sym->start ? sym->end : sym->start + 1;
	a->slots[h] = ++a->nr;
	return e;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* perf's --dsos: a DSO named by its short name or its path */
static bool dso_listed(const char *list, const char *path)
{
	const char *base = base_name(path);

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");

		if ((strlen(path) == n && !strncmp(p, path, n)) ||
		    (strlen(base) == n && !strncmp(p, base, n)))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static struct hit *hit_of(struct entry *e, uint64_t off)
{
	if (e->last < e->nr_hits && e->hits[e->last].off == off)
		return &e->hits[e->last];
	for (uint32_t i = 0; i < e->nr_hits; i++)
		if (e->hits[i].off == off)
			return &e->hits[e->last = i];
	if (e->nr_hits == e->alloc_hits) {
		uint32_t n = e->alloc_hits ? e->alloc_hits * 2 : 8;
		struct hit *v = realloc(e->hits, n * sizeof(*v));

		if (!v)
			return NULL;
		e->hits = v;
		e->alloc_hits = n;
	}
	e->hits[e->nr_hits] = (struct hit){ off, 0, 0 };
	return &e->hits[e->last = e->nr_hits++];
}

/* The samples in [from, to) of e. */
void tally__ann_hits_in(const struct entry *e, uint64_t from, uint64_t to, uint64_t *nr, uint64_t *period)
{
	for (uint32_t i = 0; i < e->nr_hits; i++)
		if (e->hits[i].off >= from && e->hits[i].off < to) {
			*nr += e->hits[i].nr;
			*period += e->hits[i].period;
		}
}

int tally_annotate__add(struct tally_annotate *a, const struct tally_session_sample *smp)
{
	struct tally_addr_info ai;
	struct entry *e;
	struct hit *h;
	uint64_t off;

	if (!a || !smp)
		return tally__err(EINVAL);
	if (tally_symbols__resolve(tally_session__symbols(a->s), tally_session__machine(a->s),
				   smp->thread.pid, smp->thread.tid, smp->sample->ip, smp->mode,
				   &ai) && !ai.sym) {
		if (a->symbol)
			return 0;
		ai.sym = NULL;
	}
	/* perf counts only the named symbol's samples, global percents included */
	if (a->symbol && (!ai.sym || strcmp(ai.sym->name, a->symbol)))
		return 0;
	if (a->dsos && (!ai.dso || !dso_listed(a->dsos, tally_dso__name(ai.dso))))
		return 0;
	if (smp->attr >= 0 && smp->attr < 64) {
		a->tot[smp->attr].nr++;
		a->tot[smp->attr].period += smp->period;
	}
	if (!ai.sym)
		return 0;
	if (!(e = entry_get(a, smp->attr, ai.dso, ai.sym)))
		return tally__err(ENOMEM);
	off = ai.vaddr - e->sym.start;
	if (off >= e->sym.end - e->sym.start)
		return 0;
	if (!(h = hit_of(e, off)))
		return tally__err(ENOMEM);
	h->nr++;
	h->period += smp->period;
	e->sym.nr_samples++;
	e->sym.period += smp->period;
	return 0;
}

static int by_period(const void *x, const void *y)
{
	const struct entry *a = x, *b = y;
	int c;

	if (a->sym.attr != b->sym.attr)
		return a->sym.attr < b->sym.attr ? -1 : 1;
	if (a->sym.period != b->sym.period)
		return a->sym.period > b->sym.period ? -1 : 1;
	/* perf's sort keys on a tie: the DSO's short name, then the symbol's */
	if ((c = strcmp(base_name(a->sym.dso_name), base_name(b->sym.dso_name))))
		return c;
	if ((c = strcmp(a->sym.name, b->sym.name)))
		return c;
	return a->sym.start < b->sym.start ? -1 : a->sym.start > b->sym.start;
}

int tally_annotate__sort(struct tally_annotate *a)
{
	if (!a)
		return tally__err(EINVAL);
	if (a->nr)
		qsort(a->v, (size_t)a->nr, sizeof(*a->v), by_period);
	/* each DSO's code is let go after its last symbol (release_after); DSOs are few */
	if (a->nr) {
		const struct tally_dso **seen = calloc((size_t)a->nr, sizeof(*seen));
		int ns = 0, k;

		for (int i = a->nr - 1; seen && i >= 0; i--) {
			for (k = 0; k < ns && seen[k] != a->v[i].sym.dso; k++)
				;
			a->v[i].dso_last = k == ns;
			if (k == ns)
				seen[ns++] = a->v[i].sym.dso;
		}
		free(seen);
	}
	free(a->slots);
	a->slots = NULL;
	a->cap = 0;
	if (a->nr && grow(a))
		return tally__err(ENOMEM);
	return a->nr;
}

const struct tally_annotate_sym *tally_annotate__sym(const struct tally_annotate *a, int idx)
{
	if (!a || idx < 0 || idx >= a->nr)
		return tally__err_ptr(EINVAL);
	return &a->v[idx].sym;
}

void tally_annotate__totals(const struct tally_annotate *a, int attr, uint64_t *nr_samples,
			    uint64_t *period)
{
	*nr_samples = a && attr >= 0 && attr < 64 ? a->tot[attr].nr : 0;
	*period = a && attr >= 0 && attr < 64 ? a->tot[attr].period : 0;
}

const char *tally_annotate__strerror(const struct tally_annotate *a)
{
	return a ? a->err : "";
}

/* ---- the lines -------------------------------------------------- */

/* The lines being made: texts in one growing buffer (offsets until the end). */
struct mk {
	struct tally_annotate_line *v;
	size_t *text_off;
	int nr, alloc;
	char *buf;
	size_t len, cap;
	int line_nr;			/* perf's running number */
};

static int mk_text(struct mk *m, const char *s, size_t n)
{
	if (m->len + n + 1 > m->cap) {
		size_t cap = (m->cap ? m->cap : 4096);
		char *b;

		while (m->len + n + 1 > cap)
			cap *= 2;
		if (!(b = realloc(m->buf, cap)))
			return -ENOMEM;
		m->buf = b;
		m->cap = cap;
	}
	memcpy(m->buf + m->len, s, n);
	m->buf[m->len + n] = '\0';
	m->len += n + 1;
	return 0;
}

/*
 * A line of objdump's output as perf reads it: trimmed, tabs expanded to
 * 8 columns, "/file:N" taken as the line number, "addr:" as an
 * instruction of the symbol when it is inside [start, end).
 */
static int mk_line(struct mk *m, const char *raw, uint64_t start, uint64_t end)
{
	char exp[8192];
	size_t n = 0, col = 0;
	const char *p = raw, *q;
	struct tally_annotate_line *l;
	int64_t offset = -1;
	char *tmp;
	uint64_t ip;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	q = p + strlen(p);
	while (q > p && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r'))
		q--;
	for (; p < q && n < sizeof(exp) - 9; p++) {
		if (*p == '\t') {
			do
				exp[n++] = ' ';
			while (++col % 8);
		} else {
			exp[n++] = *p;
			col++;
		}
	}
	exp[n] = '\0';
	if (exp[0] == '/') {
		const char *c = strchr(exp, ':');

		if (c && c[1] >= '0' && c[1] <= '9') {
			m->line_nr = atoi(c + 1);
			return 0;
		}
	}
	p = exp;
	ip = strtoull(exp, &tmp, 16);
	if (tmp != exp && tmp[0] == ':' && tmp[1] != '\0' && ip >= start && ip < end) {
		offset = (int64_t)(ip - start);
		p = tmp + 1;
	}
	if (m->nr == m->alloc) {
		int na = m->alloc ? m->alloc * 2 : 256;
		struct tally_annotate_line *v = realloc(m->v, (size_t)na * sizeof(*v));
		size_t *o;

		if (!v)
			return -ENOMEM;
		m->v = v;
		if (!(o = realloc(m->text_off, (size_t)na * sizeof(*o))))
			return -ENOMEM;
		m->text_off = o;
		m->alloc = na;
	}
	l = &m->v[m->nr];
	memset(l, 0, sizeof(*l));
	l->offset = offset;
	l->addr = offset >= 0 ? ip : 0;
	l->line_nr = m->line_nr++;
	m->text_off[m->nr++] = m->len;
	return mk_text(m, p, strlen(p));
}

struct srcfile *tally__ann_src_get(struct tally_annotate *a, const char *path)
{
	struct srcfile *f, *v;
	FILE *fp;
	long sz;

	for (int i = 0; i < a->nr_files; i++)
		if (!strcmp(a->files[i].path, path))
			return a->files[i].nr >= 0 ? &a->files[i] : NULL;
	if (!(v = realloc(a->files, (size_t)(a->nr_files + 1) * sizeof(*v))))
		return NULL;
	a->files = v;
	f = &a->files[a->nr_files];
	memset(f, 0, sizeof(*f));
	f->nr = -1;
	if (!(f->path = strdup(path)))
		return NULL;
	a->nr_files++;
	if (!(fp = fopen(path, "r")))
		return NULL;
	if (fseek(fp, 0, SEEK_END) || (sz = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET) ||
	    !(f->buf = malloc((size_t)sz + 1)) || fread(f->buf, 1, (size_t)sz, fp) != (size_t)sz) {
		fclose(fp);
		return NULL;
	}
	fclose(fp);
	f->buf[sz] = '\0';
	f->nr = 0;
	for (long i = 0; i < sz; i++)
		f->nr += f->buf[i] == '\n';
	if (sz && f->buf[sz - 1] != '\n')
		f->nr++;
	if (!(f->line = calloc((size_t)f->nr + 1, sizeof(*f->line)))) {
		f->nr = -1;
		return NULL;
	}
	for (int i = 0, k = 0; k < f->nr; k++) {
		char *nl;

		f->line[k] = f->buf + i;
		if (!(nl = strchr(f->buf + i, '\n')))
			break;
		*nl = '\0';
		i = (int)(nl - f->buf) + 1;
	}
	return f;
}

/* objdump -S: up to 5 lines before the first one shown, none shown twice ahead */
static int show_source(struct mk *m, struct srcfile *f, int line, uint64_t start, uint64_t end)
{
	int l;

	if (line == f->last_line)
		return 0;
	l = line - 5;
	if (l < 1)
		l = 1;
	if (f->max_printed >= l)
		l = f->max_printed < line ? f->max_printed + 1 : line;
	for (; l <= line && l <= f->nr; l++)
		if (mk_line(m, f->line[l - 1], start, end))
			return -ENOMEM;
	if (f->max_printed < line)
		f->max_printed = line;
	f->last_line = line;
	f->first = false;
	return 0;
}

/* The build id the recording noted for path: its length, 0 when none. */
static int recorded_build_id(struct tally_annotate *a, const char *path, uint8_t *id)
{
	return tally_data_reader__build_id(tally_session__reader(a->s), path, id);
}

/*
 * No -k: perf's vmlinux path, the first file there whose build id is the
 * kernel's (the recorded one, else the running one); NULL: none, kcore then.
 */
static const char *find_vmlinux(struct tally_annotate *a, struct tally_dso *d)
{
	static const struct {
		const char *pre, *post;
		bool release;		/* uname -r between */
	} paths[] = {
		{ "vmlinux", "", false }, { "/boot/vmlinux", "", false },
		{ "/boot/vmlinux-", "", true }, { "/usr/lib/debug/boot/vmlinux-", "", true },
		{ "/lib/modules/", "/build/vmlinux", true },
		{ "/usr/lib/debug/lib/modules/", "/vmlinux", true },
		{ "/usr/lib/debug/boot/vmlinux-", ".debug", true },
	};
	uint8_t want[TALLY_BUILD_ID_MAX], have[TALLY_BUILD_ID_MAX];
	struct utsname u;
	int nw;

	if (strcmp(tally_dso__name(d), "[kernel.kallsyms]") || uname(&u))
		return NULL;
	if ((nw = recorded_build_id(a, "[kernel.kallsyms]", want)) <= 0 &&
	    (nw = tally_build_id__kernel(want, sizeof(want))) <= 0)
		return NULL;
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		snprintf(a->vmlinux_found, sizeof(a->vmlinux_found), "%s%s%s", paths[i].pre,
			 paths[i].release ? u.release : "", paths[i].post);
		if (tally_build_id__file(a->vmlinux_found, have, sizeof(have)) == nw &&
		    !memcmp(want, have, (size_t)nw))
			return a->vmlinux_found;
	}
	return NULL;
}

static struct tally_dso_code *code_get(struct tally_annotate *a, struct tally_dso *d, int *err)
{
	struct dso_code_ent *v;

	for (int i = 0; i < a->nr_codes; i++)
		if (a->codes[i].dso == d) {
			*err = a->codes[i].err;
			return a->codes[i].code;
		}
	if (!(v = realloc(a->codes, (size_t)(a->nr_codes + 1) * sizeof(*v)))) {
		*err = -ENOMEM;
		return NULL;
	}
	a->codes = v;
	v = &a->codes[a->nr_codes++];
	v->dso = d;
	v->code = tally_dso_code__open_kernel(d, a->vmlinux ? a->vmlinux : find_vmlinux(a, d), a->kcore,
					      a->no_source ? 0 : TALLY_DSO_CODE_DEBUG_NAMES);
	v->err = v->code ? 0 : -errno;
	*err = v->err;
	return v->code;
}

static void hex(char *out, const uint8_t *id, int n)
{
	for (int i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * (n > 0 ? n : 0)] = '\0';
}

/* The file is the one recorded, when the recording says which: -ESTALE if not. */
static int check_build_id(struct tally_annotate *a, const struct entry *e,
			  struct tally_dso_code *code)
{
	uint8_t want[TALLY_BUILD_ID_MAX], have[TALLY_BUILD_ID_MAX];
	char w[2 * TALLY_BUILD_ID_MAX + 1], h[2 * TALLY_BUILD_ID_MAX + 1];
	int nw = recorded_build_id(a, e->sym.dso_name, want);
	bool running = false;
	int nh;

	/* a vmlinux for a recording that noted none: it must be the running kernel */
	if (!nw && !strcmp(e->sym.dso_name, "[kernel.kallsyms]") &&
	    strcmp(tally_dso_code__path(code), e->sym.dso_name)) {
		nw = tally_build_id__kernel(want, sizeof(want));
		nw = nw > 0 ? nw : 0;
		running = nw > 0;
	}
	nh = nw ? tally_dso_code__build_id(code, have, sizeof(have)) : 0;
	if (!nw || (nw == nh && !memcmp(want, have, (size_t)nw)))
		return 0;
	hex(w, want, nw);
	hex(h, have, nh);
	if (!strcmp(tally_dso_code__path(code), e->sym.dso_name))
		snprintf(a->err, sizeof(a->err),
			 "Couldn't annotate %s:\n%s: build id mismatch: recorded %s, the file has %s "
			 "(rebuilt or replaced since): its code is not the one sampled\n",
			 e->sym.name, e->sym.dso_name, w, nh ? h : "none");
	else
		snprintf(a->err, sizeof(a->err),
			 "Couldn't annotate %s:\n%s: build id mismatch: %s %s, %s has %s "
			 "(another kernel's): its code is not the one sampled\n",
			 e->sym.name, e->sym.dso_name,
			 running ? "the running kernel's is" : "recorded", w,
			 tally_dso_code__path(code), nh ? h : "none");
	return -ESTALE;
}

int tally__ann_set_err(struct tally_annotate *a, const struct entry *e, int err)
{
	const char *why;

	switch (err) {
	case -ENOENT:
		why = "the file is gone";
		break;
	case -ESTALE:
		why = "its build id is not the recorded one: it was rebuilt or replaced";
		break;
	case -ENOEXEC: {
		/* perf's words, the recorded build id in them */
		uint8_t id[TALLY_BUILD_ID_MAX];
		char bid[2 * TALLY_BUILD_ID_MAX + 16] = "";
		int n = recorded_build_id(a, e->sym.dso_name, id);

		if (n > 0) {
			strcpy(bid, " with build id ");
			hex(bid + strlen(bid), id, n);
		}
		/*
		 * perf's words, less its note on CAP_SYS_RAWIO: the kernel's
		 * code is in no vmlinux and this kernel has no kcore at all
		 * (an unreadable one is -EACCES)
		 */
		snprintf(a->err, sizeof(a->err),
			 "Couldn't annotate %s:\nNo vmlinux file%s\nwas found in the path, and "
			 "%s is absent: this kernel has no kcore to read its code from "
			 "(CONFIG_PROC_KCORE).\n\n"
			 "Please use:\n\n  perf buildid-cache -vu vmlinux\n\nor:\n\n  --vmlinux vmlinux\n",
			 e->sym.name, bid, a->kcore ? a->kcore : "/proc/kcore");
		return err;
	}
	case -ENOTSUP:
		why = "JIT or anonymous code: no file holds its bytes";
		break;
	case -EACCES:
	case -EPERM:
		why = "/proc/kcore, where the kernel's code is read, is root's only: "
		      "run as root or give --vmlinux FILE";
		break;
	case -ERANGE:
		why = "the vmlinux is not linked where the kernel ran (KASLR moved it): "
		      "its addresses are not the sampled ones";
		break;
	case -ENODATA:
		why = "no code for it in the file";
		break;
	default:
		why = strerror(-err);
		break;
	}
	snprintf(a->err, sizeof(a->err), "Couldn't annotate %s:\n%s: %s\n", e->sym.name,
		 e->sym.dso_name, why);
	return err;
}

/*
 * Symbol idx's code, checked: its entry, code and bytes from its start
 * (*avail of them). 0, or -errno with the reason in a->err.
 */
int tally__ann_sym_code(struct tally_annotate *a, int idx, const struct entry **ep,
		    struct tally_dso_code **codep, const uint8_t **bytes, size_t *avail,
		    const char **section)
{
	const struct entry *e;
	int err;

	if (!a || idx < 0 || idx >= a->nr)
		return tally__err(EINVAL);
	a->err[0] = '\0';
	*ep = e = &a->v[idx];
	if (!(*codep = code_get(a, e->sym.dso, &err)))
		return tally__ann_set_err(a, e, err);
	if ((err = check_build_id(a, e, *codep)))
		return err;
	if (!(*bytes = tally_dso_code__bytes(*codep, e->sym.start, avail, section)))
		return tally__ann_set_err(a, e, -errno);
	return 0;
}

static bool nop_line(const struct tally_annotate_line *l, const char *text)
{
	const char *p = text;
	char name[16];
	size_t n = 0;

	if (l->offset >= 0) {
		while (*p == ' ')
			p++;
		while (p[n] && p[n] != ' ' && n < sizeof(name) - 1) {
			name[n] = p[n];
			n++;
		}
		name[n] = '\0';
		if (!strcmp(name, "nop") || !strcmp(name, "nopl") || !strcmp(name, "nopw"))
			return true;
	}
	return strstr(text, " nop ") || strstr(text, " nopl ") || strstr(text, " nopw ");
}

/*
 * After a symbol: its DSO's DWARF goes (a profile's symbols are mostly in
 * units of their own: kept, libc's line tables alone grew to 13 MB), and
 * after its DSO's last symbol the DSO's code too. Either opens again if
 * asked (the browser, --print-line).
 */
void tally__ann_release_after(struct tally_annotate *a, int idx)
{
	const struct entry *e;

	if (!a || idx < 0 || idx >= a->nr)
		return;
	e = &a->v[idx];
	tally_dso__release_dwarf(e->sym.dso);
	if (!e->dso_last)
		return;
	for (int i = 0; i < a->nr_codes; i++)
		if (a->codes[i].dso == e->sym.dso) {
			tally_dso_code__close(a->codes[i].code);
			a->codes[i] = a->codes[--a->nr_codes];
			break;
		}
}

static int make_lines(struct tally_annotate *a, int idx, struct tally_annotate_lines *out);

int tally_annotate__lines(struct tally_annotate *a, int idx, struct tally_annotate_lines *out)
{
	int err = make_lines(a, idx, out);

	tally__ann_release_after(a, idx);
	return err;
}

static int make_lines(struct tally_annotate *a, int idx, struct tally_annotate_lines *out)
{
	struct tally_dso_code *code;
	const struct entry *e;
	struct mk m = { 0 };
	const uint8_t *bytes;
	const char *section = NULL;
	char func[1024], prev_func[1024] = "", path[4096];
	const char *cdir;
	uint64_t start, end, base, addr, tot_nr, tot_period;
	size_t avail;
	int err, prev_line = -1, last;
	unsigned prev_disc = 0;
	const char *fname;
	bool names;
	char line[4096], text[512];

	if (!out)
		return tally__err(EINVAL);
	memset(out, 0, sizeof(*out));
	if ((err = tally__ann_sym_code(a, idx, &e, &code, &bytes, &avail, &section)))
		return err;
	start = base = e->sym.start;
	end = e->sym.end;
	names = tally_dso_code__has_names(code);
	/*
	 * perf names the DSO (its code may be the recorded build's copy in the
	 * build-id cache), the kernel's by the file read: a vmlinux or kcore
	 */
	out->file = e->sym.dso_name[0] == '[' && strcmp(e->sym.dso_name, "[vdso]") ?
		    tally_dso_code__path(code) : e->sym.dso_name;
	for (int i = 0; i < a->nr_files; i++) {
		a->files[i].max_printed = 0;
		a->files[i].last_line = 0;
		a->files[i].first = true;
	}
	/* objdump's head, less the "file format" line perf drops */
	err = mk_line(&m, "", start, end) || mk_line(&m, "", start, end) ||
	      mk_line(&m, "", start, end);
	snprintf(line, sizeof(line), "Disassembly of section %s:", section ? section : ".text");
	err = err || mk_line(&m, line, start, end) || mk_line(&m, "", start, end);
	{
		uint64_t off = 0;
		/* a file without names: objdump calls the function by its section */
		const char *nm = names ? tally_dso_code__sym(code, start, &off) : section;

		if (nm && off)
			snprintf(line, sizeof(line), "%016" PRIx64 " <%s+0x%" PRIx64 ">:", start, nm,
				 off);
		else
			snprintf(line, sizeof(line), "%016" PRIx64 " <%s>:", start,
				 nm ? nm : e->sym.name);
	}
	err = err || mk_line(&m, line, start, end);
	for (addr = start; !err && addr < end;) {
		const char *file;
		int ln, len;
		unsigned disc;
		uint64_t off = 0;
		const char *nm;

		if (addr - base >= avail) {
			/* past the section's end: objdump goes on into the next one */
			const uint8_t *nb = tally_dso_code__next_section(code, addr - 1, end, &base,
									 &avail, &section);

			if (!nb)
				break;
			bytes = nb;
			addr = base;
			snprintf(line, sizeof(line), "Disassembly of section %s:", section);
			err = mk_line(&m, "", start, end) || mk_line(&m, line, start, end);
			if (!names || !(nm = tally_dso_code__section_sym(code, base, &off)))
				snprintf(line, sizeof(line), "%016" PRIx64 " <%s>:", base, section);
			else if (off > base)
				snprintf(line, sizeof(line), "%016" PRIx64 " <%s-0x%" PRIx64 ">:", base,
					 nm, off - base);
			else
				snprintf(line, sizeof(line), "%016" PRIx64 " <%s>:", base, nm);
			err = err || mk_line(&m, "", start, end) || mk_line(&m, line, start, end);
			continue;
		}
		/* objdump labels each symbol that starts in the range */
		if (names && addr != start && addr != base &&
		    (nm = tally_dso_code__sym(code, addr, &off)) && !off) {
			snprintf(line, sizeof(line), "%016" PRIx64 " <%s>:", addr, nm);
			err = mk_line(&m, "", start, end) || mk_line(&m, line, start, end);
		}

		/* objdump -l's function and file:line, -S's source, as they change */
		if (!tally_dso__objdump_line(e->sym.dso, addr, &file, &ln, &disc)) {
			if (!tally_dso__objdump_func(e->sym.dso, addr, func, sizeof(func)) &&
			    strcmp(func, prev_func)) {
				err = mk_line(&m, func, start, end);
				snprintf(prev_func, sizeof(prev_func), "%s", func);
				prev_line = -1;
			}
			/* binutils puts a relative file under the unit's directory */
			if (file[0] != '/' && (cdir = tally_dso__comp_dir(e->sym.dso, addr))) {
				snprintf(path, sizeof(path), "%s/%s", cdir, file);
				file = path;
			}
			if (ln > 0 && (ln != prev_line || disc != prev_disc)) {
				if (disc)
					snprintf(line, sizeof(line), "%s:%d (discriminator %u)", file, ln,
						 disc);
				else
					snprintf(line, sizeof(line), "%s:%d", file, ln);
				err = err || mk_line(&m, line, start, end);
			}
			if (!a->no_source && ln > 0) {
				struct srcfile *f = tally__ann_src_get(a, file);

				if (f)
					err = err || show_source(&m, f, ln, start, end);
			}
			if (ln > 0)
				prev_line = ln;
			prev_disc = disc;
		} else if (names && !tally_dso_code__func(code, addr, &fname)) {
			/* no line table here: objdump -l names the function from .symtab */
			snprintf(func, sizeof(func), "%s():", fname);
			if (strcmp(func, prev_func)) {
				err = err || mk_line(&m, func, start, end);
				snprintf(prev_func, sizeof(prev_func), "%s", func);
			}
		}
		len = tally_disasm__insn(a->dis, bytes + (addr - base), avail - (addr - base), addr,
					 names ? tally_dso_code__sym : NULL, code, text, sizeof(text));
		if (len <= 0)
			break;
		if (a->asm_raw) {
			char raw[64] = "";
			size_t k = 0;

			for (int b = 0; b < len && b < 7; b++)
				k += (size_t)snprintf(raw + k, sizeof(raw) - k, "%02x ",
						      bytes[addr - base + (uint64_t)b]);
			snprintf(line, sizeof(line), "%" PRIx64 ":\t%-21s\t%s", addr, raw, text);
			err = err || mk_line(&m, line, start, end);
			for (int b = 7; b < len && !err; b += 7) {
				k = 0;
				raw[0] = '\0';
				for (int c = b; c < len && c < b + 7; c++)
					k += (size_t)snprintf(raw + k, sizeof(raw) - k, "%02x ",
							      bytes[addr - base + (uint64_t)c]);
				while (k && raw[k - 1] == ' ')
					raw[--k] = '\0';
				snprintf(line, sizeof(line), "%" PRIx64 ":\t%s", addr + (uint64_t)b, raw);
				err = mk_line(&m, line, start, end);
			}
		} else {
			snprintf(line, sizeof(line), "%" PRIx64 ":\t%s", addr, text);
			err = err || mk_line(&m, line, start, end);
		}
		addr += (uint64_t)len;
	}
	if (err) {
		free(m.v);
		free(m.text_off);
		free(m.buf);
		return tally__ann_set_err(a, e, -ENOMEM);
	}
	/*
	 * perf drops the nops that pad the function's end only for kcore's
	 * code (kallsyms has no sizes); a sizeless ELF symbol (crtstuff's
	 * __do_global_dtors_aux) keeps its padding up to the next symbol
	 */
	while (!names && m.nr && nop_line(&m.v[m.nr - 1], m.buf + m.text_off[m.nr - 1]))
		m.nr--;
	tally_annotate__totals(a, e->sym.attr, &tot_nr, &tot_period);
	last = -1;
	for (int i = 0; i < m.nr; i++) {
		struct tally_annotate_line *l = &m.v[i];
		int64_t to;
		int nx;

		l->text = m.buf + m.text_off[i];
		if (l->offset < 0)
			continue;
		last = i;
		for (nx = i + 1; nx < m.nr && m.v[nx].offset < 0; nx++)
			;
		to = nx < m.nr ? m.v[nx].offset : (int64_t)(end - start);
		tally__ann_hits_in(e, (uint64_t)l->offset, (uint64_t)to, &l->nr_samples, &l->period);
		if (e->sym.nr_samples)
			l->percent[TALLY_PERCENT_LOCAL_HITS] = 100.0 * (double)l->nr_samples /
							       (double)e->sym.nr_samples;
		if (tot_nr)
			l->percent[TALLY_PERCENT_GLOBAL_HITS] = 100.0 * (double)l->nr_samples /
								(double)tot_nr;
		if (e->sym.period)
			l->percent[TALLY_PERCENT_LOCAL_PERIOD] = 100.0 * (double)l->period /
								 (double)e->sym.period;
		if (tot_period)
			l->percent[TALLY_PERCENT_GLOBAL_PERIOD] = 100.0 * (double)l->period /
								  (double)tot_period;
	}
	if (last >= 0)
		out->addr_width = snprintf(line, sizeof(line), "%" PRIx64, m.v[last].addr);
	out->v = m.v;
	out->nr = m.nr;
	out->mem = m.buf;
	free(m.text_off);
	return 0;
}

void tally_annotate_lines__free(struct tally_annotate_lines *l)
{
	if (!l)
		return;
	free(l->v);
	free(l->mem);
	memset(l, 0, sizeof(*l));
}

/* ---- the source-only view -------------------------------------- */
