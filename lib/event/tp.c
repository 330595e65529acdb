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
#include <sys/mount.h>
#include <tracefs.h>
#include "internal.h"
#include "events_internal.h"
#include <tally/events.h>

static bool safe_name(const char *s)
{
	return *s && strcmp(s, ".") && strcmp(s, "..") && !strchr(s, '/');
}

/*
 * The tracing directory: a tracefs already mounted (anywhere libtracefs
 * finds one), else we mount one at /sys/kernel/tracing, or debugfs with
 * its tracing/ automount, as perf does the first time it needs it. A
 * fresh machine has neither until someone mounts them; a perf user never
 * sees that, so a tally user must not either.
 */
static pthread_mutex_t dir_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *dir_found;	/* kept for the process */
static int mount_err;		/* why the last mount failed (errno) */

#define TRACEFS_PATH	"/sys/kernel/tracing"
#define DEBUGFS_PATH	"/sys/kernel/debug"

static bool has_events(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events", dir);
	return access(path, F_OK) == 0 || errno == EACCES;
}

static const char *try_mount(void)
{
	if (mount("nodev", TRACEFS_PATH, "tracefs", 0, NULL) == 0 || errno == EBUSY) {
		if (has_events(TRACEFS_PATH))
			return TRACEFS_PATH;
	}
	mount_err = errno ? errno : ENOENT;
	/* Kernels without /sys/kernel/tracing: debugfs automounts tracing/. */
	if (mount("nodev", DEBUGFS_PATH, "debugfs", 0, NULL) == 0 || errno == EBUSY) {
		if (has_events(DEBUGFS_PATH "/tracing"))
			return DEBUGFS_PATH "/tracing";
	}
	return NULL;
}

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
	if (!dir_found) {
		errno = 0;
		dir_found = try_mount();
	}
	path = dir_found;
	pthread_mutex_unlock(&dir_lock);
	if (!path)
		errno = mount_err;
	return path;
}

const char *tally_tracing_dir(char *why, size_t len)
{
	const char *dir = tally__tp_dir(NULL);
	int err = errno;

	if (dir) {
		if (!has_events(dir) || access(dir, R_OK | X_OK) == 0)
			return dir;
		err = EACCES;
		if (why)
			snprintf(why, len, "no permission to read %s (run as root, or "
				 "'chmod go+rx %s' as root)", dir, dir);
		errno = err;
		return NULL;
	}
	if (why)
		snprintf(why, len, "tracefs is not mounted and tally could not mount it (%s); "
			 "as root run: mount -t tracefs nodev " TRACEFS_PATH, strerror(err));
	errno = err;
	return NULL;
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

int tally__tp_foreach(const char *root, const char *sys_glob, const char *ev_glob, bool sorted,
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
	if (sorted)
		qsort(systems, ns, sizeof(*systems), cmp_str);
	for (size_t i = 0; i < ns && !ret; i++) {
		size_t ne;

		if (sys_glob && fnmatch(sys_glob, systems[i], 0))
			continue;
		events = tracefs_system_events(dir, systems[i]);
		if (!events)
			continue;
		ne = list_len(events);
		if (sorted)
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
