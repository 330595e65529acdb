// SPDX-License-Identifier: MIT
/*
 * DSOs: symbol tables from ELF files (libelf), their separate debug
 * files and MiniDebugInfo. Each DSO is loaded once by tally_symbols
 * (symbols.c); perf's rules for the table: symtab.c; JIT maps: jitmap.c;
 * source lines: srcline.c.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <lzma.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "internal.h"
#include "debugcache.h"
#include "elf_util.h"
#include "dso_internal.h"
#include "asan.h"
#include "symcache.h"
#include "plt_tree.h"

/* ---- ELF ---- */

static Elf_Scn *find_scn(Elf *elf, const char *name, uint32_t type, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		if (type && sh->sh_type != type)
			continue;
		if (!name)
			return scn;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static bool has_symtab(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, NULL, SHT_SYMTAB, &sh);

	return scn && sh.sh_size > sh.sh_entsize;
}

/*
 * The symbols perf keeps: functions (FUNC, GNU_IFUNC) in any section, and
 * labels (NOTYPE, not hidden) only in a section whose name has "text" in
 * it (perf's elf_sec__is_text); named, defined, not absolute, in an
 * allocated section. So _init in .init counts, and with no size it runs
 * over the PLT (see plt_shadowed). Objects too when asked: perf's tree
 * holds them, tally's symbol table does not.
 */
/*
 * What perf_keeps asks of a symbol's section, for each section once (a
 * libelf walk per symbol was a tenth of a small report's time).
 */
enum { SEC_ALLOC = 1, SEC_TEXT = 2 };

struct secs {
	uint8_t *f;
	size_t n;
};

static int secs_of(Elf *elf, struct secs *x)
{
	size_t shstrndx;

	x->f = NULL;
	x->n = 0;
	if (elf_getshdrnum(elf, &x->n) || elf_getshdrstrndx(elf, &shstrndx))
		return 0;	/* no sections: no symbol kept */
	if (!(x->f = calloc(x->n ? x->n : 1, 1)))
		return -ENOMEM;
	for (size_t i = 0; i < x->n; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);
		const char *name;
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh))
			continue;
		/* .gnu.warning.* and the like never reach memory. */
		if (sh.sh_flags & SHF_ALLOC)
			x->f[i] |= SEC_ALLOC;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && strstr(name, "text"))
			x->f[i] |= SEC_TEXT;
	}
	return 0;
}

/*
 * A symbol table's entries and names, read in place where the file is
 * 64-bit (gelf_getsym and elf_strptr check and copy each one).
 */
struct symtab {
	Elf *elf;
	Elf_Data *d, *names;
	size_t n, link;
	bool direct;
};

static void symtab_of(Elf *elf, Elf_Data *d, size_t n, size_t link, struct symtab *t)
{
	Elf_Scn *nscn = elf_getscn(elf, link);
	GElf_Shdr nsh;

	*t = (struct symtab){ .elf = elf, .d = d, .n = n, .link = link };
	t->names = nscn && gelf_getshdr(nscn, &nsh) && !(nsh.sh_flags & SHF_COMPRESSED) ?
		   elf_getdata(nscn, NULL) : NULL;
	/* a block of NUL-ended strings, checked once; the entries as the file has them */
	t->direct = gelf_getclass(elf) == ELFCLASS64 && d && d->d_type == ELF_T_SYM &&
		    n <= d->d_size / sizeof(Elf64_Sym) && t->names && t->names->d_size &&
		    ((const char *)t->names->d_buf)[t->names->d_size - 1] == '\0';
}

static bool symtab_get(const struct symtab *t, size_t i, GElf_Sym *s)
{
	if (t->direct) {
		memcpy(s, (const Elf64_Sym *)t->d->d_buf + i, sizeof(*s));
		return true;
	}
	return gelf_getsym(t->d, (int)i, s) != NULL;
}

static const char *symtab_name(const struct symtab *t, const GElf_Sym *s)
{
	if (t->direct)
		return s->st_name < t->names->d_size ?
		       (const char *)t->names->d_buf + s->st_name : NULL;
	return elf_strptr(t->elf, t->link, s->st_name);
}

