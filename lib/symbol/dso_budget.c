// SPDX-License-Identifier: MIT
/*
 * A DSO's table under the symbol cache's budget (symbols.c's trim): what
 * it takes, and letting it go so that the next ask loads it again.
 */
#include "internal.h"
#include "dso_internal.h"

size_t tally__dso_table_bytes(const struct tally_dso *d)
{
	int32_t root;
	size_t b = d->nr_syms * sizeof(*d->syms) + d->names_len + d->nr_segs * sizeof(*d->segs);

	if (d->dm_done)
		b += (d->nr_syms + 7) / 8;
	if (d->tree)
		b += tally__symtree_nodes(d->tree, &root) * sizeof(struct tally__symtree_rec);
	/* the names demangled at their first lookup, each an allocation of its own */
	for (size_t i = 0; d->syms && d->demangle_lazy && i < d->nr_syms; i++)
		if (!tally__dso_pooled(d, d->syms[i].name))
			b += strlen(d->syms[i].name) + 1;
	return b;
}

void tally__dso_unload(struct tally_dso *d)
{
	for (size_t i = 0; d->syms && i < d->nr_syms; i++)
		if (!tally__dso_pooled(d, d->syms[i].name))
			free((char *)d->syms[i].name);
	free(d->syms);
	d->syms = NULL;
	d->nr_syms = 0;
	free(d->names);
	d->names = NULL;
	d->names_len = 0;
	tally__symtree_free(d->tree);
	d->tree = NULL;
	free(d->dm_done);
	d->dm_done = NULL;
	free(d->segs);
	d->segs = NULL;
	d->nr_segs = 0;
	free(d->symsrc);
	d->symsrc = NULL;
	free(d->code_path);
	d->code_path = NULL;
	tally__fnfiles_free(d->fnfiles);
	d->fnfiles = NULL;
	d->fnfiles_tried = false;
	d->plt_lo = d->plt_hi = 0;
	d->demangle_lazy = d->demangle = false;
	pthread_mutex_lock(&d->dw_mu);
	tally__dso_dwarf_close(d);
	free(d->dwarf_path);
	d->dwarf_path = NULL;
	d->dwarf_tried = false;
	pthread_mutex_unlock(&d->dw_mu);
	d->bytes = 0;
	d->unloaded = true;
}
