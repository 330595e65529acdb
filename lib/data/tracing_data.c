// SPDX-License-Identifier: MIT
/*
 * The TRACING_DATA blob (perf's trace-event-info.c, version 0.6) for the
 * tracepoint attrs of a recording, read from the tracefs directory:
 * header_page, header_event, the ftrace formats used, each used event's
 * format grouped by system, kallsyms (empty, as perf 6.1 writes it),
 * printk_formats, saved_cmdlines.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <tally/events.h>
#include "internal.h"
#include "data_write_internal.h"

/* The whole file (tracefs files have no size) appended to b; its length or -errno. */
static ssize_t slurp(struct tally__buf *b, const char *path)
{
	char tmp[8192];
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, tmp, sizeof(tmp))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		tally__buf_add(b, tmp, (size_t)n);
		total += n;
	}
	close(fd);
	return total;
}

/* u64 size (or u32 when small) + the file's bytes. */
static int sized_file(struct tally__buf *b, const char *path, int width, bool must)
{
	size_t at = b->len;
	ssize_t n;

	tally__buf_zero(b, (size_t)width);
	n = slurp(b, path);
	if (n < 0) {
		if (must)
			return (int)n;
		n = 0;
	}
	if (!b->oom) {
		if (width == 8) {
			uint64_t v = (uint64_t)n;

			memcpy(b->p + at, &v, 8);
		} else {
			uint32_t v = (uint32_t)n;

			memcpy(b->p + at, &v, 4);
		}
	}
	return 0;
}

struct tp {
	uint64_t id;
	char sys[256], name[256];
	bool found;
};

static int by_sys(const void *x, const void *y)
{
	const struct tp *a = x, *b = y;
	int c = strcmp(a->sys, b->sys);

	return c ? c : strcmp(a->name, b->name);
}

/* Find system/name of every wanted id by walking events/. */
static int find_events(const char *dir, struct tp *tps, size_t nr)
{
	char path[4096], idbuf[32];
	size_t left = nr;
	struct dirent *s, *e;
	DIR *ds, *de;

	snprintf(path, sizeof(path), "%s/events", dir);
	ds = opendir(path);
	if (!ds)
		return -errno;
	while (left && (s = readdir(ds))) {
		if (s->d_name[0] == '.' || s->d_type == DT_REG)
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", dir, s->d_name);
		de = opendir(path);
		if (!de)
			continue;
		while (left && (e = readdir(de))) {
			uint64_t id;

			if (e->d_name[0] == '.' || e->d_type == DT_REG)
				continue;
			if (tally__read_filef(idbuf, sizeof(idbuf), "%s/events/%s/%s/id", dir,
					      s->d_name, e->d_name) < 0)
				continue;
			id = strtoull(idbuf, NULL, 10);
			for (size_t i = 0; i < nr; i++)
				if (!tps[i].found && tps[i].id == id) {
					snprintf(tps[i].sys, sizeof(tps[i].sys), "%s", s->d_name);
					snprintf(tps[i].name, sizeof(tps[i].name), "%s", e->d_name);
					tps[i].found = true;
					left--;
				}
		}
		closedir(de);
	}
	closedir(ds);
	return left ? -ENOENT : 0;
}

int tally__tracing_data(struct tally__buf *b, const struct perf_event_attr *const *attrs,
			size_t nr)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44 };
	const char *dir = tally_tracing_dir(NULL, 0);
	char path[4096];
	struct tp *tps;
	size_t n = 0, i, j;
	uint32_t page = (uint32_t)sysconf(_SC_PAGESIZE);
	uint8_t be = 0, lsz = sizeof(long);
	int err;

	if (!dir)
		return -(errno ? errno : ENOENT);
	tps = tally__calloc(nr ? nr : 1, sizeof(*tps));
	if (!tps)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		if (attrs[i]->type != PERF_TYPE_TRACEPOINT)
			continue;
		for (j = 0; j < n && tps[j].id != attrs[i]->config; j++)
			;
		if (j == n)
			tps[n++].id = attrs[i]->config;
	}
	err = find_events(dir, tps, n);
	if (err)
		goto out;
	qsort(tps, n, sizeof(*tps), by_sys);

	tally__buf_add(b, magic, sizeof(magic));
	tally__buf_add(b, "tracing0.6", 11);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	be = 1;
#endif
	tally__buf_add(b, &be, 1);
	tally__buf_add(b, &lsz, 1);
	tally__buf_u32(b, page);

	tally__buf_add(b, "header_page", 12);
	snprintf(path, sizeof(path), "%s/events/header_page", dir);
	if ((err = sized_file(b, path, 8, true)))
		goto out;
	tally__buf_add(b, "header_event", 13);
	snprintf(path, sizeof(path), "%s/events/header_event", dir);
	if ((err = sized_file(b, path, 8, true)))
		goto out;

	/* ftrace's own events, when used */
	for (i = j = 0; i < n; i++)
		j += !strcmp(tps[i].sys, "ftrace");
	tally__buf_u32(b, (uint32_t)j);
	for (i = 0; i < n; i++) {
		if (strcmp(tps[i].sys, "ftrace"))
			continue;
		snprintf(path, sizeof(path), "%s/events/ftrace/%s/format", dir, tps[i].name);
		if ((err = sized_file(b, path, 8, true)))
			goto out;
	}

	/* the other systems, each with its events */
	for (i = j = 0; i < n; i++)
		if (strcmp(tps[i].sys, "ftrace") && (i == 0 || strcmp(tps[i].sys, tps[i - 1].sys)))
			j++;
	tally__buf_u32(b, (uint32_t)j);
	for (i = 0; i < n;) {
		size_t k = i;

		while (k < n && !strcmp(tps[k].sys, tps[i].sys))
			k++;
		if (strcmp(tps[i].sys, "ftrace")) {
			tally__buf_add(b, tps[i].sys, strlen(tps[i].sys) + 1);
			tally__buf_u32(b, (uint32_t)(k - i));
			for (j = i; j < k; j++) {
				snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir,
					 tps[j].sys, tps[j].name);
				if ((err = sized_file(b, path, 8, true)))
					goto out;
			}
		}
		i = k;
	}

	tally__buf_u32(b, 0);	/* kallsyms: perf 6.1 leaves it empty */
	snprintf(path, sizeof(path), "%s/printk_formats", dir);
	sized_file(b, path, 4, false);
	snprintf(path, sizeof(path), "%s/saved_cmdlines", dir);
	sized_file(b, path, 8, false);
	err = b->oom ? -ENOMEM : 0;
out:
	free(tps);
	return err;
}