static bool perf_keeps(const struct secs *x, const GElf_Sym *s, bool objects)
{
	int t = GELF_ST_TYPE(s->st_info);

	if (!s->st_name || s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
		return false;
	if (t == STT_NOTYPE) {
		int vis = GELF_ST_VISIBILITY(s->st_other);

		if (vis == STV_HIDDEN || vis == STV_INTERNAL)
			return false;
	} else if (t != STT_FUNC && t != STT_GNU_IFUNC && !(objects && t == STT_OBJECT)) {
		return false;
	}
	if (s->st_shndx >= x->n || !(x->f[s->st_shndx] & SEC_ALLOC))
		return false;
	return t != STT_NOTYPE || (x->f[s->st_shndx] & SEC_TEXT);
}

/*
 * A data object in a text section (hand-written assembly, code kept as
 * data): perf keeps objects with the functions, so samples there are
 * named by it. Those elsewhere hold no code: only perf's tree (load_objects).
 */
static bool text_object(const struct secs *x, const GElf_Sym *s)
{
	return GELF_ST_TYPE(s->st_info) == STT_OBJECT && perf_keeps(x, s, true) &&
	       (x->f[s->st_shndx] & SEC_TEXT);
}

static int load_symtab(Elf *elf, uint32_t type, struct tally__symvec *v)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, NULL, type, &sh);
	struct symtab t;
	struct secs x;
	int added = 0;

	if (!scn || !sh.sh_entsize)
		return 0;
	if (secs_of(elf, &x))
		return -ENOMEM;
	symtab_of(elf, elf_getdata(scn, NULL), sh.sh_size / sh.sh_entsize, sh.sh_link, &t);

	size_t first = v->nr, base = v->seq;

	for (size_t i = 0; t.d && i < t.n; i++) {
		GElf_Sym s;
		const char *name;

		if (!symtab_get(&t, i, &s))
			break;
		bool obj = text_object(&x, &s) ||
			   (v->data_objects && GELF_ST_TYPE(s.st_info) == STT_OBJECT &&
			    perf_keeps(&x, &s, true));

		if (!obj && !perf_keeps(&x, &s, false))
			continue;
		name = symtab_name(&t, &s);
		if (!name || !*name)
			continue;
		v->seq = base + i;	/* its place in the table: objects go between (load_objects) */
		if (tally__symvec_add(v, s.st_value, s.st_size, GELF_ST_BIND(s.st_info),
				      name, false)) {
			free(x.f);
			return -ENOMEM;
		}
		v->v[v->nr - 1].object = obj;
		added++;
	}
	free(x.f);
	v->seq = base + t.n;
	v->symtab_base = base;
	if (!added)
		tally__symvec_trim(v, first, v->nobj);
	return added;
}

/*
 * The objects of elf's .symtab, for perf's tree (tally__symvec_finish_tree)
 * of a file whose symbols nest: perf inserts them with the functions and
 * labels, in table order, so they shape it. Read only then (a copy of every
 * object's name was a tenth of a small report).
 */
static int load_objects(Elf *elf, struct tally__symvec *v)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, NULL, SHT_SYMTAB, &sh);
	struct symtab t;
	struct secs x;
	int err = 0;

	if (!scn || !sh.sh_entsize)
		return 0;
	if (secs_of(elf, &x))
		return -ENOMEM;
	symtab_of(elf, elf_getdata(scn, NULL), sh.sh_size / sh.sh_entsize, sh.sh_link, &t);
	for (size_t i = 0; !err && t.d && i < t.n; i++) {
		GElf_Sym s;
		const char *name;

		if (!symtab_get(&t, i, &s))
			break;
		if (GELF_ST_TYPE(s.st_info) != STT_OBJECT || !perf_keeps(&x, &s, true) ||
		    text_object(&x, &s))
			continue;	/* a text one is in the table already */
		name = symtab_name(&t, &s);
		if (name && *name &&
		    tally__symvec_add_object(v, v->symtab_base + i, s.st_value, s.st_size,
					     GELF_ST_BIND(s.st_info), name))
			err = -ENOMEM;
	}
	free(x.f);
	return err;
}

