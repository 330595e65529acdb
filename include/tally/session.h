/* SPDX-License-Identifier: MIT */
/*
 * A session over a perf.data file (or pipe, or fd): its records in time
 * order, as perf's ordered events release them (a FINISHED_ROUND releases
 * what is older than the previous round's newest); the side-band records
 * (MMAP, COMM, FORK, EXIT...) applied to each process's address space
 * before the samples after them; DWARF stacks (REGS_USER + STACK_USER)
 * unwound; and each sample handed to a callback, decoded, with its thread.
 * Its addresses resolve to perf's names on request (tally_session__frames).
 * With two CPUs or more the file is read and ordered on a thread of its
 * own (TALLY_THREADS=1 asks for one thread); the callbacks always run on
 * the thread that called tally_session__run.
 */
#ifndef TALLY_SESSION_H
#define TALLY_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include <tally/core.h>
#include <tally/record.h>
#include <tally/symbols.h>
#include <tally/data_read.h>
#include <tally/trace_fmt.h>
#include <tally/unwind.h>
#include <tally/evlist.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_session;

/* The thread a sample ran in. */
struct tally_session_thread {
	int32_t pid, tid;
	/*
	 * Its name at the sample's time, as perf shows it: the last COMM,
	 * else perf's ":TID". NULL with opts.no_comm (tally_session__comm
	 * gives it then). A ":TID" name a later COMM replaces is what
	 * tally_session__final_comm says, once the run is over.
	 */
	const char *comm;
};

/* One sample, in time order. Valid during the callback only. */
struct tally_session_sample {
	const struct perf_event_header *header;
	int attr;				/* the file's attr (event) index */
	const struct perf_event_attr *event;	/* that attr */
	/*
	 * Decoded with its attr's layout. A DWARF sample's chain is the
	 * kernel part as recorded, TALLY_CONTEXT_UNWOUND, then the user
	 * frames unwound from its stack copy.
	 */
	const struct tally_sample *sample;
	enum tally_cpumode mode;		/* the sample's level (header's misc) */
	uint64_t period;			/* PERIOD, else the attr's period (1 with freq) */
	struct tally_session_thread thread;
};

/*
 * Our own context marker in a chain (above the kernel's PERF_CONTEXT_MAX):
 * the user frames after it were DWARF-unwound, not recorded. perf 6.1
 * shows inline frames only at such frames.
 */
#define TALLY_CONTEXT_UNWOUND ((uint64_t)-3072)

/* A sample: 0 goes on, anything else stops the run (tally_session__run returns it). */
typedef int (*tally_session_sample_fn)(struct tally_session *s,
				       const struct tally_session_sample *smp, void *ctx);
/*
 * Any other record (MMAP, COMM, FORK, EXIT, SWITCH, LOST...), decoded,
 * after the session applied it; 0 goes on.
 */
typedef int (*tally_session_record_fn)(struct tally_session *s,
				       const struct perf_event_header *h,
				       const struct tally_record *rec, void *ctx);

