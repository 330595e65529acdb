// SPDX-License-Identifier: MIT
/*
 * A DSO's machine code, for disassembly: its file opened again (the
 * symbol tables may have come from a debug file, whose .text is empty),
 * the section holding an address, and the names objdump gives addresses
 * (every symbol of the file's own .symtab, else .dynsym, and the
 * synthetic @plt ones). A file that is gone or no longer the one
 * recorded is refused: its bytes would be someone else's code.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/data_write.h>
#include <tally/symbols.h>
#include "internal.h"
#include "elf_util.h"
#include "dso_internal.h"
#include "kcore.h"
#include "strpool.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct tally__csym {
	uint64_t addr;
	const char *name;
	uint8_t rank;			/* objdump's preference among aliases, lowest first */
	uint64_t size;			/* then the larger first, as objdump (completed.0 over __TMC_END__) */
	bool plt;			/* made up for a PLT entry: not in any symbol table */
	/*
	 * A default export of a versioned file (version index 1): objdump
	 * names it "name@@Base" ("name@Base" hidden). Made when first asked
	 * (csym_name): cc1 has 29k such names, a few of them ever printed.
	 */
	uint8_t base;			/* 0, BASE_DEFAULT, BASE_HIDDEN */
};
#define BASE_DEFAULT 1
#define BASE_HIDDEN 2
/* sym_rank's: a function's 0-2, an object's 3-5, the rest's 6-8, a GOT slot's name last */
#define RANK_OBJECT 3
#define RANK_OTHER 6
#define RANK_GOT 9


/*
 * objdump's order at one address (its compare_symbols): functions,
 * objects, then the rest; of each the global ones, then the others (weak,
 * unique: not BSF_GLOBAL in bfd), then the local ones. Weak after global:
 * libc's _exit (global) names the address, not _Exit (weak).
 */
static uint8_t sym_rank(const GElf_Sym *s)
{
	unsigned t = GELF_ST_TYPE(s->st_info), b = GELF_ST_BIND(s->st_info);

	/* bfd does not count an IFUNC as a function */
	return (uint8_t)((t == STT_FUNC ? 0 : t == STT_OBJECT ? RANK_OBJECT : RANK_OTHER) +
			 (b == STB_GLOBAL ? 0 : b == STB_LOCAL ? 2 : 1));
}

struct tally_dso_code {
	struct tally__elf_file f;
	struct tally__elf_file dbg;	/* the separate debug file, for its .symtab */
	struct tally_dso *dso;
	struct tally__csym *syms;
	size_t nr;
	struct tally__csym *got;	/* GOT slot -> the symbol its relocation names */
	size_t nr_got;
	struct tally__strpool dm;	/* demangled and versioned names (objdump -C) */
	const char *path;		/* the file the code is read from */
	bool symtab;			/* names from a .symtab (objdump -l's functions) */
	/* kernel code from /proc/kcore: no names */
	struct tally__kcore *kcore;
	char *kcore_path;
	uint8_t *kbuf;			/* the code last read, a symbol's at a time */
};

/* objdump -C: a C++ name demangled with its parameters; else as it is */
static const char *demangled(struct tally_dso_code *c, const char *name)
{
	char *dm;
	const char *p;
	int st = 0;

	if (strncmp(name, "_Z", 2) || !(dm = __cxa_demangle(name, NULL, NULL, &st)) || st)
		return name;
	p = tally__strpool_add(&c->dm, dm);
	free(dm);
	return p ? p : name;
}

/* .gnu.version_d's names by version index, for "sym@@VER" */
static const char *verdef_name(Elf *elf, unsigned idx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t off = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_GNU_verdef ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_info && off < data->d_size; k++) {
			GElf_Verdef vd;
			GElf_Verdaux va;

			if (!gelf_getverdef(data, (int)off, &vd))
				break;
			if (vd.vd_ndx == idx && gelf_getverdaux(data, (int)(off + vd.vd_aux), &va))
				return elf_strptr(elf, sh.sh_link, va.vda_name);
			if (!vd.vd_next)
				break;
			off += vd.vd_next;
		}
	}
	return NULL;
}

