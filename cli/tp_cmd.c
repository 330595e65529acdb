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
