// SPDX-License-Identifier: MIT
/*
 * The cache directory shared by kcache.c (kallsyms), symcache.c (DSOs'
 * symbol tables) and debugcache.c (decompressed debug files):
 * $XDG_CACHE_HOME/tally, else ~/.cache/tally. Kept to a size
 * (tally__cache_trim).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cachedir.h"

int tally__cache_path(char *buf, size_t len, const char *name, bool create)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char dir[4096];
	int n;

	if (x && *x)
		n = snprintf(dir, sizeof(dir), "%s/tally", x);
	else if (home && *home)
		n = snprintf(dir, sizeof(dir), "%s/.cache/tally", home);
	else
		return -ENOENT;
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -ENAMETOOLONG;
	if (create) {
		char *slash = strrchr(dir, '/');

		/* the parent (~/.cache) first; it may well exist */
		if (slash && slash != dir) {
			*slash = '\0';
			(void)mkdir(dir, 0700);
			*slash = '/';
		}
		if (mkdir(dir, 0700) && errno != EEXIST)
			return -errno;
	}
	n = snprintf(buf, len, "%s/%s", dir, name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int tally__cache_open(const char *path, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_uid != geteuid() || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EPERM;
	}
	*size = (size_t)st.st_size;
	return fd;
}

/* Files of formats this tally no longer reads. */
static const char *const retired[] = { "kallsyms-", "kallsyms2-", "symtab1-", "symtab2-" };

struct cfile {
	char *path;
	uint64_t size;
	time_t used;			/* the later of its atime and mtime */
};

static bool is_retired(const char *name)
{
	for (size_t i = 0; i < sizeof(retired) / sizeof(*retired); i++)
		if (!strncmp(name, retired[i], strlen(retired[i])))
			return true;
	return false;
}

/* A writer's temporary file ("NAME.XXXXXX") an hour old: left by one that died. */
static bool is_stale_tmp(const char *name, const struct stat *st, time_t now)
{
	const char *dot = strrchr(name, '.');

	return dot && strlen(dot) == 7 && strcmp(dot, ".debug") && now - st->st_mtime > 3600;
}

/* dir's regular files into *v (n of cap); the retired and the stale removed on the way. */
static int scan(const char *dir, struct cfile **v, size_t *n, size_t *cap, time_t now)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.' || asprintf(&p, "%s/%s", dir, de->d_name) < 0)
			continue;
		if (lstat(p, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
			free(p);
			continue;
		}
		if (is_retired(de->d_name) || is_stale_tmp(de->d_name, &st, now)) {
			unlink(p);
			free(p);
			continue;
		}
		if (*n == *cap) {
			size_t c = *cap ? *cap * 2 : 64;
			struct cfile *nv = realloc(*v, c * sizeof(*nv));

			if (!nv) {
				free(p);
				closedir(d);
				return -ENOMEM;
			}
			*v = nv;
			*cap = c;
		}
		(*v)[(*n)++] = (struct cfile){ p, (uint64_t)st.st_size,
					       st.st_atime > st.st_mtime ? st.st_atime : st.st_mtime };
	}
	closedir(d);
	return 0;
}

static int by_use(const void *a, const void *b)
{
	const struct cfile *x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

uint64_t tally__cache_max(void)
{
	const char *e = getenv("TALLY_CACHE_MAX");
	char *end;
	unsigned long long v;

	if (!e || !*e)
		return TALLY_CACHE_MAX_DEFAULT;
	v = strtoull(e, &end, 10);
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	return *end ? TALLY_CACHE_MAX_DEFAULT : v;
}

int tally__cache_trim(const char *keep)
{
	char dir[4096], sub[4200];
	struct cfile *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0, max = tally__cache_max();
	time_t now = time(NULL);
	int err;

	if ((err = tally__cache_path(dir, sizeof(dir), "", false)))
		return err;
	dir[strlen(dir) - 1] = '\0';	/* the trailing slash */
	snprintf(sub, sizeof(sub), "%s/debug", dir);
	if ((err = scan(dir, &v, &n, &cap, now)) ||
	    ((err = scan(sub, &v, &n, &cap, now)) && err != -ENOENT))
		goto out;
	err = 0;
	for (size_t i = 0; i < n; i++)
		total += v[i].size;
	if (total > max) {
		/* the least recently used go, to three quarters of the most: not a trim per write */
		qsort(v, n, sizeof(*v), by_use);
		for (size_t i = 0; i < n && total > max / 4 * 3; i++) {
			if (keep && !strcmp(v[i].path, keep))
				continue;
			if (!unlink(v[i].path))
				total -= v[i].size;
		}
	}
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
	return err;
}