/* .gnu.version_r's name for a needed version index */
static const char *verneed_name(Elf *elf, unsigned idx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		size_t off = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_GNU_verneed ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t k = 0; k < sh.sh_info && off < data->d_size; k++) {
			GElf_Verneed vn;
			size_t aoff;

			if (!gelf_getverneed(data, (int)off, &vn))
				break;
			aoff = off + vn.vn_aux;
			for (unsigned j = 0; j < vn.vn_cnt; j++) {
				GElf_Vernaux va;

				if (!gelf_getvernaux(data, (int)aoff, &va))
					break;
				if (va.vna_other == idx)
					return elf_strptr(elf, sh.sh_link, va.vna_name);
				if (!va.vna_next)
					break;
				aoff += va.vna_next;
			}
			if (!vn.vn_next)
				break;
			off += vn.vn_next;
		}
	}
	return NULL;
}

static Elf_Data *versym_data(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	return NULL;
}

static int by_addr(const void *a, const void *b)
{
	const struct tally__csym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if ((x->name[0] == '.') != (y->name[0] == '.'))
		return x->name[0] == '.' ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * objdump's names: a .symtab's symbols as they are; .dynsym's with their
 * version, "name@@VER" (the default one) or "name@VER".
 */
static int load_names(struct tally_dso_code *c, Elf *elf, uint32_t type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data, *vs = type == SHT_DYNSYM ? versym_data(elf) : NULL;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		if (!(data = elf_getdata(scn, NULL)))
			return 0;
		n = sh.sh_size / sh.sh_entsize;
		c->syms = calloc(n + 1, sizeof(*c->syms));
		if (!c->syms)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(data, (int)i, &s) || !s.st_value ||
			    s.st_shndx == SHN_UNDEF || GELF_ST_TYPE(s.st_info) == STT_SECTION ||
			    GELF_ST_TYPE(s.st_info) == STT_FILE)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || !*name)
				continue;
			/* objdump -C demangles the name, then appends its version (bfd_demangle) */
			name = demangled(c, name);
			if (vs) {
				GElf_Versym v;
				const char *ver;
				size_t l;

				/* bfd names index 1 (VER_NDX_GLOBAL) "Base" */
				if (gelf_getversym(vs, (int)i, &v) && (v & 0x7fff) == 1)
					c->syms[c->nr].base = (v & 0x8000) ? BASE_HIDDEN : BASE_DEFAULT;
				else if (gelf_getversym(vs, (int)i, &v) && (v & 0x7fff) > 1 &&
				    (ver = verdef_name(elf, v & 0x7fff))) {
					char buf[2048];

					l = (size_t)snprintf(buf, sizeof(buf), "%s%s%s", name,
							     (v & 0x8000) ? "@" : "@@", ver);
					if (l < sizeof(buf) && !(name = tally__strpool_add(&c->dm, buf)))
						return -ENOMEM;
				}
			}
			c->syms[c->nr].rank = sym_rank(&s);
			c->syms[c->nr].size = s.st_size;
			c->syms[c->nr].addr = s.st_value;
			c->syms[c->nr++].name = name;
		}
		return 1;
	}
	return 0;
}

/*
 * A GOT slot is named after the symbol its dynamic relocation fills,
 * "name@VER" (objdump's "@Base" for an unversioned one in a file with
 * version sections; the bare name in a file without any).
 */
