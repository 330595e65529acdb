/* SPDX-License-Identifier: MIT */
/*
 * The annotate model's layout and the helpers its two files share:
 * annotate.c (samples, symbols, instruction lines) and annotate_source.c
 * (the source-only view).
 */
#ifndef TALLY_ANNOTATE_INTERNAL_H
#define TALLY_ANNOTATE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tally/annotate.h>
#include "strpool.h"

/* The samples at one offset of a symbol: few per symbol, kept sparse. */
struct hit {
	uint64_t off, nr, period;
};

struct entry {
	struct tally_annotate_sym sym;
	const struct tally_symbol *key;
	struct hit *hits;		/* by offset, in the order first seen */
	uint32_t nr_hits, alloc_hits;
	uint32_t last;			/* the hit found last: loops sample the same few */
	bool dso_last;			/* its DSO's last symbol in the sorted order */
};

/* A source file's lines, read once. */
struct srcfile {
	char *path;
	char *buf;
	char **line;
	int nr;
	/* objdump -S's state for the symbol being made */
	int max_printed, last_line;
	bool first;
};

struct tally_annotate {
	struct tally_session *s;
	char *symbol, *dsos, *vmlinux, *kcore;
	char vmlinux_found[4096];	/* the vmlinux perf's path gave (no -k) */
	bool no_source, asm_raw;
	struct tally_disasm *dis;
	struct entry *v;
	int nr, alloc;
	int *slots;			/* open addressing over v: index + 1 */
	size_t cap;
	struct {
		uint64_t nr, period;
	} tot[64];			/* per attr (the first 64) */
	struct srcfile *files;
	int nr_files;
	struct tally__strpool paths;	/* joined paths the source view keeps */
	struct dso_code_ent {
		struct tally_dso *dso;
		struct tally_dso_code *code;
		int err;
	} *codes;
	int nr_codes;
	char err[512];
};

/* The samples and period of e's hits in [from, to). */
void tally__ann_hits_in(const struct entry *e, uint64_t from, uint64_t to, uint64_t *nr,
			uint64_t *period);
/* The source file at path, read once, or NULL. */
struct srcfile *tally__ann_src_get(struct tally_annotate *a, const char *path);
/* Symbol e's error err said in a->err; err back. */
int tally__ann_set_err(struct tally_annotate *a, const struct entry *e, int err);
/* Symbol idx's entry, code and bytes from its start: 0, or -errno said in a->err. */
int tally__ann_sym_code(struct tally_annotate *a, int idx, const struct entry **ep,
			struct tally_dso_code **codep, const uint8_t **bytes, size_t *avail,
			const char **section);
/* After symbol idx: its DSO's DWARF let go, and its code after the DSO's last symbol. */
void tally__ann_release_after(struct tally_annotate *a, int idx);

#endif
