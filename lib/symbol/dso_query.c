// SPDX-License-Identifier: MIT
/*
 * A DSO's answers once loaded: its names, status and symbols, address
 * conversions, source lines (its DWARF, or a table a store gave) and
 * disassembly. The DSO cache and the kernel's loading are symbols.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "dso_internal.h"
#include "kcache.h"

int tally__symbol_line_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct tally_symbol_line *)a)->addr;
	uint64_t y = ((const struct tally_symbol_line *)b)->addr;

	return x < y ? -1 : x > y;
}

/* A table DSO's line at vaddr, or at the next address (a return address less one). */
static const struct tally_symbol_line *table_line(const struct tally_dso *d, uint64_t vaddr)
{
	struct tally_symbol_line key = { .addr = vaddr };
	const struct tally_symbol_line *l = bsearch(&key, d->tlines, d->ntlines, sizeof(key), tally__symbol_line_cmp);

	if (!l && vaddr + 1) {
		key.addr = vaddr + 1;
		l = bsearch(&key, d->tlines, d->ntlines, sizeof(key), tally__symbol_line_cmp);
	}
	return l && l->file ? l : NULL;
}

const char *tally_dso__name(const struct tally_dso *d)
{
	return d ? d->name : NULL;
}

enum tally_dso_status tally_dso__status(const struct tally_dso *d)
{
	return d ? d->status : TALLY_DSO_MISSING;
}

const char *tally_dso__symsrc(const struct tally_dso *d)
{
	return d ? d->symsrc : NULL;
}

const char *tally_dso__code_path(const struct tally_dso *d)
{
	return d ? d->code_path : NULL;
}

size_t tally_dso__nr_symbols(const struct tally_dso *d)
{
	return d ? d->nr_syms : 0;
}

uint64_t tally_dso__map_ip_to_vaddr(const struct tally_dso *d, uint64_t map_ip)
{
	if (!d || (d->kind != DSO_ELF && d->kind != DSO_ANON))
		return map_ip;
	for (size_t i = 0; i < d->nr_segs; i++) {
		const struct tally__seg *g = &d->segs[i];

		if (map_ip >= g->off && map_ip - g->off < g->size)
			return map_ip - g->off + g->vaddr;
	}
	/* Outside every segment: the first one's bias is the best guess. */
	return d->nr_segs ? map_ip - d->segs[0].off + d->segs[0].vaddr : map_ip;
}

uint64_t tally_dso__vaddr_to_map_ip(const struct tally_dso *d, uint64_t vaddr)
{
	if (!d || (d->kind != DSO_ELF && d->kind != DSO_ANON))
		return vaddr;
	for (size_t i = 0; i < d->nr_segs; i++) {
		const struct tally__seg *g = &d->segs[i];

		if (vaddr >= g->vaddr && vaddr - g->vaddr < g->size)
			return vaddr - g->vaddr + g->off;
	}
	return d->nr_segs ? vaddr - d->segs[0].vaddr + d->segs[0].off : vaddr;
}

const struct tally_symbol *tally_dso__symbol_at(struct tally_dso *d, size_t i)
{
	/* the table's names at once: a caller walking them wants them all */
	if (!d || !d->syms || i >= d->nr_syms || tally__dso_demangle_all(d))
		return NULL;
	return &d->syms[i];
}

const struct tally_symbol *tally__dso_symbol(struct tally_dso *d, uint64_t vaddr)
{
	const struct tally_symbol *sym;
	size_t i;

	if (d->kc)	/* the kallsyms cache's, read at the first lookup */
		return tally__kcache_symbol(d->kc, vaddr);
	sym = d->tree ? tally__symtree_find(d->tree, d->syms, vaddr) :
			tally__syms_find(d->syms, d->nr_syms, vaddr);
	if (!sym || !d->demangle_lazy)
		return sym;
	i = (size_t)(sym - d->syms);
	if (!d->dm_done && !(d->dm_done = calloc((d->nr_syms + 7) / 8, 1)))
		return sym;	/* without memory: the name as the file has it */
	if (!(d->dm_done[i / 8] & (1u << (i % 8))))
		tally__dso_demangle_one(d, i);
	return sym;
}