static int load_reloc_names(struct tally_dso_code *c)
{
	Elf *elf = c->f.elf;
	Elf_Scn *scn = NULL, *dsym;
	Elf_Data *vs = versym_data(elf);
	GElf_Shdr sh, dsh;
	GElf_Ehdr eh;
	int machine = gelf_getehdr(elf, &eh) ? eh.e_machine : 0;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *rd, *sd;
		struct tally__csym *v;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(dsym = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(dsym, &dsh) ||
		    dsh.sh_type != SHT_DYNSYM || !(rd = elf_getdata(scn, NULL)) ||
		    !(sd = elf_getdata(dsym, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		if (!(v = realloc(c->syms, (c->nr + 2 * n + 1) * sizeof(*v))))
			return -ENOMEM;
		c->syms = v;
		if (!(v = realloc(c->got, (c->nr_got + n) * sizeof(*v))))
			return -ENOMEM;
		c->got = v;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Sym s;
			GElf_Versym ver = 0;
			const char *name, *vn = NULL, *vname;
			char buf[2048];

			if (!gelf_getrela(rd, (int)i, &r))
				continue;
			/*
			 * An IFUNC resolved in the file itself (R_X86_64_IRELATIVE,
			 * no symbol): bfd names its slot after the resolver's
			 * address, and objdump the PLT entry "*ABS*+0xADDR@plt"
			 */
			if (!GELF_R_SYM(r.r_info) && GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE &&
			    machine == EM_X86_64) {
				snprintf(buf, sizeof(buf), "*ABS*+0x%llx", (unsigned long long)r.r_addend);
				if (!(name = tally__strpool_add(&c->dm, buf)))
					return -ENOMEM;
				c->got[c->nr_got].addr = r.r_offset;
				c->got[c->nr_got++].name = name;
				continue;
			}
			if (!GELF_R_SYM(r.r_info) ||
			    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s) ||
			    !(name = elf_strptr(elf, dsh.sh_link, s.st_name)) || !*name)
				continue;
			c->got[c->nr_got].addr = r.r_offset;
			c->got[c->nr_got++].name = name;
			if (vs && gelf_getversym(vs, (int)GELF_R_SYM(r.r_info), &ver) && (ver & 0x7fff) > 1)
				vn = s.st_shndx == SHN_UNDEF ? verneed_name(elf, ver & 0x7fff) :
							       verdef_name(elf, ver & 0x7fff);
			/* a file without version sections: objdump's bare name */
			if ((size_t)(vs ? snprintf(buf, sizeof(buf), "%s@%s", name, vn ? vn : "Base") :
				     snprintf(buf, sizeof(buf), "%s", name)) >= sizeof(buf))
				continue;
			if (!(vname = tally__strpool_add(&c->dm, buf)))
				return -ENOMEM;
			c->syms[c->nr].addr = r.r_offset;
			c->syms[c->nr].rank = RANK_GOT;
			c->syms[c->nr].size = 0;
			c->syms[c->nr].plt = false;
			c->syms[c->nr].base = 0;
			c->syms[c->nr++].name = vname;
		}
	}
	return 0;
}

/* "_Z...@plt": objdump -C demangles the name before the suffix */
static const char *demangled_plt(struct tally_dso_code *c, const char *name)
{
	char buf[1024], *dm;
	const char *p;
	int st = 0;

	if (strncmp(name, "_Z", 2) || strlen(name) >= sizeof(buf))
		return name;
	snprintf(buf, sizeof(buf), "%.*s", (int)(strlen(name) - 4), name);
	if (!(dm = __cxa_demangle(buf, NULL, NULL, &st)) || st) {
		free(dm);
		return name;
	}
	snprintf(buf, sizeof(buf), "%s@plt", dm);
	free(dm);
	p = tally__strpool_add(&c->dm, buf);
	return p ? p : name;
}

/*
 * The PLT's names as binutils makes them up: each entry of .plt,
 * .plt.sec and .plt.got jumps through a GOT slot ("jmp *disp(%rip)",
 * ff 25); the entry is "name@plt" after the symbol that slot is
 * relocated to.
 */
static int load_plt_names(struct tally_dso_code *c)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	GElf_Shdr sh;
	struct tally__csym *v;

	if (elf_getshdrstrndx(c->f.elf, &shstr))
		return 0;
	while ((scn = elf_nextscn(c->f.elf, scn))) {
		const char *sn;
		Elf_Data *data;
		uint64_t ent;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sn = elf_strptr(c->f.elf, shstr, sh.sh_name)) ||
		    (strcmp(sn, ".plt") && strcmp(sn, ".plt.sec") && strcmp(sn, ".plt.got")) ||
		    !(data = elf_getdata(scn, NULL)) || data->d_size < sh.sh_size)
			continue;
		ent = sh.sh_entsize ? sh.sh_entsize : !strcmp(sn, ".plt.got") ? 8 : 16;
		n = sh.sh_size / ent;
		if (!(v = realloc(c->syms, (c->nr + n + 1) * sizeof(*v))))
			return -ENOMEM;
		c->syms = v;
		for (size_t i = 0; i < n; i++) {
			const uint8_t *e = (const uint8_t *)data->d_buf + i * ent;

			for (size_t k = 0; k + 6 <= ent; k++) {
				int32_t disp;
				uint64_t slot;
				size_t g;
				char buf[1024];
				const char *name;

				if (e[k] != 0xff || e[k + 1] != 0x25)
					continue;
				memcpy(&disp, e + k + 2, 4);
				slot = sh.sh_addr + i * ent + k + 6 + (uint64_t)(int64_t)disp;
				for (g = 0; g < c->nr_got && c->got[g].addr != slot; g++)
					;
				if (g == c->nr_got)
					break;
				snprintf(buf, sizeof(buf), "%s@plt", c->got[g].name);
				if (!(name = tally__strpool_add(&c->dm, buf)))
					return -ENOMEM;
				c->syms[c->nr].addr = sh.sh_addr + i * ent;
				c->syms[c->nr].rank = 0;
				c->syms[c->nr].size = 0;
				c->syms[c->nr].plt = true;
				c->syms[c->nr].base = 0;
				c->syms[c->nr++].name = demangled_plt(c, name);
				break;
			}
		}
	}
	return 0;
}

