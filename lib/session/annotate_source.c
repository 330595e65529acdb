// SPDX-License-Identifier: MIT
/*
 * annotate's source-only view (--source-only, the page's source tab):
 * each source line of a symbol with the samples of the instructions
 * objdump -l gives it, as perf's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/annotate.h>
#include "internal.h"
#include "annotate_internal.h"

struct row {
	int file;			/* index in the files seen */
	int line;
	uint64_t nr, period;
};

static int add_row(struct row **v, int *nr, int *alloc, int file, int line, uint64_t n, uint64_t p)
{
	for (int i = 0; i < *nr; i++)
		if ((*v)[i].file == file && (*v)[i].line == line) {
			(*v)[i].nr += n;
			(*v)[i].period += p;
			return 0;
		}
	if (*nr == *alloc) {
		int na = *alloc ? *alloc * 2 : 64;
		struct row *nv = realloc(*v, (size_t)na * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
		*alloc = na;
	}
	(*v)[(*nr)++] = (struct row){ file, line, n, p };
	return 0;
}

/* How many lines a file shows at most: past that only the lines with samples. */
#define SRC_SPAN_MAX 2000

static int make_source(struct tally_annotate *a, int idx, struct tally_annotate_source *out);

int tally_annotate__source(struct tally_annotate *a, int idx, struct tally_annotate_source *out)
{
	int err = make_source(a, idx, out);

	tally__ann_release_after(a, idx);
	return err;
}

static int make_source(struct tally_annotate *a, int idx, struct tally_annotate_source *out)
{
	struct tally_dso_code *code;
	const struct entry *e;
	const uint8_t *bytes;
	const char *files[64];
	struct row *rows = NULL;
	int nr_rows = 0, alloc_rows = 0, nr_files = 0, err, n = 0;
	uint64_t start, end, addr, tot_nr, tot_period;
	size_t avail, cap = 0;
	char text[512], path[4096];

	if (!out)
		return tally__err(EINVAL);
	memset(out, 0, sizeof(*out));
	if ((err = tally__ann_sym_code(a, idx, &e, &code, &bytes, &avail, NULL)))
		return err;
	start = e->sym.start;
	end = e->sym.end;
	/* each instruction's samples (to the next one) go to its line row */
	for (addr = start, err = 0; !err && addr < end && addr - start < avail;) {
		const char *file, *cdir;
		unsigned disc;
		int ln, len, f;
		uint64_t nrs = 0, per = 0;

		len = tally_disasm__insn(a->dis, bytes + (addr - start), avail - (addr - start), addr,
					 NULL, NULL, text, sizeof(text));
		if (len <= 0)
			break;
		tally__ann_hits_in(e, addr - start, addr - start + (uint64_t)len, &nrs, &per);
		if (!tally_dso__objdump_line(e->sym.dso, addr, &file, &ln, &disc) && ln > 0) {
			if (file[0] != '/' && (cdir = tally_dso__comp_dir(e->sym.dso, addr)))
				snprintf(path, sizeof(path), "%s/%s", cdir, file);
			else
				snprintf(path, sizeof(path), "%s", file);
			/* ours: libdw's strings go with the DWARF after the symbol */
			if (!(file = tally__strpool_add(&a->paths, path))) {
				err = -ENOMEM;
				break;
			}
			for (f = 0; f < nr_files && strcmp(files[f], file); f++)
				;
			if (f == nr_files && nr_files < 64)
				files[nr_files++] = file;
			if (f < 64 && file)
				err = add_row(&rows, &nr_rows, &alloc_rows, f, ln, nrs, per);
		}
		addr += (uint64_t)len;
	}
	tally_annotate__totals(a, e->sym.attr, &tot_nr, &tot_period);
	for (int f = 0; !err && f < nr_files; f++) {
		struct srcfile *sf = tally__ann_src_get(a, files[f]);
		int lo = 0, hi = 0;

		for (int i = 0; i < nr_rows; i++)
			if (rows[i].file == f) {
				lo = !lo || rows[i].line < lo ? rows[i].line : lo;
				hi = rows[i].line > hi ? rows[i].line : hi;
			}
		for (int ln = lo; !err && ln <= hi; ln++) {
			struct tally_annotate_srcline *l;
			uint64_t nrs = 0, per = 0;

			for (int i = 0; i < nr_rows; i++)
				if (rows[i].file == f && rows[i].line == ln) {
					nrs = rows[i].nr;
					per = rows[i].period;
				}
			if (hi - lo > SRC_SPAN_MAX && !nrs)
				continue;
			if ((size_t)n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct tally_annotate_srcline *nv = realloc(out->v, nc * sizeof(*nv));

				if (!nv) {
					err = -ENOMEM;
					break;
				}
				out->v = nv;
				cap = nc;
			}
			l = &out->v[n++];
			memset(l, 0, sizeof(*l));
			l->file = ln == lo ? files[f] : NULL;
			l->line = ln;
			l->text = sf && ln <= sf->nr ? sf->line[ln - 1] : "";
			l->nr_samples = nrs;
			l->period = per;
			if (e->sym.nr_samples)
				l->percent[TALLY_PERCENT_LOCAL_HITS] = 100.0 * (double)nrs / (double)e->sym.nr_samples;
			if (tot_nr)
				l->percent[TALLY_PERCENT_GLOBAL_HITS] = 100.0 * (double)nrs / (double)tot_nr;
			if (e->sym.period)
				l->percent[TALLY_PERCENT_LOCAL_PERIOD] = 100.0 * (double)per / (double)e->sym.period;
			if (tot_period)
				l->percent[TALLY_PERCENT_GLOBAL_PERIOD] = 100.0 * (double)per / (double)tot_period;
		}
	}
	free(rows);
	out->nr = n;
	if (err) {
		tally_annotate_source__free(out);
		return tally__ann_set_err(a, e, err);
	}
	return 0;
}

void tally_annotate_source__free(struct tally_annotate_source *s)
{
	if (!s)
		return;
	free(s->v);
	free(s->mem);
	memset(s, 0, sizeof(*s));
}
