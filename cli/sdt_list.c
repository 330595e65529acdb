// SPDX-License-Identifier: MIT
/*
 * perf list's SDT events from the build-id cache (see sdt_list.h): each
 * valid .build-id/xx/<38 hex> link, its probe cache's SDT entries as
 * "group:event@build-id", sorted and made unique as perf's strlist, then
 * the path shown only where one name has several binaries.
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sdt_list.h"

struct sdt_names {
	char **v;
	size_t nr, cap;
};

static int add_name(struct sdt_names *s, const char *group_event, const char *bid)
{
	char *n;

	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		char **v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->cap = cap;
	}
	if (asprintf(&n, "%s@%s", group_event, bid) < 0)
		return -1;
	s->v[s->nr++] = n;
	return 0;
}

/* "%sdt_x:y=y" lines of one probe cache (perf's probe_cache__load). */
static int read_probes(struct sdt_names *s, const char *dir, const char *bid)
{
	char path[PATH_MAX + 16], line[4096];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/probes", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!ret && fgets(line, sizeof(line), f)) {
		char *eq;

		if (line[0] != '%')
			continue;
		eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (strchr(line + 1, ':'))
			ret = add_name(s, line + 1, bid);
	}
	fclose(f);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The binary's path: the cache dir of its build id, less the root and the id. */
static void orig_name(const char *root, const char *bid, char *out, size_t len)
{
	char link[PATH_MAX + 64], real[PATH_MAX];
	size_t rl = strlen(root), n;

	snprintf(link, sizeof(link), "%s/.build-id/%.2s/%s", root, bid, bid + 2);
	if (!realpath(link, real) || strncmp(real, root, rl) || real[rl] != '/') {
		snprintf(out, len, "?");
		return;
	}
	n = strlen(real);
	if (n > rl + strlen(bid) && !strcmp(real + n - strlen(bid), bid))
		real[n - strlen(bid) - 1] = '\0';
	snprintf(out, len, "%s", real + rl);
}

static int name_len(const char *s)
{
	const char *at = strchr(s, '@');

	return at ? (int)(at - s) : (int)strlen(s);
}

int sdt_list_foreach(int (*cb)(const char *name, void *ctx), void *ctx)
{
	const char *home = getenv("HOME");
	char root[PATH_MAX], top[PATH_MAX + 16], rootreal[PATH_MAX];
	struct sdt_names s = { 0 };
	struct dirent *d1;
	DIR *dd;
	int ret = 0;
	bool detail = false;

	/* perf 6.1 reads ~/.debug (its PERF_BUILDID_DIR is for its children) */
	if (home && *home)
		snprintf(root, sizeof(root), "%s/.debug", home);
	else
		return 0;
	if (!realpath(root, rootreal))
		return 0;
	snprintf(top, sizeof(top), "%s/.build-id", rootreal);
	dd = opendir(top);
	if (!dd)
		return 0;
	while (!ret && (d1 = readdir(dd))) {
		char sub[PATH_MAX + 32];
		struct dirent *d2;
		DIR *sd;

		if (strlen(d1->d_name) != 2 || d1->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", top, d1->d_name);
		sd = opendir(sub);
		if (!sd)
			continue;
		while (!ret && (d2 = readdir(sd))) {
			char link[PATH_MAX * 2], dir[PATH_MAX], bid[64];

			/* a build id's link: 38 hex characters (perf's 20-byte SHA-1) */
			if (strlen(d2->d_name) != 38 || strspn(d2->d_name, "0123456789abcdef") != 38)
				continue;
			snprintf(bid, sizeof(bid), "%s%s", d1->d_name, d2->d_name);
			snprintf(link, sizeof(link), "%s/%s", sub, d2->d_name);
			if (!realpath(link, dir))	/* a dangling link is not valid */
				continue;
			ret = read_probes(&s, dir, bid);
		}
		closedir(sd);
	}
	closedir(dd);
	if (ret)
		goto out;
	if (s.nr)	/* none: s.v is NULL, which qsort may not take */
		qsort(s.v, s.nr, sizeof(*s.v), cmp_str);
	for (size_t i = 0; i < s.nr && !ret; i++) {
		const char *cur = s.v[i], *next = NULL;
		char buf[PATH_MAX + 256], path[PATH_MAX];
		int len = name_len(cur);

		if (i && !strcmp(cur, s.v[i - 1]))
			continue;	/* strlist: unique */
		for (size_t j = i + 1; j < s.nr && !next; j++)
			if (strcmp(s.v[j], cur))
				next = s.v[j];
		/* perf: the detail from the first of a name shared with the next */
		if (next && name_len(next) == len && !strncmp(next, cur, (size_t)len))
			detail = true;
		if (detail) {
			orig_name(rootreal, cur + len + 1, path, sizeof(path));
			snprintf(buf, sizeof(buf), "%.*s@%s(%.12s)", len, cur, path, cur + len + 1);
		} else {
			snprintf(buf, sizeof(buf), "%.*s", len, cur);
		}
		ret = cb(buf, ctx);
		if (next && (name_len(next) != len || strncmp(next, cur, (size_t)len)))
			detail = false;
	}
out:
	for (size_t i = 0; i < s.nr; i++)
		free(s.v[i]);
	free(s.v);
	return ret;
}
