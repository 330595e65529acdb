// SPDX-License-Identifier: MIT
/*
 * tally probe's binary: the ELF, its DWARF wherever it lives, function
 * instances by name, and perf's entry address (prologue skipped as
 * perf 6.1's die_skip_prologue does for unoptimized code).
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/symbols.h>
#include "elf_util.h"
#include "probe_dbg.h"

int tally__probe_err(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return 0;
}

static Elf_Scn *find_scn(Elf *elf, const char *want, GElf_Shdr *out)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, out))
			continue;
		name = elf_strptr(elf, shstrndx, out->sh_name);
		if (name && !strcmp(name, want) && out->sh_type != SHT_NOBITS)
			return scn;
	}
	return NULL;
}

static bool has_dwarf(Elf *elf)
{
	GElf_Shdr sh;

	return find_scn(elf, ".debug_info", &sh) != NULL;
}

/* open path as the debug file if it is ELF with DWARF (and the build id, when known) */
static bool try_debug(struct probe_dbg *d, const char *path, const uint8_t *id, int idlen)
{
	uint8_t got[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC), n;
	Elf *e;

	if (fd < 0)
		return false;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || !has_dwarf(e)) {
		if (e)
			elf_end(e);
		close(fd);
		return false;
	}
	n = tally__elf_build_id(e, got, sizeof(got));
	if (idlen > 0 && n > 0 && (n != idlen || memcmp(got, id, (size_t)n))) {
		elf_end(e);
		close(fd);
		return false;
	}
	d->delf = e;
	d->dfd = fd;
	return true;
}