const struct tally_symbol *tally_dso__find_symbol(struct tally_dso *d, uint64_t vaddr)
{
	const struct tally_symbol *sym;

	if (!d)
		return tally__err_ptr(EINVAL);
	sym = tally__dso_symbol(d, vaddr);
	return sym ? sym : tally__err_ptr(ENOENT);
}

int tally_dso__srcline(struct tally_dso *d, uint64_t vaddr, const char **file, int *line)
{
	int err;

	if (!d || !file || !line)
		return tally__err(EINVAL);
	if (d->tlines) {	/* a table's DSO: its lines, no file to read */
		const struct tally_symbol_line *l = table_line(d, vaddr);

		if (!l)
			return tally__err(ENOENT);
		*file = l->file;
		*line = l->line;
		return 0;
	}
	err = tally__dso_srcline(d, vaddr, file, line);
	/* no line: binutils' file of the function, line 0 (perf's "file.c:0") */
	if (err == -ENOENT && !tally__dso_fnfile(d, vaddr, file)) {
		*line = 0;
		return 0;
	}
	return err ? tally__err(-err) : 0;
}

int tally_dso__inline_funcs(struct tally_dso *d, uint64_t vaddr, const char **names, int max)
{
	int n;

	if (!d || !names || max <= 0)
		return tally__err(EINVAL);
	n = tally__dso_inline_funcs(d, vaddr, names, max);
	return n < 0 ? tally__err(-n) : n;
}

int tally_dso__srcline_inlines(struct tally_dso *d, uint64_t vaddr,
			       struct tally_srcline *out, int max)
{
	int n;

	if (!d || !out || max <= 0)
		return tally__err(EINVAL);
	if (d->tlines) {
		const struct tally_symbol_line *l = table_line(d, vaddr);
		const struct tally_symbol *sym = tally__dso_symbol(d, vaddr);

		if (!l)
			return tally__err(ENOENT);
		out[0] = (struct tally_srcline){ sym ? sym->name : NULL, l->file, l->line };
		return 1;
	}
	n = tally__dso_srcline_inlines(d, vaddr, out, max);
	return n < 0 ? tally__err(-n) : n;
}

void tally_dso__release_dwarf(struct tally_dso *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->dw_mu);
	if (d->dwarf_tried) {
		tally__dso_dwarf_close(d);
		d->dwarf_tried = false;	/* the next lookup opens it again */
	}
	pthread_mutex_unlock(&d->dw_mu);
}

int tally_dso__objdump_func(struct tally_dso *d, uint64_t vaddr, char *buf, size_t size)
{
	if (!d || !buf || !size)
		return tally__err(EINVAL);
	return tally__dso_objdump_func(d, vaddr, buf, size);
}

int tally_dso__objdump_line(struct tally_dso *d, uint64_t vaddr, const char **file, int *line,
			    unsigned *discriminator)
{
	if (!d || !file || !line || !discriminator)
		return tally__err(EINVAL);
	return tally__dso_objdump_line(d, vaddr, file, line, discriminator);
}

const char *tally_dso__comp_dir(struct tally_dso *d, uint64_t vaddr)
{
	return d ? tally__dso_comp_dir(d, vaddr) : NULL;
}

const char *tally_dso_status__str(enum tally_dso_status st)
{
	switch (st) {
	case TALLY_DSO_OK:			return "address outside any symbol";
	case TALLY_DSO_MISSING:			return "file not found";
	case TALLY_DSO_NOT_ELF:			return "not an ELF file";
	case TALLY_DSO_STRIPPED:		return "stripped, no debug file found";
	case TALLY_DSO_BUILD_ID_MISMATCH:	return "build id mismatch";
	case TALLY_DSO_KALLSYMS_RESTRICTED:	return "kallsyms unreadable";
	case TALLY_DSO_NO_JIT_MAP:		return "anonymous code, no perf-PID.map";
	case TALLY_DSO_ANON:			return "anonymous memory";
	}
	return "unknown";
}

