/* SPDX-License-Identifier: MIT */
/*
 * tally sched: perf sched 6.1 over the library's session.
 *   cmd_sched.c      the subcommands, their options; record and script
 *   sched_read.c     the file read in time order, each sched tracepoint
 *                    sample decoded to its fields; threads by tid
 *   sched_latency.c  latency's table (perf's work atoms, merged by comm)
 *   sched_timehist.c timehist: a line per switch, -w, -M, -V, -s
 *   sched_map.c      map's letter grid of what runs on each CPU
 */
#ifndef TALLY_CLI_SCHED_H
#define TALLY_CLI_SCHED_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/tally.h>

enum sched_kind {
	SK_OTHER = 0,
	SK_SWITCH,		/* sched:sched_switch */
	SK_RUNTIME,		/* sched:sched_stat_runtime */
	SK_WAKEUP,		/* sched:sched_wakeup */
	SK_WAKING,		/* sched:sched_waking */
	SK_WAKEUP_NEW,		/* sched:sched_wakeup_new */
	SK_MIGRATE,		/* sched:sched_migrate_task */
};

/* One sample, its sched fields decoded. */
struct sched_ev {
	enum sched_kind kind;
	const struct tally_session_sample *smp;
	uint64_t time;
	int cpu;
	int32_t pid, tid;		/* the sample's */
	/* sched_switch */
	int32_t prev_pid, next_pid;
	int64_t prev_state;
	char next_comm[16];
	/* the others: the task they are about (pid field) */
	int32_t task;
	uint64_t runtime;		/* sched_stat_runtime */
	int32_t orig_cpu, dest_cpu;	/* sched_migrate_task */
};

/*
 * Per-thread state by tid: a zeroed block of size bytes made at the first
 * get; tids in the order they were first asked for (order[0..nr)).
 */
struct sched_tids {
	int32_t *keys;
	void **vals;
	size_t cap, nr;
	int32_t *order;
	size_t size;
};
void *sched_tids__get(struct sched_tids *t, int32_t tid);	/* NULL: no memory */
void *sched_tids__find(const struct sched_tids *t, int32_t tid);
void sched_tids__free(struct sched_tids *t);

/* What perf's thread says beside its name: its process, parent, end. */
struct sched_tinfo {
	int32_t pid;			/* -1 unknown */
	int32_t ppid;			/* the FORK's parent thread, -1 unknown */
	bool dead;			/* an EXIT came */
	bool comm_changed;		/* a COMM came (map shows the name again) */
	bool comm_lost;			/* perf dropped it (a parent remade): ":tid" till a COMM */
	bool seen;
	uint32_t gen;			/* FORKs of this tid: each a new thread, as perf's */
	/*
	 * The machine's name for it after its last COMM or FORK, cut where
	 * commstrs are: a FORK renames a tid it reuses before the reader
	 * sees it, and the thread it replaces keeps this one
	 */
	char name[32];
};

struct sched_reader;
/* 0 goes on; anything else stops the run. */
typedef int (*sched_ev_fn)(struct sched_reader *r, const struct sched_ev *ev, void *ctx);
/*
 * A FORK rebuilds a thread perf knew (a parent it knew under another pid,
 * a child's tid in use): perf moves the old one to its dead list, where
 * a summary still finds it. Called before the new one replaces old (the
 * tinfo of tid), with the name the old one has.
 */
typedef void (*sched_drop_fn)(struct sched_reader *r, int32_t tid, const struct sched_tinfo *old,
			      const char *comm, void *ctx);

struct sched_reader {
	const char *cmd;		/* "sched latency": messages */
	const char *path;
	struct tally_session *s;
	sched_ev_fn fn;
	void *ctx;
	enum sched_kind *kinds;		/* by attr */
	int nr_attrs;
	bool callchains;		/* some sched event has chains */
	uint64_t nr_samples;
	int bad_fields;			/* samples whose fields could not be read */
	enum sched_kind bad_kind;	/* the last of them */
	struct tally_tp_reader *fields[SK_MIGRATE + 1];	/* by kind: the fields perf reads */
	struct sched_tids tinfo;	/* struct sched_tinfo by tid */
	bool no_mem;			/* a thread could not be kept: out of memory */
	unsigned want;			/* the kinds whose samples come: SCHED_WANT bits (sched_open) */
	sched_drop_fn drop;		/* set after sched_open by who keeps dropped threads, or NULL */
	/* once the samples are read, before the session's messages: output kept back goes out */
	void (*ran)(struct sched_reader *r, void *ctx);
};

/* sched_open's want: a kind's bit; SCHED_WANT_ALL every sample, the other events' too. */
#define SCHED_WANT(k)	(1u << (k))
#define SCHED_WANT_ALL	(~0u)

/*
 * Open path for cmd; NULL after saying why, *ret the exit status. A file
 * without sched:sched_switch is an error, said as perf says it. want:
 * the kinds the subcommand reads (SCHED_WANT bits, SK_OTHER's for the
 * samples of events other than sched's); the session drops the others'
 * samples unread, unparsed. symfs, kallsyms: --symfs, --kallsyms, or NULL.
 */
int sched_open(struct sched_reader *r, const char *cmd, const char *path, bool unwind,
	       unsigned want, const char *symfs, const char *kallsyms, sched_ev_fn fn, void *ctx);
/* Deliver every sample in time order; the exit status (0, or 1 said). */
int sched_run(struct sched_reader *r);
void sched_close(struct sched_reader *r);

/* The thread's name as the records so far gave it (perf's ":TID" without one). */
const char *sched_comm(struct sched_reader *r, int32_t tid);
/*
 * The thread's info; made (pid as given, -1: unknown) when none is known,
 * its pid set when it was unknown, as perf's machine__findnew_thread.
 * NULL without memory.
 */
struct sched_tinfo *sched_thread(struct sched_reader *r, int32_t pid, int32_t tid);
/* The CPUs the file says were online (perf's nr_cpus_online), 0 when unknown. */
int sched_nr_cpus_online(struct sched_reader *r);

/* perf's timestamp__scnprintf_usec: "12.345678" */
void sched_usec(char *buf, size_t len, uint64_t t);
/* perf's print_sched_time: msecs.usecs, truncated, in width, then a space */
void sched_print_time(uint64_t nsecs, int width);

/* A CPU list ("0-3,7") into a bitmap of 4096; -1 on a bad list. */
int sched_cpu_list(const char *s, uint8_t *bits);
static inline bool sched_cpu_in(const uint8_t *bits, int cpu)
{
	return cpu >= 0 && cpu < 4096 && (bits[cpu / 8] & (1u << (cpu % 8)));
}

struct latency_opts {
	const char *sort;		/* -s */
	bool per_pid;			/* -p */
	int cpu;			/* -C, -1 */
};
int sched_latency(const char *path, const struct latency_opts *o);

struct timehist_opts {
	bool wakeups, migrations, cpu_visual, summary, with_summary, state, next, callchain;
	unsigned max_stack;
	const char *cpu_list, *pids, *tids;
	const char *time;		/* --time START,STOP */
	const char *symfs;		/* --symfs */
	const char *kallsyms;		/* --kallsyms */
};
int sched_timehist(const char *path, const struct timehist_opts *o);

struct map_opts {
	bool compact;
	const char *cpus;
	const char *color_pids;		/* these threads' letters in blue (a terminal) */
	const char *color_cpus;		/* these CPUs' '*' on red */
	int verbose;			/* -v: every task's name at each switch to it */
};
int sched_map(const char *path, const struct map_opts *o);

#endif