static bool find_separate(struct probe_dbg *d)
{
	uint8_t id[64];
	char hex[129], path[PATH_MAX + 64], dir[PATH_MAX];
	int n = tally__elf_build_id(d->elf, id, sizeof(id));
	const char *home = getenv("HOME"), *cache = getenv("DEBUGINFOD_CACHE_PATH");
	GElf_Shdr sh;
	Elf_Scn *scn;
	char *slash;

	for (int i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	if (n > 1) {
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
		if (try_debug(d, path, id, n))
			return true;
	}
	snprintf(dir, sizeof(dir), "%s", d->path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	scn = find_scn(d->elf, ".gnu_debuglink", &sh);
	if (scn) {
		Elf_Data *data = elf_getdata(scn, NULL);
		const char *link = data ? data->d_buf : NULL;

		if (link && data->d_size > 4 && strnlen(link, data->d_size) < data->d_size &&
		    !strchr(link, '/')) {
			/* beside the file, in .debug/ beside it, under the debug tree */
			for (int i = 0; i < 3; i++) {
				if (i == 0)
					snprintf(path, sizeof(path), "%s/%s", dir, link);
				else if (i == 1)
					snprintf(path, sizeof(path), "%s/.debug/%s", dir, link);
				else
					snprintf(path, sizeof(path), "/usr/lib/debug%s/%s", dir, link);
				if (strcmp(path, d->path) && try_debug(d, path, id, n))
					return true;
			}
		}
	}
	if (n > 1 && (cache || home)) {
		if (cache)
			snprintf(path, sizeof(path), "%s/%s/debuginfo", cache, hex);
		else
			snprintf(path, sizeof(path), "%s/.cache/debuginfod_client/%s/debuginfo", home, hex);
		if (try_debug(d, path, id, n))
			return true;
	}
	return false;
}

void tally__probe_dbg_close(struct probe_dbg *d)
{
	if (d->dw)
		dwarf_end(d->dw);
	if (d->cfi_eh)
		dwarf_cfi_end(d->cfi_eh);
	if (d->delf && d->delf != d->elf)
		elf_end(d->delf);
	if (d->dfd >= 0 && d->dfd != d->fd)
		close(d->dfd);
	if (d->elf)
		elf_end(d->elf);
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	memset(d, 0, sizeof(*d));
	d->fd = d->dfd = -1;
}

int tally__probe_dbg_open(struct probe_dbg *d, const char *binary, char *err, size_t len,
			  bool need_dwarf)
{
	char real[PATH_MAX];

	memset(d, 0, sizeof(*d));
	d->fd = d->dfd = -1;
	elf_version(EV_CURRENT);
	if (!realpath(binary, real)) {
		int e = -errno;

		tally__probe_err(err, len, "Failed to find the path for %s: %s", binary,
				 strerror(-e));
		return e;
	}
	if (!(d->path = strdup(real)))
		return -ENOMEM;
	d->fd = open(real, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		int e = -errno;

		tally__probe_err(err, len, "Failed to open %s: %s", real, strerror(-e));
		tally__probe_dbg_close(d);
		return e;
	}
	d->elf = elf_begin(d->fd, ELF_C_READ_MMAP, NULL);
	if (!d->elf || elf_kind(d->elf) != ELF_K_ELF) {
		tally__probe_err(err, len, "%s is not an ELF file.", real);
		tally__probe_dbg_close(d);
		return -EINVAL;
	}
	if (has_dwarf(d->elf)) {
		d->delf = d->elf;
		d->dfd = d->fd;
	} else if (!find_separate(d)) {
		if (!need_dwarf)
			return 0;
		/* perf's words when neither the file nor a debug file has DWARF */
		tally__probe_err(err, len, "The %s file has no debug information.\n"
				 "Rebuild with -g, or install an appropriate debuginfo package.",
				 real);
		tally__probe_dbg_close(d);
		return -ENOENT;
	}
	d->dw = dwarf_begin_elf(d->delf, DWARF_C_READ, NULL);
	if (!d->dw && !need_dwarf)
		return 0;
	if (!d->dw) {
		tally__probe_err(err, len, "Failed to read the DWARF of %s: %s", real,
				 dwarf_errmsg(-1));
		tally__probe_dbg_close(d);
		return -EINVAL;
	}
	d->cfi_eh = dwarf_getcfi_elf(d->elf);
	d->cfi_dbg = dwarf_getcfi(d->dw);
	return 0;
}

int tally__probe_file_offset(struct probe_dbg *d, uint64_t vaddr, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(d->elf, &n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(d->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

int tally__probe_entrypc(Dwarf_Die *die, Dwarf_Addr *addr)
{
	/*
	 * DW_AT_entry_pc or low_pc only: an inlined copy known by its ranges
	 * alone is no instance for perf 6.1 either (-V and -L agree so)
	 */
	return dwarf_entrypc(die, addr) == 0 ? 0 : -1;
}

const char *tally__probe_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

bool tally__probe_tail_match(const char *path, const char *tail)
{
	size_t n = strlen(path), t = strlen(tail);

	if (t > n || strcmp(path + n - t, tail))
		return false;
	return t == n || path[n - t - 1] == '/' || tail[0] == '/';
}

char *tally__probe_src_path(Dwarf_Die *cu, const char *file)
{
	Dwarf_Attribute a;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	char *p;

	if (!file)
		return NULL;
	if (file[0] == '/' || !dir)
		return strdup(file);
	return asprintf(&p, "%s/%s", dir, file) < 0 ? NULL : p;
}

static int push_inst(struct probe_inst **v, size_t *nr, Dwarf_Die *die, Dwarf_Die *cu,
		     bool inlined, Dwarf_Addr entry)
{
	struct probe_inst *nv = realloc(*v, (*nr + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*nr] = (struct probe_inst){ *die, *cu, inlined, entry };
	(*nr)++;
	return 0;
}

static const char *decl_file(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die origin;

	/* an inlined copy's file is its abstract origin's */
	if (dwarf_tag(die) == DW_TAG_inlined_subroutine &&
	    dwarf_formref_die(dwarf_attr(die, DW_AT_abstract_origin, &a), &origin))
		return dwarf_decl_file(&origin);
	return dwarf_decl_file(die);
}

/* perf's die_is_func_instance: code of its own (an entry or ranges) */
static bool is_instance(Dwarf_Die *die)
{
	Dwarf_Addr a;
	Dwarf_Attribute at;
	int tag = dwarf_tag(die);

	return (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) &&
	       (dwarf_entrypc(die, &a) == 0 || dwarf_attr(die, DW_AT_ranges, &at));
}

static bool same_die(Dwarf_Die *a, Dwarf_Die *b)
{
	return dwarf_dieoffset(a) == dwarf_dieoffset(b);
}

/*
 * perf's die_walk_instances: the copies in cu whose abstract origin is
 * or_die, but an inlined copy called from its own declaration line
 */
static int walk_instances(Dwarf_Die *parent, Dwarf_Die *cu, Dwarf_Die *or_die,
			  struct probe_inst **out, size_t *nr)
{
	Dwarf_Die child, origin;
	Dwarf_Attribute a;
	Dwarf_Addr entry;
	int err;

	if (dwarf_child(parent, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (is_instance(&child) &&
		    dwarf_formref_die(dwarf_attr(&child, DW_AT_abstract_origin, &a), &origin) &&
		    same_die(&origin, or_die)) {
			Dwarf_Word cl = 0, cf = 0, df = 0;
			int decl = 0;
			bool redundant = false;

			if (tag == DW_TAG_inlined_subroutine && !dwarf_decl_line(&origin, &decl) &&
			    !dwarf_formudata(dwarf_attr(&child, DW_AT_call_line, &a), &cl) &&
			    (int)cl == decl) {
				dwarf_formudata(dwarf_attr(&child, DW_AT_call_file, &a), &cf);
				dwarf_formudata(dwarf_attr_integrate(&origin, DW_AT_decl_file, &a), &df);
				redundant = cf == df;
			}
			if (!redundant && !dwarf_entrypc(&child, &entry) &&
			    (err = push_inst(out, nr, &child, cu, true, entry)))
				return err;
		}
		if (tag != DW_TAG_variable && tag != DW_TAG_formal_parameter &&
		    (err = walk_instances(&child, cu, or_die, out, nr)))
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/*
 * A C++ function by its qualified name ("ns::Counter::add", a glob too):
 * its linkage name demangled as -F lists it; a name without one (C,
 * extern "C") is its own. Every overload matches.
 */
static bool qualified_match(Dwarf_Die *die, const char *glob)
{
	Dwarf_Attribute a;
	const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	char *dm;
	bool ok;

	if (!link)
		link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!link)
		link = tally__probe_die_name(die);
	if (!link)
		return false;
	dm = tally_demangle(link);
	ok = !fnmatch(glob, dm ? dm : link, 0);
	free(dm);
	return ok;
}

/*
 * perf 6.1's probe_point_search_cb over one unit: its first function of
 * the name (declared in file, when given): that function if it has code,
 * else (an inline function's abstract entry) each of its copies; a glob
 * goes on to the unit's other functions.
 */
static int unit_funcs(Dwarf_Die *cu, const char *glob, const char *file, bool no_inlines,
		      struct probe_inst **out, size_t *nr)
{
	Dwarf_Die child;
	Dwarf_Attribute a;
	bool qualified = strstr(glob, "::") != NULL;
	bool is_glob = qualified || strpbrk(glob, "*?[") != NULL;
	int err;

	if (dwarf_child(cu, &child))
		return 0;
	do {
		const char *name, *df;
		Dwarf_Addr entry;

		if (dwarf_tag(&child) != DW_TAG_subprogram || dwarf_attr(&child, DW_AT_declaration, &a) ||
		    !(name = tally__probe_die_name(&child)) ||
		    (qualified ? !qualified_match(&child, glob) : fnmatch(glob, name, 0) != 0))
			continue;
		df = decl_file(&child);
		if (!df || (file && !tally__probe_tail_match(df, file)))
			continue;
		if (is_instance(&child)) {
			if (!dwarf_entrypc(&child, &entry) && entry &&
			    (err = push_inst(out, nr, &child, cu, false, entry)))
				return err;
		} else if (!no_inlines && (err = walk_instances(cu, cu, &child, out, nr))) {
			return err;
		}
		if (!is_glob)
			break;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int tally__probe_find_funcs(struct probe_dbg *d, const char *glob, const char *file,
			    struct probe_inst **out, size_t *nr)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	int err = 0;

	*out = NULL;
	*nr = 0;
	while (!err && dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(d->dw, off + hsize, &cu))
			err = unit_funcs(&cu, glob, file, d->no_inlines, out, nr);
		off = next;
	}
	return err;
}

/* the deepest DIE of the given kinds holding addr, under parent */
static bool deepest_at(Dwarf_Die *parent, Dwarf_Addr addr, bool inlined_too, Dwarf_Die *out)
{
	Dwarf_Die child;
	bool found = false;

	if (dwarf_child(parent, &child))
		return false;
	do {
		int tag = dwarf_tag(&child);

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine &&
		    tag != DW_TAG_lexical_block && tag != DW_TAG_namespace &&
		    tag != DW_TAG_class_type && tag != DW_TAG_structure_type)
			continue;
		if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
		     tag == DW_TAG_lexical_block) && dwarf_haspc(&child, addr) <= 0)
			continue;
		if (tag == DW_TAG_subprogram || (inlined_too && tag == DW_TAG_inlined_subroutine)) {
			*out = child;
			found = true;
		}
		if (tag == DW_TAG_inlined_subroutine && !inlined_too)
			continue;
		if (deepest_at(&child, addr, inlined_too, out))
			return true;
		if (found)
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return found;
}

bool tally__probe_func_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out)
{
	return deepest_at(cu, addr, true, out);
}

bool tally__probe_realfunc_at(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out)
{
	return deepest_at(cu, addr, false, out);
}

bool tally__probe_sym_at(struct probe_dbg *d, uint64_t vaddr, const char **name, uint64_t *start)
{
	Elf *elfs[2] = { d->elf, d->delf };
	bool found = false;

	for (int k = 0; k < 2 && !found; k++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(elfs[k], scn))) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
				continue;
			if (!(data = elf_getdata(scn, NULL)))
				continue;
			for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;

				if (!gelf_getsym(data, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
				    !s.st_shndx || vaddr < s.st_value ||
				    vaddr >= s.st_value + (s.st_size ? s.st_size : 1))
					continue;
				*name = elf_strptr(elfs[k], sh.sh_link, s.st_name);
				*start = s.st_value;
				found = *name != NULL;
				if (found)
					break;
			}
			if (found)
				break;
		}
	}
	return found;
}

/* the producer's flags optimize (perf: "-O" other than "-O0") */
static bool optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *p = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));

	while (p && (p = strstr(p, "-O"))) {
		if (p[2] != '0')
			return true;
		p += 2;
	}
	return false;
}

