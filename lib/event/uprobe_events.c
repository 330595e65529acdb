// SPDX-License-Identifier: MIT
/*
 * tracefs uprobe_events: the dynamic events perf probe and tally probe
 * define. A line "p:GROUP/EVENT PATH:0xOFF ARGS" appended makes an event
 * GROUP:EVENT that every tool opens as a tracepoint; "-:GROUP/EVENT"
 * removes it (with every probe of that name: since 5.x a name may carry
 * several addresses).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tally/dynprobe.h>
#include <tally/events.h>
#include "events_internal.h"

static int events_path(char *buf, size_t len, const char *file)
{
	const char *dir = tally__tp_dir(NULL);

	if (!dir)
		return errno ? -errno : -ENOENT;
	snprintf(buf, len, "%s/%s", dir, file);
	return 0;
}

/* tracefs opened here, the line written from pid's mount namespace when given */
static int write_line(const char *line, int pid)
{
	char path[4096];
	size_t n = strlen(line);
	ssize_t w;
	struct tally_mntns back;
	int fd, err = events_path(path, sizeof(path), "uprobe_events");

	if (err)
		return err;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (pid > 0 && (err = tally_mntns__enter(pid, &back))) {
		close(fd);
		return err;
	}
	w = write(fd, line, n);
	err = w < 0 ? -errno : (size_t)w != n ? -EIO : 0;
	if (pid > 0)
		tally_mntns__exit(&back);
	close(fd);
	return err;
}

int tally_uprobe_events__add(const char *line)
{
	return tally_uprobe_events__add_ns(line, 0);
}

int tally_uprobe_events__add_ns(const char *line, int pid)
{
	int err = write_line(line, pid);

	if (err)
		errno = -err;
	return err;
}

void tally_uprobe_events__free_list(char **lines, size_t nr)
{
	for (size_t i = 0; lines && i < nr; i++)
		free(lines[i]);
	free(lines);
}

static int push(char ***v, size_t *nr, const char *s, size_t len)
{
	char **nv = realloc(*v, (*nr + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	if (!(nv[*nr] = strndup(s, len)))
		return -ENOMEM;
	(*nr)++;
	return 0;
}

int tally_uprobe_events__list(char ***lines, size_t *nr)
{
	char path[4096], *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *fp;
	int err = events_path(path, sizeof(path), "uprobe_events");

	*lines = NULL;
	*nr = 0;
	if (err)
		return err;
	if (!(fp = fopen(path, "re")))
		return -errno;
	while ((n = getline(&buf, &cap, fp)) > 0) {
		while (n && buf[n - 1] == '\n')
			n--;
		if (n && (err = push(lines, nr, buf, (size_t)n)))
			break;
	}
	free(buf);
	fclose(fp);
	if (err) {
		tally_uprobe_events__free_list(*lines, *nr);
		*lines = NULL;
		*nr = 0;
	}
	return err;
}

/* "p:grp/ev rest" -> "grp:ev" in out; false for a line of another shape */
static bool line_name(const char *line, char *out, size_t len)
{
	const char *c = strchr(line, ':'), *sp, *sl;

	if (!c || c - line > 1)
		return false;
	sp = strchr(c, ' ');
	sl = strchr(c, '/');
	if (!sl || (sp && sl > sp))
		return false;
	if (!sp)
		sp = c + strlen(c);
	if ((size_t)(sp - c) >= len)
		return false;
	snprintf(out, len, "%.*s:%.*s", (int)(sl - c - 1), c + 1, (int)(sp - sl - 1), sl + 1);
	return true;
}

int tally_uprobe_events__del(const char *glob, char ***removed, size_t *nr)
{
	char **lines, name[512], cmd[520];
	size_t n, i;
	int err, count = 0;

	*removed = NULL;
	*nr = 0;
	if ((err = tally_uprobe_events__list(&lines, &n)))
		return err;
	for (i = 0; i < n; i++) {
		const char *ev;
		bool seen = false;

		if (!line_name(lines[i], name, sizeof(name)))
			continue;
		ev = strchr(name, ':') + 1;
		if (fnmatch(glob, strchr(glob, ':') ? name : ev, 0))
			continue;
		/* a name with several probes is listed once per probe, removed once */
		for (size_t j = 0; j < *nr; j++)
			seen |= !strcmp((*removed)[j], name);
		if (seen)
			continue;
		snprintf(cmd, sizeof(cmd), "-:%.*s/%s", (int)(ev - name - 1), name, ev);
		if ((err = write_line(cmd, 0)) || (err = push(removed, nr, name, strlen(name))))
			break;
		count++;
	}
	tally_uprobe_events__free_list(lines, n);
	if (err) {
		errno = -err;
		return err;
	}
	return count;
}

bool tally_kprobe_events__available(char *why, size_t len)
{
	char path[4096];
	struct stat st;
	bool file, pmu;

	file = !events_path(path, sizeof(path), "kprobe_events") && !stat(path, &st);
	pmu = !stat("/sys/bus/event_source/devices/kprobe", &st);
	if (file || pmu)
		return true;
	if (why)
		snprintf(why, len, "this kernel has no kprobe events (no kprobe_events in "
			 "tracefs, no kprobe PMU: built without CONFIG_KPROBE_EVENTS)");
	return false;
}
