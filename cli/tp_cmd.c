// SPDX-License-Identifier: MIT
/* What sched, lock and kmem share: see tp_cmd.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/tally.h>
#include "cli.h"
#include "tp_cmd.h"

int cli_have_tp(const char *system, const char *name)
{
	const char *dir = tally_tracing_dir(NULL, 0);
	char path[512];

	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s", dir, system);
	if (access(path, X_OK) && errno != ENOENT)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s", dir, system, name);
	return access(path, F_OK) == 0;
}

int cli_tp_script(int argc, char **argv, const char *input)
{
	char **sargv = calloc((size_t)argc + 3, sizeof(*sargv));
	int n = 0, ret;

	if (!sargv)
		return 1;
	sargv[n++] = "script";
	if (input) {
		sargv[n++] = "-i";
		sargv[n++] = (char *)input;
	}
	for (int i = 1; i < argc; i++)
		sargv[n++] = argv[i];
	ret = cmd_script(n, sargv);
	free(sargv);
	return ret;
}

bool cli_subcmd_is(const char *s, const char *full, size_t min)
{
	size_t n = strlen(s);

	return n >= min && n <= strlen(full) && !strncmp(s, full, n);
}

/* "S[.FFFFFFFFF]" seconds into ns; "" is 0. 0, or -1. */
static int parse_ns(const char *s, size_t n, uint64_t *out)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0;

	*out = 0;
	if (n == 0)
		return 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	if (i == 0 || (i < n && s[i] != '.'))
		return -1;
	if (i < n)
		for (i++; i < n; i++, digits++) {
			if (s[i] < '0' || s[i] > '9' || digits >= 9)
				return -1;
			frac = frac * 10 + (uint64_t)(s[i] - '0');
		}
	for (; digits < 9; digits++)
		frac *= 10;
	*out = sec * 1000000000ull + frac;
	return 0;
}

int cli_time_window(const char *s, uint64_t *start, uint64_t *end)
{
	const char *comma = strchr(s, ',');

	if (!comma)
		return parse_ns(s, strlen(s), start) ? -1 : (*end = 0, 0);
	if (parse_ns(s, (size_t)(comma - s), start) ||
	    parse_ns(comma + 1, strlen(comma + 1), end))
		return -1;
	return *end && *end < *start ? -1 : 0;
}
