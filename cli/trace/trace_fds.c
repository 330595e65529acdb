// SPDX-License-Identifier: MIT
/*
 * tally trace's fd tables (trace_fds.h): a table per process (or per
 * group of threads that share one), each an array indexed by fd of the
 * path it names and its close-on-exec flag; the threads hashed by tid,
 * each holding its table, counted so that CLONE_FILES shares one.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <tally/syscall_trace.h>
#include <tally/syscalls.h>
#include "trace_fds.h"

#define FD_MAX		(1 << 20)	/* the kernel's default nr_open: beyond, no path */
#define NBUCKETS	4096

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE	(1U << 1)
#define CLOSE_RANGE_CLOEXEC	(1U << 2)
#endif

struct fd_slot {
	char *path;			/* NULL: no path known */
	bool cloexec;
};

struct fd_table {
	int refs;
	int n;				/* slots */
	struct fd_slot *s;
	char *cwd;			/* where relative paths start, or NULL */
	pid_t seeded;			/* the process /proc gave it, 0 */
};

struct fd_thread {
	pid_t tid;
	struct fd_table *t;
	int closing_fd;			/* the fd its open close() took out, -1 */
	char *closing;			/* and its path, for that call's lines */
	struct tally_sc_call hidden;	/* its call -e leaves out, with hidden_open */
	bool hidden_open;
	struct fd_thread *next;
};

/* The calls that change a table, by number (x86-64, from the names). */
enum {
	SC_OPEN, SC_OPENAT, SC_CREAT, SC_OPENAT2, SC_DUP, SC_DUP2, SC_DUP3, SC_FCNTL, SC_CLOSE,
	SC_CLOSE_RANGE, SC_EXECVE, SC_EXECVEAT, SC_CHDIR, SC_FCHDIR, SC_NR
};

static const char *const sc_names[SC_NR] = {
	"open", "openat", "creat", "openat2", "dup", "dup2", "dup3", "fcntl", "close",
	"close_range", "execve", "execveat", "chdir", "fchdir",
};

/* calls that return a new fd with no path to it (the number is free again for it) */
static const char *const new_fd_names[] = {
	"socket", "accept", "accept4", "epoll_create", "epoll_create1", "eventfd", "eventfd2",
	"signalfd", "signalfd4", "timerfd_create", "inotify_init", "inotify_init1",
	"fanotify_init", "memfd_create", "memfd_secret", "perf_event_open", "userfaultfd",
	"pidfd_open", "pidfd_getfd", "io_uring_setup", "open_tree", "fsopen", "fsmount",
	"fspick", "open_by_handle_at", NULL,
};

struct trace_fds {
	struct fd_thread *hash[NBUCKETS];
	int nr[SC_NR];
	bool new_fd[TALLY_SYSCALL_MAX];
};

struct trace_fds *trace_fds__new(void)
{
	struct trace_fds *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	for (int i = 0; i < SC_NR; i++)
		f->nr[i] = tally_syscall__nr(sc_names[i]);
	for (int i = 0; new_fd_names[i]; i++) {
		int nr = tally_syscall__nr(new_fd_names[i]);

		if (nr >= 0)
			f->new_fd[nr] = true;
	}
	return f;
}

static void table_put(struct fd_table *t)
{
	if (!t || --t->refs > 0)
		return;
	for (int i = 0; i < t->n; i++)
		free(t->s[i].path);
	free(t->s);
	free(t->cwd);
	free(t);
}

void trace_fds__free(struct trace_fds *f)
{
	if (!f)
		return;
	for (int b = 0; b < NBUCKETS; b++)
		for (struct fd_thread *th = f->hash[b], *n; th; th = n) {
			n = th->next;
			table_put(th->t);
			free(th->closing);
			free(th);
		}
	free(f);
}

static struct fd_thread *thread_find(const struct trace_fds *f, pid_t tid)
{
	struct fd_thread *th = f->hash[(unsigned)tid % NBUCKETS];

	while (th && th->tid != tid)
		th = th->next;
	return th;
}

/* tid's thread, with an empty table when first seen (nothing known of it). */
static struct fd_thread *thread_get(struct trace_fds *f, pid_t tid)
{
	struct fd_thread *th = thread_find(f, tid);

	if (th)
		return th;
	th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->t = calloc(1, sizeof(*th->t));
	if (!th->t) {
		free(th);
		return NULL;
	}
	th->t->refs = 1;
	th->tid = tid;
	th->closing_fd = -1;
	th->next = f->hash[(unsigned)tid % NBUCKETS];
	f->hash[(unsigned)tid % NBUCKETS] = th;
	return th;
}

