// SPDX-License-Identifier: MIT
/*
 * The cache directory shared by kcache.c (kallsyms) and debugcache.c
 * (decompressed debug files): $XDG_CACHE_HOME/tally, else ~/.cache/tally.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
