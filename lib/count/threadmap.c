// SPDX-License-Identifier: MIT
/* Thread maps: ordered tids (or -1 for any thread), reference counted. */
#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <unistd.h>
#include <tally/threadmap.h>
#include "internal.h"

struct tally_thread_entry {
	pid_t tid;
	char comm[64];	/* TASK_COMM_LEN is 16, but kworkers show "kworker/0:2-events" */
};

struct tally_thread_map {
	int refcnt;
	int nr;
	int cap;
	struct tally_thread_entry *ent;
};

static struct tally_thread_map *map_new(void)
{
	struct tally_thread_map *m = calloc(1, sizeof(*m));

	if (!m)
		return tally__err_ptr(ENOMEM);
	m->refcnt = 1;
	return m;
}

static void read_comm(pid_t tid, char *comm, size_t len)
{
	comm[0] = '\0';
	if (tid <= 0)
		return;
	if (tally__read_filef(comm, len, "/proc/%d/comm", (int)tid) < 0)
		comm[0] = '\0';
}

/*
 * Append tid without map_push()'s duplicate scan (linear per push): the
 * tids under /proc/PID/task are unique system-wide, and a box may have
 * tens of thousands.
 */
static int map_append(struct tally_thread_map *m, pid_t tid)
{
	if (m->nr == m->cap) {
		int ncap = m->cap ? m->cap * 2 : 64;
		void *n = tally__reallocarray(m->ent, (size_t)ncap, sizeof(*m->ent));

		if (!n)
			return tally__err(ENOMEM);
		m->ent = n;
		m->cap = ncap;
	}
	m->ent[m->nr].tid = tid;
	read_comm(tid, m->ent[m->nr].comm, sizeof(m->ent[m->nr].comm));
	m->nr++;
	return 0;
}

static int map_push(struct tally_thread_map *m, pid_t tid)
{
	for (int i = 0; i < m->nr; i++)
		if (m->ent[i].tid == tid)
			return 0;	/* a tid appears once */
	return map_append(m, tid);
}

struct tally_thread_map *tally_thread_map__new_any(void)
{
	struct tally_thread_map *m = map_new();

	if (m && map_push(m, -1)) {
		tally_thread_map__put(m);
		return NULL;
	}
	return m;
}

struct tally_thread_map *tally_thread_map__new_pid(pid_t pid)
{
	struct tally_thread_map *m;

	if (pid <= 0)
		return tally__err_ptr(EINVAL);
	m = map_new();
	if (m && map_push(m, pid)) {
		tally_thread_map__put(m);
		return NULL;
	}
	return m;
}

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = ((const struct tally_thread_entry *)a)->tid;
	pid_t y = ((const struct tally_thread_entry *)b)->tid;

	return (x > y) - (x < y);
}

/* Append every tid of pid (sorted) to m. */
static int add_tasks(struct tally_thread_map *m, pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int first = m->nr, seen = 0, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return tally__err(errno == ENOENT ? ESRCH : errno);
	while ((de = readdir(d)) != NULL) {
		char *end;
		long tid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		seen++;
		err = map_push(m, (pid_t)tid);
		if (err)
			break;
	}
	closedir(d);
	if (err)
		return err;
	/* No task at all: it exited while we looked (a repeated pid adds none). */
	if (!seen)
		return tally__err(ESRCH);
	qsort(m->ent + first, (size_t)(m->nr - first), sizeof(*m->ent), cmp_tid);
	return 0;
}

struct tally_thread_map *tally_thread_map__new_tasks(pid_t pid)
{
	struct tally_thread_map *m;
	int err;

	if (pid <= 0)
		return tally__err_ptr(EINVAL);
	m = map_new();
	if (!m)
		return NULL;
	err = add_tasks(m, pid);
	if (err) {
		tally_thread_map__put(m);
		return tally__err_ptr(-err);
	}
	return m;
}

struct tally_thread_map *tally_thread_map__new_list(const char *list, bool all_tasks)
{
	struct tally_thread_map *m;
	const char *p = list;
	int err = 0;