static int load_segments(struct tally_dso *d, Elf *elf)
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -EINVAL;
	free(d->segs);
	d->segs = tally__calloc(n ? n : 1, sizeof(*d->segs));
	d->nr_segs = 0;
	if (!d->segs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->segs[d->nr_segs++] = (struct tally__seg){
			.off = ph.p_offset, .vaddr = ph.p_vaddr,
			.size = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz,
		};
	}
	return 0;
}

/* .gnu_debugdata: an xz-compressed ELF whose .symtab holds the locals. */
static int load_minidebuginfo(Elf *elf, struct tally__symvec *v)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, ".gnu_debugdata", SHT_PROGBITS, &sh);
	Elf_Data *d;
	uint64_t memlimit = 256 << 20;
	size_t inpos = 0, outpos = 0, cap;
	uint8_t *out = NULL;
	int added = 0;

	if (!scn || !(d = elf_rawdata(scn, NULL)) || !d->d_size)
		return 0;
	/* Grow until it fits; MiniDebugInfo is small (tens of KiB). */
	for (cap = d->d_size * 8 + 4096; cap <= (64u << 20); cap *= 2) {
		uint8_t *p = realloc(out, cap);
		lzma_ret r;

		if (!p) {
			free(out);
			return -ENOMEM;
		}
		out = p;
		inpos = outpos = 0;
		r = lzma_stream_buffer_decode(&memlimit, 0, NULL, d->d_buf, &inpos,
					      d->d_size, out, &outpos, cap);
		if (r == LZMA_OK || r == LZMA_STREAM_END)
			break;
		if (r != LZMA_BUF_ERROR) {
			free(out);
			return 0;
		}
	}
	if (!outpos) {
		free(out);
		return 0;
	}
	Elf *mini = elf_memory((char *)out, outpos);

	if (mini && elf_kind(mini) == ELF_K_ELF)
		added = load_symtab(mini, SHT_SYMTAB, v);
	if (mini)
		elf_end(mini);
	free(out);
	return added;
}

static uint32_t file_crc32(const char *path)
{
	uint8_t buf[65536];
	uLong crc = crc32(0, NULL, 0);
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	close(fd);
	return (uint32_t)crc;
}

static void hex(char *dst, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(dst + 2 * i, "%02x", id[i]);
	dst[2 * n] = '\0';
}

/*
 * Try one candidate debug file: an ELF with a .symtab and, when both
 * have build ids, the same one. 1 taken, 0 not.
 */
static int try_debug(struct tally_dso *d, const char *path, const uint8_t *want,
		     size_t want_sz, uint32_t crc, bool check_crc,
		     struct tally__symvec *v)
{
	struct tally__elf_file f;
	uint8_t id[TALLY_BUILD_ID_MAX];
	int n;

	if (access(path, R_OK) || tally__elf_file_open(&f, path))
		return 0;
	n = tally__elf_build_id(f.elf, id, sizeof(id));
	if (want_sz && n && ((size_t)n != want_sz || memcmp(id, want, want_sz))) {
		pr_debug("%s: build id differs from %s, not used\n", path, d->name);
		tally__elf_file_close(&f);
		return 0;
	}
	if (check_crc && file_crc32(path) != crc) {
		pr_debug("%s: debuglink CRC differs, not used\n", path);
		tally__elf_file_close(&f);
		return 0;
	}
	if (!has_symtab(f.elf) || load_symtab(f.elf, SHT_SYMTAB, v) <= 0) {
		tally__elf_file_close(&f);
		return 0;
	}
	free(d->symsrc);
	d->symsrc = strdup(path);
	free(d->dwarf_path);
	d->dwarf_path = strdup(path);
	tally__elf_file_close(&f);
	return 1;
}

/*
 * probe: v is not filled, each candidate's identity (or its absence) goes
 * into the symbol cache's key instead (a debug file installed later makes
 * another key).
 */
static int try_cand(struct tally_dso *d, const char *path, const uint8_t *want,
		    size_t want_sz, uint32_t crc, bool check_crc,
		    struct tally__symvec *v, FILE *probe)
{
	struct stat st;

