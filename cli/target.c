// SPDX-License-Identifier: MIT
/*
 * Targets shared by the commands: the -p/-t/-a/-C/-G/command checks, the
 * CPU and thread maps, the cgroup fd, the corked workload and the pidfds
 * that tell when -p targets exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <tally/tally.h>
#include "target.h"

int cli_target_check(struct cli_parse *p, const struct cli_target *t, bool has_cmd,
		     const char *verb)
{
	if (!has_cmd && !t->pids && !t->tids && !t->system_wide && !t->cpu_list && !t->uid)
		return cli_error(p, "nothing to %s: give a command, -p, -t, -u, -a or -C", verb);
	if (t->pids && t->tids)
		return cli_error(p, "%s", "-p and -t do not mix");
	if (t->cgroup && !t->system_wide && !t->cpu_list)
		return cli_error(p, "%s", "-G counts a cgroup system-wide: add -a (or -C)");
	return 0;
}

int cli_target_set_cgroup(struct cli_parse *p, struct cli_target *t, const char *arg)
{
	/*
	 * perf's -G gives a cgroup to each event defined before it; tally
	 * counts every event in one cgroup, so it is given once.
	 */
	if (t->cgroup)
		return cli_error(p, "%s", "-G given twice: one cgroup counts every event");
	if (strchr(arg, ','))
		return cli_error(p, "-G '%s': a cgroup per event is not supported; one cgroup counts every event",
				 arg);
	if (!*arg)
		return cli_error(p, "%s", "-G needs a cgroup");
	t->cgroup = arg;
	return 0;
}

int cli_opt_cgroup(struct cli_parse *p, const struct cli_option *opt, const char *arg)
{
	return cli_target_set_cgroup(p, opt->value, arg);
}

int cli_pidfd_open(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/*
 * Where -G names are relative to: the cgroup2 mount (on a hybrid system
 * /sys/fs/cgroup/unified), or a v1 hierarchy with the perf_event
 * controller, from /proc/self/mounts.
 */
static int cgroup_mount(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[4096], dev[256], dir[1024], type[64], opts[1024];
	int found = -1;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %1023s %63s %1023s", dev, dir, type, opts) != 4)
			continue;
		if (!strcmp(type, "cgroup2") ||
		    (!strcmp(type, "cgroup") && strstr(opts, "perf_event"))) {
			snprintf(buf, len, "%s", dir);
			found = 0;
			if (!strcmp(type, "cgroup2"))
				break;
		}
	}
	fclose(f);
	return found;
}

int cli_cgroup_open(const char *cmd, const char *cgroup)
{
	char path[4096], mnt[1024];
	int fd;

	if (cgroup_mount(mnt, sizeof(mnt))) {
		fprintf(stderr, "tally %s: no cgroup v2 (or v1 perf_event) hierarchy is mounted\n",
			cmd);
		return -1;
	}
	if (!strncmp(cgroup, mnt, strlen(mnt)))
		snprintf(path, sizeof(path), "%s", cgroup);
	else
		snprintf(path, sizeof(path), "%s/%s", mnt, cgroup + (cgroup[0] == '/'));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "tally %s: cgroup '%s': %s\n", cmd, path, strerror(errno));
	return fd;
}

/* -G: the cgroup directory fd for PERF_FLAG_PID_CGROUP. 0 or -1. */
static int open_cgroup(struct cli_targets *ts, const char *cgroup)
{
	ts->cgroup_fd = cli_cgroup_open(ts->cmd, cgroup);
	return ts->cgroup_fd < 0 ? -1 : 0;
}

/* -u's user: a name, else a number (perf's parse_uid). 0, or -1 after perf's words. */
static int parse_uid(const char *cmd, const char *s, uid_t *uid)
{
	struct passwd pw, *res = NULL;
	char buf[4096], *end;
	long v;

	if (!getpwnam_r(s, &pw, buf, sizeof(buf), &res) && res) {
		*uid = res->pw_uid;
		return 0;
	}
	v = strtol(s, &end, 10);
	if (*s && !*end && v >= 0 && (uid_t)v != (uid_t)-1 &&
	    !getpwuid_r((uid_t)v, &pw, buf, sizeof(buf), &res) && res) {
		*uid = (uid_t)v;
		return 0;
	}
	fprintf(stderr, "tally %s: Invalid User: %s\n", cmd, s);
	return -1;
}

/*
 * -u and the other targets, as perf's target__validate: -p/-t win over
 * -u, -u over -a and -C, each said as a warning.
 */
static const char *uid_target(const struct cli_target *t)
{
	if (!t->uid)
		return NULL;
	if (t->pids || t->tids) {
		fprintf(stderr, "Warning: PID/TID switch overriding UID\n");
		return NULL;
	}
	if (t->cpu_list)
		fprintf(stderr, "Warning: UID switch overriding CPU\n");
	else if (t->system_wide)
		fprintf(stderr, "Warning: UID switch overriding SYSTEM\n");
	return t->uid;
}

