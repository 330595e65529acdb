// SPDX-License-Identifier: MIT
/*
 * report's option values that need more than a lookup: perf's
 * --time-quantum, and a -s naming a count (overhead, sample, period),
 * which perf lays out as -F overhead,KEYS. See report.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report.h"

/* -s names overhead, sample or period (perf's hpp fields, columns more than keys) */
bool report_sort_names_count(const char *sort)
{
	char *dup = strdup(sort), *tok, *save = NULL;
	bool any = false;

	for (tok = dup ? strtok_r(dup, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save))
		any |= !strcmp(tok, "overhead") || !strcmp(tok, "sample") || !strcmp(tok, "period");
	free(dup);
	return any;
}

/* "overhead," and the list less its overhead: the -F spec perf's -s amounts to; -1: no room */
int report_sort_count_fields(const char *sort, char *out, size_t n)
{
	char dup[4096], *tok, *save = NULL;
	size_t at;

	if (strlen(sort) + sizeof("overhead,") > n || strlen(sort) >= sizeof(dup))
		return -1;
	strcpy(dup, sort);
	at = (size_t)snprintf(out, n, "overhead");
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, "overhead"))
			at += (size_t)snprintf(out + at, n - at, ",%s", tok);
	return 0;
}

/* perf's --time-quantum: N with s, ms, us or ns (none: ns), not 0. 0 or -1, said. */
int report_parse_time_quantum(const char *arg, uint64_t *q)
{
	static const struct { const char *unit; uint64_t mul; } units[] = {
		{ "", 1 }, { "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
	};
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (end == arg || errno || *arg == '-') {
		fprintf(stderr, "tally report: --time-quantum '%s': not a time (N[s|ms|us|ns])\n", arg);
		return -1;
	}
	if (!v) {
		fprintf(stderr, "tally report: --time-quantum '%s': cannot be 0\n", arg);
		return -1;
	}
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v > UINT64_MAX / units[i].mul)
				break;
			*q = v * units[i].mul;
			return 0;
		}
	fprintf(stderr, "tally report: --time-quantum '%s': not a time (N[s|ms|us|ns])\n", arg);
	return -1;
}