	if (!probe)
		return try_debug(d, path, want, want_sz, crc, check_crc, v);
	if (stat(path, &st))
		memset(&st, 0, sizeof(st));
	fprintf(probe, "%s%c", path, 0);
	fwrite(&st.st_dev, sizeof(st.st_dev), 1, probe);
	fwrite(&st.st_ino, sizeof(st.st_ino), 1, probe);
	fwrite(&st.st_size, sizeof(st.st_size), 1, probe);
	fwrite(&st.st_mtim, sizeof(st.st_mtim), 1, probe);
	return 0;
}

static int try_debug_files(struct tally_dso *d, const struct tally__dso_ctx *ctx,
			   Elf *elf, const uint8_t *id, size_t id_sz,
			   struct tally__symvec *v, FILE *probe)
{
	char path[4096], idhex[2 * TALLY_BUILD_ID_MAX + 1];
	const char *root = ctx->debug_root ? ctx->debug_root : "";
	/* perf's global debug dir is under --symfs; its debuglink's is not */
	const char *sroot = ctx->symfs ? ctx->symfs : root;
	char *dir = strdup(tally__dso_file(d)), *slash;

	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	if (id_sz) {
		hex(idhex, id, id_sz);
		snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
			 sroot, idhex, idhex + 2);
		if (try_cand(d, path, id, id_sz, 0, false, v, probe))
			goto found;
		if (ctx->home_debug && *ctx->home_debug) {
			snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/debug",
				 ctx->home_debug, idhex, idhex + 2);
			if (try_cand(d, path, id, id_sz, 0, false, v, probe))
				goto found;
			snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s/elf",
				 ctx->home_debug, idhex, idhex + 2);
			if (try_cand(d, path, id, id_sz, 0, false, v, probe))
				goto found;
		}
	}
	/* .gnu_debuglink: name, 0-padded to 4, then the file's CRC32. */
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, ".gnu_debuglink", 0, &sh);
	Elf_Data *dd = scn ? elf_getdata(scn, NULL) : NULL;

	if (dd && dd->d_size > 4) {
		const char *link = dd->d_buf;
		size_t len = strnlen(link, dd->d_size);
		size_t crcoff = (len + 4) & ~3ul;
		uint32_t crc;

		if (len && crcoff + 4 <= dd->d_size && !strchr(link, '/')) {
			memcpy(&crc, (const char *)dd->d_buf + crcoff, 4);
			for (int i = 0; i < 3; i++) {
				/* Beside the file, in .debug/ beside it, under the debug dir. */
				if (i == 0)
					snprintf(path, sizeof(path), "%s/%s", dir, link);
				else if (i == 1)
					snprintf(path, sizeof(path), "%s/.debug/%s", dir, link);
				else
					snprintf(path, sizeof(path), "%s/usr/lib/debug%s/%s", root,
						 dir, link);
				if (strcmp(path, tally__dso_file(d)) &&
				    try_cand(d, path, id, id_sz, crc, true, v, probe))
					goto found;
			}
		}
	}
	/* Fedora and Ubuntu layouts: the path under the debug dir. */
	snprintf(path, sizeof(path), "%s/usr/lib/debug%s.debug", sroot, d->name);
	if (try_cand(d, path, id, id_sz, 0, false, v, probe))
		goto found;
	snprintf(path, sizeof(path), "%s/usr/lib/debug%s", sroot, d->name);
	if (try_cand(d, path, id, id_sz, 0, false, v, probe))
		goto found;
	free(dir);
	return 0;
found:
	free(dir);
	return 1;
}

/*
 * shadow[i]: perf's lookup finds another symbol (_init) at PLT entry i.
 * Only where a sizeless symbol before .plt could run on over it.
 */
