/* SPDX-License-Identifier: MIT */
/*
 * Reading a perf.data file for the commands that show one (script,
 * report): the reader, each attr's layout and name, the tracepoint
 * formats, the records released in time order round by round (as perf's
 * ordered events: a FINISHED_ROUND releases what is older than the
 * previous round's newest), side-band records applied to the per-process
 * maps, and each sample handed to the command, decoded.
 */
#ifndef TALLY_CLI_SESSION_H
#define TALLY_CLI_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <tally/tally.h>

struct session_queued;
struct session_chunk;
struct session_pipeline;
struct session;

/* A sample in time order, decoded with its attr's layout. */
typedef void (*session_sample_fn)(struct session *s, const struct perf_event_header *h,
				  int attr, const struct tally_record *rec, void *arg);

/*
 * Our own context marker (among the kernel's, above PERF_CONTEXT_MAX):
 * PERF_CONTEXT_USER for a user part that DWARF unwinding made. perf 6.1
 * shows the functions inlined at such frames (unwind_entry's
 * append_inlines), not at frame-pointer ones.
 */
#define SESSION_CONTEXT_UNWOUND ((uint64_t)-3072)

struct session {
	const char *cmd;		/* "script": messages say "tally script: " */
	const char *path;
	struct tally_data_reader *rd;
	struct tally_machine *m;
	struct tally_symbols *syms;
	struct tally_record_layout *lays;
	uint32_t *time_off;		/* per attr: where a SAMPLE's time is, 0: none */
	int nr_attrs;
	const char **names;		/* per attr: EVENT_DESC, else the attr's own */
	int name_width;			/* the longest name */
	struct tally_trace_fmt *tf;	/* TRACING_DATA, or NULL */
	session_sample_fn on_sample;
	void *arg;
	/* the queue of the round in progress */
	struct session_queued *q, *tmp;	/* tmp: the radix sort's other half */
	size_t nq, cap;
	struct session_chunk *chunk;	/* where copies of records go */
	struct session_chunk *spare;	/* an emptied one, kept for reuse */
	uint64_t next_flush, max_time;
	bool unsorted;			/* a record came older than the one before */
	/* with a second CPU: reading and ordering on a thread of their own */
	struct session_pipeline *pl;
	/* what went by */
	uint64_t samples, lost, bad;
	uint64_t lost_samples;		/* LOST_SAMPLES records: perf's "Total Lost Samples" */
	uint64_t maps_gen;		/* changes with every side-band record applied */
	/* --call-graph dwarf samples: their user stacks unwound (libdwfl) */
	struct tally_unwind *uw;
	bool no_unwind;			/* the command shows no call chains: skip it */
	uint64_t *uw_ips;
	uint64_t unwound, unwind_stops[8];
	/* files whose DWARF was sent ahead to be opened (inline frames need it) */
	const char *warmed[64];
	int nwarmed;
	uint64_t warm_gen;		/* maps_gen when the files were last looked at */
	bool no_warm;			/* --no-inline, or no chains shown */
	/* ":TID" names given, and the first COMM each then received */
	struct session_rename { int32_t tid; const char *dflt, *final; } *renames;
	size_t nrenames;
	/* files in the order their first MMAP came (perf makes its DSOs so) */
	struct session_rank { const char *name; uint32_t rank; } *ranks;
	size_t nranks, rank_cap;
};

/*
 * A thread no COMM named gets perf's name for it, ":TID", kept in the
 * machine as perf keeps it. NULL only without memory.
 */
const char *unnamed_comm(struct session *s, int32_t pid, int32_t tid);

/*
 * A context marker perf does not know (a user stack's garbage the kernel's
 * frame-pointer walk took for one) makes perf discard the whole chain
 * (add_callchain_ip: "the callchain is corrupted"), in either order: the
 * sample keeps only its own ip. Asked where a command walks a chain
 * anyway (report: once per distinct chain), not for every sample here.
 */
bool session_chain_corrupt(const struct tally_sample *smp);

/* name is one of list's comma-separated items (--comm, --dsos...); id as a number's text. */
bool session_in_list(const char *list, const char *name);
bool session_in_id_list(const char *list, int32_t id);

/*
 * What a thread's ":TID" name finally became: perf overrides that first
 * name in place with the thread's first COMM (comm__override), so what
 * was counted under it before shows the later name. For commands that
 * aggregate (script prints each line as it goes, before the COMM).
 */
const char *session_final_comm(const struct session *s, const char *comm);

/* Open path: 0, or 1 after saying why. Release with session_close either way. */
int session_open(struct session *s, const char *cmd, const char *path);
/* Deliver every sample. 0, or 1 after saying what could not be read (the samples before it were delivered). */
int session_run(struct session *s);
void session_close(struct session *s);

/* The order of the first MMAP of path (1, 2, ...), 0 when none came. */
uint32_t session_file_rank(const struct session *s, const char *path);

#endif