static struct fd_table *table_copy(const struct fd_table *t)
{
	struct fd_table *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->refs = 1;
	c->s = calloc((size_t)t->n + 1, sizeof(*c->s));
	if (!c->s) {
		free(c);
		return NULL;
	}
	c->n = t->n;
	for (int i = 0; i < t->n; i++) {
		c->s[i].cloexec = t->s[i].cloexec;
		/* a path lost to memory is a path not known: nothing wrong shown */
		c->s[i].path = t->s[i].path ? strdup(t->s[i].path) : NULL;
	}
	c->cwd = t->cwd ? strdup(t->cwd) : NULL;
	return c;
}

/* th's own table, copied out of a shared one (execve, CLONE_RANGE_UNSHARE). */
static void unshare(struct fd_thread *th)
{
	struct fd_table *c;

	if (th->t->refs < 2 || !(c = table_copy(th->t)))
		return;
	table_put(th->t);
	th->t = c;
}

static void slot_set(struct fd_table *t, int fd, const char *path, bool cloexec)
{
	if (fd < 0 || fd >= FD_MAX)
		return;
	if (fd >= t->n) {
		int n = t->n ? t->n : 64;
		struct fd_slot *s;

		if (!path)
			return;		/* nothing there to take out */
		while (n <= fd)
			n *= 2;
		s = realloc(t->s, (size_t)n * sizeof(*s));
		if (!s)
			return;
		memset(s + t->n, 0, (size_t)(n - t->n) * sizeof(*s));
		t->s = s;
		t->n = n;
	}
	free(t->s[fd].path);
	t->s[fd].path = path ? strdup(path) : NULL;
	t->s[fd].cloexec = cloexec;
}

static const char *slot_path(const struct fd_table *t, int fd)
{
	return fd >= 0 && fd < t->n ? t->s[fd].path : NULL;
}

void trace_fds__set(struct trace_fds *f, pid_t tid, int fd, const char *path, bool cloexec)
{
	struct fd_thread *th = thread_get(f, tid);

	if (th)
		slot_set(th->t, fd, path, cloexec);
}

const char *trace_fds__path(struct trace_fds *f, pid_t tid, int fd)
{
	const struct fd_thread *th = f ? thread_find(f, tid) : NULL;

	if (!th)
		return NULL;
	if (th->closing && th->closing_fd == fd)
		return th->closing;
	return slot_path(th->t, fd);
}

void trace_fds__enter(struct trace_fds *f, pid_t tid, int nr, const uint64_t args[6])
{
	struct fd_thread *th = thread_get(f, tid);
	int fd;

	if (!th)
		return;
	/* a thread makes one call at a time: its last close is over */
	th->hidden_open = false;
	free(th->closing);
	th->closing = NULL;
	th->closing_fd = -1;
	if (nr != f->nr[SC_CLOSE] || nr < 0)
		return;
	fd = (int)args[0];
	if (fd < 0 || fd >= th->t->n || !th->t->s[fd].path)
		return;
	th->closing = th->t->s[fd].path;
	th->closing_fd = fd;
	th->t->s[fd].path = NULL;
}

/* "a//b/./c/" as "a/b/c", as the kernel reads it ("..": symlinks would be needed) */
static void tidy(char *p)
{
	char *w = p;

	for (const char *r = p; *r;) {
		if (r[0] == '/' && (r[1] == '/' || (r[1] == '.' && (r[2] == '/' || !r[2])))) {
			r += r[1] == '/' ? 1 : 2;
			continue;
		}
		*w++ = *r++;
	}
	while (w > p + 1 && w[-1] == '/')
		w--;
	*w = '\0';
}

/*
 * The file a path argument names: absolute as is, relative from the
 * directory dfd names (AT_FDCWD: the cwd) when that is known, else as
 * the call gave it (the file it names there, if not where). Into buf.
 */
static const char *resolve(const struct fd_table *t, int dfd, const char *path, char *buf,
			   size_t len)
{
	const char *dir = dfd == AT_FDCWD ? t->cwd : slot_path(t, dfd);
	int n;

	if (path[0] == '/' || !dir || dir[0] != '/')
		n = snprintf(buf, len, "%s", path);
	else
		n = snprintf(buf, len, "%s/%s", dir, path);
	if (n < 0 || (size_t)n >= len)
		return NULL;
	tidy(buf);
	return buf;
}

/* execve: its fds marked close-on-exec go; the table is its own from now on. */
static void exec_(struct fd_thread *th)
{
	unshare(th);
	for (int i = 0; i < th->t->n; i++)
		if (th->t->s[i].cloexec) {
			free(th->t->s[i].path);
			th->t->s[i].path = NULL;
			th->t->s[i].cloexec = false;
		}
}