/*
 * perf 6.1's die_skip_prologue: from the entry's line record, the next
 * record that is another line, or marked prologue_end, or just the next
 * record (one line holding the whole body), inside [entry, highpc).
 */
static Dwarf_Addr skip_prologue(Dwarf_Die *fn, Dwarf_Die *cu, Dwarf_Addr entry)
{
	Dwarf_Lines *lines;
	size_t nl, i, at = SIZE_MAX;
	Dwarf_Addr high, addr = entry;
	int lno0;

	if (dwarf_highpc(fn, &high) || dwarf_getsrclines(cu, &lines, &nl))
		return entry;
	for (i = 0; i < nl; i++) {
		Dwarf_Addr a;

		if (!dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) && a == entry) {
			at = i;
			break;
		}
	}
	if (at == SIZE_MAX || dwarf_lineno(dwarf_onesrcline(lines, at), &lno0))
		return entry;
	for (i = at; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		bool pend = false;
		int lno;

		if (dwarf_lineaddr(l, &addr) || dwarf_lineno(l, &lno) ||
		    dwarf_lineprologueend(l, &pend))
			return entry;
		if (addr >= high || pend || lno != lno0 || i != at)
			break;
	}
	if (i == nl)
		return entry;
	if (addr >= high && i > 0)
		dwarf_lineaddr(dwarf_onesrcline(lines, i - 1), &addr);
	return addr;
}

