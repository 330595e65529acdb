/* SPDX-License-Identifier: MIT */
/*
 * The perf event language -> perf_event_attr. One parser:
 *   cycles, instructions:u, cpu-clock, L1-dcache-load-misses, r1a8,
 *   cpu/event=0x3c,umask=0,period=1000,name=foo/, msr/tsc/,
 *   syscalls:sys_enter_getpid, 'syscalls:sys_enter_*', mem:0x1000/8:w,
 *   {cycles,instructions}:u, INST_RETIRED.ANY (libpfm4),
 *   uprobe on a symbol: "uprobe:/path/bin:symbol" (and "uretprobe:...").
 * Modifiers :u :k :h :G :H :I :p :pp :ppp :P :S :D :W :e (and combinations;
 * a letter other than p may not repeat, p at most three times; an empty
 * list after ':' is allowed, as in perf 6.1: "task-clock:").
 *
 * Terms after a symbolic, cache, raw or TYPE:CONFIG event
 * ("task-clock/period=1000,name=foo/u", "L1-dcache-loads/period=1/:u"),
 * a tracepoint ("sys:ev/call-graph=fp,stack-size=4096/") or a PMU event
 * ("cpu/event=1,call-graph=lbr/") are perf 6.1's; they are carried in
 * the attr, so struct tally_event keeps its size:
 *   period=N       attr.sample_period = N, attr.freq = 0
 *   freq=N         attr.sample_freq = N, attr.freq = 1
 *                  (a non-zero period/freq from the parser is the user's:
 *                  tally_evlist__config keeps it)
 *   call-graph=fp      sample_type |= PERF_SAMPLE_CALLCHAIN
 *   call-graph=dwarf   sample_type |= CALLCHAIN | REGS_USER | STACK_USER,
 *                      sample_stack_user = stack-size or 8192;
 *                      sample_regs_user stays 0 (the record configuration
 *                      fills the arch's registers)
 *   call-graph=lbr     sample_type |= CALLCHAIN | BRANCH_STACK
 *   call-graph=no      flags |= TALLY_EV_NO_CALLGRAPH
 *   stack-size=N       sample_stack_user = N rounded up to 8 (8..65528)
 *   config=,config1=,config2=,config3=   the attr's config words
 *   name=NAME      the event's name (the first name= wins, as in perf)
 *   inherit, no-inherit  attr.inherit; metric-id= accepted, unused
 * Tracepoints take only call-graph and stack-size (and inherit/no-inherit).
 * docs/event-grammar.md lists every construct of perf 6.1's grammar
 * with tally's status.
 *
 * What one spec item becomes:
 *   - a tracepoint glob, a bare sysfs alias found on several PMUs
 *     ("stall_slot") and a PMU family ("uncore_imc/..." for
 *     uncore_imc_0, uncore_imc_1...) give one tally_event each;
 *   - names are perf 6.1's: the text as typed with its own modifiers
 *     ("cycles:u", "msr/tsc/u"), the name= term if given, "sys:event"
 *     for tracepoints and hardware cache names without modifiers,
 *     "mem:ADDR" for a breakpoint with a length; a group's modifiers
 *     are never in the members' names;
 *   - attrs: every event starts with exclude_guest = 1 (perf's
 *     event_attr_init); sample_period/freq are set only by a period=
 *     or freq= term (so a non-zero one is the user's); sampling or
 *     counting, read_format, sample_type and disabled are decided by
 *     tally_evlist__config and the evlist.
 * libpfm4 names without a "pmu::" prefix are tried only when the kernel
 * has a core PMU (sysfs "cpu", "cpu_core", "armv8_*"...). Tracepoints
 * need tracefs: when none is mounted the library mounts it at
 * /sys/kernel/tracing (as perf does) if it may; opts->tracefs_root
 * overrides where it looks (and then nothing is mounted).
 */
#ifndef TALLY_EVENTS_H
#define TALLY_EVENTS_H

#include <linux/perf_event.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_parse_opts {
	size_t sz;
	const char *sysfs_root;		/* default "/sys" (tests use fake trees) */
	const char *tracefs_root;	/* default: found by libtracefs, or mounted */
	bool no_pfm;			/* do not ask libpfm4 */
	/*
	 * Added in 0.2: perf stat's term set (perf 6.1 "shrinks" it the
	 * same way): only config, config1, config2, config3, name, period
	 * and metric-id; any other term (freq, call-graph, stack-size,
	 * inherit...) is an error "'freq' is not usable in 'tally stat'".
	 */
	bool stat_terms;
};

/* Where a spec went wrong. column is a 0-based byte offset into the spec. */
struct tally_parse_error {
	int err;		/* -EINVAL, -ENOENT (unknown event), -ERANGE ... */
	int column;
	char token[64];		/* the offending token */
	char msg[192];		/* what is wrong */
	char hint[64];		/* a close valid name ("instructions"), or "" */
};