static void dup_(struct fd_table *t, int from, int to, bool cloexec)
{
	const char *p = slot_path(t, from);
	char *copy = p ? strdup(p) : NULL;	/* from may be to */

	slot_set(t, to, copy, cloexec);
	free(copy);
}

void trace_fds__exit(struct trace_fds *f, const struct tally_sc_call *c, const char *const *strs)
{
	static char buf[PATH_MAX];
	struct fd_thread *th = thread_get(f, c->tid);
	const uint64_t *a = c->args;
	const int *nr = f->nr;
	int ret = (int)c->ret;
	struct fd_table *t;

	if (!th)
		return;
	free(th->closing);
	th->closing = NULL;
	th->closing_fd = -1;
	t = th->t;
	if (c->ret < 0 || c->nr < 0)
		return;
	if (c->nr < TALLY_SYSCALL_MAX && f->new_fd[c->nr]) {
		slot_set(t, ret, NULL, false);
		return;
	}
	/* what the call did is in its arguments: without its enter, the fd it returned is unknown */
	if (!c->has_enter) {
		if (c->nr == nr[SC_OPEN] || c->nr == nr[SC_OPENAT] || c->nr == nr[SC_CREAT] ||
		    c->nr == nr[SC_OPENAT2] || c->nr == nr[SC_DUP] || c->nr == nr[SC_DUP2] ||
		    c->nr == nr[SC_DUP3])
			slot_set(t, ret, NULL, false);
		else if (c->nr == nr[SC_EXECVE] || c->nr == nr[SC_EXECVEAT])
			exec_(th);
		return;
	}
	if (c->nr == nr[SC_OPEN] || c->nr == nr[SC_CREAT]) {
		const char *p = strs && strs[0] ? resolve(t, AT_FDCWD, strs[0], buf, sizeof(buf)) : NULL;

		slot_set(t, ret, p, c->nr == nr[SC_OPEN] && (a[1] & O_CLOEXEC));
	} else if (c->nr == nr[SC_OPENAT] || c->nr == nr[SC_OPENAT2]) {
		const char *p = strs && strs[1] ? resolve(t, (int)a[0], strs[1], buf, sizeof(buf)) : NULL;

		/* openat2's flags are in a struct the trace does not hold */
		slot_set(t, ret, p, c->nr == nr[SC_OPENAT] && (a[2] & O_CLOEXEC));
	} else if (c->nr == nr[SC_DUP]) {
		dup_(t, (int)a[0], ret, false);
	} else if (c->nr == nr[SC_DUP2]) {
		dup_(t, (int)a[0], ret, false);
	} else if (c->nr == nr[SC_DUP3]) {
		dup_(t, (int)a[0], ret, a[2] & O_CLOEXEC);
	} else if (c->nr == nr[SC_FCNTL]) {
		if ((int)a[1] == F_DUPFD || (int)a[1] == F_DUPFD_CLOEXEC)
			dup_(t, (int)a[0], ret, (int)a[1] == F_DUPFD_CLOEXEC);
		else if ((int)a[1] == F_SETFD && (int)a[0] >= 0 && (int)a[0] < t->n)
			t->s[(int)a[0]].cloexec = a[2] & FD_CLOEXEC;
	} else if (c->nr == nr[SC_CLOSE_RANGE]) {
		unsigned first = (unsigned)a[0], last = (unsigned)a[1];

		if (a[2] & CLOSE_RANGE_UNSHARE) {
			unshare(th);
			t = th->t;
		}
		for (unsigned i = first; i <= last && i < (unsigned)t->n; i++) {
			if (a[2] & CLOSE_RANGE_CLOEXEC) {
				t->s[i].cloexec = true;
			} else {
				free(t->s[i].path);
				t->s[i].path = NULL;
			}
		}
	} else if (c->nr == nr[SC_EXECVE] || c->nr == nr[SC_EXECVEAT]) {
		exec_(th);
	} else if (c->nr == nr[SC_CHDIR] || c->nr == nr[SC_FCHDIR]) {
		const char *p = c->nr == nr[SC_FCHDIR] ? slot_path(t, (int)a[0]) :
				strs && strs[0] ? resolve(t, AT_FDCWD, strs[0], buf, sizeof(buf)) : NULL;
		char *cwd = p && p[0] == '/' ? strdup(p) : NULL;

		free(t->cwd);
		t->cwd = cwd;	/* not known where it went: relative paths as given */
	}
}

bool trace_fds__wants_path(const struct trace_fds *f, int nr)
{
	return nr >= 0 && (nr == f->nr[SC_OPEN] || nr == f->nr[SC_OPENAT] || nr == f->nr[SC_CREAT] ||
			   nr == f->nr[SC_OPENAT2] || nr == f->nr[SC_CHDIR]);
}

