/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.4: off-CPU time (tally record --off-cpu, perf 6.1's option),
 * through a BPF program on sched:sched_switch: for each task that waits
 * (state S or D), the time until it runs again, summed by thread, kernel
 * and user stack where it went to sleep, and state. Read once the
 * recording is over (tally_offcpu__for_each). Needs BPF: root, or
 * CAP_BPF with CAP_PERFMON; where it cannot be had, open says why.
 *
 *	o = tally_offcpu__open(&opts, why, sizeof(why));
 *	tally_offcpu__add_task(o, workload_pid);   with opts.filtered
 *	tally_offcpu__enable(o, true);  ... the recording ...  enable(o, false);
 *	tally_offcpu__for_each(o, cb, arg);
 *	tally_offcpu__close(o);
 */
#ifndef TALLY_OFFCPU_H
#define TALLY_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_offcpu;

struct tally_offcpu_opts {
	size_t sz;
	bool filtered;		/* only the tasks added (else every task but the idle ones) */
	bool by_tid;		/* the tasks added are threads (-t), not processes */
	bool follow_forks;	/* an added process's new children are recorded too */
	size_t :0;
};
#define tally_offcpu_opts__last_field follow_forks

#define TALLY_OFFCPU_S	1	/* waited interruptibly (sleep, poll, a pipe) */
#define TALLY_OFFCPU_D	2	/* waited uninterruptibly (disk, some locks) */

/* One sum: a thread's time off the CPU at one place, in one state. */
struct tally_offcpu_entry {
	pid_t pid, tid;
	uint32_t state;			/* TALLY_OFFCPU_S or _D */
	uint64_t ns;			/* the time it waited there */
	const uint64_t *kstack;		/* innermost first; nr_kstack 0: none */
	int nr_kstack;
	const uint64_t *ustack;
	int nr_ustack;
};

/* Load and attach the program (not enabled yet). NULL with errno, and why. */
TALLY_API struct tally_offcpu *tally_offcpu__open(const struct tally_offcpu_opts *opts,
						  char *why, size_t len);
/* With opts.filtered: record this process (thread with by_tid). 0 or -errno. */
TALLY_API int tally_offcpu__add_task(struct tally_offcpu *o, pid_t pid);
TALLY_API void tally_offcpu__enable(struct tally_offcpu *o, bool on);
/*
 * Each sum, in no order; cb's non-zero return stops the walk and is
 * returned. Negative errno when the maps cannot be read.
 */
typedef int (*tally_offcpu_fn)(void *arg, const struct tally_offcpu_entry *e);
TALLY_API int tally_offcpu__for_each(struct tally_offcpu *o, tally_offcpu_fn cb, void *arg);
/* NULL-safe. */
TALLY_API void tally_offcpu__close(struct tally_offcpu *o);
/*
 * Added in 0.5: how many waits the BPF program could not keep (its maps
 * refused them: a bucket's lock timed out, a map was full; a new child
 * the task filter could not take counts as one); they are in no sum. 0
 * without o.
 */
TALLY_API uint64_t tally_offcpu__lost(const struct tally_offcpu *o);

#ifdef __cplusplus
}
#endif

#endif