struct tally_session_opts {
	size_t sz;
	tally_session_sample_fn sample;
	tally_session_record_fn record;
	void *ctx;
	bool no_unwind;		/* DWARF stacks are not unwound (tally_session__set_unwind) */
	bool no_inline;		/* frames carry no inline functions */
	bool srcline;		/* frames carry perf's srcline ("file.c:12") */
	bool no_comm;		/* thread.comm left NULL: a lookup less per sample */
	/*
	 * kallsyms is not read ahead on a second core when the events sample
	 * the kernel, nor the symbol tables of the files the recording's
	 * build-id table names: for a reader that resolves no address (tally
	 * trace); they are read when first asked for. Added in 0.5.
	 */
	bool no_preload;
	/*
	 * Added in 0.5: the events whose samples the reader wants, asked once
	 * per event at open with its name (tally_session__event_name's), its
	 * attr and opts.ctx; NULL: every event's. The samples of an event it
	 * says false to are dropped as they are read, before they are copied
	 * and queued for their time: never delivered, not unwound. Every
	 * other record (MMAP, COMM, FORK, EXIT...) still comes, and stats
	 * still count the dropped samples (samples, records, dropped).
	 */
	bool (*want)(const char *name, const struct perf_event_attr *attr, void *ctx);
	/*
	 * perf's --symfs: the files' symbols are read under this root
	 * (tally_symbols_opts.symfs), kept till the session closes;
	 * NULL: none. Added in 0.5.
	 */
	const char *symfs;
	/*
	 * Added in 0.5: called before a record that may change what kernel
	 * addresses resolve to (an MMAP or MMAP2 not of user space, a
	 * KSYMBOL) is applied, with opts.ctx: a reader that kept kernel
	 * addresses to resolve later resolves them now. NULL: none.
	 */
	void (*kernel_maps)(struct tally_session *s, const struct perf_event_header *h, void *ctx);
	/*
	 * perf's --kallsyms: the kernel's and its modules' symbols read from
	 * this copy of /proc/kallsyms, whatever kernel the recording names
	 * (tally_symbols_opts.kallsyms); NULL: the running kernel's, or perf's
	 * build-id cache's for another kernel. Added in 0.5.
	 */
	const char *kallsyms;
	/*
	 * perf's --no-demangle: C++ and Rust symbols keep their linkage
	 * names (tally_symbols_opts.no_demangle). Added in 0.5.
	 */
	bool no_demangle;
	/*
	 * Added in 0.5: perf's -D. Every record, in file order as it is
	 * read (a COMPRESSED record's at that record's offset; a pipe's
	 * offsets counted after its 16-byte header), with raw_ctx: queued,
	 * the header the sample and record callbacks will get for it once
	 * its time comes, or NULL when it is not queued (perf's own
	 * records; one without a time, which perf applies at once, and so
	 * does the session then). Set, the session reads on one thread, a
	 * record's callbacks come right after its place in the file allows
	 * as perf's, and a file without sample_id_all is taken in file order,
	 * unordered, as perf does.
	 */
	void (*raw)(struct tally_session *s, const struct perf_event_header *h, uint64_t off,
		    const struct perf_event_header *queued, void *raw_ctx);
	void *raw_ctx;
	/*
	 * Added in 0.5: each FINISHED_ROUND record as it is read, with ctx
	 * (perf script --show-round-events). Set, the session reads on one
	 * thread and delivers every record as it is read, in file order, as
	 * perf does with that option (it turns its ordering off).
	 */
	void (*round)(struct tally_session *s, void *ctx);
	size_t :0;
};
#define tally_session_opts__last_field round

/*
 * Open path ("-": stdin, perf's pipe format streamed). NULL + errno;
 * EBADMSG: a damaged file, not a perf.data file or an empty one; ENODATA:
 * the file has no events. For those two tally_data_reader__open_error()
 * says where and why (since 0.4).
 */
TALLY_API struct tally_session *tally_session__open(const char *path,
						    const struct tally_session_opts *opts);
/* The same over an open fd (a file or a pipe); the fd stays the caller's. */
TALLY_API struct tally_session *tally_session__open_fd(int fd,
						       const struct tally_session_opts *opts);
/*
 * The same over live rings: an evlist configured to sample with TIME,
 * opened and mmapped (tally_evlist__mmap), the path `top` takes. Its
 * records are delivered by tally_session__poll as they become ordered;
 * tally_session__run then delivers what is left (after disabling the
 * events). tally_session__reader is NULL; the evlist stays the caller's
 * and must outlive the session.
 */
TALLY_API struct tally_session *tally_session__open_evlist(struct tally_evlist *l,
							   const struct tally_session_opts *opts);
/*
 * What runs already, as perf top's synthesized records give it: each
 * process's name, its threads and executable maps read from /proc into
 * the session's address spaces, and the kernel's maps (kallsyms and
 * modules; unnamed where kptr_restrict hides the addresses). The rings
 * of a live session only say what starts, execs and maps after they
 * opened: call it once they are (before the first poll), so that samples
 * of a process started before name its functions. pids[0..npids-1], or
 * every process with npids <= 0. Added in 0.3. 0; -ENOENT (none of pids
 * runs); -EINVAL; -errno (no /proc).
 */
TALLY_API int tally_session__synthesize(struct tally_session *s, const int *pids, int npids);
/*
 * Wait up to timeout_ms for data, take every ring's new records and
 * deliver those of the previous pass and older (each pass over the rings
 * ends a round, as perf record's FINISHED_ROUND). 0, a callback's
 * non-zero return, or -errno; -EALREADY after tally_session__run.
 */