static int plt_shadowed(Elf *elf, uint64_t plt0, uint64_t ent, size_t nplt, bool *shadow)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_scn(elf, NULL, SHT_SYMTAB, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0, nn = 0;
	struct ptree t = { NULL, -1 };
	struct ptree_node **ord = NULL;
	bool sizeless_before = false;
	struct symtab st;
	struct secs x = { 0 };
	int err = -ENOMEM;

	memset(shadow, 0, nplt);
	if (!n)
		return 0;
	symtab_of(elf, d, n, sh.sh_link, &st);
	if (secs_of(elf, &x) || !(t.n = tally__calloc(n + nplt, sizeof(*t.n))) ||
	    !(ord = tally__calloc(n + nplt, sizeof(*ord))))
		goto out;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;

		if (!symtab_get(&st, i, &s))
			break;
		if (!perf_keeps(&x, &s, true))
			continue;
		if (!s.st_size && s.st_value < plt0)
			sizeless_before = true;
		t.n[nn] = (struct ptree_node){ .start = s.st_value, .end = s.st_value + s.st_size };
		tally__ptree_insert(&t, (int32_t)nn);
		ord[nn] = &t.n[nn];
		nn++;
	}
	err = 0;
	if (!sizeless_before)
		goto out;
	tally__ptree_fixup_end(&t, ord, nn);
	for (size_t i = 0; i < nplt; i++) {
		t.n[nn + i] = (struct ptree_node){ .start = plt0 + ent * (i + 1), .end = plt0 + ent * (i + 2) };
		tally__ptree_insert(&t, (int32_t)(nn + i));
	}
	for (size_t i = 0; i < nplt; i++)
		shadow[i] = tally__ptree_find(&t, plt0 + ent * (i + 1)) != (int32_t)(nn + i);
out:
	free(x.f);
	free(ord);
	free(t.n);
	return err;
}

/*
 * perf's dso__synthesize_plt_symbols: one "name@plt" symbol per
 * .rela.plt entry (its name demangled first, as perf), laid over .plt
 * after its header entry, entries of the section's entsize (x86-64: 16);
 * an IRELATIVE one has no name: "@plt". None where perf's lookup finds
 * the sizeless _init instead (plt_shadowed).
 */
static int synth_plt(struct tally_dso *d, Elf *elf, struct tally__symvec *v, bool demangle)
{
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rscn = find_scn(elf, ".rela.plt", SHT_RELA, &rsh);
	Elf_Scn *pscn = find_scn(elf, ".plt", 0, &psh);
	Elf_Scn *dscn;
	Elf_Data *rd, *dd;
	size_t n;
	int added = 0;
	bool *shadow;

	if (!rscn || !pscn || !rsh.sh_entsize || !psh.sh_entsize)
		return 0;
	dscn = elf_getscn(elf, rsh.sh_link);
	if (!dscn || !gelf_getshdr(dscn, &dsh) || dsh.sh_type != SHT_DYNSYM)
		return 0;	/* perf's sanity check: .rela.plt refers to .dynsym */
	rd = elf_getdata(rscn, NULL);
	dd = elf_getdata(dscn, NULL);
	if (!rd || !dd)
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	/* the entries that fit in .plt after its header */
	if (n > psh.sh_size / psh.sh_entsize - (psh.sh_size >= psh.sh_entsize))
		n = psh.sh_size / psh.sh_entsize - (psh.sh_size >= psh.sh_entsize);
	if (!n || !(shadow = malloc(n)))
		return n ? -ENOMEM : 0;
	if (plt_shadowed(elf, psh.sh_addr, psh.sh_entsize, n, shadow)) {
		free(shadow);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Rela rel;
		GElf_Sym sym;
		const char *name;
		char buf[512], *dm = NULL;
		uint64_t start = psh.sh_addr + psh.sh_entsize * (i + 1);

		if (!gelf_getrela(rd, (int)i, &rel) ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(rel.r_info), &sym))
			break;
		name = elf_strptr(elf, dsh.sh_link, sym.st_name);
		/* demangled at the first lookup (tally__dso_symbol), unless it is cut here */
		if (demangle && name && strlen(name) + 5 > sizeof(buf) && (dm = tally_demangle(name)))
			name = dm;
		{	/* snprintf's "%s@plt", cut as it cuts (a printf each was 650 instructions) */
			size_t l = name ? strlen(name) : 0, k = l < sizeof(buf) - 1 ? l : sizeof(buf) - 1;
			size_t t = sizeof(buf) - 1 - k < 4 ? sizeof(buf) - 1 - k : 4;

			memcpy(buf, name ? name : "", k);
			memcpy(buf + k, "@plt", t);
			buf[k + t] = '\0';
		}
		free(dm);
		if (tally__symvec_add(v, start, psh.sh_entsize, STB_GLOBAL, buf, false)) {
			free(shadow);
			return -ENOMEM;
		}
		/* added after perf's fixups; a shadowed one is in its tree only */
		v->v[v->nr - 1].late = true;
		v->v[v->nr - 1].tree_only = shadow[i];
		added += !shadow[i];
	}
	free(shadow);
	d->plt_lo = psh.sh_addr + psh.sh_entsize;
	d->plt_hi = psh.sh_addr + psh.sh_entsize * (n + 1);
	return added;
}