bool trace_fds__wants(const struct trace_fds *f, int nr)
{
	if (nr < 0 || nr >= TALLY_SYSCALL_MAX)
		return false;
	if (f->new_fd[nr])
		return true;
	for (int i = 0; i < SC_NR; i++)
		if (f->nr[i] == nr)
			return true;
	return false;
}

void trace_fds__enter_hidden(struct trace_fds *f, pid_t tid, int nr, const uint64_t args[6])
{
	struct fd_thread *th;

	trace_fds__enter(f, tid, nr, args);
	if (!(th = thread_find(f, tid)))
		return;
	th->hidden = (struct tally_sc_call){ .tid = tid, .nr = nr, .has_enter = true };
	memcpy(th->hidden.args, args, sizeof(th->hidden.args));
	th->hidden_open = true;
}

void trace_fds__exit_hidden(struct trace_fds *f, pid_t tid, int nr, int64_t ret,
			    const char *const *strs)
{
	struct fd_thread *th = thread_get(f, tid);
	struct tally_sc_call c = { .tid = tid, .nr = nr };

	if (!th)
		return;
	/* its arguments, if its enter was the thread's last */
	if (th->hidden_open && th->hidden.nr == nr)
		c = th->hidden;
	th->hidden_open = false;
	c.ret = ret;
	c.has_exit = true;
	trace_fds__exit(f, &c, c.has_enter ? strs : NULL);
}

void trace_fds__fork(struct trace_fds *f, pid_t ptid, pid_t tid, bool share)
{
	struct fd_thread *p = thread_get(f, ptid), *c;
	struct fd_table *t;

	if (!p)
		return;
	t = share ? p->t : table_copy(p->t);
	if (!t)
		return;
	if (share)
		t->refs++;
	c = thread_get(f, tid);	/* a tid used again: its old table goes */
	if (!c) {
		table_put(t);
		return;
	}
	table_put(c->t);
	c->t = t;
}

void trace_fds__gone(struct trace_fds *f, pid_t tid)
{
	struct fd_thread **pp = &f->hash[(unsigned)tid % NBUCKETS], *th;

	while ((th = *pp) && th->tid != tid)
		pp = &th->next;
	if (!th)
		return;
	*pp = th->next;
	table_put(th->t);
	free(th->closing);
	free(th);
}

/* -------------------------------------------------------------------- */
/* the seed */

static pid_t tgid_of(pid_t tid)
{
	char p[64], line[128];
	pid_t tgid = 0;
	FILE *fp;

	snprintf(p, sizeof(p), "/proc/%d/status", (int)tid);
	if (!(fp = fopen(p, "re")))
		return 0;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(fp);
	return tgid;
}

static bool fd_cloexec(pid_t pid, const char *fd)
{
	char p[320], line[128];
	unsigned long flags = 0;
	FILE *fp;

	snprintf(p, sizeof(p), "/proc/%d/fdinfo/%s", (int)pid, fd);
	if (!(fp = fopen(p, "re")))
		return false;
	while (fgets(line, sizeof(line), fp))
		if (sscanf(line, "flags: %lo", &flags) == 1)
			break;
	fclose(fp);
	return flags & O_CLOEXEC;
}

int trace_fds__seed(struct trace_fds *f, pid_t tid)
{
	static char path[PATH_MAX];
	pid_t tgid = tgid_of(tid);
	struct fd_thread *th;
	char dirp[64];
	struct dirent *d;
	ssize_t n;
	DIR *dir;

	if (!tgid)
		return -ESRCH;
	/* a thread of a process seeded already shares its table */
	for (int b = 0; b < NBUCKETS; b++)
		for (th = f->hash[b]; th; th = th->next)
			if (th->t->seeded == tgid) {
				if (th->tid != tid)
					trace_fds__fork(f, th->tid, tid, true);
				return 0;
			}
	if (!(th = thread_get(f, tid)))
		return -ENOMEM;
	snprintf(dirp, sizeof(dirp), "/proc/%d/cwd", (int)tgid);
	n = readlink(dirp, path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = '\0';
		free(th->t->cwd);
		th->t->cwd = strdup(path);
	}
	snprintf(dirp, sizeof(dirp), "/proc/%d/fd", (int)tgid);
	if (!(dir = opendir(dirp)))
		return -errno;
	while ((d = readdir(dir))) {
		char link[320];

		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(link, sizeof(link), "%s/%s", dirp, d->d_name);
		n = readlink(link, path, sizeof(path) - 1);
		if (n <= 0)
			continue;	/* closed meanwhile */
		path[n] = '\0';
		slot_set(th->t, atoi(d->d_name), path, fd_cloexec(tgid, d->d_name));
	}
	closedir(dir);
	th->t->seeded = tgid;
	return 0;
}
