/* SPDX-License-Identifier: MIT */
/*
 * What a command counts or records: a workload it starts, -p pids, -t
 * tids, -a / -C CPUs, a -G cgroup. The options fill struct cli_target;
 * cli_targets__open() turns it into the CPU and thread maps, the cgroup fd
 * and the corked workload, and watches -p/-t targets for their exit.
 */
#ifndef TALLY_CLI_TARGET_H
#define TALLY_CLI_TARGET_H

#include <stdbool.h>
#include <sys/types.h>
#include "parse_options.h"

struct tally_cpu_map;
struct tally_thread_map;
struct tally_workload;

/* The options; strings point into argv. */
struct cli_target {
	const char *pids;	/* -p PID[,PID] */
	const char *tids;	/* -t TID[,TID] */
	const char *uid;	/* -u USER: the threads of its processes (name or number) */
	const char *cpu_list;	/* -C: system-wide on these CPUs */
	const char *cgroup;	/* -G, relative to the cgroup mount */
	bool cgroup_per_event;	/* events carry their own (stat -G a,b): no global fd */
	bool system_wide;	/* -a */
	bool no_inherit;	/* -i: not the workload's children */
};

/* -a or -C: per CPU, any task. */
static inline bool cli_target_system_wide(const struct cli_target *t)
{
	return t->system_wide || t->cpu_list;
}

/*
 * Check the combination: 0, or -1 after cli_error() names its first
 * problem. has_cmd: a workload was given; verb: "count", "record"
 * ("nothing to count: ...").
 */
int cli_target_check(struct cli_parse *p, const struct cli_target *t, bool has_cmd,
		     const char *verb);

/* -G's checks: one cgroup, not a list, not empty. 0 or -1 (cli_error). */
int cli_target_set_cgroup(struct cli_parse *p, struct cli_target *t, const char *arg);
/* The same as a CALLBACK (value: struct cli_target *). */
int cli_opt_cgroup(struct cli_parse *p, const struct cli_option *opt, const char *arg);
/* A cgroup's directory fd (name relative to the mount, or a path in it); -1 after a message. */
int cli_cgroup_open(const char *cmd, const char *cgroup);

#define CLI_TARGET_MAX_WATCH	64

/* One run's target resources, released by cli_targets__release(). */
struct cli_targets {
	const char *cmd;		/* "stat": messages say "tally stat: " */
	struct tally_cpu_map *cpus;
	struct tally_thread_map *threads;
	struct tally_workload *wl;	/* forked and corked; NULL: no command */
	bool wl_is_target;		/* the events follow wl (not -p/-t/-a/-C) */
	char *const *argv;		/* the workload's */
	bool system_wide;		/* -a or -C */
	int cgroup_fd;			/* -G: for PERF_FLAG_PID_CGROUP; -1 */
	int wl_pidfd;			/* the workload's pidfd (cli_wait), -1 */
	int npids;			/* -p/-t targets watched for their exit */
	pid_t pids[CLI_TARGET_MAX_WATCH];
	int pidfds[CLI_TARGET_MAX_WATCH];	/* -1: a tid, or no pidfd_open */
};

#define CLI_TARGETS_INIT(name) { .cmd = (name), .cgroup_fd = -1, .wl_pidfd = -1 }

/* cli_targets__open() flags */
#define CLI_TARGET_ALL_THREADS	(1u << 0)	/* -a as every thread on any CPU (--per-thread) */

/*
 * Build the maps, open the -G cgroup and fork the workload argv (if not
 * NULL) corked: it execs at cli_targets__start(). 0, or -1 after a
 * message on stderr. ts must be CLI_TARGETS_INIT; release it either way.
 */
int cli_targets__open(struct cli_targets *ts, const struct cli_target *t, char *const *argv,
		      unsigned flags);
/*
 * Let the workload exec. 0, or its exit status (127: not found, 126:
 * cannot run) after saying why.
 */
int cli_targets__start(struct cli_targets *ts);
/* -p/-t: remember the targets to notice their exit (pidfds, Linux 5.3). */
void cli_targets__watch(struct cli_targets *ts, const struct cli_target *t);
/* Are the watched targets all gone? false when none are watched. */
bool cli_targets__gone(const struct cli_targets *ts);
void cli_targets__release(struct cli_targets *ts);

/* pidfd_open(2), Linux 5.3; -1 and errno (ENOSYS) without it. */
int cli_pidfd_open(pid_t pid);

#endif