/*
 * The tracing directory (tracefs), mounted at /sys/kernel/tracing first
 * if none is mounted and we have the right to (perf does the same).
 * NULL + errno when it cannot be had; why (may be NULL) then says what
 * to do, with the exact mount command.
 */
TALLY_API const char *tally_tracing_dir(char *why, size_t len);

/*
 * Format like perf:
 *   event syntax error: 'instrutions:u'
 *                        \___ unknown event 'instrutions' (did you mean 'instructions'?)
 */
TALLY_API int tally_parse_error__format(const struct tally_parse_error *err,
					const char *spec, char *buf, size_t len);
/*
 * Added in 0.3: the same, with perf's window on the spec for a terminal
 * of width columns (0: the whole spec, as tally_parse_error__format).
 * perf shows at most 13 characters before the bad token and cuts the
 * spec to fit the line (width capped at 1000), marking each cut end with
 * "..": 'event syntax error: '..nor-faults,bogus,major-faults,major-fault..''.
 * Returns the length the whole text needs, as snprintf.
 */
TALLY_API int tally_parse_error__format_width(const struct tally_parse_error *err,
					      const char *spec, int width, char *buf,
					      size_t len);

/* Flags beyond the attr that modifiers or terms ask for. */
enum {
	TALLY_EV_WEAK_GROUP	= 1u << 0,	/* :W */
	TALLY_EV_PINNED		= 1u << 1,	/* :D (also attr.pinned) */
	TALLY_EV_SAMPLE_READ	= 1u << 2,	/* :S */
	TALLY_EV_MAX_PRECISE	= 1u << 3,	/* :P, resolved at open */
	/*
	 * Added in 0.1: perf's "tool" events, counted by the tool, not the
	 * kernel: duration_time (wall time of the counting), user_time and
	 * system_time (the workload's rusage). The parser gives them attr
	 * PERF_TYPE_SOFTWARE/PERF_COUNT_SW_DUMMY, pmu "tool", unit "ns";
	 * the evlist never opens them (tally_evlist__set_tool_times fills
	 * their counts).
	 */
	TALLY_EV_TOOL_DURATION	= 1u << 4,	/* duration_time */
	TALLY_EV_TOOL_USER	= 1u << 5,	/* user_time */
	TALLY_EV_TOOL_SYSTEM	= 1u << 6,	/* system_time */
	TALLY_EV_TOOL		= TALLY_EV_TOOL_DURATION | TALLY_EV_TOOL_USER |
				  TALLY_EV_TOOL_SYSTEM,
	/* Added in 0.2: the call-graph=no term: no call graph for this event */
	TALLY_EV_NO_CALLGRAPH	= 1u << 7,
};

struct tally_event {
	struct perf_event_attr attr;
	char *name;		/* display name as perf shows it */
	char *pmu;		/* PMU name ("cpu", "software", "tracepoint", "msr"...) */
	char *cpus;		/* the PMU's cpumask or cpus file ("0"), NULL for any */
	int group;		/* group number, -1 when not in a group */
	bool leader;		/* first of its group (false outside groups) */
	unsigned int flags;	/* TALLY_EV_* */
	/* Added in 0.1: a sysfs alias's events/NAME.scale and .unit. */
	char *unit;		/* "MiB", "Joules"... or NULL */
	double scale;		/* multiply counts by this; 1.0 if none */
};

struct tally_events {
	struct tally_event *ev;
	size_t nr;
};

/*
 * Parse spec and append to *out (which must be zeroed or hold earlier
 * results). 0, or -errno with *err filled; on error *out is unchanged.
 */
TALLY_API int tally_parse_events(const char *spec, const struct tally_parse_opts *opts,
				 struct tally_events *out, struct tally_parse_error *err);
TALLY_API void tally_events__clear(struct tally_events *evs);

/*
 * Enumerate what this machine offers, for `tally list`: calls cb for each
 * event with its kind ("hardware", "software", "tool", "cache", "pmu",
 * "raw", "breakpoint", "uprobe", "tracepoint", "pfm"), name and description (may
 * be ""), in perf list's order. A name lists its aliases as perf list
 * does ("context-switches OR cs"); "raw", "breakpoint" and "uprobe" give syntax
 * lines ("rNNN", "mem:<addr>[/len][:access]"). Hardware and cache events
 * are given only when this machine can open them (as perf list does).
 * A non-zero return from cb stops the walk and is returned.
 */
typedef int (*tally_event_cb)(const char *kind, const char *name,
			      const char *desc, void *ctx);
TALLY_API int tally_events__foreach(const struct tally_parse_opts *opts,
				    tally_event_cb cb, void *ctx);

/* The closest known event name to `name` (edit distance), or NULL. */
TALLY_API const char *tally_events__suggest(const char *name, char *buf, size_t len,
					    const struct tally_parse_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