	if (!list || !*list)
		return tally__err_ptr(EINVAL);
	m = map_new();
	if (!m)
		return NULL;
	while (*p) {
		long pid = 0;

		if (!isdigit((unsigned char)*p)) {
			err = -EINVAL;
			break;
		}
		while (isdigit((unsigned char)*p)) {
			pid = pid * 10 + (*p - '0');
			if (pid > 0x3fffffff) {
				err = -EINVAL;
				goto out;
			}
			p++;
		}
		if (*p == ',') {
			p++;
			if (!*p) {
				err = -EINVAL;
				break;
			}
		} else if (*p) {
			err = -EINVAL;
			break;
		}
		if (pid <= 0) {
			err = -EINVAL;
			break;
		}
		if (all_tasks) {
			err = add_tasks(m, (pid_t)pid);
		} else {
			char d[64];

			snprintf(d, sizeof(d), "/proc/%ld", pid);
			if (access(d, F_OK))
				err = -ESRCH;
			else
				err = map_push(m, (pid_t)pid);
		}
		if (err)
			break;
	}
out:
	if (err) {
		tally_thread_map__put(m);
		return tally__err_ptr(-err);
	}
	return m;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* Every tid of every process in /proc (of uid's, where uid is not -1), sorted. */
static struct tally_thread_map *new_procs(uid_t uid)
{
	struct tally_thread_map *m;
	struct dirent *pe, *te;
	DIR *proc, *task;
	char path[64];
	int err = 0;

	proc = opendir("/proc");
	if (!proc)
		return NULL;
	m = map_new();
	if (!m) {
		closedir(proc);
		return NULL;
	}
	while (!err && (pe = readdir(proc)) != NULL) {
		struct stat st;

		if (!all_digits(pe->d_name))
			continue;
		/* the process's owner, as perf's thread_map__new_by_uid reads it */
		snprintf(path, sizeof(path), "/proc/%.20s", pe->d_name);
		if (uid != (uid_t)-1 && (stat(path, &st) || st.st_uid != uid))
			continue;
		snprintf(path, sizeof(path), "/proc/%.20s/task", pe->d_name);
		task = opendir(path);
		if (!task)
			continue;	/* the process exited meanwhile */
		while (!err && (te = readdir(task)) != NULL) {
			long tid;

			if (!all_digits(te->d_name))
				continue;
			tid = strtol(te->d_name, NULL, 10);
			if (tid > 0 && tid <= 0x3fffffff)
				err = map_append(m, (pid_t)tid);
		}
		closedir(task);
	}
	closedir(proc);
	if (err) {
		tally_thread_map__put(m);
		return tally__err_ptr(-err);
	}
	if (!m->nr) {
		tally_thread_map__put(m);
		return tally__err_ptr(ESRCH);
	}
	qsort(m->ent, (size_t)m->nr, sizeof(*m->ent), cmp_tid);
	return m;
}

struct tally_thread_map *tally_thread_map__new_all(void)
{
	return new_procs((uid_t)-1);
}

struct tally_thread_map *tally_thread_map__new_uid(uid_t uid)
{
	if (uid == (uid_t)-1)
		return tally__err_ptr(EINVAL);
	return new_procs(uid);
}

struct tally_thread_map *tally_thread_map__get(struct tally_thread_map *map)
{
	if (map)
		map->refcnt++;
	return map;
}

void tally_thread_map__put(struct tally_thread_map *map)
{
	if (map && --map->refcnt == 0) {
		free(map->ent);
		free(map);
	}
}

int tally_thread_map__nr(const struct tally_thread_map *map)
{
	return map ? map->nr : 0;
}

pid_t tally_thread_map__pid(const struct tally_thread_map *map, int idx)
{
	if (!map || idx < 0 || idx >= map->nr)
		return -1;
	return map->ent[idx].tid;
}

const char *tally_thread_map__comm(const struct tally_thread_map *map, int idx)
{
	if (!map || idx < 0 || idx >= map->nr)
		return "";
	return map->ent[idx].comm;
}