/* The objects of the file that gave v's symbols (elf, or the one at path); none for .dynsym's. */
static int nested_objects(struct tally__symvec *v, Elf *elf, const char *path)
{
	struct tally__elf_file g;
	int err;

	if (elf)
		return load_objects(elf, v);
	if (!path || tally__elf_file_open(&g, path))
		return 0;
	err = load_objects(g.elf, v);
	tally__elf_file_close(&g);
	return err;
}

/*
 * The symbol cache's key for d's table (symcache.c): all a load from ELF
 * reads to make it: the file (its identity, its build id and the
 * recorded one), the options, and where there is no .symtab, the debug
 * files looked for. 0 and *key (allocated), or -errno: no cache then.
 */
static int cache_key(struct tally_dso *d, const struct tally__dso_ctx *ctx,
		     const struct tally__elf_file *f, const uint8_t *id, int nid,
		     const uint8_t *use_id, size_t use_sz, bool symtab, char **key, size_t *klen)
{
	struct stat st;
	FILE *k;

	if (f->fd >= 0 ? fstat(f->fd, &st) : stat(tally__dso_file(d), &st))
		return -errno;
	if (!(k = open_memstream(key, klen)))
		return -ENOMEM;
	fprintf(k, "%s%c%s%c%s%c%d", tally__dso_file(d), 0, ctx->debug_root ? ctx->debug_root : "", 0,
		ctx->home_debug ? ctx->home_debug : "", 0, ctx->demangle);
	fwrite(&st.st_dev, sizeof(st.st_dev), 1, k);
	fwrite(&st.st_ino, sizeof(st.st_ino), 1, k);
	fwrite(&st.st_size, sizeof(st.st_size), 1, k);
	fwrite(&st.st_mtim, sizeof(st.st_mtim), 1, k);
	fwrite(&nid, sizeof(nid), 1, k);
	if (nid > 0)
		fwrite(id, (size_t)nid, 1, k);
	fwrite(&use_sz, sizeof(use_sz), 1, k);
	if (use_sz)
		fwrite(use_id, use_sz, 1, k);
	if (!symtab && try_debug_files(d, ctx, f->elf, use_id, use_sz, NULL, k) < 0) {
		fclose(k);
		free(*key);
		return -ENOMEM;
	}
	if (fclose(k)) {
		free(*key);
		return -ENOMEM;
	}
	return 0;
}

char *tally__dso_demangled(const struct tally_dso *d, const struct tally_symbol *sym)
{
	return sym->start >= d->plt_lo && sym->start < d->plt_hi ? tally__demangle_plt(sym->name) :
	       tally_demangle(sym->name);
}

void tally__dso_demangle_one(struct tally_dso *d, size_t i)
{
	struct tally_symbol *sym = &d->syms[i];
	char *dm;

	d->dm_done[i / 8] |= (uint8_t)(1u << (i % 8));
	if ((dm = tally__dso_demangled(d, sym))) {
		if (!tally__dso_pooled(d, sym->name))
			free((char *)sym->name);
		sym->name = dm;
	}
}

int tally__dso_demangle_all(struct tally_dso *d)
{
	if (!d->demangle_lazy)
		return 0;
	if (!d->dm_done && !(d->dm_done = calloc((d->nr_syms + 7) / 8, 1)))
		return -ENOMEM;
	for (size_t i = 0; i < d->nr_syms; i++)
		if (!(d->dm_done[i / 8] & (1u << (i % 8))))
			tally__dso_demangle_one(d, i);
	d->demangle_lazy = false;
	return 0;
}

int tally__dso_load_elf(struct tally_dso *d, const struct tally__dso_ctx *ctx,
			const uint8_t *want_id, size_t want_sz)
{
	return tally__dso_load_elf_later(d, ctx, want_id, want_sz, NULL);
}

