// SPDX-License-Identifier: MIT
/*
 * tally probe: a perf probe spec resolved against a binary's DWARF into
 * uprobe_events lines, as perf 6.1 resolves it (probe points of
 * functions, their inlined copies, relative and absolute lines, lazy
 * patterns, offsets and returns; arguments by name; perf's group and
 * event names with their _L/__return/_N suffixes). SDT markers come from
 * the ELF notes (probe_sdt.c).
 */
#include <ctype.h>
#include <dwarf.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/dynprobe.h>
#include "events_internal.h"
#include "internal.h"
#include "probe_dbg.h"

#define PERF_MAX_PROBES 128

#define point probe_addr

struct points {
	struct point *v;
	size_t nr;
};

static int add_point(struct points *ps, Dwarf_Addr addr, Dwarf_Die *scope, Dwarf_Die *cu,
		     const char *name)
{
	struct point *nv;

	for (size_t i = 0; i < ps->nr; i++)
		if (ps->v[i].addr == addr && !strcmp(ps->v[i].name, name))
			return 0;
	nv = realloc(ps->v, (ps->nr + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	ps->v = nv;
	nv[ps->nr].addr = addr;
	nv[ps->nr].is_offset = false;
	nv[ps->nr].scope = *scope;
	nv[ps->nr].cu = *cu;
	snprintf(nv[ps->nr].name, sizeof(nv[ps->nr].name), "%s", name);
	ps->nr++;
	return 0;
}

/* perf_probe_with_var: an argument that names a variable */
static bool with_var(const struct probe_point *pp)
{
	for (size_t i = 0; i < pp->nr_args; i++) {
		const struct probe_arg *a = &pp->args[i];

		if (!a->raw && (a->var[0] != '$' || !strcmp(a->var, "$params") ||
				!strcmp(a->var, "$vars")))
			return true;
	}
	return false;
}

struct line_ctx {
	struct points *ps;
	Dwarf_Die *cu, *fn;
	const char *file, *name;
	const char *func, *fname;	/* the spec's function, the file perf's best scope is declared in */
	const int *lines;
	size_t nl;
	bool exact;		/* a line asked by number: it must map back to itself */
	char *err;
	size_t errlen;
};

/*
 * perf's find_best_scope, where a line's arguments are looked up: of the
 * functions at addr, outermost first (the real one, then its inlined
 * copies) declared in fname, the one named func; without func the one
 * declared nearest above the line; else the innermost
 */
static bool best_scope(Dwarf_Die *cu, Dwarf_Addr addr, const char *func, const char *fname,
		       int line, Dwarf_Die *out)
{
	Dwarf_Die sc, next;
	const char *q = func ? strrchr(func, ':') : NULL;
	int diff = INT_MAX;
	bool found = false;

	if (q)
		func = q + 1;	/* a C++ qualified name: its DIEs' own names */
	if (!tally__probe_realfunc_at(cu, addr, &sc))
		return false;
	for (;;) {
		const char *df = dwarf_decl_file(&sc), *name = tally__probe_die_name(&sc);
		int lno = 0;

		if (!fname || (df && !strcmp(fname, df))) {
			if (func) {
				if (name && !fnmatch(func, name, 0)) {
					*out = sc;
					return true;
				}
			} else if (!dwarf_decl_line(&sc, &lno) && lno < line && diff > line - lno) {
				diff = line - lno;
				*out = sc;
				found = true;
			}
		}
		if (!tally__probe_inlined_at(&sc, addr, &next))
			break;
		sc = next;
	}
	return found || tally__probe_func_at(cu, addr, out);
}

static int line_cb(const char *src, int lno, Dwarf_Addr addr, void *ctx)
{
	struct line_ctx *c = ctx;
	Dwarf_Die scope, inner;
	size_t i;

	for (i = 0; i < c->nl && c->lines[i] != lno; i++)
		;
	if (i == c->nl || !tally__probe_tail_match(src, c->file))
		return 0;
	if (c->exact) {
		const char *rf;
		int rl;

		if (!tally__probe_line_reversible(c->cu, src, lno, addr, &rf, &rl)) {
			tally__probe_err(c->err, c->errlen, "This line is sharing the address with other lines.\n"
					 "Please try to probe at %s:%d instead.", rf, rl);
			return -ENOENT;
		}
	}
	/* the event is named after the innermost function, the arguments looked up in perf's best scope */
	if (!tally__probe_func_at(c->cu, addr, &inner) ||
	    !best_scope(c->cu, addr, c->func, c->fname, lno, &scope))
		return 0;
	return add_point(c->ps, addr, &scope, c->cu,
			 c->name ? c->name : tally__probe_die_name(&inner) ?
			 tally__probe_die_name(&inner) : "probe");
}

/* the addresses of these lines of file in cu (perf's line walk; in fn when given) */
static int line_points(struct points *ps, Dwarf_Die *cu, const char *file, const int *lines,
		       size_t nl, Dwarf_Die *fn, const char *name, const char *func, const char *fname,
		       char *err, size_t len)
{
	struct line_ctx c = { ps, cu, fn, file, name, func, fname, lines, nl, err != NULL, err, len };

	return tally__probe_walk_lines(cu, fn, line_cb, &c);
}

/* lines of the source file matching a lazy pattern, from..to (1-based) */
static int lazy_lines(Dwarf_Die *cu, const char *file, const char *pattern, int from, int to,
		      int **out, size_t *nr, char *err, size_t len)
{
	char *path = tally__probe_src_path(cu, file), *buf = NULL;
	size_t cap = 0;
	FILE *fp = path ? fopen(path, "re") : NULL;
	int lno = 0;

	*out = NULL;
	*nr = 0;
	if (!fp) {
		tally__probe_err(err, len, "Failed to open %s: %s", path ? path : file, strerror(errno));
		free(path);
		return -ENOENT;
	}
	while (getline(&buf, &cap, fp) > 0) {
		size_t n = strlen(buf);

		lno++;
		if (lno < from || (to && lno > to))
			continue;
		while (n && buf[n - 1] == '\n')
			buf[--n] = '\0';
		if (tally__probe_lazy_match(pattern, buf)) {
			int *nv = realloc(*out, (*nr + 1) * sizeof(*nv));

			if (!nv)
				break;
			*out = nv;
			nv[(*nr)++] = lno;
		}
	}
	free(buf);
	fclose(fp);
	free(path);
	return 0;
}

static int func_points(struct probe_dbg *d, const struct probe_point *pp, struct points *ps,
		       char *err, size_t len)
{
	struct probe_inst *in;
	size_t nr;
	char name[256];
	int e = tally__probe_find_funcs(d, pp->func, pp->file, &in, &nr);

	if (e)
		return e;
	for (size_t i = 0; !e && i < nr; i++) {
		const char *fname = tally__probe_die_name(&in[i].die);
		Dwarf_Die fn = in[i].die;

		if (pp->ret && in[i].inlined)
			continue;
		if (pp->has_line) {
			int decl;
			const char *df;
			Dwarf_Die origin;
			Dwarf_Attribute a;

			if (in[i].inlined && dwarf_formref_die(dwarf_attr(&fn, DW_AT_abstract_origin, &a), &origin))
				fn = origin;
			df = dwarf_decl_file(&fn);
			if (!df || dwarf_decl_line(&fn, &decl))
				continue;
			int want = decl + (int)pp->line;

			snprintf(name, sizeof(name), "%s_L%ld", fname, pp->line);
			e = line_points(ps, &in[i].cu, df, &want, 1, NULL, name, pp->func, df, err, len);
		} else if (pp->lazy) {
			int decl, *lines;
			size_t nl;
			const char *df;
			Dwarf_Die origin;
			Dwarf_Attribute a;

			if (in[i].inlined && dwarf_formref_die(dwarf_attr(&fn, DW_AT_abstract_origin, &a), &origin))
				fn = origin;
			df = dwarf_decl_file(&fn);
			if (!df || dwarf_decl_line(&fn, &decl))
				continue;
			if ((e = lazy_lines(&in[i].cu, df, pp->lazy, 1, 0, &lines, &nl, err, len)))
				break;
			e = line_points(ps, &in[i].cu, df, lines, nl, &in[i].die, fname, pp->func, df, NULL, 0);
			free(lines);
		} else {
			Dwarf_Addr a = tally__probe_entry(&in[i], !pp->ret && !pp->offset && with_var(pp));

			e = add_point(ps, a + pp->offset, &in[i].die, &in[i].cu, fname);
		}
	}
	free(in);
	return e;
}

static int file_points(struct probe_dbg *d, const struct probe_point *pp, struct points *ps,
		       char *err, size_t len)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int e = 0;

	while (!e && dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Files *files;
		size_t nf;
		const char *match = NULL;

		if (!dwarf_offdie(d->dw, off + hsize, &cu) || dwarf_getsrcfiles(&cu, &files, &nf)) {
			off = next;
			continue;
		}
		for (size_t i = 0; i < nf && !match; i++) {
			const char *f = dwarf_filesrc(files, i, NULL, NULL);

			if (f && tally__probe_tail_match(f, pp->file))
				match = f;
		}
		if (match) {
			if (pp->lazy) {
				int *lines;
				size_t nl;

				if (!(e = lazy_lines(&cu, match, pp->lazy, 1, 0, &lines, &nl, err, len))) {
					e = line_points(ps, &cu, pp->file, lines, nl, NULL, NULL, NULL, match, NULL, 0);
					free(lines);
				}
			} else {
				int want = (int)pp->line;

				e = line_points(ps, &cu, pp->file, &want, 1, NULL, NULL, NULL, match, err, len);
			}
		}
		off = next;
	}
	return e;
}

int tally__probe_points(struct probe_dbg *d, const struct probe_point *pp, const char *spec,
			struct probe_addr **out, size_t *nr, char *err, size_t len)
{
	struct points ps = { 0 };
	int e = pp->func ? func_points(d, pp, &ps, err, len) : file_points(d, pp, &ps, err, len);

	if (!e && !ps.nr) {
		if (pp->ret && pp->func)
			tally__probe_err(err, len, "Failed to find symbol %s in %s", pp->func, d->path);
		else if (pp->func && !pp->has_line && !pp->lazy)
			tally__probe_err(err, len, "Probe point '%s' not found.", pp->func);
		else
			tally__probe_err(err, len, "Probe point '%s' not found.", spec);
		e = -ENOENT;
	}
	if (e) {
		free(ps.v);
		return e;
	}
	*out = ps.v;
	*nr = ps.nr;
	return 0;
}

/*
 * A function by its symbol, in a binary without DWARF: only what needs
 * no debug info (FUNC[+OFF][%return], raw fetches and $retval).
 */
static int symbol_point(struct probe_dbg *d, const struct probe_point *pp, struct points *ps,
			char *err, size_t len)
{
	uint64_t off;
	struct point *pt;

	for (size_t i = 0; i < pp->nr_args; i++)
		if (!pp->args[i].raw && strcmp(pp->args[i].var, "$retval")) {
			tally__probe_err(err, len, "The %s file has no debug information: '%s' needs it.\n"
					 "Rebuild with -g, or install an appropriate debuginfo package.",
					 d->path, pp->args[i].var);
			return -ENOENT;
		}
	if (!pp->func || pp->file || pp->has_line || pp->lazy || strpbrk(pp->func, "*?[")) {
		tally__probe_err(err, len, "The %s file has no debug information: lines, files and globs "
				 "need it.\nRebuild with -g, or install an appropriate debuginfo package.", d->path);
		return -ENOENT;
	}
	if (tally__elf_sym_offset(d->path, pp->func, &off)) {
		tally__probe_err(err, len, "Failed to find symbol %s in %s", pp->func, d->path);
		return -ENOENT;
	}
	if (!(pt = calloc(1, sizeof(*pt))))
		return -ENOMEM;
	pt->addr = off + pp->offset;
	pt->is_offset = true;
	snprintf(pt->name, sizeof(pt->name), "%s", pp->func);
	ps->v = pt;
	ps->nr = 1;
	return 0;
}

/* perf's default group: probe_ and the binary's name up to its first '-' or '.' */
static void default_group(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	snprintf(buf, len, "probe_%.*s", (int)strcspn(base, "-."), base);
	for (char *p = buf; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
}

/* a C name: cut at '.' or '@' (foo.part.0), other odd characters as '_' */
static void event_base(const char *name, const char *suffix, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s%s", (int)strcspn(name, ".@"), name, suffix);
	for (char *p = buf; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			*p = '_';
	if (isdigit((unsigned char)buf[0]) && len > 1) {
		memmove(buf + 1, buf, strnlen(buf, len - 2) + 1);
		buf[0] = '_';
	}
}

/* perf 6.1 takes a name as used when any group has it (its namelist compares events) */
static bool taken(char **names, size_t nr, const char *group, const char *ev)
{
	for (size_t i = 0; i < nr; i++) {
		const char *sl = strchr(names[i], '/');

		if (!strcmp(sl ? sl + 1 : names[i], ev))
			return true;
	}
	return false;
}

/* the "group/event" of each uprobe_events line */
static void existing_names(char ***names, size_t *nr)
{
	char **lines;
	size_t n;

	*names = NULL;
	*nr = 0;
	if (tally_uprobe_events__list(&lines, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		char *c = strchr(lines[i], ':'), *sp;

		if (!c)
			continue;
		sp = strchr(c, ' ');
		if (sp)
			*sp = '\0';
		memmove(lines[i], c + 1, strlen(c + 1) + 1);
	}
	*names = lines;
	*nr = n;
}

static int arg_text(struct probe_dbg *d, const struct probe_point *pp, struct point *pt,
		    char **out, char *err, size_t len)
{
	size_t cap = 256, n = 0;
	char *s = malloc(cap);
	int e = 0;

	if (!s)
		return -ENOMEM;
	s[0] = '\0';
#define APPEND(...) do {						\
		int w_ = snprintf(NULL, 0, __VA_ARGS__);		\
		if (n + (size_t)w_ + 1 > cap) {				\
			char *ns_ = realloc(s, cap = (n + (size_t)w_ + 1) * 2); \
			if (!ns_) { e = -ENOMEM; goto out; }		\
			s = ns_;					\
		}							\
		n += (size_t)snprintf(s + n, cap - n, __VA_ARGS__);	\
	} while (0)
	for (size_t i = 0; i < pp->nr_args; i++) {
		const struct probe_arg *a = &pp->args[i];
		char fetch[512], name[256];

		if (a->raw || !strncmp(a->var, "$retval", 7) || !strncmp(a->var, "$arg", 4) ||
		    (a->var[0] == '$' && strcmp(a->var, "$params") && strcmp(a->var, "$vars"))) {
			/* passed through, as perf writes them */
			if (a->name)
				APPEND(" %s=%s%s%s", a->name, a->var, a->type ? ":" : "", a->type ? a->type : "");
			else
				APPEND(" %s%s%s", a->var, a->type ? ":" : "", a->type ? a->type : "");
			continue;
		}
		if (!strcmp(a->var, "$params") || !strcmp(a->var, "$vars")) {
			Dwarf_Die *vars = NULL;
			size_t nv = 0;

			e = tally__probe_collect_vars(d, &pt->scope, &pt->cu, pt->addr,
						      !strcmp(a->var, "$params"), !strcmp(a->var, "$vars"),
						      false, &vars, &nv);
			if (!e && !nv) {
				/* perf 6.1: nothing to expand is a variable without a location */
				tally__probe_err(err, len, "Failed to find the location of the '%s' variable at this address.\n"
						 " Perhaps it has been optimized out.\n"
						 " Use -V with the --range option to show '%s' location range.",
						 a->var, a->var);
				e = -ENOENT;
			}
			for (size_t k = 0; !e && k < nv; k++) {
				struct probe_arg va = { .var = (char *)tally__probe_die_name(&vars[k]) };

				if (!va.var)
					continue;
				e = tally__probe_fetch_var(d, &pt->scope, &pt->cu, pt->addr, &va, &vars[k],
							   fetch, sizeof(fetch), err, len);
				if (!e)
					APPEND(" %s=%s", va.var, fetch);
			}
			free(vars);
			if (e)
				goto out;
			continue;
		}
		if ((e = tally__probe_fetch_var(d, &pt->scope, &pt->cu, pt->addr, a, NULL,
						fetch, sizeof(fetch), err, len)))
			goto out;
		/* perf's names: NAME=, the last member's, VAR_TYPE, or VAR */
		if (a->name) {
			snprintf(name, sizeof(name), "%s", a->name);
		} else {
			const char *last = a->var;

			for (size_t k = 0; k < a->nr_fields; k++)
				if (a->fields[k].name)
					last = a->fields[k].name;
			if (a->nr_fields || !a->type)
				snprintf(name, sizeof(name), "%s", last);
			else
				snprintf(name, sizeof(name), "%s_%s", a->var, a->type);
		}
		APPEND(" %s=%s", name, fetch);
	}
#undef APPEND
out:
	if (e) {
		free(s);
		return e;
	}
	*out = s;
	return 0;
}

char *tally__probe_where(const struct probe_point *pp, bool args)
{
	char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	if (!args) {
		char file[300] = "", line[32] = "", off[32] = "";

		/* perf's synthesize_perf_probe_point: the file's last 30 characters */
		if (pp->file) {
			const char *f = pp->file;
			size_t fl = strlen(f);

			if (fl > 30) {
				const char *sl = strchr(f + fl - 30, '/');

				f = sl ? sl + 1 : f + fl - 30;
			}
			snprintf(file, sizeof(file), "@%s", f);
		}
		if (pp->has_line)
			snprintf(line, sizeof(line), ":%ld", pp->line);
		if (pp->offset)
			snprintf(off, sizeof(off), "+%llu", (unsigned long long)pp->offset);
		if (pp->func)
			snprintf(buf, sizeof(buf), "%s%s%s%s%s", pp->func, off, pp->ret ? "%return" : "",
				 line, file);
		else
			snprintf(buf, sizeof(buf), "%s%s", file, line);
		return strdup(buf);
	}
	for (size_t i = 0; i < pp->nr_args && n < sizeof(buf); i++) {
		const struct probe_arg *a = &pp->args[i];

		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? " " : " with ",
				      a->name ? a->name : a->var);
	}
	return strdup(buf);
}

static int push_event(struct tally_probe_events *out, const struct tally_probe_event *ev)
{
	struct tally_probe_event *nv = realloc(out->ev, (out->nr + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	out->ev = nv;
	nv[out->nr++] = *ev;
	return 0;
}

static void event_free(struct tally_probe_event *ev)
{
	free(ev->group);
	free(ev->event);
	free(ev->path);
	free(ev->args);
	free(ev->where);
	free(ev->argnames);
}

void tally_probe_events__clear(struct tally_probe_events *evs)
{
	for (size_t i = 0; evs && i < evs->nr; i++)
		event_free(&evs->ev[i]);
	if (evs) {
		free(evs->ev);
		evs->ev = NULL;
		evs->nr = 0;
	}
}

char *tally_probe_event__line(const struct tally_probe_event *ev)
{
	char *s, ref[40] = "";

	if (ev->ref_ctr)
		snprintf(ref, sizeof(ref), "(0x%llx)", (unsigned long long)ev->ref_ctr);
	if (asprintf(&s, "%c:%s/%s %s:0x%llx%s%s", ev->ret ? 'r' : 'p', ev->group, ev->event,
		     ev->path, (unsigned long long)ev->offset, ref, ev->args ? ev->args : "") < 0)
		return NULL;
	return s;
}

static bool name_used(const struct tally_probe_events *out, size_t upto, const char *group,
		      const char *ev, char **names, size_t nn)
{
	for (size_t j = 0; j < upto; j++)
		if (!strcmp(out->ev[j].event, ev))
			return true;
	return taken(names, nn, group, ev);
}

/*
 * The final names of this spec's events [first, nr): their event field
 * holds the base name. The addresses of one base share one name (a
 * multi-probe event, as perf 6.1 makes); a base taken already is an
 * error, or gets perf's _1, _2... with force.
 */
static int name_events(struct tally_probe_events *out, size_t first, char **names, size_t nn,
		       bool force, char *err, size_t len)
{
	size_t n = out->nr - first;
	char **base = calloc(n ? n : 1, sizeof(*base));
	int e = 0;

	if (!base)
		return -ENOMEM;
	for (size_t i = first; !e && i < out->nr; i++) {
		struct tally_probe_event *ev = &out->ev[i];
		char cand[300];
		size_t j;

		base[i - first] = ev->event;
		for (j = first; j < i; j++)
			if (!strcmp(out->ev[j].group, ev->group) && !strcmp(base[j - first], ev->event))
				break;
		if (j < i) {
			ev->event = strdup(out->ev[j].event);
			e = ev->event ? 0 : -ENOMEM;
			continue;
		}
		snprintf(cand, sizeof(cand), "%s", base[i - first]);
		if (name_used(out, i, ev->group, cand, names, nn)) {
			if (!force) {
				tally__probe_err(err, len, "Error: event \"%s\" already exists.\n"
						 " Hint: Remove existing event by 'tally probe -d'\n"
						 "       or force duplicates by 'tally probe -f'", cand);
				e = -EEXIST;
				ev->event = NULL;
				break;
			}
			for (int k = 1; k < 10000; k++) {
				snprintf(cand, sizeof(cand), "%s_%d", base[i - first], k);
				if (!name_used(out, i, ev->group, cand, names, nn))
					break;
			}
		}
		ev->event = strdup(cand);
		e = ev->event ? 0 : -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		free(base[i]);
	free(base);
	return e;
}

int tally_probe__resolve(const char *binary, const char *spec, const struct tally_probe_opts *opts,
			 struct tally_probe_events *out, char *err, size_t len)
{
	struct probe_point pp;
	struct probe_dbg d;
	struct points ps = { 0 };
	char group[256], **names = NULL, *where = NULL, *argnames = NULL;
	size_t nn = 0, first = out->nr;
	int max = opts && opts->max_probes > 0 ? opts->max_probes : PERF_MAX_PROBES;
	bool force = opts && opts->force;
	int ns = TALLY_OPTS_GET(opts, target_ns, 0), e;
	struct tally_mntns back;

	if (err && len)
		err[0] = '\0';
	if ((e = tally__probe_parse(spec, &pp, err, len)))
		return e;
	/* the names taken are ours (tracefs may not be there); the binary is as target_ns sees it */
	existing_names(&names, &nn);
	if (ns > 0 && (e = tally_mntns__enter(ns, &back))) {
		tally__probe_err(err, len, "Failed to enter the mount namespace of %d: %s", ns, strerror(-e));
		goto out_pp;
	}
	e = tally__probe_dbg_open(&d, binary, err, len, false);
	if (e)
		goto out_ns;
	d.no_inlines = TALLY_OPTS_GET(opts, no_inlines, false);
	if (pp.sdt) {
		e = tally__probe_sdt_events(&d, &pp, out, err, len);
		goto named;
	}
	if (!d.dw) {
		/* no DWARF: a function by its ELF symbol, as perf falls back (libc's malloc) */
		if ((e = symbol_point(&d, &pp, &ps, err, len)))
			goto out;
	} else if ((e = tally__probe_points(&d, &pp, spec, &ps.v, &ps.nr, err, len))) {
		/* not in the DWARF under that name (libc's malloc is __libc_malloc there): its symbol */
		char dwarf_err[512];

		if (e != -ENOENT || !pp.func || pp.file || pp.has_line || pp.lazy || with_var(&pp))
			goto out;
		snprintf(dwarf_err, sizeof(dwarf_err), "%s", err ? err : "");
		/* no such symbol either: perf's "Probe point 'f' not found." stands */
		if ((e = symbol_point(&d, &pp, &ps, NULL, 0))) {
			tally__probe_err(err, len, "%s", dwarf_err);
			goto out;
		}
	}
	if (ps.nr > (size_t)max) {
		tally__probe_err(err, len, "Too many( > %d) probe point found.", max);
		e = -E2BIG;
		goto out;
	}
	if (pp.group)
		snprintf(group, sizeof(group), "%s", pp.group);
	else
		default_group(d.path, group, sizeof(group));
	where = tally__probe_where(&pp, false);
	argnames = tally__probe_where(&pp, true);
	for (size_t i = 0; i < ps.nr; i++) {
		struct tally_probe_event ev = { 0 };
		char base[300];

		/* perf 6.1 puts __return after a given name too (myr=work%return: myr__return) */
		if (pp.event)
			snprintf(base, sizeof(base), "%s%s", pp.event, pp.ret ? "__return" : "");
		else
			event_base(ps.v[i].name, pp.ret ? "__return" : "", base, sizeof(base));
		if (ps.v[i].is_offset)
			ev.offset = ps.v[i].addr;
		else if ((e = tally__probe_file_offset(&d, ps.v[i].addr, &ev.offset))) {
			tally__probe_err(err, len, "Failed to find the file offset of 0x%llx in %s",
					 (unsigned long long)ps.v[i].addr, d.path);
			goto out;
		}
		ev.ret = pp.ret;
		ev.group = strdup(group);
		ev.event = strdup(base);
		ev.path = strdup(d.path);
		ev.where = strdup(where ? where : "");
		ev.argnames = strdup(argnames ? argnames : "");
		if (!ev.group || !ev.event || !ev.path || !ev.where || !ev.argnames ||
		    (e = arg_text(&d, &pp, &ps.v[i], &ev.args, err, len)) || (e = push_event(out, &ev))) {
			event_free(&ev);
			e = e ? e : -ENOMEM;
			goto out;
		}
	}
named:
	if (!e)
		e = name_events(out, first, names, nn, force, err, len);
out:
	if (e) {
		while (out->nr > first)
			event_free(&out->ev[--out->nr]);
	}
	free(where);
	free(argnames);
	free(ps.v);
	tally__probe_dbg_close(&d);
out_ns:
	if (ns > 0)
		tally_mntns__exit(&back);
out_pp:
	tally_uprobe_events__free_list(names, nn);
	tally__probe_point_clear(&pp);
	if (e)
		errno = -e;
	return e;
}
