// SPDX-License-Identifier: MIT
/*
 * Tracepoints, the only user of libtracefs: the tracing directory, the
 * systems and events under it (for globs and `tally list`), and an
 * event's id (events/SYS/EV/id), which is attr.config for
 * PERF_TYPE_TRACEPOINT.
 */
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tracefs.h>
#include "internal.h"
#include "events_internal.h"

static bool safe_name(const char *s)
{
	return *s && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/');
}

const char *tally__tp_dir(const char *root)
{
	if (root)
		return root;
	return tracefs_tracing_dir();
}

int tally__tp_id(const char *root, const char *sys, const char *ev)
{
	const char *dir = tally__tp_dir(root);
	char buf[32], *end;
	long v;
	int n;

	if (!dir)
		return tally__err(ENOENT);
	if (!safe_name(sys) || !safe_name(ev))
		return tally__err(ENOENT);
	n = tally__read_filef(buf, sizeof(buf), "%s/events/%s/%s/id", dir, sys, ev);
	if (n < 0)
		return n;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || v < 0 || v > INT_MAX)
		return tally__err(EINVAL);
	return (int)v;
}

bool tally__tp_system_exists(const char *root, const char *sys)
{
	const char *dir = tally__tp_dir(root);
	char path[PATH_MAX];

	if (!dir || !safe_name(sys))
		return false;
	snprintf(path, sizeof(path), "%s/events/%s", dir, sys);
	return access(path, F_OK) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t list_len(char **v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

int tally__tp_foreach(const char *root, const char *sys_glob, const char *ev_glob,
		      int (*cb)(const char *sys, const char *ev, void *ctx), void *ctx)
{
	const char *dir = tally__tp_dir(root);
	char **systems, **events;
	size_t ns;
	int ret = 0;

	if (!dir)
		return tally__err(ENOENT);
	systems = tracefs_event_systems(dir);
	if (!systems)
		return 0;
	ns = list_len(systems);
	qsort(systems, ns, sizeof(*systems), cmp_str);
	for (size_t i = 0; i < ns && !ret; i++) {
		size_t ne;

		if (sys_glob && fnmatch(sys_glob, systems[i], 0))
			continue;
		events = tracefs_system_events(dir, systems[i]);
		if (!events)
			continue;
		ne = list_len(events);
		qsort(events, ne, sizeof(*events), cmp_str);
		for (size_t j = 0; j < ne && !ret; j++) {
			if (ev_glob && fnmatch(ev_glob, events[j], 0))
				continue;
			ret = cb(systems[i], events[j], ctx);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
	return ret;
}
