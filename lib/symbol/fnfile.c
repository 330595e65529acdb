// SPDX-License-Identifier: MIT
/*
 * The source file binutils names for an address no line table covers.
 * perf 6.1 asks addr2line for source lines; where DWARF has no row (a
 * program built without -g, crtstuff's code), binutils falls back to the
 * symbol table (_bfd_elf_find_function, 2.40): the function symbol
 * nearest below the address in its section, and the STT_FILE symbol
 * before it in table order, when the function is local or no file
 * symbol has followed any symbol yet (the linker puts every global after
 * all the files' locals, so a global gets none). perf then shows
 * "file.c:0" (a static function of a file built without -g) where
 * nothing would be "??:0". Read once per DSO, from the file its symbols
 * came from (a debug file's own table when one gave them), at the first
 * address that needs it.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "elf_util.h"
#include "dso_internal.h"
#include "strpool.h"

/* A candidate of binutils' maybe_function_sym, in table order within its section. */
struct fnsym {
	uint64_t off, size;		/* st_value; size 1 for 0, as binutils */
	uint32_t shndx;
	uint32_t seq;			/* its place in the table */
	bool func;			/* STT_FUNC or STT_GNU_IFUNC (binutils' BSF_FUNCTION) */
	bool notype;
	const char *file;		/* the file binutils names for it, or NULL */
};

struct fnsec {
	uint32_t shndx;
	uint64_t addr, end;
};

struct tally__fnfiles {
	struct fnsym *s;		/* by (section, offset), table order within */
	size_t n;
	struct fnsec *sec;		/* the allocated sections */
	size_t nsec;
	struct tally__strpool files;	/* the STT_FILE names, one copy each */
};

void tally__fnfiles_free(struct tally__fnfiles *ff)
{
	if (!ff)
		return;
	tally__strpool_free(&ff->files);
	free(ff->s);
	free(ff->sec);
	free(ff);
}