int cli_targets__open(struct cli_targets *ts, const struct cli_target *t, char *const *argv,
		      unsigned flags)
{
	const char *uid = uid_target(t);
	bool all_threads = !uid && (flags & CLI_TARGET_ALL_THREADS) && cli_target_system_wide(t);

	ts->system_wide = !uid && cli_target_system_wide(t);
	ts->argv = argv;
	if (uid) {
		uid_t u;

		if (parse_uid(ts->cmd, uid, &u))
			return -1;
		ts->cpus = tally_cpu_map__new_any();
		ts->threads = tally_thread_map__new_uid(u);
		if (!ts->threads) {
			fprintf(stderr, "tally %s: user %s: %s\n", ts->cmd, uid,
				errno == ESRCH ? "no process of it runs" : strerror(errno));
			return -1;
		}
	} else if (all_threads) {
		/* every thread: listed below, once the workload is forked */
	} else if (ts->system_wide) {
		ts->cpus = tally_cpu_map__new(t->cpu_list);
		ts->threads = tally_thread_map__new_any();
		if (!ts->cpus) {
			fprintf(stderr, "tally %s: bad CPU list '%s'\n", ts->cmd, t->cpu_list);
			return -1;
		}
	} else if (t->pids || t->tids) {
		const char *list = t->pids ? t->pids : t->tids;

		ts->cpus = tally_cpu_map__new_any();
		ts->threads = tally_thread_map__new_list(list, t->pids != NULL);
		if (!ts->threads) {
			if (errno == ESRCH)
				fprintf(stderr, "tally %s: no such process: %s\n", ts->cmd, list);
			else
				fprintf(stderr, "tally %s: bad %s list '%s'\n", ts->cmd,
					t->pids ? "pid" : "tid", list);
			return -1;
		}
	}
	if (t->cgroup && !t->cgroup_per_event && open_cgroup(ts, t->cgroup))
		return -1;
	if (argv) {
		ts->wl = tally_workload__new(argv);
		if (!ts->wl) {
			fprintf(stderr, "tally %s: cannot start '%s': %s\n", ts->cmd, argv[0],
				strerror(errno));
			return -1;
		}
		/* with -p/-t/-u (as with -a) the command only sets how long */
		ts->wl_is_target = !ts->system_wide && !t->pids && !t->tids && !uid;
		if (ts->wl_is_target) {
			ts->cpus = tally_cpu_map__new_any();
			ts->threads = tally_thread_map__new_pid(tally_workload__pid(ts->wl));
		}
	}
	if (all_threads) {
		/*
		 * -a --per-thread, as perf: every thread in the system (the
		 * workload's too: it is forked, corked, above) on any CPU
		 * (cpu -1). Threads that exit before the open are skipped
		 * by the library (ESRCH).
		 */
		ts->cpus = tally_cpu_map__new_any();
		ts->threads = tally_thread_map__new_all();
	}
	if (!ts->cpus || !ts->threads) {
		fprintf(stderr, "tally %s: %s\n", ts->cmd, strerror(errno));
		return -1;
	}
	return 0;
}

int cli_targets__start(struct cli_targets *ts)
{
	int err;

	if (!ts->wl)
		return 0;
	err = tally_workload__start(ts->wl);
	if (!err)
		return 0;
	if (err == -ENOENT)
		fprintf(stderr, "tally: command '%s' not found\n", ts->argv[0]);
	else
		fprintf(stderr, "tally: cannot run '%s': %s\n", ts->argv[0], strerror(-err));
	return tally_workload__exit_code(ts->wl);
}

void cli_targets__watch(struct cli_targets *ts, const struct cli_target *t)
{
	const char *p = t->pids ? t->pids : t->tids;

	while (p && *p && ts->npids < CLI_TARGET_MAX_WATCH) {
		char *end;

		ts->pids[ts->npids] = (pid_t)strtol(p, &end, 10);
		/* A pidfd refers to a process; a tid is watched with kill(0). */
		ts->pidfds[ts->npids] = t->pids ? cli_pidfd_open(ts->pids[ts->npids]) : -1;
		ts->npids++;
		p = *end == ',' ? end + 1 : NULL;
	}
}

/* pidfds when we have them, else kill(0). */
bool cli_targets__gone(const struct cli_targets *ts)
{
	for (int i = 0; i < ts->npids; i++) {
		if (ts->pidfds[i] >= 0) {
			struct pollfd p = { .fd = ts->pidfds[i], .events = POLLIN };

			if (poll(&p, 1, 0) == 1)
				continue;
			return false;
		}
		if (kill(ts->pids[i], 0) == 0 || errno == EPERM)
			return false;
	}
	return ts->npids > 0;
}

void cli_targets__release(struct cli_targets *ts)
{
	if (ts->wl_pidfd >= 0)
		close(ts->wl_pidfd);
	for (int i = 0; i < ts->npids; i++)
		if (ts->pidfds[i] >= 0)
			close(ts->pidfds[i]);
	if (ts->cgroup_fd >= 0)
		close(ts->cgroup_fd);
	tally_workload__free(ts->wl);
	tally_cpu_map__put(ts->cpus);
	tally_thread_map__put(ts->threads);
	ts->wl_pidfd = ts->cgroup_fd = -1;
	ts->npids = 0;
	ts->wl = NULL;
	ts->cpus = NULL;
	ts->threads = NULL;
}
