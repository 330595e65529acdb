/* SPDX-License-Identifier: MIT */
/*
 * An event selector: one event (an attr and a name) opened on CPUs x
 * threads, owning a table of fds [cpu index][thread index] and the last
 * two reads of each (for interval deltas).
 */
#ifndef TALLY_EVSEL_H
#define TALLY_EVSEL_H

#include <linux/perf_event.h>
#include <tally/core.h>
#include <tally/counts.h>
#include <tally/cpumap.h>
#include <tally/threadmap.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_evsel;

/* Copies attr (size set if zero) and name (NULL: a name made from attr). */
TALLY_API struct tally_evsel *tally_evsel__new(const struct perf_event_attr *attr,
					       const char *name);
/* Closes fds; NULL-safe. An evsel added to an evlist is freed by it. */
TALLY_API void tally_evsel__free(struct tally_evsel *evsel);

TALLY_API struct perf_event_attr *tally_evsel__attr(struct tally_evsel *evsel);
TALLY_API const char *tally_evsel__name(const struct tally_evsel *evsel);
TALLY_API int tally_evsel__set_name(struct tally_evsel *evsel, const char *name);
/* The PMU the event came from ("cpu", "msr", "tracepoint"...), or NULL. */
TALLY_API const char *tally_evsel__pmu(const struct tally_evsel *evsel);
TALLY_API int tally_evsel__set_pmu(struct tally_evsel *evsel, const char *pmu);

/* A sysfs alias's unit ("MiB", "Joules") and scale (1.0 if none). */
TALLY_API int tally_evsel__set_unit(struct tally_evsel *evsel, const char *unit,
				    double scale);
TALLY_API const char *tally_evsel__unit(const struct tally_evsel *evsel);	/* NULL if none */
TALLY_API double tally_evsel__scale(const struct tally_evsel *evsel);
/* TALLY_EV_* flags from the parser (weak group :W, sample read :S ...). */
TALLY_API unsigned int tally_evsel__flags(const struct tally_evsel *evsel);
TALLY_API void tally_evsel__set_flags(struct tally_evsel *evsel, unsigned int flags);

/*
 * Added in 0.1: perf's tool events (duration_time, user_time,
 * system_time), from the TALLY_EV_TOOL_* flags. A tool evsel is never
 * opened on the kernel: its "open" makes a one-slot table (the first CPU
 * x the first thread of the maps) that tally_evlist__set_tool_times
 * fills and tally_evlist__read leaves alone; it has no fd and no id.
 */
enum tally_tool_event {
	TALLY_TOOL_NONE,
	TALLY_TOOL_DURATION,	/* duration_time: wall time of the counting, ns */
	TALLY_TOOL_USER,	/* user_time: the workload's user CPU time, ns */
	TALLY_TOOL_SYSTEM,	/* system_time: its system CPU time, ns */
};
TALLY_API enum tally_tool_event tally_evsel__tool(const struct tally_evsel *evsel);

/* Own CPUs (a PMU's cpumask); NULL means the evlist's. Takes a reference. */
TALLY_API void tally_evsel__set_own_cpus(struct tally_evsel *evsel,
					 struct tally_cpu_map *cpus);
TALLY_API struct tally_cpu_map *tally_evsel__own_cpus(const struct tally_evsel *evsel);
/* The maps the evsel is (or was last) opened on. */
TALLY_API struct tally_cpu_map *tally_evsel__cpus(const struct tally_evsel *evsel);
TALLY_API struct tally_thread_map *tally_evsel__threads(const struct tally_evsel *evsel);

/* A tracepoint filter, applied with PERF_EVENT_IOC_SET_FILTER at open. */
TALLY_API int tally_evsel__set_filter(struct tally_evsel *evsel, const char *filter);
TALLY_API const char *tally_evsel__filter(const struct tally_evsel *evsel);

/*
 * Its own cgroup (perf stat -G a,b): counted only for tasks of the cgroup
 * whose directory fd is fd (kept open by the caller until close), on the
 * CPUs it opens on; name is what to show. tally_evlist__open() opens it
 * with PERF_FLAG_PID_CGROUP and fd, over the open opts' cgroup_fd. NULL
 * name: none. 0, -EINVAL, -EBUSY (open) or -ENOMEM.
 */
TALLY_API int tally_evsel__set_cgroup(struct tally_evsel *evsel, int fd, const char *name);
TALLY_API const char *tally_evsel__cgroup(const struct tally_evsel *evsel);	/* NULL if none */
TALLY_API int tally_evsel__cgroup_fd(const struct tally_evsel *evsel);		/* -1 if none */

/* Group structure (set by the evlist). A lone event is its own leader. */
TALLY_API struct tally_evsel *tally_evsel__leader(const struct tally_evsel *evsel);
TALLY_API bool tally_evsel__is_leader(const struct tally_evsel *evsel);
TALLY_API int tally_evsel__nr_members(const struct tally_evsel *evsel); /* leader: group size */

