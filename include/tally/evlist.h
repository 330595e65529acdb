/* SPDX-License-Identifier: MIT */
/*
 * An event list: evsels in order, with groups (leader first, members open
 * with the leader's fd), opened, enabled, read and closed as a whole.
 */
#ifndef TALLY_EVLIST_H
#define TALLY_EVLIST_H

#include <tally/evsel.h>
#include <tally/events.h>
#include <sys/uio.h>

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

/*
 * Added in 0.2: the same, and where that id was opened: *cpu (-1 for
 * any CPU) and *tid (-1 for any thread); either may be NULL.
 */
TALLY_API struct tally_evsel *tally_evlist__id_info(const struct tally_evlist *evlist,
						    uint64_t id, int *cpu, pid_t *tid);

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

/*
 * Added in 0.2: decide counting or sampling for every evsel, once, before
 * open (perf's evsel__config). The parser only says what the user wrote
 * (a period= or freq= term sets sample_period/freq); this step owns the
 * rest:
 *   counting: sample_period/freq/sample_type cleared (an overflow per
 *     tracepoint hit would cost the workload dearly), inherit unless
 *     no_inherit, leaders disabled + enable_on_exec when asked.
 *   sampling: -c (period) or -F (freq) for every event without its own
 *     term; without either, tracepoints and breakpoints sample every hit
 *     and the others at 4000 Hz (capped by perf_event_max_sample_rate);
 *     sample_type IP|TID|TIME (+ PERIOD with freq or for a tracepoint
 *     sampled at every hit (since 0.4: one sample per hit, as perf's),
 *     + CPU on CPUs, + RAW|CPU for tracepoints, + IDENTIFIER when there are several events, + the
 *     call-chain bits), read_format ID (+ LOST where the kernel has it),
 *     sample_id_all, and mmap/mmap2/comm/task side-band records on the
 *     first event, or on a dummy event appended for system_wide (as perf).
 * Kernel features are asked from tally_kernel_has (tally/probe.h).
 * Returns 0, -EINVAL (bad opts), -ERANGE (freq above the kernel's
 * maximum: errno ERANGE, the maximum in opts->freq_max_out if set).
 */
enum tally_callchain {
	TALLY_CALLCHAIN_NONE,
	TALLY_CALLCHAIN_FP,	/* frame pointers: PERF_SAMPLE_CALLCHAIN */
	TALLY_CALLCHAIN_DWARF,	/* user regs + a copy of the user stack */
	TALLY_CALLCHAIN_LBR,	/* the CPU's last branch records */
};

struct tally_config_opts {
	size_t sz;
	bool sample;			/* false: counting */
	uint64_t period;		/* -c: every event samples each N */
	uint64_t freq;			/* -F: every event N samples a second */
	uint64_t sample_type;		/* bits added to the defaults */
	bool system_wide;		/* on CPUs: side-band on a dummy event */
	bool no_inherit;		/* children are not followed */
	bool enable_on_exec;		/* leaders start at the workload's exec */
	bool no_sideband;		/* no mmap/comm/task records */
	bool switch_events;		/* context switch records */
	enum tally_callchain callchain;
	uint32_t stack_size;		/* dwarf: user stack bytes (default 8192) */
	uint64_t user_regs;		/* dwarf: default this arch's unwinding regs;
					 * with PERF_SAMPLE_REGS_USER: sample_regs_user */
	uint64_t branch_sample_type;	/* -b/-j: PERF_SAMPLE_BRANCH_* */
	bool use_clockid;
	int clockid;
	uint32_t wakeup_events;		/* wake the reader every N records */
	uint32_t wakeup_watermark;	/* or every N bytes (wins if set) */
	uint64_t *freq_max_out;		/* with -ERANGE: the kernel's maximum */
	bool overwrite;			/* write_backward: flight-recorder rings */
	/* Added in 0.5 */
	uint64_t intr_regs;		/* with PERF_SAMPLE_REGS_INTR: sample_regs_intr */
	bool inherit_stat;		/* record -s: per-thread counts (READ records), times */
	bool namespaces;		/* NAMESPACES records of new tasks (the side-band event) */
	/*
	 * record -D: the events open disabled and wait for
	 * tally_evlist__enable, while a dummy event carries the side-band
	 * from the start (enable_on_exec: from the exec), so that the maps
	 * made meanwhile are known
	 */
	bool delayed;
	bool all_user, all_kernel;	/* record --all-user/--all-kernel: every event's exclude bits */
	/* record --user-callchains, --kernel-callchains: the chains' other part left out */
	bool exclude_callchain_kernel, exclude_callchain_user;
};

