/* SPDX-License-Identifier: MIT */
/*
 * Self-monitoring: read the calling thread's own counters around a code
 * region, at the hardware's speed when it allows.
 *
 * Two layers:
 *  - tally_page__*: pure functions on an event's mmap'd first page
 *    (struct perf_event_mmap_page): the seqlock read loop, the user-space
 *    counter read (x86 rdpmc, arm64 mrs), sign extension / masking by
 *    pmc_width and the time_mult/time_shift/time_offset extrapolation.
 *    The counter and clock reads go through struct tally_page_ops so that
 *    tests can drive the arithmetic on a simulated page.
 *  - tally_selfmon: one group of events on the calling thread (pid 0,
 *    cpu -1), with start/stop around a region, scaled by enabled/running.
 *    Fast path: every event's page says cap_user_rdpmc and a non-zero
 *    index, so no syscall is made. Fallback: one read() of the whole group
 *    (software events, tracepoints, a VM without a PMU).
 *
 * See docs/selfmon.md.
 */
#ifndef TALLY_SELFMON_H
#define TALLY_SELFMON_H

#include <linux/perf_event.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* The mmap page                                                        */

/* How the raw counter register is widened to 64 bits (see pmc_width). */
enum tally_page_width_mode {
	/* x86: the register holds a signed pmc_width-bit value (the man page). */
	TALLY_PAGE_SIGN_EXTEND = 0,
	/*
	 * arm64: bits above pmc_width are unknown (a 32-bit counter on 64-bit
	 * hardware) and are masked off (Documentation/arch/arm64/perf.rst).
	 */
	TALLY_PAGE_MASK = 1,
};

/*
 * The user-space counter and clock reads. read_counter gets index - 1 (the
 * page's index is one-based; 0 means "not readable from user space").
 * read_time returns the raw clock the page's time_* fields convert (x86
 * TSC, arm64 CNTVCT_EL0). NULL members mean "not available".
 */
struct tally_page_ops {
	uint64_t (*read_counter)(void *ctx, uint32_t idx);
	uint64_t (*read_time)(void *ctx);
	void *ctx;
	enum tally_page_width_mode width_mode;
};

/*
 * This machine's ops: rdpmc/rdtsc on x86-64 and i386, mrs on arm64 (the
 * selected event counter through PMSELR_EL0/PMXEVCNTR_EL0, PMCCNTR_EL0 for
 * index 32, CNTVCT_EL0 for time); on other architectures both are NULL.
 */
TALLY_API const struct tally_page_ops *tally_page__native_ops(void);

/* One consistent snapshot of an event's page. */
struct tally_page_read {
	uint64_t count;		/* offset + counter: valid when user_read */
	uint64_t enabled;	/* time_enabled (extrapolated if time_valid) */
	uint64_t running;	/* time_running (extrapolated if time_valid and index) */
	uint32_t index;		/* the page's index (0: counter not on a PMU now) */
	uint32_t retries;	/* times the seqlock made the loop go round again */
	uint16_t pmc_width;
	bool user_read;		/* count includes the counter register */
	bool time_valid;	/* enabled/running were extrapolated to now */
};

/* Flags for tally_page__read(). */
enum {
	/*
	 * Extrapolate the times even when time_enabled == time_running
	 * (otherwise the clock is only read when the two differ, as libperf
	 * does: with no multiplexing the ratio is 1 and the clock read is
	 * wasted).
	 */
	TALLY_PAGE_ALWAYS_TIME = 1u << 0,
};

/*
 * The seqlock read loop of the man page: reads lock, then index, offset,
 * pmc_width, time_enabled, time_running and (cap_user_time) time_mult,
 * time_shift, time_offset (cap_user_time_short: time_cycles, time_mask)
 * and the counter, and goes round again while the lock is odd (an update
 * in progress) or changed. Never returns a torn snapshot.
 *
 * Returns 0 when out->count holds the counter (cap_user_rdpmc, index != 0,
 * ops->read_counter set); -EOPNOTSUPP when it does not (out->enabled and
 * out->running are still valid: the caller must read() the fd for the
 * count); -EBUSY if the lock never settled (after a million tries);
 * -EINVAL on NULL arguments.
 */
TALLY_API int tally_page__read(const struct perf_event_mmap_page *pc,
			       const struct tally_page_ops *ops, unsigned int flags,
			       struct tally_page_read *out);