TALLY_API int tally_session__poll(struct tally_session *s, int timeout_ms);
/*
 * The records of one or more whole passes over the session's rings, read
 * elsewhere (tally_evlist__drain's out: the rings' bytes as they lay, one
 * record after another), delivered as tally_session__poll would: a
 * reader thread that must not wait on the session keeps the rings drained
 * and hands their records over. Added in 0.4. 0, a callback's non-zero
 * return, or -errno (-EINVAL: a record's size runs past len; the records
 * before it are taken).
 */
TALLY_API int tally_session__feed(struct tally_session *s, const void *buf, size_t len);
/*
 * Deliver what a live session holds up to time (on the events' clock:
 * CLOCK_MONOTONIC with use_clockid) now, not after the next pass: for a
 * reader that knows no older record can still come, as perf trace
 * flushes by time (a clock read before the pass, less the moment between
 * a record's stamp and its write). Later records older than time are
 * still delivered, at the next flush, after the newer ones. Added in 0.5.
 * 0, a callback's non-zero return, or -errno: -EINVAL (no live session),
 * -EALREADY after tally_session__run.
 */
TALLY_API int tally_session__flush(struct tally_session *s, uint64_t time);
/*
 * Deliver every record. 0; a callback's non-zero return; or -errno when
 * reading stopped (tally_data_reader__error says where: what came before
 * was delivered). A session runs once (a callback that stopped it
 * included): a second call delivers nothing and returns -EALREADY (since
 * 0.4; before, a file's samples came again); to read the file again, open
 * a new session.
 */
TALLY_API int tally_session__run(struct tally_session *s);
TALLY_API void tally_session__close(struct tally_session *s);

/*
 * Added in 0.4: the sample callback and the ctx it gets from now on (fn
 * NULL: none), in place of opts.sample and opts.ctx; the record callback
 * keeps opts.ctx. For what needs the session to be made, as a histogram
 * (tally_hist__new takes the session; tally_hist__run does this for it).
 * Before tally_session__run, or from a callback: the next sample gets
 * them. 0, -EINVAL.
 */
TALLY_API int tally_session__set_sample(struct tally_session *s, tally_session_sample_fn fn,
					void *ctx);

/* Unwind DWARF stacks or not (before run): a reader that shows no chains skips the cost. */
TALLY_API void tally_session__set_unwind(struct tally_session *s, bool on);

TALLY_API struct tally_data_reader *tally_session__reader(const struct tally_session *s);
/* Added in 0.5: the --symfs root the session was opened with, or NULL. */
TALLY_API const char *tally_session__symfs(const struct tally_session *s);
/* Added in 0.5: the kallsyms file the session was opened with (opts.kallsyms), or NULL. */
TALLY_API const char *tally_session__kallsyms(const struct tally_session *s);
/* The address spaces, as the records so far made them. */
TALLY_API struct tally_machine *tally_session__machine(const struct tally_session *s);
TALLY_API struct tally_symbols *tally_session__symbols(const struct tally_session *s);
TALLY_API int tally_session__nr_events(const struct tally_session *s);
/* perf's name of the event (EVENT_DESC, else the attr's), "unknown" without memory. */
TALLY_API const char *tally_session__event_name(const struct tally_session *s, int attr);
/* The file's tracepoint formats (TRACING_DATA), or NULL. */
TALLY_API struct tally_trace_fmt *tally_session__trace_fmt(const struct tally_session *s);
/* Changes with every side-band record applied: a cache of resolved addresses keyed by it stays right. */
TALLY_API uint64_t tally_session__maps_gen(const struct tally_session *s);

/* The sample's thread name (thread.comm, computed on demand). NULL without memory. */
TALLY_API const char *tally_session__comm(struct tally_session *s,
					  const struct tally_session_sample *smp);
/*
 * What a thread's ":TID" name finally became: perf overrides that first
 * name in place with the thread's first COMM, so what was counted under
 * it shows the later name. For callers that aggregate, after the run.
 */
TALLY_API const char *tally_session__final_comm(const struct tally_session *s,
						const char *comm);
/* The order of the first MMAP of path (1, 2, ...: perf's DSO order), 0 when none came. */
TALLY_API uint32_t tally_session__file_rank(const struct tally_session *s, const char *path);

