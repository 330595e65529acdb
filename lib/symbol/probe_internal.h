/* SPDX-License-Identifier: MIT */
/* tally probe's spec parser (probe_spec.c) and DWARF side (probe_dwarf.c). */
#ifndef TALLY_PROBE_INTERNAL_H
#define TALLY_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One step of an argument's access path: ->name, .name or [index]. */
struct probe_field {
	char *name;		/* NULL for an index */
	bool ref;		/* "->" */
	long index;
};

/* [NAME=]VAR{->F|.F|[I]}[:TYPE], or a raw fetch ("%di", "+8(%sp)") */
struct probe_arg {
	char *name;
	char *var;
	struct probe_field *fields;
	size_t nr_fields;
	char *type;
	bool raw;
};

struct probe_point {
	char *group, *event;	/* GROUP:EVENT= given */
	char *func;		/* NULL: SRC:ALN or SRC;PTN */
	char *file;		/* @SRC, or the SRC of SRC:ALN */
	long line;		/* :RLN (with func) or :ALN */
	bool has_line;
	uint64_t offset;	/* +OFF */
	bool ret;		/* %return */
	char *lazy;		/* ;PTN */
	bool sdt;		/* sdt_PROVIDER:NAME / %PROVIDER:NAME */
	char *sdt_group;	/* "sdt_PROVIDER" */
	char *sdt_name;
	struct probe_arg *args;
	size_t nr_args;
};

/* Parse spec; 0, or -EINVAL with perf's words in err. */
int tally__probe_parse(const char *spec, struct probe_point *pp, char *err, size_t errlen);
void tally__probe_point_clear(struct probe_point *pp);
/* perf's glob for ;PTN: '*' and '?' and [..], blanks ignored */
bool tally__probe_lazy_match(const char *pattern, const char *line);

#endif