int tally__dso_load_elf_later(struct tally_dso *d, const struct tally__dso_ctx *ctx,
			      const uint8_t *want_id, size_t want_sz,
			      struct tally__symcache_later *later)
{
	char *key = NULL;		/* the symbol cache's, where it is on */
	size_t klen = 0;
	bool symtab;
	struct tally__symvec v = { .arena = true, .data_objects = ctx->data_objects };
	struct tally__elf_file f, cf;
	const char *file = tally__dso_file(d);	/* the file read: name, or the recorded build's copy */
	bool id_cached = false;
	uint8_t id[TALLY_BUILD_ID_MAX];
	const uint8_t *use_id = NULL;
	size_t use_sz = 0;
	int n, err, nplt = 0;
	Elf *objs_elf = NULL;		/* where the symbols came from: perf's objects there */
	const char *objs_path = NULL;

	err = tally__elf_file_open(&f, file);
	/* gone since the recording: perf's build-id cache may keep it */
	if (err && (d->code_path = tally__dso_cached_copy(ctx, want_id, want_sz, "elf"))) {
		if (!(err = tally__elf_file_open(&f, d->code_path))) {
			file = d->code_path;
			id_cached = true;
		} else {
			free(d->code_path);
			d->code_path = NULL;
		}
	}
	if (err) {
		d->status = err == -ENOENT || err == -ENOTDIR || err == -EACCES ?
			    TALLY_DSO_MISSING : TALLY_DSO_NOT_ELF;
		return 0;
	}
	if ((err = load_segments(d, f.elf))) {
		/* A corrupt file is a status to report, not a failure of the caller. */
		if (err != -ENOMEM) {
			d->status = TALLY_DSO_NOT_ELF;
			err = 0;
		}
		goto out;
	}
	n = tally__elf_build_id(f.elf, id, sizeof(id));
	if (n > 0) {
		use_id = id;
		use_sz = (size_t)n;
	}
	if (want_sz && n > 0 && ((size_t)n != want_sz || memcmp(id, want_id, want_sz))) {
		char a[2 * TALLY_BUILD_ID_MAX + 1], b[2 * TALLY_BUILD_ID_MAX + 1];

		hex(a, want_id, want_sz);
		hex(b, id, (size_t)n);
		d->status = TALLY_DSO_BUILD_ID_MISMATCH;
		if (asprintf(&d->detail, "recorded build id %s, %s has %s", a, tally__dso_file(d), b) < 0)
			d->detail = NULL;
		/*
		 * perf's build-id cache may hold the recorded build itself:
		 * then it is the file, for its segments, symbols, PLT and
		 * code, as perf reads it (no symbol cache: its key is name's).
		 */
		if ((d->code_path = tally__dso_cached_copy(ctx, want_id, want_sz, "elf")) &&
		    !(err = tally__elf_file_open(&cf, d->code_path))) {
			if (load_segments(d, cf.elf)) {
				tally__elf_file_close(&cf);
				free(d->code_path);
				d->code_path = NULL;
				if ((err = load_segments(d, f.elf)))
					goto out;
				goto debug_dirs;
			}
			tally__elf_file_close(&f);
			f = cf;
			file = d->code_path;
			d->status = TALLY_DSO_OK;
			free(d->detail);
			d->detail = NULL;
			id_cached = true;
			use_id = want_id;
			use_sz = want_sz;
			goto matched;
		}
		free(d->code_path);
		d->code_path = NULL;
		err = 0;
debug_dirs:
		/* The debug dirs may still hold the recorded build's symbols. */
		if (try_debug_files(d, ctx, f.elf, want_id, want_sz, &v, NULL) > 0) {
			d->status = TALLY_DSO_OK;
			objs_path = d->symsrc;
			goto finish;
		}
		goto out;
	}
	if (want_sz && n <= 0) {
		use_id = want_id;
		use_sz = want_sz;
	}
matched:
	symtab = has_symtab(f.elf);
	/* the cache holds function tables: one with every object is made anew */
	if (!id_cached && !ctx->data_objects && tally__symcache_on() &&
	    cache_key(d, ctx, &f, id, n, use_id, use_sz, symtab, &key, &klen))
		key = NULL;
	if (key && !tally__symcache_load(key, klen, d)) {
		d->demangle = ctx->demangle;	/* the cache's names are as demangled as they get */
		goto out;
	}
	if (symtab) {
		if ((err = load_symtab(f.elf, SHT_SYMTAB, &v)) < 0)
			goto out;
		d->symsrc = strdup(".symtab");
		d->dwarf_path = strdup(file);
		objs_elf = f.elf;
		goto finish;
	}
	if ((err = try_debug_files(d, ctx, f.elf, use_id, use_sz, &v, NULL)) < 0)
		goto out;
	objs_path = d->symsrc;
	if (err > 0)
		goto finish;
	objs_path = NULL;	/* .dynsym's objects: none read */
	/* Stripped: the exported .dynsym plus MiniDebugInfo's locals. */
	err = load_symtab(f.elf, SHT_DYNSYM, &v);
	if (err < 0)
		goto out;
	n = load_minidebuginfo(f.elf, &v);
	if (n < 0) {
		err = n;
		goto out;
	}
	d->symsrc = strdup(n > 0 ? ".dynsym+.gnu_debugdata" : ".dynsym");
	d->dwarf_path = strdup(file);
finish:
	/* the PLT is the running file's, whichever file gave the symbols (as perf) */
	nplt = synth_plt(d, f.elf, &v, ctx->demangle);
	if (nplt < 0) {
		err = -ENOMEM;
		goto out;
	}
	d->demangle = ctx->demangle;
	v.demangle = ctx->demangle;
	v.perf_tree = true;
	/* the objects are in the table already when every one is a symbol */
	if (tally__symvec_nested(&v) && !v.data_objects &&
	    (err = nested_objects(&v, objs_elf, objs_path)))
		goto out;
	err = tally__symvec_finish_tree(&v, &d->syms, &d->nr_syms, &d->tree);
	if (!err) {	/* the names' pool is the DSO's now */
		d->names = v.pool;
		d->names_len = v.plen;
		v.pool = NULL;
	}
	d->demangle_lazy = ctx->demangle;
	/* PLT entries alone do not make a file unstripped */
	if (!err && d->nr_syms <= (size_t)nplt && d->status == TALLY_DSO_OK)
		d->status = TALLY_DSO_STRIPPED;
	/* kept demangled, once: a run from the cache demangles nothing */
	if (!err && key && d->nr_syms >= TALLY_SYMCACHE_MIN) {
		if (later && !tally__symcache_later_take(later, key, klen, d))
			key = NULL;	/* the copy's */
		else if (!tally__dso_demangle_all(d))
			(void)tally__symcache_store(key, klen, d);
	}
out:
	free(key);
	tally__symvec_free(&v);
	tally__elf_file_close(&f);
	return err < 0 ? err : 0;
}