TALLY_API int tally_evlist__config(struct tally_evlist *evlist,
				   const struct tally_config_opts *opts);

/*
 * Added in 0.2: rings (see tally/mmap.h for reading one). One ring per
 * CPU when the events are opened on CPUs, one per thread when they
 * follow a thread on any CPU; the other events of that CPU (thread) are
 * redirected into it with PERF_EVENT_IOC_SET_OUTPUT. Note the kernel
 * refuses to map an inherited event on "any CPU": sample a workload with
 * inherit on every CPU x its thread, as perf record does.
 */
struct tally_evlist_mmap_opts {
	size_t sz;
	size_t pages;	/* data pages per ring, a power of two; 0: 128 (512 KiB) */
	bool overwrite;	/* overwrite rings (config'd with .overwrite): the newest
			 * data stays; read with tally_evlist__pause around a drain */
};

TALLY_API int tally_evlist__mmap(struct tally_evlist *evlist,
				 const struct tally_evlist_mmap_opts *opts);
/* Also done by close and free. */
TALLY_API void tally_evlist__munmap(struct tally_evlist *evlist);
TALLY_API int tally_evlist__nr_mmaps(const struct tally_evlist *evlist);
/* Ring idx, with its CPU (-1: a thread's ring) and thread (-1: a CPU's). */
struct tally_mmap;
TALLY_API struct tally_mmap *tally_evlist__mmap_at(const struct tally_evlist *evlist, int idx,
						   int *cpu, pid_t *tid);
/* One epoll fd over every ring: readable when one has data to read. */
TALLY_API int tally_evlist__pollfd(const struct tally_evlist *evlist);
/* epoll_wait on it: rings ready, 0 on timeout, -EINTR on a signal. */
TALLY_API int tally_evlist__poll(struct tally_evlist *evlist, int timeout_ms);

/*
 * Added in 0.2: event fds that hung up (their task exited: POLLHUP)
 * leave the epoll set, so a poll loop does not spin on them; their
 * data stays in the rings for the next drain. Returns how many event
 * fds are still polled (0: every target is gone), or -errno.
 */
TALLY_API int tally_evlist__prune_hup(struct tally_evlist *evlist);

/* Called per record; a non-zero return stops the drain. */
typedef int (*tally_record_fn)(void *ctx, const struct perf_event_header *ev, int ring);
/* Called per ring with the bytes of the records just walked, unchanged. */
typedef int (*tally_ring_out_fn)(void *ctx, const struct iovec *iov, int n, int ring);

/*
 * One pass over every ring: each new record to fn (may be NULL), then
 * the ring's bytes of those records to out (may be NULL: one or two
 * pieces, straight from the mapped pages, for writing to a file), then
 * the space goes back to the kernel. A non-zero return from fn or out
 * stops the pass and leaves that ring's records in place (nothing is
 * lost; -ECANCELED for a positive return). Returns the records seen.
 */
TALLY_API int tally_evlist__drain(struct tally_evlist *evlist, tally_record_fn fn,
				  tally_ring_out_fn out, void *ctx);
/* Pause (true) or resume every ring's output: around an overwrite drain. */
TALLY_API int tally_evlist__pause(struct tally_evlist *evlist, bool pause);

/* Samples the kernel could not write (PERF_RECORD_LOST totals so far). */
TALLY_API uint64_t tally_evlist__lost(const struct tally_evlist *evlist);

TALLY_API struct tally_cpu_map *tally_evlist__cpus(const struct tally_evlist *evlist);
TALLY_API struct tally_thread_map *tally_evlist__threads(const struct tally_evlist *evlist);

#ifdef __cplusplus
}
#endif
#endif
