/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.3: the syscall tracer's state machine, pure logic. It pairs
 * each thread's sys_enter with its sys_exit (fed in time order) and keeps
 * perf trace -s's statistics per thread and syscall. A pair is made only
 * from an enter and an exit of the same thread and syscall with nothing
 * of that thread between: an exit whose enter was not seen (the call
 * began before tracing, or its enter was lost) is a call with no start,
 * an enter whose exit never came (lost, or the syscall does not return)
 * is reported alone. Lost records mark the calls they may have cut.
 * rt_sigreturn's exit (the kernel says syscall -1 there) ends it; a
 * successful execve's exit that comes as another thread's (a thread but
 * the leader exec'd, and took the leader's tid) ends the execve left
 * open, and *call is that thread's (its tid). Each
 * call is counted once, as strace -c counts it: a child's return from
 * clone/clone3/fork/vfork is a line, not a call (0.4; perf 6.1 counts
 * it, and has no rt_sigreturn row).
 */
#ifndef TALLY_SYSCALL_TRACE_H
#define TALLY_SYSCALL_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_sc_tracer;

/* One call, whole or in part. */
struct tally_sc_call {
	pid_t tid;
	int nr;
	uint64_t args[6];		/* with has_enter */
	uint64_t enter_time;		/* with has_enter */
	uint64_t exit_time;		/* with has_exit */
	int64_t ret;			/* with has_exit */
	bool has_enter, has_exit;
	bool after_lost;		/* records were lost while it ran */
};

#define TALLY_SC_MAX_ERRNO	134	/* errnos counted one by one (EHWPOISON is 133) */

/* perf trace -s's numbers for one syscall of one thread. */
struct tally_sc_stats {
	uint64_t calls, errors;
	uint64_t total_ns, min_ns, max_ns;
	double mean, m2;		/* Welford's running mean and sum of squares (ns) */
	uint32_t errnos[TALLY_SC_MAX_ERRNO];	/* errors by errno, 0 for others */
};

TALLY_API struct tally_sc_tracer *tally_sc_tracer__new(void);
TALLY_API void tally_sc_tracer__free(struct tally_sc_tracer *t);

/*
 * A sys_enter of tid. noreturn: exit/exit_group, nothing to pair. When
 * tid still had a call open (its exit was lost), that call is put in
 * *unpaired and 1 returned; 0 otherwise; -ENOMEM.
 */
TALLY_API int tally_sc_tracer__enter(struct tally_sc_tracer *t, pid_t tid, uint64_t time, int nr,
				     const uint64_t args[6], bool noreturn,
				     struct tally_sc_call *unpaired);
/*
 * A sys_exit of tid. *call gets the call it ends (has_enter false when
 * its enter was not seen), and its statistics are counted (duration 0
 * without an enter, as perf). An open call of another syscall goes to
 * *unpaired. Returns 1 | (2 when *unpaired was set), or -ENOMEM.
 */
TALLY_API int tally_sc_tracer__exit(struct tally_sc_tracer *t, pid_t tid, uint64_t time, int nr,
				    int64_t ret, struct tally_sc_call *call,
				    struct tally_sc_call *unpaired);
/* n records were lost: every open call is marked after_lost. */
TALLY_API void tally_sc_tracer__lost(struct tally_sc_tracer *t, uint64_t n);
TALLY_API uint64_t tally_sc_tracer__nr_lost(const struct tally_sc_tracer *t);
/* tid's open call (entered, not exited), or NULL. */
TALLY_API const struct tally_sc_call *tally_sc_tracer__open_call(const struct tally_sc_tracer *t,
								 pid_t tid);
/* Each open call once (the end of a trace); they stay open. */
TALLY_API void tally_sc_tracer__for_each_open(const struct tally_sc_tracer *t,
					      void (*fn)(void *priv, const struct tally_sc_call *c),
					      void *priv);

/* Count one more event of tid that is not a syscall's (perf's "events"). */
TALLY_API void tally_sc_tracer__count_event(struct tally_sc_tracer *t, pid_t tid);
/* The threads seen, in first-seen order: up to max tids; returns how many there are. */
TALLY_API int tally_sc_tracer__threads(const struct tally_sc_tracer *t, pid_t *tids, int max);
/* Records (enters, exits, counted events) of tid; of every thread with tid -1. */
TALLY_API uint64_t tally_sc_tracer__events(const struct tally_sc_tracer *t, pid_t tid);
/* tid's numbers for syscall nr, or NULL when it made none. */
TALLY_API const struct tally_sc_stats *tally_sc_tracer__stats(const struct tally_sc_tracer *t,
							      pid_t tid, int nr);
/* perf's stddev column: the standard error of the mean, as a % of the mean. */
TALLY_API double tally_sc_stats__stddev_pct(const struct tally_sc_stats *s);

#ifdef __cplusplus
}
#endif
#endif