static int by_place(const void *pa, const void *pb)
{
	const struct fnsym *a = pa, *b = pb;

	if (a->shndx != b->shndx)
		return a->shndx < b->shndx ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* The symbol table's candidates, each with its file as binutils' state machine gives it. */
static int read_syms(struct tally__fnfiles *ff, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh)
{
	enum { NOTHING, SYMBOL, FILE_AFTER } state = NOTHING;
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, cap = 0;
	const char *file = NULL;

	for (size_t i = 1; d && i < n; i++) {
		GElf_Sym s;
		const char *name;
		int type, bind;

		if (!gelf_getsym(d, (int)i, &s))
			break;
		type = GELF_ST_TYPE(s.st_info);
		bind = GELF_ST_BIND(s.st_info);
		if (type == STT_FILE) {
			name = elf_strptr(elf, sh->sh_link, s.st_name);
			file = NULL;
			if (name && !(file = tally__strpool_add(&ff->files, name)))
				return -ENOMEM;
			if (state == SYMBOL)
				state = FILE_AFTER;
			continue;
		}
		if (state == NOTHING)
			state = SYMBOL;
		/* maybe_function_sym: functions and untyped symbols of a real section */
		if ((type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE)
			continue;
		/* annobin's markers: hidden local untyped symbols of no size */
		if (type == STT_NOTYPE && !s.st_size && bind == STB_LOCAL &&
		    GELF_ST_VISIBILITY(s.st_other) == STV_HIDDEN)
			continue;
		if (ff->n == cap) {
			size_t c = cap ? cap * 2 : 256;
			struct fnsym *v = realloc(ff->s, c * sizeof(*v));

			if (!v)
				return -ENOMEM;
			ff->s = v;
			cap = c;
		}
		ff->s[ff->n++] = (struct fnsym){
			.off = s.st_value, .size = s.st_size ? s.st_size : 1, .shndx = s.st_shndx,
			.seq = (uint32_t)i, .func = type != STT_NOTYPE, .notype = type == STT_NOTYPE,
			.file = file && (bind == STB_LOCAL || state != FILE_AFTER) ? file : NULL,
		};
	}
	/* by place, ties in table order */
	qsort(ff->s, ff->n, sizeof(*ff->s), by_place);
	return 0;
}

static struct tally__fnfiles *fnfiles_read(const char *path)
{
	struct tally__elf_file f;
	struct tally__fnfiles *ff;
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh, ssh;
	int err = 0;

	if (tally__elf_file_open(&f, path))
		return NULL;
	if (!(ff = calloc(1, sizeof(*ff)))) {
		tally__elf_file_close(&f);
		return NULL;
	}
	while (!err && (scn = elf_nextscn(f.elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
		if (!(sh.sh_flags & SHF_ALLOC) || !sh.sh_size)
			continue;
		struct fnsec *v = realloc(ff->sec, (ff->nsec + 1) * sizeof(*v));

		if (!v) {
			err = -ENOMEM;
			break;
		}
		ff->sec = v;
		ff->sec[ff->nsec++] = (struct fnsec){ (uint32_t)elf_ndxscn(scn), sh.sh_addr,
						      sh.sh_addr + sh.sh_size };
	}
	/* addr2line reads the static table, else the dynamic one */
	if (!symtab)
		symtab = dynsym;
	if (!err && symtab && gelf_getshdr(symtab, &ssh))
		err = read_syms(ff, f.elf, symtab, &ssh);
	tally__elf_file_close(&f);
	if (err) {
		tally__fnfiles_free(ff);
		return NULL;
	}
	return ff;
}

/*
 * binutils' better_fit between the best so far (b) and a candidate (c)
 * at the same offset, for an address at off: the one that reaches off,
 * then a function over an untyped symbol, then the smaller.
 */
static bool better(const struct fnsym *b, const struct fnsym *c, uint64_t off)
{
	if (b->off + b->size <= off)
		return c->size > b->size;
	if (c->off + c->size <= off)
		return false;
	if (b->func != c->func)
		return c->func;
	if (b->notype != c->notype)
		return b->notype;
	return c->size < b->size;
}

int tally__dso_fnfile(struct tally_dso *d, uint64_t vaddr, const char **file)
{
	const char *path;
	struct tally__fnfiles *ff;
	const struct fnsec *sec = NULL;
	size_t lo = 0, hi, first;
	const struct fnsym *best;

	if (d->kind != DSO_ELF)
		return -ENOENT;	/* kallsyms, a JIT map: no symbol table of files */
	if (!d->fnfiles_tried) {
		d->fnfiles_tried = true;
		/* the file the symbols came from: the DSO's own, or the debug file that gave them */
		path = d->symsrc && d->symsrc[0] == '/' ? d->symsrc :
		       d->symsrc && !strcmp(d->symsrc, ".symtab") ? tally__dso_file(d) : NULL;
		d->fnfiles = path ? fnfiles_read(path) : NULL;
	}
	if (!(ff = d->fnfiles))
		return -ENOENT;
	for (size_t i = 0; i < ff->nsec && !sec; i++)
		if (vaddr >= ff->sec[i].addr && vaddr < ff->sec[i].end)
			sec = &ff->sec[i];
	if (!sec)
		return -ENOENT;
	/* the last candidate of the section at or below vaddr */
	hi = ff->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fnsym *m = &ff->s[mid];

		if (m->shndx < sec->shndx || (m->shndx == sec->shndx && m->off <= vaddr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ff->s[lo - 1].shndx != sec->shndx)
		return -ENOENT;
	/* those at its offset, in table order: the first, then each one that fits better */
	for (first = lo - 1; first && ff->s[first - 1].shndx == sec->shndx &&
			     ff->s[first - 1].off == ff->s[lo - 1].off; first--)
		;
	best = &ff->s[first];
	for (size_t i = first + 1; i < lo; i++)
		if (better(best, &ff->s[i], vaddr))
			best = &ff->s[i];
	if (!best->file || !*best->file)
		return -ENOENT;
	*file = best->file;
	return 0;
}
