// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for tally probe's PROBEDEF parser (probe_spec.c) and
 * its lazy-pattern matcher. The input is a spec; after a first '\n' a
 * source line for the pattern. What holds either way: a spec parses to
 * a point with a function or a file (a file alone with a line or a
 * pattern), an SDT point with its group and name, arguments each with a
 * variable; or fails with -EINVAL and a message (or -ENOMEM), leaving
 * the point cleared. The matcher never reads past its strings, and a
 * pattern without wildcards or blanks matches only itself.
 *
 *   make -f fuzz/Makefile && fuzz/out/fuzz_probe_spec fuzz/corpus/probe_spec
 * Every file of fuzz/corpus/probe_spec is replayed by `make test`
 * (tests/unit/fuzz/test_fuzz_probe_spec.c includes this file).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe_internal.h"

#include "fuzz_check.h"

#define PROBE_SPEC_MAX_INPUT	4096

static int fuzz_probe_spec_one(const uint8_t *data, size_t size)
{
	struct probe_point pp;
	char err[512], *s, *line;
	int e;

	if (size > PROBE_SPEC_MAX_INPUT)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	line = strchr(s, '\n');
	if (line)
		*line++ = '\0';
	err[0] = '\0';
	e = tally__probe_parse(s, &pp, err, sizeof(err));
	if (e) {
		FUZZ_CHECK(e == -EINVAL || e == -ENOMEM);
		FUZZ_CHECK(e == -ENOMEM || err[0]);
		FUZZ_CHECK(!pp.func && !pp.file && !pp.args && !pp.nr_args);
	} else if (pp.sdt) {
		FUZZ_CHECK(pp.sdt_group && !strncmp(pp.sdt_group, "sdt_", 4) && pp.sdt_name);
	} else {
		FUZZ_CHECK(pp.func || pp.file);
		FUZZ_CHECK(pp.func || pp.has_line || pp.lazy);
		FUZZ_CHECK(!(pp.ret && (pp.has_line || pp.offset || pp.lazy)));
		for (size_t i = 0; i < pp.nr_args; i++) {
			FUZZ_CHECK(pp.args[i].var && *pp.args[i].var);
			for (size_t k = 0; k < pp.args[i].nr_fields; k++)
				FUZZ_CHECK(!pp.args[i].fields[k].name || *pp.args[i].fields[k].name);
		}
	}
	tally__probe_point_clear(&pp);
	if (line) {
		bool m = tally__probe_lazy_match(s, line);

		if (!strpbrk(s, "*?\\ \t\n\v\f\r") && !strpbrk(line, " \t\n\v\f\r"))
			FUZZ_CHECK(m == !strcmp(s, line));
	}
	free(s);
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_probe_spec_one(data, size);
}
#endif
