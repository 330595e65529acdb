/* SPDX-License-Identifier: MIT */
/*
 * An event list: evsels in order, with groups (leader first, members open
 * with the leader's fd), opened, enabled, read and closed as a whole.
 */
#ifndef TALLY_EVLIST_H
#define TALLY_EVLIST_H

#include <tally/evsel.h>
#include <tally/events.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_evlist;

TALLY_API struct tally_evlist *tally_evlist__new(void);
/* Closes and frees every evsel; releases maps. NULL-safe. */
TALLY_API void tally_evlist__free(struct tally_evlist *evlist);

/* Takes ownership of evsel (appended, as its own group). */
TALLY_API void tally_evlist__add(struct tally_evlist *evlist, struct tally_evsel *evsel);
/*
 * Make the nr evsels starting at `leader` (consecutive, already added) one
 * group. 0 or -EINVAL (not consecutive, already grouped). Tool events in
 * the range (tally_evsel__tool; flags set before this call) keep their
 * place but stay alone: the group is the others, led by the first of them.
 */
TALLY_API int tally_evlist__set_group(struct tally_evlist *evlist,
				      struct tally_evsel *leader, int nr);
/*
 * Parse a perf event string (see events.h) and append its events, with
 * their groups, PMU cpumasks and names. On a parse error nothing is
 * appended and *err (may be NULL) says where.
 */
TALLY_API int tally_evlist__add_parsed(struct tally_evlist *evlist, const char *spec,
				       const struct tally_parse_opts *opts,
				       struct tally_parse_error *err);

TALLY_API int tally_evlist__nr(const struct tally_evlist *evlist);
TALLY_API int tally_evlist__nr_groups(const struct tally_evlist *evlist);
TALLY_API struct tally_evsel *tally_evlist__first(const struct tally_evlist *evlist);
TALLY_API struct tally_evsel *tally_evlist__last(const struct tally_evlist *evlist);
TALLY_API struct tally_evsel *tally_evlist__next(const struct tally_evlist *evlist,
						 const struct tally_evsel *prev);
/* The evsel whose fd table holds kernel id `id` (for sample decoding). */
TALLY_API struct tally_evsel *tally_evlist__find_id(const struct tally_evlist *evlist,
						    uint64_t id);

#define tally_evlist__for_each_evsel(evlist, pos)			\
	for ((pos) = tally_evlist__first(evlist); (pos) != NULL;	\
	     (pos) = tally_evlist__next(evlist, pos))

/* Set on every evsel's attr before open (e.g. disabled + enable_on_exec). */
TALLY_API void tally_evlist__set_attr_bits(struct tally_evlist *evlist,
					   bool disabled, bool enable_on_exec,
					   bool inherit);

struct tally_evlist_open_opts {
	size_t sz;
	/*
	 * Keep going when an event is not supported (ENOENT, EOPNOTSUPP,
	 * ENODEV, EINVAL for that event): it is marked and left closed. A
	 * group whose leader is unsupported is unsupported as a whole.
	 */
	bool skip_unsupported;
	/* Open flags (PERF_FLAG_PID_CGROUP with a cgroup fd as "pid"). */
	unsigned long flags;
	/* With PERF_FLAG_PID_CGROUP: the cgroup directory fd. */
	int cgroup_fd;
};

/*
 * Open every evsel on cpus x threads (an evsel's own cpus, intersected
 * with `cpus` when that is not "any", win; an empty intersection is
 * -ENODEV, unsupported). Raises RLIMIT_NOFILE when it needs more fds.
 * Returns 0 when at least one event opened; otherwise the first error.
 * With skip_unsupported false, any error closes all.
 * As perf does: a thread of a multi-thread map that exits before the
 * open is skipped (its fds stay -1, its counts 0); under
 * perf_event_paranoid >= 2 without privilege an event refused for
 * counting kernel mode is retried user-only (exclude_kernel and
 * exclude_hv set, ":u" appended to its name; not for tracepoints, which
 * would then count zero); a weak group (TALLY_EV_WEAK_GROUP on the
 * leader) that fails is opened as separate events. A group that should
 * start enabled is opened disabled and enabled whole at the end (the
 * kernel does not schedule a member added to a running group).
 * Tool events (tally_evsel__tool) are not opened on the kernel; they
 * count as opened (see tally_evlist__set_tool_times).
 */
TALLY_API int tally_evlist__open(struct tally_evlist *evlist, struct tally_cpu_map *cpus,
				 struct tally_thread_map *threads,
				 const struct tally_evlist_open_opts *opts);
TALLY_API void tally_evlist__close(struct tally_evlist *evlist);

/* Group-aware: one ioctl per leader with PERF_IOC_FLAG_GROUP. */
TALLY_API int tally_evlist__enable(struct tally_evlist *evlist);
TALLY_API int tally_evlist__disable(struct tally_evlist *evlist);
TALLY_API int tally_evlist__reset(struct tally_evlist *evlist);

/*
 * Read everything into each evsel's stored table (prev := cur first):
 * one read() per group per cpu/thread (PERF_FORMAT_GROUP), one per
 * lone event. Values land by id.
 */
TALLY_API int tally_evlist__read(struct tally_evlist *evlist);

/*
 * Added in 0.1: store the tool events' values (see tally_evsel__tool) as
 * perf stat does: duration_time gets duration_ns, user_time user_ns,
 * system_time system_ns, each as {val, ena = run = val} in the evsel's
 * one slot, so tally_evsel__aggregate works unchanged and a zero is
 * "not counted" (perf's system_time of a short command). Call it after
 * tally_evlist__read (which moves each table's values to prev), with
 * the totals so far: deltas then give the interval's share. Returns
 * how many evsels were set (0 when none is a tool event or the list is
 * not open), or -EINVAL.
 */
TALLY_API int tally_evlist__set_tool_times(struct tally_evlist *evlist, uint64_t duration_ns,
					   uint64_t user_ns, uint64_t system_ns);

TALLY_API struct tally_cpu_map *tally_evlist__cpus(const struct tally_evlist *evlist);
TALLY_API struct tally_thread_map *tally_evlist__threads(const struct tally_evlist *evlist);

#ifdef __cplusplus
}
#endif
#endif