/* The code of path, an ELF file holding d's code (its own, or a vmlinux). */
static struct tally_dso_code *open_elf(struct tally_dso *d, const char *path, unsigned flags)
{
	struct tally_dso_code *c;
	int err;

	if (!(c = calloc(1, sizeof(*c))))
		return tally__err_ptr(ENOMEM);
	c->dso = d;
	c->path = path;
	if ((err = tally__elf_file_open(&c->f, path))) {
		free(c);
		return tally__err_ptr(-err);
	}
	/* objdump -l reads a stripped file's names from its debug file */
	if ((err = load_names(c, c->f.elf, SHT_SYMTAB)) == 0 &&
	    (flags & TALLY_DSO_CODE_DEBUG_NAMES) && d->dwarf_path &&
	    strcmp(d->dwarf_path, path) && !tally__elf_file_open(&c->dbg, d->dwarf_path))
		err = load_names(c, c->dbg.elf, SHT_SYMTAB);
	c->symtab = err > 0;
	if (err == 0)
		err = load_names(c, c->f.elf, SHT_DYNSYM);
	if (err < 0 || (!c->syms && !(c->syms = calloc(d->nr_syms + 1, sizeof(*c->syms))))) {
		tally_dso_code__close(c);
		return tally__err_ptr(ENOMEM);
	}
	if (load_reloc_names(c)) {
		tally_dso_code__close(c);
		return tally__err_ptr(ENOMEM);
	}
	if (load_plt_names(c)) {
		tally_dso_code__close(c);
		return tally__err_ptr(ENOMEM);
	}
	qsort(c->syms, c->nr, sizeof(*c->syms), by_addr);
	return c;
}

static int dso_usable(const struct tally_dso *d)
{
	switch (d->status) {
	case TALLY_DSO_MISSING:
		return -ENOENT;
	case TALLY_DSO_BUILD_ID_MISMATCH:
		return -ESTALE;
	default:
		break;
	}
	if (d->kind == DSO_JIT || d->kind == DSO_ANON)
		return -ENOTSUP;
	return 0;
}

struct tally_dso_code *tally_dso_code__open(struct tally_dso *d, unsigned flags)
{
	int err;

	if (!d)
		return tally__err_ptr(EINVAL);
	/* the recorded build, kept by perf's build-id cache (a rebuilt file, [vdso]) */
	if (d->code_path)
		return open_elf(d, d->code_path, flags);
	if ((err = dso_usable(d)))
		return tally__err_ptr(-err);
	if (d->kind == DSO_KERNEL)
		return tally__err_ptr(ENOEXEC);
	return open_elf(d, tally__dso_file(d), flags);
}

/* A vmlinux linked where the kernel ran: else its addresses are not the sampled ones. */
static bool vmlinux_placed(const struct tally_dso_code *c)
{
	for (size_t i = 0; i < c->nr; i++)
		if (!strcmp(c->syms[i].name, "_text"))
			return !c->dso->text || c->syms[i].addr == c->dso->text;
	return true;
}

struct tally_dso_code *tally_dso_code__open_kernel(struct tally_dso *d, const char *vmlinux,
						   const char *kcore, unsigned flags)
{
	struct tally_dso_code *c;
	int err;

	if (!d)
		return tally__err_ptr(EINVAL);
	if (d->kind != DSO_KERNEL)
		return tally_dso_code__open(d, flags);
	if ((err = dso_usable(d)))
		return tally__err_ptr(-err);
	/* a vmlinux holds the kernel's own code, not its modules' */
	if (vmlinux && !strcmp(d->name, "[kernel.kallsyms]")) {
		if (!(c = open_elf(d, vmlinux, 0)))
			return NULL;
		if (!vmlinux_placed(c)) {
			tally_dso_code__close(c);
			return tally__err_ptr(ERANGE);
		}
		return c;
	}
	if (!(c = calloc(1, sizeof(*c))))
		return tally__err_ptr(ENOMEM);
	c->dso = d;
	c->f.fd = -1;
	if (!(c->kcore_path = strdup(kcore ? kcore : "/proc/kcore"))) {
		free(c);
		return tally__err_ptr(ENOMEM);
	}
	c->path = c->kcore_path;
	if ((err = tally__kcore_open(c->kcore_path, &c->kcore))) {
		tally_dso_code__close(c);
		/* no vmlinux and no kcore: perf's "No vmlinux file was found" */
		return tally__err_ptr(err == -ENOENT ? ENOEXEC : err == -EPERM ? EACCES : -err);
	}
	return c;
}