/*
 * Open on cpus x threads (references taken). For a group member the
 * leader must be open on the same maps. read_format gets
 * TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID (and GROUP for a leader with
 * members). On ENOENT/EOPNOTSUPP/ENODEV/EINVAL(for this event) the evsel is
 * marked unsupported and the error returned; its fds stay -1.
 */
TALLY_API int tally_evsel__open(struct tally_evsel *evsel, struct tally_cpu_map *cpus,
				struct tally_thread_map *threads);
TALLY_API void tally_evsel__close(struct tally_evsel *evsel);
TALLY_API bool tally_evsel__is_open(const struct tally_evsel *evsel);
/* false once an open failed with a "not supported here" error. */
TALLY_API bool tally_evsel__supported(const struct tally_evsel *evsel);
/* The -errno of the last failed open, 0 if none. */
TALLY_API int tally_evsel__open_error(const struct tally_evsel *evsel);
/*
 * Added in 0.4: an open failure of evsel explained (tally_strerror with
 * its attr and name): err, or with err 0 its last open's error. Returns
 * buf.
 */
TALLY_API const char *tally_evsel__strerror(const struct tally_evsel *evsel, int err, char *buf,
					    size_t len);
/* Added in 0.3: that failure was the kernel refusing the event's filter. */
TALLY_API bool tally_evsel__filter_rejected(const struct tally_evsel *evsel);
/*
 * Added in 0.3: perf's fallback for sampling (evsel__fallback): a cycles
 * event the kernel refused as absent (ENOENT, ENXIO, ENODEV: no hardware
 * PMU) becomes cpu-clock with the same bits, renamed as perf then names
 * it ("cpu-clock", "cpu-clock:u"...). Call it on a closed evsel after its
 * open failed; true when it changed, then open again.
 */
TALLY_API bool tally_evsel__fallback(struct tally_evsel *evsel);

TALLY_API int tally_evsel__fd(const struct tally_evsel *evsel, int cpu_idx, int thread_idx);
TALLY_API int tally_evsel__nr_cpus(const struct tally_evsel *evsel);
TALLY_API int tally_evsel__nr_threads(const struct tally_evsel *evsel);
TALLY_API int tally_evsel__id(const struct tally_evsel *evsel, int cpu_idx,
			      int thread_idx, uint64_t *id);

/* ioctl on every fd (not the group flag: one event). */
TALLY_API int tally_evsel__enable(struct tally_evsel *evsel);
TALLY_API int tally_evsel__disable(struct tally_evsel *evsel);
TALLY_API int tally_evsel__reset(struct tally_evsel *evsel);

/*
 * Read one fd now into *out (one read(); a group leader's read is not
 * split here, use tally_evlist__read for groups).
 */
TALLY_API int tally_evsel__read(struct tally_evsel *evsel, int cpu_idx, int thread_idx,
				struct tally_counts *out);
/* Stored values from the last tally_evlist__read / tally_evsel__read_all. */
TALLY_API const struct tally_counts *tally_evsel__counts(const struct tally_evsel *evsel,
							 int cpu_idx, int thread_idx);
TALLY_API const struct tally_counts *tally_evsel__prev_counts(const struct tally_evsel *evsel,
							      int cpu_idx, int thread_idx);
/* Read every fd of a non-group evsel into the stored table (prev := cur). */
TALLY_API int tally_evsel__read_all(struct tally_evsel *evsel);

/* Aggregation of the stored table. */
enum tally_aggr_mode {
	TALLY_AGGR_GLOBAL,	/* one value */
	TALLY_AGGR_CPU,		/* per CPU (-A / --no-aggr) */
	TALLY_AGGR_THREAD,	/* per thread (--per-thread) */
	TALLY_AGGR_CORE,	/* per physical core */
	TALLY_AGGR_DIE,
	TALLY_AGGR_SOCKET,
	TALLY_AGGR_NODE,
};

struct tally_aggr {
	int key;		/* cpu, tid, core id, die id, socket or node */
	int socket, die, core;	/* for CORE/DIE: where it is; else -1 */
	int nr;			/* how many cpus/threads were summed */
	struct tally_counts counts;
	struct tally_scaled scaled;
};

/*
 * Aggregate the stored counts (or, with delta, cur - prev) by mode.
 * *out is malloc'd (caller frees), sorted by (socket, die, core, key);
 * returns the number of entries or -errno. topo may be NULL for GLOBAL,
 * CPU and THREAD.
 */
TALLY_API int tally_evsel__aggregate(const struct tally_evsel *evsel,
				     enum tally_aggr_mode mode,
				     const struct tally_topology *topo, bool delta,
				     struct tally_aggr **out);

#ifdef __cplusplus
}
#endif
#endif
