/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.5: kernel lock contention through BPF (tally lock contention
 * -b, perf 6.1's option): a BPF program on lock:contention_begin and _end
 * sums each wait by the waiter's kernel stack (or by thread), in the
 * kernel; read once the run is over (tally_lockcon__for_each). Needs BPF
 * (root, or CAP_BPF with CAP_PERFMON) and the two tracepoints; where
 * either is missing, open says which.
 *
 *	c = tally_lockcon__open(&opts, why, sizeof(why));
 *	tally_lockcon__add_task(c, pid);    with opts.filtered
 *	tally_lockcon__enable(c, true);  ... the workload ...  enable(c, false);
 *	tally_lockcon__for_each(c, cb, arg);
 *	tally_lockcon__close(c);
 */
#ifndef TALLY_LOCKCON_H
#define TALLY_LOCKCON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_lockcon;

struct tally_lockcon_opts {
	size_t sz;
	bool filtered;		/* only the tasks added (else every task) */
	bool by_tid;		/* the tasks added are threads, not processes */
	bool cpu_filtered;	/* only waits begun on the CPUs added */
	bool per_thread;	/* sums by waiter, no stacks (perf's -t) */
	int max_stack;		/* frames kept per stack; 0: 8 (perf's default) */
	int map_entries;	/* the maps' size (perf's --map-nr-entries); 0: 16384 */
	size_t :0;
};
#define tally_lockcon_opts__last_field map_entries

/* One sum: the waits that began at one kernel stack (or by one thread). */
struct tally_lockcon_entry {
	pid_t tid;			/* per_thread: the waiter, else 0 */
	const char *comm;		/* per_thread: its name at its first wait */
	unsigned flags;			/* contention_begin's: the lock's type (LCB_F_*) */
	uint32_t count;
	uint64_t total, max, min;	/* ns */
	const uint64_t *stack;		/* innermost first; nr_stack 0: none */
	int nr_stack;
};

/* Load and attach the program (not enabled yet). NULL with errno, and why. */
TALLY_API struct tally_lockcon *tally_lockcon__open(const struct tally_lockcon_opts *opts,
						    char *why, size_t len);
/* With opts.filtered: watch this process (thread with by_tid). 0 or -errno. */
TALLY_API int tally_lockcon__add_task(struct tally_lockcon *c, pid_t pid);
/* With opts.cpu_filtered: watch this CPU. 0 or -errno. */
TALLY_API int tally_lockcon__add_cpu(struct tally_lockcon *c, int cpu);
TALLY_API void tally_lockcon__enable(struct tally_lockcon *c, bool on);
/* Waits not counted because a map was full (perf's "lost"). */
TALLY_API uint64_t tally_lockcon__lost(const struct tally_lockcon *c);
/*
 * Each sum, in the map's order; cb's non-zero return stops the walk and
 * is returned. The entry's pointers live for the call. 0 or -errno.
 */
typedef int (*tally_lockcon_fn)(void *arg, const struct tally_lockcon_entry *e);
TALLY_API int tally_lockcon__for_each(struct tally_lockcon *c, tally_lockcon_fn cb, void *arg);
/* NULL-safe. */
TALLY_API void tally_lockcon__close(struct tally_lockcon *c);

#ifdef __cplusplus
}
#endif

#endif
