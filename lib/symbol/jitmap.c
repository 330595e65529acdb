// SPDX-License-Identifier: MIT
/*
 * JIT maps: /tmp/perf-PID.map, "START SIZE name" in hex, a JIT's symbol
 * table (perf's convention). Moved from dso.c.
 */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "dso_internal.h"

int tally__dso_load_jit(struct tally_dso *d, const char *path, bool demangle)
{
	struct tally__symvec v = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		d->status = TALLY_DSO_NO_JIT_MAP;
		return 0;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		char *end, *p = line;
		uint64_t start, size;

		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		start = strtoull(p, &end, 16);
		if (end == p || *end != ' ')
			continue;
		p = end + 1;
		size = strtoull(p, &end, 16);
		if (end == p || *end != ' ' || !end[1])
			continue;
		if ((err = tally__symvec_add(&v, start, size, STB_GLOBAL, end + 1, false)))
			break;
	}
	free(line);
	fclose(f);
	if (!err)
		err = tally__symvec_finish(&v, &d->syms, &d->nr_syms);
	d->demangle_lazy = demangle;
	tally__symvec_free(&v);
	d->symsrc = strdup(path);
	if (!err && !d->nr_syms)
		d->status = TALLY_DSO_STRIPPED;
	return err;
}