const char *tally_dso_code__path(const struct tally_dso_code *c)
{
	return c ? c->path : NULL;
}

bool tally_dso_code__has_names(const struct tally_dso_code *c)
{
	return c && !c->kcore;
}

void tally_dso_code__close(struct tally_dso_code *c)
{
	if (!c)
		return;
	tally__kcore_close(c->kcore);
	free(c->kcore_path);
	free(c->kbuf);
	if (c->f.elf || c->f.fd >= 0)
		tally__elf_file_close(&c->f);
	if (c->dbg.elf)
		tally__elf_file_close(&c->dbg);
	free(c->got);
	tally__strpool_free(&c->dm);
	free(c->syms);
	free(c);
}

/* Largest function read from kcore: past it, the symbol's end is not believed. */
#define KCORE_FUNC_MAX (1u << 20)

/*
 * kcore: the bytes of the symbol at vaddr (kallsyms gives its end), in
 * the section objdump names "load0" in the one-segment file perf
 * extracts for it.
 */
static const uint8_t *kcore_bytes(struct tally_dso_code *c, uint64_t vaddr, size_t *len,
				  const char **section)
{
	const struct tally_symbol *s = tally__dso_symbol(c->dso, vaddr);
	size_t n = s && s->end > vaddr && s->end - vaddr <= KCORE_FUNC_MAX ? s->end - vaddr : 4096;
	ssize_t got;

	free(c->kbuf);
	if (!(c->kbuf = malloc(n)))
		return tally__err_ptr(ENOMEM);
	if ((got = tally__kcore_read(c->kcore, vaddr, c->kbuf, n)) < 0)
		return tally__err_ptr(got == -ENOENT ? ENODATA : (int)-got);
	*len = (size_t)got;
	if (section)
		*section = "load0";
	return c->kbuf;
}

/*
 * A file's code read with pread, the symbol at vaddr's bytes (to the
 * section's end when no symbol says where it ends, 64 KiB at most), not
 * through libelf's mapping: the pages of every function annotated stayed
 * in the RSS (cc1's hundreds: 5 MB).
 */
static const uint8_t *read_code(struct tally_dso_code *c, const GElf_Shdr *sh, uint64_t vaddr,
				size_t *len)
{
	const struct tally_symbol *s = tally__dso_symbol(c->dso, vaddr);
	uint64_t left = sh->sh_addr + sh->sh_size - vaddr;
	size_t n = s && s->end > vaddr && s->end - vaddr <= left ? s->end - vaddr :
		   left < 65536 ? left : 65536;
	ssize_t got;

	free(c->kbuf);
	if (!(c->kbuf = malloc(n ? n : 1)))
		return tally__err_ptr(ENOMEM);
	got = pread(c->f.fd, c->kbuf, n, (off_t)(sh->sh_offset + (vaddr - sh->sh_addr)));
	if (got <= 0)
		return tally__err_ptr(got < 0 ? errno : ENODATA);
	*len = (size_t)got;
	return c->kbuf;
}

const uint8_t *tally_dso_code__bytes(struct tally_dso_code *c, uint64_t vaddr, size_t *len,
				     const char **section)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	GElf_Shdr sh;

	if (!c || !len)
		return tally__err_ptr(EINVAL);
	if (c->kcore)
		return kcore_bytes(c, vaddr, len, section);
	if (elf_getshdrstrndx(c->f.elf, &shstr))
		return tally__err_ptr(EINVAL);
	while ((scn = elf_nextscn(c->f.elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    vaddr < sh.sh_addr || vaddr >= sh.sh_addr + sh.sh_size)
			continue;
		/* NOBITS: a debug file's stripped .text, no code in it */
		if (sh.sh_type != SHT_PROGBITS || !sh.sh_size)
			return tally__err_ptr(ENODATA);
		if (section)
			*section = elf_strptr(c->f.elf, shstr, sh.sh_name);
		return read_code(c, &sh, vaddr, len);
	}
	return tally__err_ptr(ENOENT);
}

/*
 * objdump --stop-address goes on into the next sections when a range
 * (a sizeless symbol's, grown to the next symbol) passes its section's
 * end: the lowest executable section starting in (after, end), its bytes
 * to end at most.
 */