/* Widen a raw pmc_width-bit register value (width 0 or >= 64: as is). */
TALLY_API uint64_t tally_page__sign_extend(uint64_t val, unsigned int width);
TALLY_API uint64_t tally_page__mask(uint64_t val, unsigned int width);

/*
 * The man page's conversion of a raw clock value to a time delta:
 *   quot = cyc >> shift; rem = cyc & ((1 << shift) - 1);
 *   delta = offset + quot * mult + ((rem * mult) >> shift)
 * with cap_user_time_short first folding cyc into the page's window:
 *   cyc = time_cycles + ((cyc - time_cycles) & time_mask).
 * Pass time_cycles = time_mask = 0 when cap_user_time_short is clear.
 */
TALLY_API uint64_t tally_page__cyc_to_delta(uint64_t cyc, uint32_t mult, uint16_t shift,
					    uint64_t offset, uint64_t time_cycles,
					    uint64_t time_mask);

/*
 * Raw clock value -> perf clock timestamp (the sample's PERF_SAMPLE_TIME
 * clock) with time_zero. -EOPNOTSUPP unless cap_user_time_zero.
 */
TALLY_API int tally_page__cyc_to_time(const struct perf_event_mmap_page *pc,
				      uint64_t cyc, uint64_t *time);

/* count * enabled / running in 128 bits, saturating; count when running is 0 or >= enabled. */
TALLY_API uint64_t tally_page__scale(uint64_t count, uint64_t enabled, uint64_t running);

/* ------------------------------------------------------------------ */
/* The self-monitoring group                                            */

struct tally_selfmon;

enum tally_selfmon_path {
	TALLY_SELFMON_PATH_READ = 0,	/* one read() of the whole group */
	TALLY_SELFMON_PATH_RDPMC = 1,	/* x86: mmap page + rdpmc, no syscall */
	TALLY_SELFMON_PATH_MRS = 2,	/* arm64: mmap page + mrs, no syscall */
};

struct tally_selfmon_opts {
	size_t sz;
	bool enable;		/* start counting at once (default: after __enable) */
	bool no_fast;		/* never read counters from user space */
	/*
	 * arm64: do not set config1 bits 1 (user access) and 0 (64-bit
	 * counter) on hardware events.
	 */
	bool no_user_access;
	/*
	 * arm64, big.LITTLE: events opened on one core PMU (armv8_pmuv3_1/
	 * .../, or cycles expanded per PMU) are read from user space only
	 * while the thread stays on that PMU's cores, so __new pins the
	 * calling thread to them (sched_setaffinity, the PMU's cpus file).
	 * no_pin leaves the thread free to migrate: reads then go through
	 * read(). Events on two core PMUs are never pinned (read()).
	 * Added in 0.5.
	 */
	bool no_pin;
};

/* An event's raw value and times (unscaled). */
struct tally_selfmon_value {
	uint64_t val;
	uint64_t enabled;
	uint64_t running;
};

/*
 * Open attrs[0..nr) as one group on the calling thread, attrs[0] the
 * leader. The attrs are copied; read_format is replaced by
 * GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING (no GROUP for nr == 1), `disabled` is set on
 * the leader and cleared on members; with opts->enable the group is
 * enabled once every member is in it. Each event's
 * first page is mapped for the fast path unless it can never be used
 * (software, tracepoint and breakpoint events; opts->no_fast).
 * On arm64, hardware events get config1 bits 1|0 (user access, 64-bit
 * counter); a failure to open a 64-bit counter (a chained event on 32-bit
 * counters) is reported as -EOPNOTSUPP with an explanation, never
 * silently read wrong. NULL + errno on failure.
 */
TALLY_API struct tally_selfmon *tally_selfmon__new(const struct perf_event_attr *attrs,
						   size_t nr,
						   const struct tally_selfmon_opts *opts);
/*
 * The same from an event list in perf's language ("task-clock,page-faults",
 * "syscalls:sys_enter_getpid", "{cycles,instructions}:u"): every event
 * goes into the one group, in order, as a counting event (sample_period
 * cleared; use __new with attrs for overflow signals). A parse error is logged (pr_warn,
 * with the column) and gives NULL + EINVAL (or the parser's errno).
 */