Dwarf_Addr tally__probe_entry(struct probe_inst *in, bool skip)
{
	if (!skip || in->inlined || optimized(&in->cu))
		return in->entry;
	return skip_prologue(&in->die, &in->cu, in->entry);
}

/* the topmost inlined copy under parent (through lexical blocks) holding addr */
bool tally__probe_inlined_at(Dwarf_Die *parent, Dwarf_Addr addr, Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_child(parent, &child))
		return false;
	do {
		int tag = dwarf_tag(&child);

		if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
		    dwarf_haspc(&child, addr) > 0) {
			if (tag == DW_TAG_inlined_subroutine) {
				*out = child;
				return true;
			}
			return tally__probe_inlined_at(&child, addr, out);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

const char *tally__probe_call_file(Dwarf_Die *in, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	Dwarf_Word idx;
	Dwarf_Files *files;
	size_t nf;

	if (dwarf_formudata(dwarf_attr(in, DW_AT_call_file, &a), &idx) ||
	    dwarf_getsrcfiles(cu, &files, &nf) || idx >= nf)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* perf's __die_walk_funclines: decl line at the entry, inlined call sites */
static int func_lines(Dwarf_Die *fn, Dwarf_Die *cu, bool recursive, bool decl,
		      probe_line_cb cb, void *ctx)
{
	Dwarf_Die child;
	Dwarf_Addr addr;
	const char *f;
	int line, e;

	if (decl && (f = dwarf_decl_file(fn)) && !dwarf_decl_line(fn, &line) && !tally__probe_entrypc(fn, &addr) &&
	    (e = cb(f, line, addr, ctx)))
		return e;
	if (dwarf_child(fn, &child))
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_inlined_subroutine) {
			Dwarf_Attribute a;
			Dwarf_Word cl;

			f = tally__probe_call_file(&child, cu);
			if (f && !dwarf_formudata(dwarf_attr(&child, DW_AT_call_line, &a), &cl) && cl > 0 &&
			    !tally__probe_entrypc(&child, &addr) && (e = cb(f, (int)cl, addr, ctx)))
				return e;
			if (!recursive)
				continue;
			if ((e = func_lines(&child, cu, true, true, cb, ctx)))
				return e;
			continue;
		}
		if (tag == DW_TAG_lexical_block && (e = func_lines(&child, cu, recursive, false, cb, ctx)))
			return e;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

int tally__probe_walk_lines(Dwarf_Die *cu, Dwarf_Die *fn, probe_line_cb cb, void *ctx)
{
	Dwarf_Lines *lines;
	Dwarf_Die child, in;
	size_t nl;
	int e;

	if (dwarf_getsrclines(cu, &lines, &nl))
		return 0;
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		const char *src = dwarf_linesrc(l, NULL, NULL);
		Dwarf_Addr addr;
		bool flag = false;
		int lno;

		if (!src || dwarf_lineno(l, &lno) || dwarf_lineaddr(l, &addr))
			continue;
		if ((!dwarf_lineendsequence(l, &flag) && flag) ||
		    dwarf_linebeginstatement(l, &flag) || !flag)
			continue;
		if (fn && dwarf_haspc(fn, addr) <= 0)
			continue;
		/*
		 * perf 6.1: a line inside an inlined copy counts only where it is
		 * the copy's call site in this function's file
		 */
		if (fn && tally__probe_inlined_at(fn, addr, &in)) {
			Dwarf_Attribute a;
			Dwarf_Word cl = 0;
			const char *cf = tally__probe_call_file(&in, cu), *decf = dwarf_decl_file(fn);

			if (!cf || !decf || strcmp(cf, decf) ||
			    dwarf_formudata(dwarf_attr(&in, DW_AT_call_line, &a), &cl) || (int)cl != lno)
				continue;
		}
		if ((e = cb(src, lno, addr, ctx)))
			return e;
	}
	if (fn)
		return func_lines(fn, cu, false, true, cb, ctx);
	if (dwarf_child(cu, &child))
		return 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_subprogram &&
		    (e = func_lines(&child, cu, true, true, cb, ctx)))
			return e;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/*
 * perf's cu_getsrc_die: of the records at addr, the first (in table
 * order) that begins a statement; NULL when none is at addr
 */
static Dwarf_Line *getsrc(Dwarf_Die *cu, Dwarf_Addr addr)
{
	Dwarf_Lines *lines;
	size_t nl, lo, hi;
	Dwarf_Addr la;

	if (dwarf_getsrclines(cu, &lines, &nl) || !nl)
		return NULL;
	lo = 0;
	hi = nl - 1;
	while (lo < hi) {
		size_t mid = hi - (hi - lo) / 2;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, mid), &la))
			return NULL;
		if (addr < la)
			hi = mid - 1;
		else
			lo = mid;
	}
	while (lo > 0 && !dwarf_lineaddr(dwarf_onesrcline(lines, lo - 1), &la) && la == addr)
		lo--;
	for (; lo < nl; lo++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, lo);
		bool stmt = false;

		if (dwarf_lineaddr(l, &la) || dwarf_linebeginstatement(l, &stmt) || la > addr)
			return NULL;
		if (stmt)
			return l;
	}
	return NULL;
}

bool tally__probe_line_reversible(Dwarf_Die *cu, const char *file, int line, Dwarf_Addr addr,
				  const char **rfile, int *rline)
{
	Dwarf_Die fn;
	Dwarf_Addr entry;
	Dwarf_Line *l;
	const char *f = NULL;
	int lno = 0;

	if (tally__probe_realfunc_at(cu, addr, &fn) && !tally__probe_entrypc(&fn, &entry) && entry == addr) {
		f = dwarf_decl_file(&fn);
		dwarf_decl_line(&fn, &lno);
	} else if ((l = getsrc(cu, addr))) {
		f = dwarf_linesrc(l, NULL, NULL);
		dwarf_lineno(l, &lno);
	}
	if (rfile) {
		*rfile = f;
		*rline = lno;
	}
	if (!f || !lno)
		return true;
	return lno == line && !strcmp(f, file);
}
