// SPDX-License-Identifier: MIT
/*
 * Source lines through libdw: an address's file:line and its inline
 * frames, from the DSO's debug file (opened once, by any thread).
 * Moved from dso.c.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "internal.h"
#include "debugcache.h"
#include "elf_util.h"
#include "dso_internal.h"

/*
 * Pages of the debug file's mapping leave the resident set after a walk
 * over much of it. What the lookups read again comes back from the page
 * cache; libdw's own tables are in its memory, and its pointers into the
 * mapping stay valid. off and len: of .debug_info.
 */
static void info_drop(struct tally_dso *d, uint64_t off, uint64_t len)
{
	uintptr_t from, to;

	if (!d->dw_info_len || off >= d->dw_info_len)
		return;
	if (len > d->dw_info_len - off)
		len = d->dw_info_len - off;
	from = ((uintptr_t)d->dw_map + d->dw_info_off + off) & ~(uintptr_t)4095;
	to = ((uintptr_t)d->dw_map + d->dw_info_off + off + len + 4095) & ~(uintptr_t)4095;
	madvise((void *)from, to - from, MADV_DONTNEED);
}

/* A section's bytes in the mapping, when libdw reads them there (not compressed). */
static bool section_at(struct tally_dso *d, const char *want, uint64_t *off, uint64_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;

	if (!d->dw_map || elf_getshdrstrndx(d->dw_elf, &shstr))
		return false;
	while ((scn = elf_nextscn(d->dw_elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(d->dw_elf, shstr, sh.sh_name)) ||
		    strcmp(name, want))
			continue;
		if ((sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS ||
		    sh.sh_offset > d->dw_map_len || sh.sh_size > d->dw_map_len - sh.sh_offset)
			return false;
		*off = sh.sh_offset;
		*len = sh.sh_size;
		return true;
	}
	return false;
}

/*
 * libdw's first address lookup reads every unit's header
 * (dwarf_getaranges interns each CU): on libc's 4,000 units, nearly every
 * page of its .debug_info at once. Done here when the file is opened
 * (early, on the helper thread), the units a window at a time
 * (dwarf_offdie interns those up to its DIE), each window's pages dropped
 * before the next; then the aranges, and what they read dropped too.
 */
#define UNITS_WINDOW (256u << 10)

static void units_read(struct tally_dso *d)
{
	Dwarf_Off off = 0, next, from = 0, die_off = 0;
	Dwarf_Aranges *ar;
	size_t hsize, n;
	Dwarf_Die die;

	if (!section_at(d, ".debug_info", &d->dw_info_off, &d->dw_info_len))
		d->dw_info_len = 0;
	if (!d->dw_info_len)
		return;
	while (dwarf_next_unit(d->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
		die_off = off + hsize;
		off = next;
		if (off - from >= UNITS_WINDOW) {
			dwarf_offdie(d->dw, die_off, &die);
			info_drop(d, from, off - from);
			from = off;
		}
	}
	if (off > from) {
		dwarf_offdie(d->dw, die_off, &die);
		info_drop(d, from, off - from);
	}
	if (!dwarf_getaranges(d->dw, &ar, &n))
		madvise(d->dw_map, d->dw_map_len, MADV_DONTNEED);
}

/*
 * A unit's bytes, after a walk over its top level: a small one is not
 * worth the call (its pages are few, and lookups read them again).
 */
static void unit_drop(struct tally_dso *d, Dwarf_Die *cu)
{
	Dwarf_Off hdr = dwarf_dieoffset(cu) - dwarf_cuoffset(cu), next;

	if (d->dw_info_len &&
	    !dwarf_next_unit(d->dw, hdr, &next, NULL, NULL, NULL, NULL, NULL, NULL, NULL) &&
	    next - hdr >= (64u << 10))
		info_drop(d, hdr, next - hdr);
}

static int dwarf_open(struct tally_dso *d)
{
	struct tally__elf_file f;

	char *copy;
	int err;

	d->dwarf_tried = true;
	if (!d->dwarf_path)
		return -ENOENT;
	/* a compressed debug file is read from its inflated copy */
	copy = tally__debugcache_path(d->dwarf_path);
	err = tally__elf_file_open(&f, copy ? copy : d->dwarf_path);
	if (err && copy)
		err = tally__elf_file_open(&f, d->dwarf_path);
	free(copy);
	if (err)
		return -ENOENT;
	d->dw = dwarf_begin_elf(f.elf, DWARF_C_READ, NULL);
	if (!d->dw) {
		tally__elf_file_close(&f);
		return -ENOENT;
	}
	d->dw_elf = f.elf;
	d->dw_fd = f.fd;
	if (!tally__elf_mapping(f.elf, f.fd, &d->dw_map, &d->dw_map_len))
		d->dw_map = NULL;
	units_read(d);
	return 0;
}

void tally__dso_dwarf_ready(struct tally_dso *d)
{
	pthread_mutex_lock(&d->dw_mu);
	if (!d->dwarf_tried)
		dwarf_open(d);
	pthread_mutex_unlock(&d->dw_mu);
}

/* One range of a CU's top-level scope DIE, in DIE order. */
struct scope_range {
	uint64_t lo, hi;
	Dwarf_Off off;
};

struct tally__cu_scopes {
	Dwarf_Off cu;
	struct scope_range *r;
	size_t n;
};

/* One function's code range in a unit: out-of-line or inlined, and how deep. */
struct tally__fn {
	uint64_t lo, hi;
	Dwarf_Off off;
	int depth;
};

/* A unit's functions, walked once: naming each address must not walk the DIE tree. */
struct tally__fnidx {
	Dwarf_Off cu;
	struct tally__fn *v;
	size_t nr, alloc;
};

static void fnidx_free(struct tally__fnidx *x)
{
	if (x)
		free(x->v);
	free(x);
}

void tally__dso_dwarf_close(struct tally_dso *d)
{
	for (size_t i = 0; i < d->nr_cu_scopes; i++)
		free(d->cu_scopes[i].r);
	free(d->cu_scopes);
	d->cu_scopes = NULL;
	d->nr_cu_scopes = 0;
	fnidx_free(d->fnidx);
	d->fnidx = NULL;
	if (d->dw)
		dwarf_end(d->dw);
	if (d->dw_elf)
		elf_end(d->dw_elf);
	if (d->dw_fd >= 0)
		close(d->dw_fd);
	d->dw = NULL;
	d->dw_elf = NULL;
	d->dw_fd = -1;
	d->dw_map = NULL;
	d->dw_info_len = 0;
}

int tally__dso_srcline(struct tally_dso *d, uint64_t vaddr, const char **file, int *line)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *src;
	int ln;

	tally__dso_dwarf_ready(d);
	if (!d->dw)
		return -ENOENT;
	if (!dwarf_addrdie(d->dw, vaddr, &cu))
		return -ENOENT;
	l = dwarf_getsrc_die(&cu, vaddr);
	if (!l || !(src = dwarf_linesrc(l, NULL, NULL)) || dwarf_lineno(l, &ln))
		return -ENOENT;
	*file = src;		/* owned by d->dw, lives as long as the DSO */
	*line = ln;
	return 0;
}

/*
 * A function's name as binutils' addr2line gives it (which is what perf
 * 6.1 shows): the linkage name when there is one, demangled as the
 * symbols were, else DW_AT_name; through abstract origins and
 * specifications.
 */
static const char *func_name(struct tally_dso *d, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (n && d->demangle) {
		char *dm = tally_demangle(n);

		if (dm) {
			const char *p = tally__strpool_add(&d->inl_names, dm);

			free(dm);
			if (p)
				return p;
		}
	}
	return n ? n : dwarf_diename(die);
}

/* The length of die's range that holds pc, or 0. */
static uint64_t range_len(Dwarf_Die *die, uint64_t pc)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (pc >= lo && pc < hi)
			return hi - lo;
	return 0;
}

