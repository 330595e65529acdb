// SPDX-License-Identifier: MIT
/*
 * Tracepoints, the only user of libtracefs: the tracing directory, the
 * systems and events under it (for globs and `tally list`), and an
 * event's id (events/SYS/EV/id), which is attr.config for
 * PERF_TYPE_TRACEPOINT. Only events with an id can be opened, so only
 * those are walked (as perf list does: ftrace:function has one,
 * ftrace:bprint does not).
 */
#include <dirent.h>
#include <fnmatch.h>
#include <pthread.h>
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

/*
 * Only a tracefs that is already mounted: tracefs_tracing_dir() would
 * mount one, and a library that parses a string must not mount things.
 */
static pthread_mutex_t dir_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *dir_found;	/* libtracefs's allocation, kept for the process */

const char *tally__tp_dir(const char *root)
{
	const char *path = NULL;

	if (root)
		return root;
	pthread_mutex_lock(&dir_lock);
	/*
	 * libtracefs hands out a new copy on each call that finds it: ask
	 * until found, then keep that one (reachable: LeakSanitizer is quiet).
	 */
	if (!dir_found && tracefs_tracing_dir_is_mounted(false, &path) > 0 && path)
		dir_found = path;
	path = dir_found;
	pthread_mutex_unlock(&dir_lock);
	return path;
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

int tally__tp_system_state(const char *root, const char *sys)
{
	const char *dir = tally__tp_dir(root);
	char path[PATH_MAX];

	if (!dir)
		return -1;
	if (!safe_name(sys))
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s", dir, sys);
	if (access(path, F_OK) == 0)
		return 1;
	/* unreadable tracefs (mode 0700, not root): cannot tell */
	return errno == EACCES ? -1 : 0;
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

/*
 * The systems: every directory under events/. Not tracefs_event_systems(),
 * which wants an "enable" file in each and so skips "ftrace", whose
 * function and print events perf lists and opens.
 */
static char **list_systems(const char *dir, size_t *nr)
{
	char path[PATH_MAX];
	struct dirent *de;
	char **v = NULL, **nv;
	size_t n = 0, cap = 0;
	DIR *d;

	*nr = 0;
	snprintf(path, sizeof(path), "%s/events", dir);
	d = opendir(path);
	if (!d)
		return NULL;	/* errno says why */
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (n + 1 >= cap) {
			cap = cap ? cap * 2 : 64;
			nv = tally__reallocarray(v, cap, sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		if (!(v[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (v)
		v[n] = NULL;
	*nr = n;
	return v;
}

static bool has_id(const char *dir, const char *sys, const char *ev)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", dir, sys, ev);
	return access(path, F_OK) == 0;
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
	errno = 0;
	systems = list_systems(dir, &ns);
	if (!systems)
		return errno ? -errno : 0;
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
			if (!has_id(dir, systems[i], events[j]))
				continue;
			ret = cb(systems[i], events[j], ctx);
		}
		tracefs_list_free(events);
	}
	for (size_t i = 0; i < ns; i++)
		free(systems[i]);
	free(systems);
	return ret;
}
