// SPDX-License-Identifier: MIT
/*
 * tally probe's listings, in perf probe 6.1's layout: -L (a function's
 * or a range's source, the probe-able lines numbered), -V (the
 * variables with a location at each probe address) and -F (the
 * binary's functions through perf's default filter "!_* & !*@plt").
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
#include <tally/symbols.h>
#include "probe_dbg.h"

#define NR_ADDITIONAL_LINES 2	/* perf's: lines shown past the last probe-able one */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_line(int **v, size_t *nr, int l)
{
	int *nv;

	for (size_t i = 0; i < *nr; i++)
		if ((*v)[i] == l)
			return 0;
	nv = realloc(*v, (*nr + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[(*nr)++] = l;
	return 0;
}

struct code_ctx {
	Dwarf_Die *cu;
	const char *file;
	int from, to, **v;
	size_t *nr;
};

static int code_cb(const char *src, int lno, Dwarf_Addr addr, void *ctx)
{
	struct code_ctx *c = ctx;

	if (lno < c->from || lno > c->to || !tally__probe_tail_match(src, c->file) ||
	    !tally__probe_line_reversible(c->cu, src, lno, addr, NULL, NULL))
		return 0;
	return add_line(c->v, c->nr, lno);
}

/* the lines of file in [from, to] perf's -L numbers (in fn when given) */
static int code_lines(Dwarf_Die *cu, const char *file, int from, int to, Dwarf_Die *fn,
		      int **v, size_t *nr)
{
	struct code_ctx c = { cu, file, from, to, v, nr };

	return tally__probe_walk_lines(cu, fn, code_cb, &c);
}

/* perf's __show_one_line: false at the end of the file */
static bool show_line(FILE *out, FILE *src, int num, bool numbered)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n = getline(&buf, &cap, src);

	if (n <= 0) {
		free(buf);
		return false;
	}
	if (numbered)
		fprintf(out, "%7d  %s", num, buf);
	else
		fprintf(out, "         %s", buf);
	if (buf[n - 1] != '\n')
		fputc('\n', out);
	free(buf);
	return true;
}

static int print_range(FILE *out, const char *path, int start, int end, int offset,
		       int *lines, size_t nr, char *err, size_t len)
{
	FILE *src = fopen(path, "re");
	int l = 1;

	if (!src) {
		tally__probe_err(err, len, "Failed to open %s: %s", path, strerror(errno));
		return -ENOENT;
	}
	qsort(lines, nr, sizeof(*lines), cmp_int);
	for (; l < start; l++) {
		char *buf = NULL;
		size_t cap = 0;
		ssize_t n = getline(&buf, &cap, src);

		free(buf);
		if (n <= 0) {
			fclose(src);
			tally__probe_err(err, len, "Source file is shorter than expected.");
			return -ENOENT;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		for (; lines[i] > l; l++)
			if (!show_line(out, src, l - offset, false))
				goto out;
		if (!show_line(out, src, l++ - offset, true))
			goto out;
	}
	if (end == INT_MAX)
		end = l + NR_ADDITIONAL_LINES;
	while (l <= end && show_line(out, src, l++ - offset, false))
		;
out:
	fclose(src);
	return 0;
}

int tally_probe__show_lines(FILE *fp, const char *binary, const char *spec, char *err, size_t len)
{
	struct probe_dbg d;
	char func[256] = "", file[PATH_MAX] = "";
	const char *p;
	int start = 0, end = INT_MAX, e, *lines = NULL;
	size_t nr = 0;

	/* FUNC[@SRC] or SRC:START[-END|+NUM]; a C++ FUNC's "::" is no line's ':' */
	for (p = strchr(spec, ':'); p && p[1] == ':'; p = strchr(p + 2, ':'))
		;
	if (p) {
		char *x;

		snprintf(file, sizeof(file), "%.*s", (int)(p - spec), spec);
		start = (int)strtol(p + 1, &x, 10);
		if (x == p + 1 || start < 1) {
			tally__probe_err(err, len, "Semantic error: Start line must be a positive number.");
			return -EINVAL;
		}
		if (*x == '-')
			end = (int)strtol(x + 1, &x, 10);
		else if (*x == '+')
			end = start + (int)strtol(x + 1, &x, 10) - 1;
		if (*x || end < start) {
			tally__probe_err(err, len, "Semantic error: Start line must be smaller than end line.");
			return -EINVAL;
		}
		if (!memchr(spec, '.', (size_t)(p - spec)) && !memchr(spec, '/', (size_t)(p - spec))) {
			tally__probe_err(err, len, "Sorry, FUNC:LINE ranges are not supported; use SRC:LINE.");
			return -ENOTSUP;
		}
	} else {
		p = strchr(spec, '@');
		snprintf(func, sizeof(func), "%.*s", (int)(p ? (size_t)(p - spec) : strlen(spec)), spec);
		if (p)
			snprintf(file, sizeof(file), "%s", p + 1);
	}
	if ((e = tally__probe_dbg_open(&d, binary, err, len, true)))
		return e;
	if (func[0]) {
		struct probe_inst *in;
		size_t ni;
		char *path = NULL;
		int decl = 0;

		if ((e = tally__probe_find_funcs(&d, func, file[0] ? file : NULL, &in, &ni)))
			goto out;
		for (size_t i = 0; !e && i < ni; i++) {
			Dwarf_Die fn = in[i].die, origin;
			Dwarf_Attribute a;
			const char *df;
			bool copy = dwarf_formref_die(dwarf_attr(&fn, DW_AT_abstract_origin, &a), &origin);

			/* perf shows the first unit's function of that name */
			if (i && dwarf_dieoffset(&in[i].cu) != dwarf_dieoffset(&in[0].cu))
				break;
			if (copy)
				fn = origin;
			df = dwarf_decl_file(&fn);
			if (!df || dwarf_decl_line(&fn, &decl))
				continue;
			if (!path)
				path = tally__probe_src_path(&in[i].cu, df);	/* comp_dir/df */
			e = code_lines(&in[i].cu, df, decl, INT_MAX, &in[i].die, &lines, &nr);
		}
		free(in);
		if (!e && (!path || !nr)) {
			tally__probe_err(err, len, "Specified source line is not found.");
			e = -ENOENT;
		}
		if (!e) {
			fprintf(fp, "<%s@%s:%d>\n", func, path, 0);
			e = print_range(fp, path, decl, INT_MAX, decl, lines, nr, err, len);
		}
		free(path);
	} else {
		Dwarf_Off off = 0, next;
		size_t hsize;
		char *path = NULL;

		while (!e && dwarf_nextcu(d.dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die cu;
			Dwarf_Files *files;
			size_t nf;

			if (dwarf_offdie(d.dw, off + hsize, &cu) && !dwarf_getsrcfiles(&cu, &files, &nf)) {
				for (size_t i = 0; i < nf; i++) {
					const char *f = dwarf_filesrc(files, i, NULL, NULL);

					if (f && tally__probe_tail_match(f, file)) {
						if (!path)
							path = tally__probe_src_path(&cu, f);
						e = code_lines(&cu, file, start, end, NULL, &lines, &nr);
						break;
					}
				}
			}
			off = next;
		}
		if (!e && (!path || !nr)) {
			tally__probe_err(err, len, "Specified source line is not found.");
			e = -ENOENT;
		}
		if (!e) {
			fprintf(fp, "<%s:%d>\n", path, start);
			e = print_range(fp, path, start, end, 0, lines, nr, err, len);
		}
		free(path);
	}
out:
	free(lines);
	tally__probe_dbg_close(&d);
	return e;
}

/* perf's die_get_var_range: "@<FN+[S-E,...]>", offsets from fn's entry */
static int var_range(Dwarf_Die *fn, Dwarf_Die *var, char *buf, size_t len)
{
	Dwarf_Attribute a;
	Dwarf_Addr entry, base, start, end;
	Dwarf_Op *op;
	Dwarf_Die *scopes = NULL;
	size_t nops, n = 0;
	ptrdiff_t off = 0;
	const char *name = tally__probe_die_name(fn);
	bool first = true, single = false;

	if (dwarf_entrypc(fn, &entry) || !name || !dwarf_attr(var, DW_AT_location, &a))
		return -ENOENT;
	while (n < len && (off = dwarf_getlocations(&a, off, &base, &start, &end, &op, &nops)) > 0) {
		if (start == 0) {
			single = true;	/* one location: the ranges of the scope holding var */
			break;
		}
		n += (size_t)snprintf(buf + n, len - n, first ? "@<%s+[%llu-%llu" : ",%.0s%llu-%llu",
				      name, (unsigned long long)(start - entry), (unsigned long long)(end - entry));
		first = false;
	}
	if (single) {
		int count = dwarf_getscopes_die(var, &scopes);

		off = 0;
		while (count > 1 && n < len && (off = dwarf_ranges(&scopes[1], off, &base, &start, &end)) > 0) {
			n += (size_t)snprintf(buf + n, len - n, first ? "@<%s+[%llu-%llu" : ",%.0s%llu-%llu",
					      name, (unsigned long long)(start - entry),
					      (unsigned long long)(end - entry));
			first = false;
		}
		free(scopes);
		if (count <= 1)
			return -EINVAL;
	}
	if (!first && n < len)
		n += (size_t)snprintf(buf + n, len - n, "]>");
	return n < len ? 0 : -ERANGE;
}

/* -V --range: perf's collect_variables_cb with show_location_range */
static int range_vars(struct probe_dbg *d, Dwarf_Die *scope, Dwarf_Die *cu, Dwarf_Die *fn,
		      Dwarf_Addr addr, bool externs, char ***strs, size_t *ns)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child), st;
		char tn[512], rg[1024] = "", *line;

		if (tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) {
			st = tally__probe_var_state(d, &child, cu, fn, addr);
			if ((st == 0 || st == -ERANGE) && !tally__probe_var_typename(&child, tn, sizeof(tn)) &&
			    (externs || !var_range(fn, &child, rg, sizeof(rg)))) {
				char **nv = realloc(*strs, (*ns + 1) * sizeof(*nv));

				if (!nv || asprintf(&line, "%s\t%s%s%s", externs ? "[EXT]" : st ? "[INV]" : "[VAL]",
						    tn, externs ? "" : "\t", rg) < 0) {
					if (nv)
						*strs = nv;
					return -ENOMEM;
				}
				*strs = nv;
				nv[(*ns)++] = line;
			}
		}
		if (!externs && dwarf_haspc(&child, addr) > 0) {
			int e = range_vars(d, &child, cu, fn, addr, false, strs, ns);

			if (e)
				return e;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int tally_probe__show_vars(FILE *fp, const char *binary, const char *spec, unsigned flags,
			   char *err, size_t len)
{
	bool externs = flags & TALLY_PROBE_VARS_EXTERNS, range = flags & TALLY_PROBE_VARS_RANGE;
	struct probe_point pp;
	struct probe_dbg d;
	struct probe_addr *pts = NULL;
	size_t np = 0;
	int e = tally__probe_parse(spec, &pp, err, len);

	if (e)
		return e;
	if (pp.sdt || pp.nr_args) {
		tally__probe_err(err, len, "-V takes a probe point without arguments: %s", spec);
		tally__probe_point_clear(&pp);
		return -EINVAL;
	}
	if ((e = tally__probe_dbg_open(&d, binary, err, len, true))) {
		tally__probe_point_clear(&pp);
		return e;
	}
	d.no_inlines = flags & TALLY_PROBE_VARS_NO_INLINES;
	if ((e = tally__probe_points(&d, &pp, spec, &pts, &np, err, len))) {
		char *where = e == -ENOENT && pp.func ? tally__probe_where(&pp, false) : NULL;

		/* perf's words for a function's point that resolves to nothing */
		if (where)
			tally__probe_err(err, len, "Failed to find the address of %s", where);
		free(where);
		goto out;
	}
	{
		char *where = tally__probe_where(&pp, false);

		fprintf(fp, "Available variables at %s\n", where ? where : spec);
		free(where);
	}
	for (size_t i = 0; i < np; i++) {
		Dwarf_Die *vars = NULL;
		size_t nv = 0, ns = 0;
		char **strs;
		const char *sym = NULL;
		uint64_t start = 0;
		Dwarf_Die fn;
		Dwarf_Addr entry;

		/* perf's point: the out-of-line function's DWARF name (a C++ method's "add"), else the symbol's */
		bool have_fn = tally__probe_realfunc_at(&pts[i].cu, pts[i].addr, &fn) &&
			       !tally__probe_entrypc(&fn, &entry) && (sym = tally__probe_die_name(&fn));

		if (have_fn)
			fprintf(fp, "\t@<%s+%llu>\n", sym, (unsigned long long)(pts[i].addr - entry));
		else if (tally__probe_sym_at(&d, pts[i].addr, &sym, &start))
			fprintf(fp, "\t@<%s+%llu>\n", sym, (unsigned long long)(pts[i].addr - start));
		else
			fprintf(fp, "\t@<0x%llx>\n", (unsigned long long)pts[i].addr);
		if (range) {
			/* perf's variables in range are the real function's, its entry the ranges' base */
			strs = NULL;
			if (!have_fn) {
				fprintf(fp, "\t\t(No matched variables)\n");
				continue;
			}
			e = range_vars(&d, &pts[i].scope, &pts[i].cu, &fn, pts[i].addr, false, &strs, &ns);
			if (!e && externs)
				e = range_vars(&d, &pts[i].cu, &pts[i].cu, &fn, pts[i].addr, true, &strs, &ns);
			if (e)
				goto out_strs;
			goto print;
		}
		e = tally__probe_collect_vars(&d, &pts[i].scope, &pts[i].cu, pts[i].addr, false, true, true,
					      &vars, &nv);
		if (!e && externs)
			e = tally__probe_collect_vars(&d, &pts[i].cu, &pts[i].cu, pts[i].addr, false, false, true,
						      &vars, &nv);
		strs = calloc(nv ? nv : 1, sizeof(*strs));
		if (e || !strs) {
			free(vars);
			free(strs);
			e = e ? e : -ENOMEM;
			goto out;
		}
		for (size_t k = 0; k < nv; k++) {
			char buf[512];

			if (!tally__probe_var_typename(&vars[k], buf, sizeof(buf)) && (strs[ns] = strdup(buf)))
				ns++;
		}
print:
		if (ns)	/* strs may be NULL (none found in range): qsort must not see it */
			qsort(strs, ns, sizeof(*strs), cmp_str);
		for (size_t k = 0; k < ns; k++) {
			if (!k || strcmp(strs[k], strs[k - 1]))
				fprintf(fp, "\t\t%s\n", strs[k]);
		}
		if (!ns)
			fprintf(fp, "\t\t(No matched variables)\n");
out_strs:
		for (size_t k = 0; k < ns; k++)
			free(strs[k]);
		free(strs);
		free(vars);
		if (e)
			goto out;
	}
out:
	free(pts);
	tally__probe_dbg_close(&d);
	tally__probe_point_clear(&pp);
	return e;
}

/*
 * perf's strfilter: globs joined by '&' and '|', '!' negates, parentheses
 * group; '&' and '|' bind left to right as perf's parser does.
 */
static bool filter_term(const char **s, const char *name, bool *bad);

static bool filter_expr(const char **s, const char *name, bool *bad)
{
	bool v = filter_term(s, name, bad);

	for (;;) {
		char op;

		while (isspace((unsigned char)**s))
			(*s)++;
		op = **s;
		if (op != '&' && op != '|')
			return v;
		(*s)++;
		{
			bool r = filter_term(s, name, bad);

			v = op == '&' ? v && r : v || r;
		}
	}
}

static bool filter_term(const char **s, const char *name, bool *bad)
{
	char glob[256];
	size_t n;

	while (isspace((unsigned char)**s))
		(*s)++;
	if (**s == '!') {
		(*s)++;
		return !filter_term(s, name, bad);
	}
	if (**s == '(') {
		bool v;

		(*s)++;
		v = filter_expr(s, name, bad);
		while (isspace((unsigned char)**s))
			(*s)++;
		if (**s != ')')
			*bad = true;
		else
			(*s)++;
		return v;
	}
	n = strcspn(*s, "&|()! \t");
	if (!n || n >= sizeof(glob)) {
		*bad = true;
		return false;
	}
	memcpy(glob, *s, n);
	glob[n] = '\0';
	*s += n;
	return !fnmatch(glob, name, 0);
}

static bool filter_ok(const char *filter, const char *name, bool *bad)
{
	const char *s = filter;
	bool v = filter_expr(&s, name, bad);

	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		*bad = true;
	return v;
}

/* perf's labels: visible, in code or in a section named *data* */
static bool label_kept(Elf *elf, const GElf_Sym *s)
{
	int vis = GELF_ST_VISIBILITY(s->st_other);
	Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
	GElf_Shdr sh;
	size_t shstrndx;
	const char *name;

	if (vis == STV_HIDDEN || vis == STV_INTERNAL || !scn || !gelf_getshdr(scn, &sh) ||
	    elf_getshdrstrndx(elf, &shstrndx))
		return false;
	if (sh.sh_flags & SHF_EXECINSTR)
		return true;
	name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name && strstr(name, "data");
}

static int push_name(char ***v, size_t *nr, const char *name, size_t n)
{
	char **nv = realloc(*v, (*nr + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*nr] = strndup(name, n)))
		return -ENOMEM;
	(*nr)++;
	return 0;
}

/* perf's synthesized NAME@plt, one per .rela.plt jump slot */
static int plt_syms(Elf *elf, char ***v, size_t *nr, const char *filter, bool *bad)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, dsh;
		Elf_Data *data, *syms;
		Elf_Scn *dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !(sh.sh_flags & SHF_INFO_LINK) ||
		    !sh.sh_entsize || !(dyn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(dyn, &dsh) ||
		    !(data = elf_getdata(scn, NULL)) || !(syms = elf_getdata(dyn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym s;
			const char *name;
			char buf[512];

			if (!gelf_getrela(data, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &s) ||
			    !(name = elf_strptr(elf, dsh.sh_link, s.st_name)) || !*name)
				continue;
			snprintf(buf, sizeof(buf), "%.*s@plt", (int)strcspn(name, "@"), name);
			if (filter_ok(filter, buf, bad) && push_name(v, nr, buf, strlen(buf)))
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * A symbol as perf's map names it: C++ demangled without its parameters
 * and version ("ns::Counter::add"), another name as it is, its version
 * too (memcpy@@GLIBC_2.14). perf lists each symbol of the one table it
 * reads: the C1 and C2 constructors, a static's copies, a symbol's
 * versions each print a line. Kept as "NAME\tSYMBOL ADDR" (sorted by NAME).
 */
static int push_sym(char ***v, size_t *nr, const char *name, uint64_t addr, const char *filter,
		    bool *bad)
{
	char *plain = strndup(name, strcspn(name, "@")), *dm, *s;
	int e = 0;

	if (!plain)
		return -ENOMEM;
	/* a C name keeps its version (memcpy@@GLIBC_2.14), a C++ one is demangled without it */
	dm = tally_demangle(plain);
	if (!dm) {
		free(plain);
		if (!(plain = strdup(name)))
			return -ENOMEM;
	}
	if (filter_ok(filter, dm ? dm : plain, bad)) {
		char **nv = realloc(*v, (*nr + 1) * sizeof(*nv));

		if (nv)
			*v = nv;
		if (!nv || asprintf(&s, "%s\t%s %llx", dm ? dm : plain, plain, (unsigned long long)addr) < 0)
			e = -ENOMEM;
		else
			nv[(*nr)++] = s;
	}
	free(dm);
	free(plain);
	return e;
}

static int collect_syms(Elf *elf, uint32_t type, char ***v, size_t *nr, const char *filter, bool *bad)
{
	Elf_Scn *scn = NULL;
	int found = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		found = 1;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *name;
			int t;

			if (!gelf_getsym(data, (int)i, &s))
				continue;
			t = GELF_ST_TYPE(s.st_info);
			/* functions, objects and labels defined here, as perf's map keeps them */
			if ((t != STT_FUNC && t != STT_OBJECT && t != STT_NOTYPE && t != STT_GNU_IFUNC) ||
			    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
				continue;
			if (t == STT_NOTYPE && !label_kept(elf, &s))
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			if (push_sym(v, nr, name, s.st_value, filter, bad))
				return -ENOMEM;
		}
	}
	return found;
}

int tally_probe__show_funcs(FILE *fp, const char *binary, const char *filter, char *err, size_t len)
{
	struct probe_dbg d;
	char **v = NULL;
	size_t nr = 0;
	bool bad = false;
	int e = tally__probe_dbg_open(&d, binary, err, len, false);

	if (e)
		return e;
	if (!filter)
		filter = "!_* & !*@plt";	/* perf's DEFAULT_FUNC_FILTER */
	e = collect_syms(d.elf, SHT_SYMTAB, &v, &nr, filter, &bad);
	if (e == 0 && d.delf && d.delf != d.elf)
		e = collect_syms(d.delf, SHT_SYMTAB, &v, &nr, filter, &bad);
	if (e == 0)
		e = collect_syms(d.elf, SHT_DYNSYM, &v, &nr, filter, &bad);
	if (e >= 0 && plt_syms(d.elf, &v, &nr, filter, &bad))
		e = -ENOMEM;
	if (bad) {
		tally__probe_err(err, len, "Filter parse error at %s", filter);
		e = -EINVAL;
	}
	if (e >= 0) {
		qsort(v, nr, sizeof(*v), cmp_str);
		for (size_t i = 0; i < nr; i++)
			fprintf(fp, "%.*s\n", (int)strcspn(v[i], "\t"), v[i]);
		e = 0;
	}
	for (size_t i = 0; i < nr; i++)
		free(v[i]);
	free(v);
	tally__probe_dbg_close(&d);
	return e;
}