/*
 * Among the CU's subprograms holding pc with die's range, the last one
 * (a DIE with children is kept: its inline chain was walked).
 */
static bool last_alias(Dwarf_Die *cu, Dwarf_Die *die, uint64_t pc, Dwarf_Die *out)
{
	uint64_t len = range_len(die, pc);
	Dwarf_Die ch;
	bool found = false;

	if (!len || dwarf_haschildren(die) || dwarf_child(cu, &ch))
		return false;
	do {
		if (dwarf_tag(&ch) == DW_TAG_subprogram && !dwarf_haschildren(&ch) &&
		    range_len(&ch, pc) == len) {
			*out = ch;
			found = true;
		}
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return found && dwarf_dieoffset(out) != dwarf_dieoffset(die);
}

/* libdw's scope walk (__libdw_visit_scopes) goes into these tags' children */
static bool may_have_scopes(Dwarf_Die *die)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_lexical_block: case DW_TAG_with_stmt: case DW_TAG_catch_block:
	case DW_TAG_try_block: case DW_TAG_entry_point: case DW_TAG_inlined_subroutine:
	case DW_TAG_subprogram: case DW_TAG_namespace: case DW_TAG_module:
	case DW_TAG_compile_unit: case DW_TAG_type_unit: case DW_TAG_skeleton_unit:
	case DW_TAG_partial_unit: case DW_TAG_imported_unit:
		return true;
	default:
		return false;
	}
}