/*
 * A chain perf discards as corrupted (a context marker it does not know,
 * from a user stack the kernel's frame-pointer walk misread): perf keeps
 * only the sample's own ip then.
 */
TALLY_API bool tally_session__chain_corrupt(const struct tally_sample *smp);

/* What an address resolved to, in perf's names. Valid until close. */
struct tally_frame {
	uint64_t ip;
	enum tally_cpumode mode;
	char level;			/* perf's "[k]" or "[.]": 'k' (kernel level or map), '.' */
	const char *dso;		/* perf's short name ("libc.so.6", "[kernel.kallsyms]"); NULL: no map */
	const char *path;		/* the map's file; NULL: no map */
	uint64_t map_start, map_end, map_pgoff;
	uint64_t addr;			/* map-relative (ip without a map) */
	const char *sym;		/* NULL: no symbol */
	uint64_t sym_start;
	bool inlined;			/* a function inlined here: sym is "name (inlined)" */
	bool unwound;			/* DWARF-unwound user frame */
	const char *srcline;		/* with opts.srcline: "file.c:12", "sym+off", "dso[addr]" */
};

/*
 * The sample's own address (its ip at its level): 0, -ENOMEM.
 * Call during the sample's callback: the maps are as at its time.
 */
TALLY_API int tally_session__resolve(struct tally_session *s,
				     const struct tally_session_sample *smp,
				     struct tally_frame *out);
/*
 * The sample's call chain, leaf first, context markers left out; at a
 * DWARF-unwound address, the functions inlined there first (unless
 * opts.no_inline). A sample without a chain, or one perf discards: its
 * ip alone. Returns the frames written (at most max), or -errno.
 */
TALLY_API int tally_session__frames(struct tally_session *s,
				    const struct tally_session_sample *smp,
				    struct tally_frame *out, int max);

/*
 * Added in 0.5: a session that runs all day (tally agent) kept bounded.
 * Call it where the caller holds no frame, symbol or DSO the session
 * gave since the last call (they may be stale after): the threads whose
 * EXIT came before the previous call go, with their maps
 * (tally_machine__release_exited: one call's grace for late samples);
 * the addresses resolved and not asked for since the last call are
 * forgotten; the symbol tables are held to their budget
 * (tally_symbols__set_cache_size on tally_session__symbols: none by
 * default). A histogram reading the session keeps its own answers (and
 * then no table goes). 0, or -errno.
 */
TALLY_API int tally_session__trim(struct tally_session *s);

/* What went by. */
struct tally_session_stats {
	size_t sz;
	uint64_t records[128];		/* by PERF_RECORD_* type (user types 64..: TALLY_RECORD_*) */
	uint64_t samples;
	uint64_t lost;			/* samples lost while recording (LOST records) */
	/*
	 * the kernel's own count at the end (LOST_SAMPLES records, one per
	 * event fd, as perf 6.1 writes them): what perf report's "Total Lost
	 * Samples" sums; it covers the LOST records' where the file has both
	 */
	uint64_t lost_samples;
	uint64_t bad;			/* records that could not be decoded */
	uint64_t unwound;		/* DWARF chains unwound */
	uint64_t unwind_stops[TALLY_UNWIND__NR];	/* why each chain ended */
	/* DSOs with addresses no symbol held, and why (tally_symbols__unresolved) */
	const struct tally_unresolved *unresolved;
	int nr_unresolved;
	/*
	 * Added in 0.5: records that came older than one already delivered
	 * (a round of the file or a pass over the rings held them back),
	 * delivered then, after the newer ones: perf's "out of order events"
	 */
	uint64_t unordered;
	/* Added in 0.5: samples of the events opts.want left out (counted in samples too) */
	uint64_t dropped;
	/*
	 * Added in 0.5: the largest CPU field (as an int32_t) of those
	 * samples, read as they were dropped; -1: none, or none with a CPU
	 */
	int32_t dropped_cpu_max;
	size_t :0;
};
#define tally_session_stats__last_field dropped_cpu_max

/* 0, or -EINVAL (a bad sz). */
TALLY_API int tally_session__stats(const struct tally_session *s, struct tally_session_stats *st);

#ifdef __cplusplus
}
#endif
#endif