/* An ELF image in memory ([vdso]: the kernel gives every process the same). */
int tally__dso_load_image(struct tally_dso *d, const void *img, size_t len, bool demangle)
{
	struct tally__symvec v = { 0 };
	Elf *elf;
	int err = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	elf = elf_memory((char *)img, len);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		d->status = TALLY_DSO_NOT_ELF;
		return 0;
	}
	err = load_segments(d, elf);
	if (err && err != -ENOMEM) {
		d->status = TALLY_DSO_NOT_ELF;
		err = 0;
	} else if (!err &&
	    (err = load_symtab(elf, has_symtab(elf) ? SHT_SYMTAB : SHT_DYNSYM, &v)) >= 0) {
		v.demangle = demangle;
		v.perf_tree = true;
		err = 0;
		if (has_symtab(elf) && tally__symvec_nested(&v))
			err = load_objects(elf, &v);
		if (!err)
			err = tally__symvec_finish_tree(&v, &d->syms, &d->nr_syms, &d->tree);
	}
	d->demangle_lazy = demangle;
	d->symsrc = strdup("memory image");
	if (!d->nr_syms && d->status == TALLY_DSO_OK)
		d->status = TALLY_DSO_STRIPPED;
	tally__symvec_free(&v);
	elf_end(elf);
	return err < 0 ? err : 0;
}