static int add_ranges(struct tally__cu_scopes *c, size_t *cap, Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (c->n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct scope_range *nr = realloc(c->r, nc * sizeof(*nr));

			if (!nr)
				return -ENOMEM;
			c->r = nr;
			*cap = nc;
		}
		c->r[c->n++] = (struct scope_range){ lo, hi, dwarf_dieoffset(die) };
	}
	return 0;
}

/*
 * A level's children in libdw's walk order: an imported unit's children
 * stand in its place, as if they were siblings (dwz's partial units).
 */
static int index_level(struct tally__cu_scopes *c, size_t *cap, Dwarf_Die *first, int depth)
{
	Dwarf_Die ch = *first;

	do {
		if (dwarf_tag(&ch) == DW_TAG_imported_unit) {
			Dwarf_Attribute a;
			Dwarf_Die unit, uch;

			if (depth < 8 && dwarf_formref_die(dwarf_attr(&ch, DW_AT_import, &a), &unit) &&
			    dwarf_child(&unit, &uch) == 0 && index_level(c, cap, &uch, depth + 1))
				return -ENOMEM;
			continue;
		}
		if (add_ranges(c, cap, &ch))
			return -ENOMEM;
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return 0;
}

/*
 * The CU's top-level scopes with their ranges, read once: a large C++ CU
 * has tens of thousands of DIEs at its top, and libdw's dwarf_getscopes
 * reads each one's attributes again at every address.
 */
static struct tally__cu_scopes *cu_scopes(struct tally_dso *d, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct tally__cu_scopes *c, *nc;
	Dwarf_Die first;
	size_t cap = 0;

	for (size_t i = d->nr_cu_scopes; i > 0; i--)
		if (d->cu_scopes[i - 1].cu == off)
			return &d->cu_scopes[i - 1];
	nc = realloc(d->cu_scopes, (d->nr_cu_scopes + 1) * sizeof(*nc));
	if (!nc)
		return NULL;
	d->cu_scopes = nc;
	c = &nc[d->nr_cu_scopes];
	*c = (struct tally__cu_scopes){ .cu = off };
	if (dwarf_child(cu, &first) == 0 && index_level(c, &cap, &first, 0)) {
		free(c->r);
		return NULL;
	}
	d->nr_cu_scopes++;
	unit_drop(d, cu);
	return c;
}

/*
 * The DIE nesting at vaddr from its innermost scope out to the CU
 * (malloc'd, or NULL), its count in *n: what dwarf_getscopes() then
 * dwarf_getscopes_die() on its innermost scope give (each level's first
 * DIE holding vaddr, down to the innermost; the inline chain itself),
 * without their walks over the whole CU (three per address). The top
 * level comes from the CU's index, the levels below from the function's
 * own subtree.
 */
#define WALKS_DROP	8u	/* python-dwarf: 20.4 -> 15.8 MB peak, 2-6% more time */

static Dwarf_Die *scope_chain(struct tally_dso *d, Dwarf_Die *cu, uint64_t vaddr, int *n)
{
	struct tally__cu_scopes *c = cu_scopes(d, cu);
	Dwarf_Die path[64], *chain, ch;
	int depth = 0;

	*n = 0;
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n; i++) {
		if (vaddr >= c->r[i].lo && vaddr < c->r[i].hi) {
			if (!dwarf_offdie(d->dw, c->r[i].off, &path[0]))
				return NULL;
			depth = 1;
			break;
		}
	}
	if (!depth)
		return NULL;
	/* down: the first child holding vaddr at each level */
	while (depth < (int)(sizeof(path) / sizeof(path[0])) &&
	       may_have_scopes(&path[depth - 1]) && dwarf_haschildren(&path[depth - 1]) &&
	       dwarf_child(&path[depth - 1], &ch) == 0) {
		bool found = false;

		do {
			if (dwarf_haspc(&ch, vaddr) > 0) {
				found = true;
				break;
			}
		} while (dwarf_siblingof(&ch, &ch) == 0);
		if (!found)
			break;
		path[depth++] = ch;
	}
	if (!(chain = malloc((size_t)(depth + 1) * sizeof(*chain))))
		return NULL;
	for (int i = 0; i < depth; i++)
		chain[i] = path[depth - 1 - i];
	/*
	 * Each level's walk skips its earlier siblings' subtrees: in
	 * libpython's interpreter loop, megabytes of inlined DIEs stayed
	 * resident (3.9 MB at python-dwarf's peak). Every WALKS_DROP chains
	 * the pages go; the next walks fault back in what they read.
	 */
	if (++d->dw_walks >= WALKS_DROP) {
		info_drop(d, 0, d->dw_info_len);
		d->dw_walks = 0;
	}
	chain[depth] = *cu;
	*n = depth + 1;
	return chain;
}