const uint8_t *tally_dso_code__next_section(struct tally_dso_code *c, uint64_t after,
					    uint64_t end, uint64_t *start, size_t *len,
					    const char **section)
{
	Elf_Scn *scn = NULL, *best = NULL;
	GElf_Shdr sh, bsh = { 0 };
	size_t shstr;
	ssize_t got;
	size_t n;

	if (!c || !start || !len)
		return tally__err_ptr(EINVAL);
	if (c->kcore || elf_getshdrstrndx(c->f.elf, &shstr))
		return tally__err_ptr(ENOENT);
	while ((scn = elf_nextscn(c->f.elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
		    sh.sh_type == SHT_PROGBITS && sh.sh_size && sh.sh_addr > after &&
		    sh.sh_addr < end && (!best || sh.sh_addr < bsh.sh_addr)) {
			best = scn;
			bsh = sh;
		}
	if (!best)
		return tally__err_ptr(ENOENT);
	n = end - bsh.sh_addr < bsh.sh_size ? end - bsh.sh_addr : bsh.sh_size;
	free(c->kbuf);
	if (!(c->kbuf = malloc(n)))
		return tally__err_ptr(ENOMEM);
	if ((got = pread(c->f.fd, c->kbuf, n, (off_t)bsh.sh_offset)) <= 0)
		return tally__err_ptr(got < 0 ? errno : ENODATA);
	*start = bsh.sh_addr;
	*len = (size_t)got;
	if (section)
		*section = elf_strptr(c->f.elf, shstr, bsh.sh_name);
	return c->kbuf;
}

/* s's name as objdump prints it: "@@Base" added the first time it is asked */
static const char *csym_name(const struct tally_dso_code *c, const struct tally__csym *s)
{
	struct tally__csym *m = (struct tally__csym *)s;	/* c's own, named once */
	char buf[2048];
	const char *n;

	if (!s->base)
		return s->name;
	if ((size_t)snprintf(buf, sizeof(buf), "%s%sBase", s->name,
			     s->base == BASE_HIDDEN ? "@" : "@@") >= sizeof(buf) ||
	    !(n = tally__strpool_add(&((struct tally_dso_code *)c)->dm, buf)))
		return s->name;
	m->name = n;
	m->base = 0;
	return n;
}

/* objdump's label for a section's start: its first symbol, maybe past it; NULL if none */
const char *tally_dso_code__section_sym(const struct tally_dso_code *c, uint64_t start,
					uint64_t *at)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t size = 0;
	size_t lo = 0, hi;

	if (!c || !at || c->kcore)
		return NULL;
	while ((scn = elf_nextscn(c->f.elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_addr == start) {
			size = sh.sh_size;
			break;
		}
	hi = c->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->syms[mid].addr < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= c->nr || c->syms[lo].addr >= start + size)
		return NULL;
	*at = c->syms[lo].addr;
	return csym_name(c, &c->syms[lo]);
}

/* The first (objdump's) name at the nearest address at or below addr, or NULL. */
static const struct tally__csym *csym_at(const struct tally_dso_code *c, uint64_t addr)
{
	size_t lo = 0, hi = c ? c->nr : 0;
	const struct tally__csym *best = NULL;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->syms[mid].addr <= addr) {
			best = &c->syms[mid];
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	while (best && best > c->syms && best[-1].addr == best->addr)
		best--;
	return best;
}

const char *tally_dso_code__sym(void *ctx, uint64_t addr, uint64_t *off)
{
	const struct tally__csym *best = csym_at(ctx, addr);

	if (!best)
		return NULL;
	*off = addr - best->addr;
	return csym_name(ctx, best);
}

int tally_dso_code__func(const struct tally_dso_code *c, uint64_t addr, const char **name)
{
	const struct tally__csym *s;

	/* bfd's fallback reads the static symbols only, and of them the functions */
	if (!c || !name || !c->symtab || !(s = csym_at(c, addr)) || s->rank >= RANK_OBJECT || s->plt)
		return -ENOENT;
	*name = s->name;
	return 0;
}

int tally_dso_code__build_id(const struct tally_dso_code *c, uint8_t *id, size_t max)
{
	int n;

	if (!c || !id)
		return tally__err(EINVAL);
	/* kcore is the running kernel */
	n = c->kcore ? tally_build_id__kernel(id, max) : tally__elf_build_id(c->f.elf, id, max);
	return n > 0 ? n : 0;
}
