// SPDX-License-Identifier: MIT
/*
 * perf's build-id cache directory, found as perf 6.1 finds it: the
 * "dir" key of the [buildid] section in perf's config files (git-config
 * syntax: "[section]" lines, "key = value", '#' and ';' comments), else
 * $HOME/.debug. perf reads $PERF_CONFIG alone when it is set (empty: no
 * file), else /etc/perfconfig then ~/.perfconfig.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "buildid_dir.h"

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* [buildid] dir of one file into buf (unchanged when the file has none). 1 if set. */
static int config_dir(const char *path, char *buf, size_t len)
{
	char line[4096];
	bool in = false;
	int set = 0;
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq, *v;

		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');

			in = e && e - s - 1 == 7 && !strncasecmp(s + 1, "buildid", 7);
			continue;
		}
		if (!in || !(eq = strchr(s, '=')))
			continue;
		*eq = '\0';
		if (strcasecmp(trim(s), "dir"))
			continue;
		v = trim(eq + 1);
		if (*v == '"' && strlen(v) >= 2 && v[strlen(v) - 1] == '"') {
			v[strlen(v) - 1] = '\0';
			v++;
		}
		if (*v && strlen(v) < len) {
			strcpy(buf, v);
			set = 1;
		}
	}
	fclose(f);
	return set;
}

int tally__buildid_dir(char *buf, size_t len)
{
	const char *only = getenv("PERF_CONFIG"), *home = getenv("HOME");
	char user[4096];
	int set = 0;

	if (!buf || !len)
		return -EINVAL;
	if (only) {
		set = config_dir(only, buf, len);
	} else {
		set = config_dir("/etc/perfconfig", buf, len);
		if (home && *home && snprintf(user, sizeof(user), "%s/.perfconfig", home) <
					     (int)sizeof(user))
			set |= config_dir(user, buf, len);
	}
	if (set)
		return 0;
	if (!home || !*home)
		return -ENOENT;
	if (snprintf(buf, len, "%s/.debug", home) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}