TALLY_API struct tally_selfmon *tally_selfmon__new_events(const char *spec,
							  const struct tally_selfmon_opts *opts);
TALLY_API void tally_selfmon__free(struct tally_selfmon *sm);
/* Event idx's name: as parsed for __new_events, "event<idx>" for __new. */
TALLY_API const char *tally_selfmon__name(const struct tally_selfmon *sm, size_t idx);

TALLY_API int tally_selfmon__nr(const struct tally_selfmon *sm);
/* The fd of event idx (owned by sm), or -EINVAL. */
TALLY_API int tally_selfmon__fd(const struct tally_selfmon *sm, size_t idx);
/* The mapped first page of event idx, NULL (errno ENODATA) if none. */
TALLY_API const struct perf_event_mmap_page *tally_selfmon__page(const struct tally_selfmon *sm,
								 size_t idx);
/*
 * The path the last read took (before any read: the path it will try
 * first). A group that can use the fast path still falls back to read()
 * for a read where some event is not on the PMU (index 0).
 */
TALLY_API enum tally_selfmon_path tally_selfmon__path(const struct tally_selfmon *sm);
TALLY_API const char *tally_selfmon_path__name(enum tally_selfmon_path path);

/* The group leader's ioctls (the whole group). 0 or -errno. */
TALLY_API int tally_selfmon__enable(struct tally_selfmon *sm);
TALLY_API int tally_selfmon__disable(struct tally_selfmon *sm);
TALLY_API int tally_selfmon__reset(struct tally_selfmon *sm);

/*
 * Read every event: vals[nr] raw values and times. No allocation; no
 * syscall on the fast path, one read() otherwise. 0 or -errno.
 */
TALLY_API int tally_selfmon__read_raw(struct tally_selfmon *sm,
				      struct tally_selfmon_value *vals);
/* Read every event scaled by enabled/running: vals[nr]. 0 or -errno. */
TALLY_API int tally_selfmon__read(struct tally_selfmon *sm, uint64_t *vals);

/*
 * Around a region: __start takes a snapshot, __stop another and writes
 * deltas[nr], each scaled by its own enabled/running deltas. The counters
 * keep running (no ioctl): the cost is two reads.
 */
TALLY_API int tally_selfmon__start(struct tally_selfmon *sm);
TALLY_API int tally_selfmon__stop(struct tally_selfmon *sm, uint64_t *deltas);

/*
 * TALLY_SELFMON_REGION(sm, deltas) { code; }  measures the block. Leaving
 * the block with break, return or goto skips the stop (and the deltas).
 * Regions nest (on different lines) when each has its own sm.
 */
#define TALLY__SM_CAT2(a, b) a##b
#define TALLY__SM_CAT(a, b) TALLY__SM_CAT2(a, b)
#define TALLY_SELFMON_REGION(sm, deltas)					\
	TALLY__SELFMON_REGION(sm, deltas, TALLY__SM_CAT(tally__once_, __LINE__))
#define TALLY__SELFMON_REGION(sm, deltas, once)				\
	for (int once = (tally_selfmon__start(sm), 0); !once;			\
	     once = 1, tally_selfmon__stop(sm, deltas))

/*
 * Overflow signals on event idx (a sampling event: sample_period != 0):
 * F_SETOWN_EX to the calling thread, F_SETSIG signo (0: SIGIO without
 * siginfo's si_fd), O_ASYNC. The kernel then sends signo with
 * si_code POLL_IN at each overflow (every sample_period events), and
 * POLL_HUP when a __refresh() budget runs out and disables the event.
 */
TALLY_API int tally_selfmon__set_signal(struct tally_selfmon *sm, size_t idx, int signo);
/* PERF_EVENT_IOC_REFRESH: enable event idx for n more overflows. */
TALLY_API int tally_selfmon__refresh(struct tally_selfmon *sm, size_t idx, int n);
/* PERF_EVENT_IOC_PERIOD: a new sample_period for event idx. */
TALLY_API int tally_selfmon__set_period(struct tally_selfmon *sm, size_t idx, uint64_t period);
/* PERF_EVENT_IOC_ID: the kernel's id of event idx. */
TALLY_API int tally_selfmon__id(struct tally_selfmon *sm, size_t idx, uint64_t *id);

#ifdef __cplusplus
}
#endif
#endif
