/* SPDX-License-Identifier: MIT */
/*
 * tally lock: perf lock 6.1 over the library's session.
 *   cmd_lock.c   the subcommands and their options; record and script
 *   lock_stat.c  the file read in time order, perf's lock sequences per
 *                thread and lock, counted per lock, caller or thread
 *   lock_table.c the table of report and contention: columns, order, print
 *   lock_callers.c the rows' hash (perf's order) and perf's caller rules
 *   lock_bpf.c   contention -b: the waits summed in the kernel by BPF
 */
#ifndef TALLY_CLI_LOCK_H
#define TALLY_CLI_LOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tally_frame;

struct lock_opts {
	const char *input;
	const char *key;		/* -k; NULL: the command's default */
	const char *fields;		/* -F; NULL: the command's default */
	bool threads;			/* -t: per thread */
	bool combine;			/* report -c: locks of one name as one */
	int entries;			/* -E; 0: all */
	int verbose;			/* -v: contention's call stacks, the debug counts */
	int max_stack;			/* contention --max-stack */
	int stack_skip;			/* contention --stack-skip */
};

/* What one row counts (perf's lock_stat). */
struct lock_stat {
	struct lock_stat *next;		/* in its hash bucket, newest first (perf's hlist_add_head) */
	uint64_t key;			/* the lock's address, the caller's chain hash or the tid */
	char *name;
	char **stack;			/* -v: the first sample's frames, "" where no kernel symbol */
	uint64_t *stack_ip;
	int nr_stack;
	unsigned nr_acquire, nr_acquired, nr_contended, nr_release, nr_readlock, nr_trylock;
	unsigned flags;			/* contention_begin's: the lock's type */
	uint64_t avg, total, max, min;	/* waits in ns; min ULLONG_MAX: none ended */
	bool broken, combined;
	size_t ord;			/* in perf's walk of its hash table */
};

enum lock_broken { BROKEN_ACQUIRE, BROKEN_ACQUIRED, BROKEN_CONTENDED, BROKEN_RELEASE, BROKEN_MAX };

struct lock_key;
struct lock_table {
	const struct lock_opts *o;
	const char *cmd;		/* "lock report": messages */
	bool contention;		/* contention's columns and layout, else report's */
	const int *bad_hist;		/* broken sequences by enum lock_broken */
	const char *(*comm)(void *ctx, int32_t tid);	/* -t: a thread's name */
	void *ctx;
	const struct lock_key *cols[6];
	int ncols;
	int sort;
};
/* -F and -k (fields NULL: all of them); -1 after naming a bad one. */
int lock_table_keys(struct lock_table *t, const char *fields, const char *sort);
/* Combine (report -c), sort and print rows[0..n), in perf's walk order. */
void lock_table_print(struct lock_table *t, struct lock_stat **rows, size_t n);

/* The rows by key in perf's hash table: its walk order orders equal rows. */
#define LOCK_HASH_BITS	12
struct lock_stats {
	struct lock_stat *hash[1u << LOCK_HASH_BITS];
	size_t nr;
	bool no_mem;			/* a row could not be made */
};
struct lock_stat *lock_stats_find(struct lock_stats *h, uint64_t key);
/* NULL (no_mem set) without memory. */
struct lock_stat *lock_stats_findnew(struct lock_stats *h, uint64_t key, const char *name,
				     unsigned flags);
/* Every row in perf's walk (each its ord); NULL without memory. */
struct lock_stat **lock_stats_rows(struct lock_stats *h, size_t *n);
void lock_stats_free(struct lock_stats *h);

/* perf's caller rules; the kernel's lock text read from /proc/kallsyms at first need. */
struct lock_callers {
	const struct lock_opts *o;	/* --stack-skip */
	int text_state;			/* 0 not read, 1 read, -1 unknown */
	uint64_t sched_start, sched_end, lock_start, lock_end;
};
/* A kernel frame's "sym+0xoff" (perf's symbol and offset); false: no kernel symbol. */
bool lock_frame_name(const struct tally_frame *f, char *buf, size_t len);
/* perf's callchain_id: the frames past the skipped ones and the lock functions, hashed. */
uint64_t lock_callchain_id(struct lock_callers *c, const struct tally_frame *fr, int n);
/* perf's lock_contention_caller: the first named frame past the skipped, no lock function. */
bool lock_caller(struct lock_callers *c, const struct tally_frame *fr, int n, char *buf,
		 size_t len);

/* The exit status: 0, 1 (the file), 234 (perf's -EINVAL: an unknown key or field, no events). */
int lock_report(const struct lock_opts *o);
int lock_contention(const struct lock_opts *o);

/* contention -b's target: a workload, -a, -C, -p or --tid (strings point into argv). */
struct lock_bpf_target {
	bool system_wide;
	const char *cpus, *pids, *tids;
	int map_entries;
	char **argv;			/* the workload; NULL: none */
};
int lock_contention_bpf(const struct lock_opts *o, const struct lock_bpf_target *t);

#endif
