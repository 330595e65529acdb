/* SPDX-License-Identifier: MIT */
/*
 * The session's insides (see tally/session.h), for the library's own
 * files (resolve.c) and the unit tests.
 */
#ifndef TALLY_SESSION_INTERNAL_H
#define TALLY_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/tally.h>
#include "ordered.h"
#include "record_fast.h"

struct session_pipeline;
struct resolver;

/* session_cgroup.c's: the CGROUP records' paths, the threads' cgroup namespaces */
struct session_ns { int32_t tid; uint64_t dev, ino; };
struct session_cgroups {
	struct session_cgroup { uint64_t id; char *path; } *v;
	size_t nr, cap;
	struct session_ns *ns;		/* open addressing by tid, -1 free */
	size_t ns_nr, ns_cap;
};

/* tally__session_thread_comm's cache: threads taking turns on a CPU or two */
#define SESSION_COMM_SLOTS 16

struct tally_session {
	const char *path;
	struct tally_data_reader *rd;	/* NULL over live rings */
	struct tally_evlist *live;	/* the rings' evlist, or NULL */
	struct tally_evsel **evsels;	/* live: per attr */
	struct tally_machine *m;
	struct tally_symbols *syms;
	struct tally_record_layout *lays;
	const struct perf_event_attr **attrs;
	uint32_t *time_off;		/* per attr: where a SAMPLE's time is, 0: none */
	/* per attr, read per sample: the period when samples carry none
	 * (0: they do), whether their user stacks are to be unwound, and
	 * whether opts.want left the event's samples out (read by the reader) */
	struct session_attr_fast {
		uint64_t period;
		uint32_t cpu_off;	/* where a SAMPLE's CPU is, 0: none (a dropped one's read there) */
		bool unwind, drop;
	} *fast;
	/*
	 * per attr whose layout record_fast.h decodes, else NULL: its
	 * samples decoded into this (zeroed once, only the layout's fields
	 * written), the main thread's
	 */
	struct tally_sample_fast **fsmp;
	int nr_attrs;
	const char **names;		/* per attr: EVENT_DESC, else the attr's own */
	struct tally_trace_fmt *tf;	/* TRACING_DATA, or NULL */
	struct tally_session_opts o;	/* the caller's, sized to ours */
	void *sample_ctx;		/* o.sample's (tally_session__set_sample); o.ctx the record's */
	int stop;			/* a callback's non-zero return */
	bool ran;			/* tally_session__run was called: a second is refused */
	bool unordered;			/* -D over a file without sample_id_all: perf takes it in file order */
	bool id_first;			/* a SAMPLE's id is its first u64 (IDENTIFIER) */
	/* with a second CPU: reading and ordering on a thread of their own */
	struct session_pipeline *pl;
	/*
	 * The reader thread's, written a record each: on cache lines of their
	 * own (the main thread's s->samples++ and its read of stop beside
	 * them moved the line between the CPUs twice a record).
	 */
	_Alignas(64) struct tally_ordered oe;	/* the records waiting for their time */
	/*
	 * A file's sample ids to their attr, direct-mapped by the id's low
	 * bits (the kernel numbers them in a row): idx + 1, 0 empty.
	 */
	struct session_id_slot { uint64_t id; int idx1; } idc[64];
	uint64_t records[128];		/* by type */
	uint64_t dropped;		/* samples opts.want left out */
	int32_t dropped_cpu_max;	/* their largest CPU, -1: none */
	/* what went by, counted by the main thread */
	_Alignas(64) uint64_t samples, lost, bad;
	uint64_t lost_samples;		/* LOST_SAMPLES records: perf's "Total Lost Samples" */
	uint64_t maps_gen;		/* changes with every side-band record applied */
	/* --call-graph dwarf samples: their user stacks unwound (libdwfl) */
	struct tally_unwind *uw;
	uint64_t *uw_ips;
	uint64_t unwound, unwind_stops[TALLY_UNWIND__NR];
	/* files whose DWARF was sent ahead to be opened (inline frames need it) */
	const char *warmed[64];
	int nwarmed;
	uint64_t warm_gen;		/* maps_gen when the files were last looked at */
	/* ":TID" names given, and the first COMM each then received */
	struct session_rename { int32_t tid; const char *dflt, *final; } *renames;
	size_t nrenames;
	/* files in the order their first MMAP came (perf makes its DSOs so) */
	struct session_rank { const char *name; uint32_t rank; } *ranks;
	size_t nranks, rank_cap;
	/*
	 * The resolved addresses (resolved_internal.h), one resolver per
	 * (srcline, no_inline): [srcline | no_inline << 1]; own: the one
	 * tally_session__frames reads
	 */
	struct resolver *res[4];
	struct resolver *own;
	struct resolver *dres;		/* data addresses' (tally__session_data_resolver), over dsyms */
	struct tally_symbols *dsyms;
	/*
	 * the thread names of the last samples' threads, a slot by tid (the
	 * last one alone missed two samples of three with threads taking
	 * turns), each while maps_gen is its gen
	 */
	struct session_comm_slot {
		const char *comm;
		int32_t tid;
		uint64_t gen;
	} comms[SESSION_COMM_SLOTS];
	/* the sample being delivered, and its trace text once asked (for sample cur_seq) */
	const struct tally_session_sample *cur;
	const char *cur_trace;
	uint64_t cur_seq;
	struct tally_strpool *traces;	/* the trace texts, one copy each */
	struct session_cgroups cgroups;
};

/* A thread no COMM named gets perf's name for it, ":TID". NULL only without memory. */
const char *tally__session_unnamed_comm(struct tally_session *s, int32_t pid, int32_t tid);

/* tally__session_thread_comm's lookup, kept for the next sample */
const char *tally__session_thread_comm_slow(struct tally_session *s, int32_t pid, int32_t tid);

/*
 * The name of a sample's thread, as perf shows it: resolved once per
 * thread while no side-band record came (a COMM, or a new thread,
 * changes maps_gen): a run of samples is mostly of one thread. Inline:
 * most samples take the last answer. NULL only without memory.
 */
static inline const char *tally__session_thread_comm(struct tally_session *s, int32_t pid,
						     int32_t tid)
{
	const struct session_comm_slot *c = &s->comms[(uint32_t)tid % SESSION_COMM_SLOTS];

	if (tid == c->tid && c->gen == s->maps_gen && c->comm)
		return c->comm;
	return tally__session_thread_comm_slow(s, pid, tid);
}

/* A --call-graph dwarf sample's user frames unwound into its chain (session_unwind.c). */
void tally__session_unwind_user(struct tally_session *s, struct tally_sample *smp);

#endif