int tally__dso_inline_funcs(struct tally_dso *d, uint64_t vaddr, const char **names, int max)
{
	Dwarf_Die cu, *chain, best;
	int n, k = 0;

	if (max <= 0)
		return -EINVAL;
	tally__dso_dwarf_ready(d);
	if (!d->dw || !dwarf_addrdie(d->dw, vaddr, &cu))
		return -ENOENT;
	chain = scope_chain(d, &cu, vaddr, &n);
	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&chain[i]);
		const char *nm;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		/*
		 * Functions the assembler describes once per alias (mprotect,
		 * __GI_mprotect, ...) share one range: binutils takes the last
		 * such DIE, libdw the first. perf names what binutils names.
		 */
		if (tag == DW_TAG_subprogram && k == 0 && last_alias(&cu, &chain[i], vaddr, &best))
			chain[i] = best;
		if (!(nm = func_name(d, &chain[i])))
			break;
		names[k++] = nm;
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(chain);
	return k ? k : -ENOENT;
}

/* The inline chain through dwarf_getscopes: innermost scope first. */
int tally__dso_srcline_inlines(struct tally_dso *d, uint64_t vaddr,
			       struct tally_srcline *out, int max)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	const char *file;
	int n, k = 0, line;

	if (max <= 0)
		return -EINVAL;
	if (tally__dso_srcline(d, vaddr, &file, &line))
		return -ENOENT;
	out[0] = (struct tally_srcline){ .file = file, .line = line };
	if (!dwarf_addrdie(d->dw, vaddr, &cu))
		return 1;
	scopes = scope_chain(d, &cu, vaddr, &n);
	dwarf_getsrcfiles(&cu, &files, &nfiles);
	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		Dwarf_Attribute a;
		Dwarf_Word cfile, cline;

		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[k].func = dwarf_diename(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;		/* the out-of-line function ends the chain */
		/* The caller's frame is at this inline's call site. */
		if (k + 1 >= max || !files ||
		    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &a), &cfile) ||
		    dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &cline) ||
		    cfile >= nfiles)
			break;
		k++;
		out[k] = (struct tally_srcline){
			.file = dwarf_filesrc(files, cfile, NULL, NULL), .line = (int)cline,
		};
	}
	free(scopes);
	return k + 1;
}

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static int fnidx_walk(struct tally__fnidx *x, Dwarf_Die *die, int depth)
{
	Dwarf_Die ch;

	if (depth > 64 || dwarf_child(die, &ch))
		return 0;
	do {
		int tag = dwarf_tag(&ch);

		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&ch, off, &base, &lo, &hi)) > 0) {
				if (x->nr == x->alloc) {
					size_t n = x->alloc ? x->alloc * 2 : 256;
					struct tally__fn *v = realloc(x->v, n * sizeof(*v));

					if (!v)
						return -ENOMEM;
					x->v = v;
					x->alloc = n;
				}
				x->v[x->nr++] = (struct tally__fn){ lo, hi, dwarf_dieoffset(&ch), depth };
			}
		}
		if (dwarf_haschildren(&ch) && fnidx_walk(x, &ch, depth + 1))
			return -ENOMEM;
	} while (dwarf_siblingof(&ch, &ch) == 0);
	return 0;
}

