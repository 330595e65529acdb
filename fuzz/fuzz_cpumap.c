// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the cpulist parser ("0-3,7\n"): any bytes through
 * tally_cpu_map__new() (as a C string) and tally__cpu_map_parse() (as
 * (buf, len), NULs and all). A map that comes back must be sorted, free of
 * duplicates and inside [0, 8192]; snprint must write it and the text must
 * parse back to the same map and print the same again (round trip). A
 * failure is NULL with errno EINVAL (or ENOMEM), never anything else.
 *
 *   make -f fuzz/Makefile && build-fuzz/fuzz_cpumap fuzz/corpus/cpumap
 * Every file of fuzz/corpus/cpumap is replayed by `make test`
 * (tests/unit/test_fuzz_replay_engine.c includes this file).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tally/cpumap.h>
#include "evsel_internal.h"

#include "fuzz_check.h"

#define CPUMAP_MAX_INPUT	65536
#define CPUMAP_MAX_CPU		8192	/* lib/cpumap.c's TALLY_MAX_CPU */

/* Enough for the longest list of CPUs 0..8192 ("0,2,4,...,8192"). */
static char cpumap_text[65536], cpumap_text2[65536];

static void cpumap_check_map(struct tally_cpu_map *m)
{
	struct tally_cpu_map *back, *self;
	int nr = tally_cpu_map__nr(m), len, len2;

	FUZZ_CHECK(nr >= 1);
	FUZZ_CHECK(!tally_cpu_map__is_any(m));
	for (int i = 0; i < nr; i++) {
		struct tally_cpu c = tally_cpu_map__cpu(m, i);

		FUZZ_CHECK(c.cpu >= 0 && c.cpu <= CPUMAP_MAX_CPU);
		if (i)
			FUZZ_CHECK(tally_cpu_map__cpu(m, i - 1).cpu < c.cpu);
		FUZZ_CHECK(tally_cpu_map__idx(m, c) == i);
	}
	FUZZ_CHECK(tally_cpu_map__cpu(m, nr).cpu == -1);

	len = tally_cpu_map__snprint(m, cpumap_text, sizeof(cpumap_text));
	FUZZ_CHECK(len > 0 && (size_t)len == strlen(cpumap_text));
	back = tally_cpu_map__new(cpumap_text);
	FUZZ_CHECK(back != NULL);
	FUZZ_CHECK(tally_cpu_map__nr(back) == nr);
	for (int i = 0; i < nr; i++)
		FUZZ_CHECK(tally_cpu_map__cpu(back, i).cpu == tally_cpu_map__cpu(m, i).cpu);
	len2 = tally_cpu_map__snprint(back, cpumap_text2, sizeof(cpumap_text2));
	FUZZ_CHECK(len2 == len && !strcmp(cpumap_text, cpumap_text2));
	/* Too small a buffer: -ENOSPC and an empty string, never a partial list. */
	FUZZ_CHECK(tally_cpu_map__snprint(m, cpumap_text2, (size_t)len) == -ENOSPC);
	FUZZ_CHECK(cpumap_text2[0] == '\0');

	self = tally_cpu_map__intersect(m, back);
	FUZZ_CHECK(self != NULL && tally_cpu_map__nr(self) == nr);
	tally_cpu_map__put(self);
	tally_cpu_map__put(back);
}

static int fuzz_cpumap_one(const uint8_t *data, size_t size)
{
	struct tally_cpu_map *m;
	char *s;

	if (size > CPUMAP_MAX_INPUT)
		return 0;
	/* The pure parser sees the bytes as they are, NULs included. */
	errno = 0;
	m = tally__cpu_map_parse((const char *)data, size);
	if (m)
		cpumap_check_map(m);
	else
		FUZZ_CHECK(errno == EINVAL || errno == ENOMEM);
	tally_cpu_map__put(m);

	/* The public entry point sees a C string ("" means online CPUs). */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	errno = 0;
	m = tally_cpu_map__new(s);
	if (m)
		cpumap_check_map(m);
	else
		FUZZ_CHECK(errno == EINVAL || errno == ENOMEM);
	tally_cpu_map__put(m);
	free(s);
	return 0;
}

#ifndef TALLY_FUZZ_REPLAY
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_cpumap_one(data, size);
}
#endif