/* The unit's function index, made on first use (one unit kept: annotate walks one function at a time). */
static struct tally__fnidx *fnidx_of(struct tally_dso *d, Dwarf_Die *cu)
{
	struct tally__fnidx *x = d->fnidx;

	if (x && x->cu == dwarf_dieoffset(cu))
		return x;
	fnidx_free(x);
	d->fnidx = NULL;
	if (!(x = calloc(1, sizeof(*x))))
		return NULL;
	x->cu = dwarf_dieoffset(cu);
	if (fnidx_walk(x, cu, 0)) {
		fnidx_free(x);
		return NULL;
	}
	unit_drop(d, cu);
	return d->fnidx = x;
}

/*
 * objdump -l -C's name of the innermost function at vaddr (inlined ones
 * included): the linkage name demangled with its parameters, else
 * DW_AT_name with "()", as binutils prints it.
 */
int tally__dso_objdump_func(struct tally_dso *d, uint64_t vaddr, char *buf, size_t size)
{
	Dwarf_Die cu, die;
	Dwarf_Attribute a;
	const struct tally__fn *best = NULL;
	struct tally__fnidx *x;
	const char *link = NULL, *nm;
	char *dm;
	int st = 0;

	tally__dso_dwarf_ready(d);
	if (!d->dw || !dwarf_addrdie(d->dw, vaddr, &cu) || !(x = fnidx_of(d, &cu)))
		return -ENOENT;
	/* the innermost function holding vaddr; of equal ones, the last (as binutils) */
	for (size_t i = 0; i < x->nr; i++)
		if (vaddr >= x->v[i].lo && vaddr < x->v[i].hi && (!best || x->v[i].depth >= best->depth))
			best = &x->v[i];
	if (!best || !dwarf_offdie(d->dw, best->off, &die))
		return -ENOENT;
	if (dwarf_attr_integrate(&die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(&die, DW_AT_MIPS_linkage_name, &a))
		link = dwarf_formstring(&a);
	if (link && (dm = __cxa_demangle(link, NULL, NULL, &st)) && !st) {
		snprintf(buf, size, "%s:", dm);
		free(dm);
		return 0;
	}
	if ((nm = link ? link : dwarf_diename(&die))) {
		snprintf(buf, size, "%s():", nm);
		return 0;
	}
	return -ENOENT;
}

/* The compilation directory of the CU holding vaddr (relative files are under it), or NULL. */
const char *tally__dso_comp_dir(struct tally_dso *d, uint64_t vaddr)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;

	tally__dso_dwarf_ready(d);
	if (!d->dw || !dwarf_addrdie(d->dw, vaddr, &cu))
		return NULL;
	return dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
}

/* The line row at vaddr as objdump -l prints it: file, line, discriminator. */
int tally__dso_objdump_line(struct tally_dso *d, uint64_t vaddr, const char **file, int *line,
			    unsigned *disc)
{
	Dwarf_Die cu;
	Dwarf_Line *l;
	const char *src;
	int ln;

	tally__dso_dwarf_ready(d);
	if (!d->dw || !dwarf_addrdie(d->dw, vaddr, &cu))
		return -ENOENT;
	l = dwarf_getsrc_die(&cu, vaddr);
	if (!l || !(src = dwarf_linesrc(l, NULL, NULL)) || dwarf_lineno(l, &ln))
		return -ENOENT;
	*file = src;
	*line = ln;
	if (dwarf_linediscriminator(l, disc))
		*disc = 0;
	return 0;
}
