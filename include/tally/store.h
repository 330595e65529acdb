/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.4: the fleet's store. Profiles go to ClickHouse (its HTTP
 * interface, through libcurl) as batches: one interval of one host's
 * samples, aggregated by stack, the stacks stored once by their hash.
 * The schema is docs/agent.md's; tally_store__create makes it.
 *
 *	TALLY_OPTS(tally_store_opts, so, .url = "http://h:8123/?database=prof");
 *	struct tally_store *st = tally_store__open(&so);
 *	tally_store__create(st);
 *	struct tally_store_batch *b = tally_store_batch__new("h1", id, time(NULL));
 *	uint64_t sid = tally_store_batch__stack(b, frames, n);
 *	tally_store_batch__add(b, &(struct tally_store_row){ ..., .stack_id = sid });
 *	tally_store__send(st, b);	(0, or -errno with tally_store__error)
 *
 * A store object is used by one thread at a time.
 */
#ifndef TALLY_STORE_H
#define TALLY_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_store;
struct tally_store_batch;

struct tally_store_opts {
	size_t sz;
	/* http://HOST:PORT/?database=DB (DB default "tally"); https too */
	const char *url;
	/* NULL: none (ClickHouse's "default" user); never put them in a URL */
	const char *user, *password;
	int timeout_ms;			/* one request's limit; 0: 10 s */
	size_t :0;
};
#define tally_store_opts__last_field timeout_ms

/*
 * NULL + errno: EINVAL (not an http(s) URL, a database name that is not
 * [A-Za-z0-9_]), ENOMEM, ENOSYS (libcurl cannot be loaded:
 * tally_store__error does not exist yet then, so the message goes to the
 * log). Nothing is sent until asked.
 */
TALLY_API struct tally_store *tally_store__open(const struct tally_store_opts *opts);
TALLY_API void tally_store__close(struct tally_store *s);
TALLY_API const char *tally_store__database(const struct tally_store *s);
/*
 * The last failure in words: the server's own message for a rejected
 * request ("Code: 60, ... Table prof.samples doesn't exist"), curl's for
 * one that never got an answer ("Couldn't connect to server"). "" after
 * a success.
 */
TALLY_API const char *tally_store__error(const struct tally_store *s);

/*
 * Run one statement; with body, it follows the statement (an INSERT's
 * rows). out (may be NULL) gets the answer, NUL-terminated, the caller's
 * to free. 0; -ECONNREFUSED/-ETIMEDOUT/-EHOSTUNREACH (no answer: worth a
 * retry); -EPROTO (the server refused it: its message in
 * tally_store__error; a retry gets the same); -ENOMEM.
 */
TALLY_API int tally_store__query(struct tally_store *s, const char *sql, const void *body,
				 size_t len, char **out, size_t *out_len);
/* The database and the tables, where missing (CREATE ... IF NOT EXISTS). 0 or as query. */
TALLY_API int tally_store__create(struct tally_store *s);

/*
 * Retention: drop the days before t's (UTC) from the samples and stacks
 * (their partitions are days: a drop frees the disk at once, where a
 * DELETE rewrites parts). The number of partitions dropped, or as query.
 */
TALLY_API int tally_store__drop_days_before(struct tally_store *s, time_t t);

/* One frame of a stack, leaf first, as the host resolved it. */
struct tally_store_frame {
	char level;			/* 'k' kernel, '.' user (perf's [k] and [.]) */
	const char *func;		/* NULL or "": not resolved on the host */
	uint64_t symoff;		/* the address less its function's start */
	const char *dso;		/* the map's file ("[kernel.kallsyms]", "//anon"); NULL: none */
	const uint8_t *build_id;	/* the DSO's GNU build id; NULL: none known */
	uint8_t build_id_size;
	uint64_t offset;		/* in the DSO: the file offset (map_ip); kernel: the address */
	const char *srcline;		/* "file.c:12"; NULL: none */
};

/* One row of a batch: a thread's samples of one stack. */
struct tally_store_row {
	int32_t pid, tid;
	const char *comm;		/* the process's name */
	const char *thread;		/* the thread's */
	const char *exe;		/* the executable's path, "" unknown */
	const char *cgroup;		/* its cgroup's path ("/system.slice/x.service"), "" unknown */
	const char *kind;		/* "cpu" (and "offcpu" later) */
	const char *event;		/* "cpu-clock" */
	uint64_t stack_id;		/* tally_store_batch__stack's */
	uint64_t value;			/* samples */
	uint64_t period;		/* their periods' sum (ns for the clocks) */
};

/*
 * A batch: host, its id (the same on every retry: the store counts a
 * batch once however often it arrived), the interval's start. NULL +
 * errno.
 */
TALLY_API struct tally_store_batch *tally_store_batch__new(const char *host, uint64_t batch_id,
							   time_t start);
TALLY_API void tally_store_batch__free(struct tally_store_batch *b);
/* A stack's id, the hash of its frames (the same on every host); 0 with n <= 0. */
TALLY_API uint64_t tally_store__stack_id(const struct tally_store_frame *f, int n);
/*
 * Put a stack in the batch (unless it is already) and give its id. A
 * sender that knows the store has it (sent before, by its own record)
 * gives the row tally_store__stack_id's id without putting it. 0 +
 * errno ENOMEM.
 */
TALLY_API uint64_t tally_store_batch__stack(struct tally_store_batch *b,
					    const struct tally_store_frame *f, int n);
TALLY_API int tally_store_batch__add(struct tally_store_batch *b, const struct tally_store_row *r);
/* Rows, stacks, samples (the rows' values summed) in it. */
TALLY_API size_t tally_store_batch__rows(const struct tally_store_batch *b);
TALLY_API size_t tally_store_batch__stacks(const struct tally_store_batch *b);
TALLY_API uint64_t tally_store_batch__samples(const struct tally_store_batch *b);
TALLY_API uint64_t tally_store_batch__id(const struct tally_store_batch *b);
/* Its bytes as they go on the wire (what a bounded queue counts). */
TALLY_API size_t tally_store_batch__bytes(const struct tally_store_batch *b);
/*
 * Move b's stacks into to (a dropped batch's stacks still serve the
 * batches after it, which do not carry them again). 0 or -ENOMEM.
 */
TALLY_API int tally_store_batch__give_stacks(struct tally_store_batch *b,
					     struct tally_store_batch *to);
/* Send it: its stacks, then its rows. 0 or as tally_store__query. */
TALLY_API int tally_store__send(struct tally_store *s, const struct tally_store_batch *b);

/* ---- Reading ------------------------------------------------------- */

/*
 * What tally report --from reads: the rows of a time range and of the
 * hosts, processes, builds its where names, merged by the server (GROUP
 * BY stack and the keys a report shows), each batch counted once however
 * often it was stored. docs/agent.md, "Reading the store", has the queries.
 *
 *	TALLY_OPTS(tally_store_query, q, .since = now - 3600, .where = "host=h1");
 *	struct tally_store_profile *p = tally_store__read(st, &q);
 *	struct tally_session *ss = tally_store_profile__session(p, &so);
 *	(in so.sample) tally_hist__add_count(h, smp, tally_store_profile__count(p, smp));
 *	tally_session__run(ss); ... tally_session__close(ss); tally_store_profile__free(p);
 *
 * The profile is a perf.data made in memory (tally_store_profile__path)
 * whose samples are the merged rows, each standing for its row's samples
 * (tally_store_profile__count), at addresses of its own: every frame's
 * function is named by the profile (the agent's name, else one found at
 * read: a debug file of that build id on this host, else DB.symbols).
 */
struct tally_store_query {
	size_t sz;
	time_t since;			/* rows of intervals starting at or after it; 0: any */
	time_t until;			/* ... and before it; 0: any */
	/*
	 * "key=value,key=value": host, comm, thread, exe, cgroup, pid, tid,
	 * kind, event, build (a GNU build id in hex: stacks with a frame of
	 * that build); a key given twice takes either value, different keys
	 * all. NULL or "": every row.
	 */
	const char *where;
	/*
	 * Keep each host's threads apart (their pids and tids, a report's pid
	 * key, per-thread pictures). false: the server merges the rows of one
	 * thread name (and process name) across hosts and processes, far
	 * fewer rows for a fleet; the threads get numbers of the profile's.
	 */
	bool threads;
	size_t :0;
};
#define tally_store_query__last_field threads

struct tally_store_profile;
struct tally_session;
struct tally_session_opts;
struct tally_session_sample;

/*
 * "30s", "15m", "1h", "2d" (that long before now), "YYYY-MM-DD HH:MM:SS"
 * or "YYYY-MM-DD" (UTC), "@SECONDS" (since the epoch) into *out. 0 or
 * -EINVAL.
 */
TALLY_API int tally_store__parse_time(const char *s, time_t now, time_t *out);
/*
 * Read q's profile (NULL: every row). NULL + errno: EINVAL (q's where is
 * bad: why in tally_store__error), as tally_store__query (no answer; the
 * server's refusal: a missing database or table, its words in
 * tally_store__error), EBADMSG (an answer that is not the schema's),
 * ENOMEM. A range without rows is a profile of 0 samples.
 */
TALLY_API struct tally_store_profile *tally_store__read(struct tally_store *s,
							const struct tally_store_query *q);
TALLY_API void tally_store_profile__free(struct tally_store_profile *p);
/* The profile as a perf.data file ("/proc/self/fd/N"), as long as p. */
TALLY_API const char *tally_store_profile__path(const struct tally_store_profile *p);
/*
 * Give ss, a session opened on that path, the profile's function tables
 * (before it runs). 0 or -errno.
 */
TALLY_API int tally_store_profile__apply(const struct tally_store_profile *p,
					 struct tally_session *ss);
/* tally_session__open of the path, then apply. NULL + errno. */
TALLY_API struct tally_session *tally_store_profile__session(const struct tally_store_profile *p,
							     const struct tally_session_opts *opts);
/* The samples smp, a sample of p's session, stands for (its row's); >= 1. */
TALLY_API uint64_t tally_store_profile__count(const struct tally_store_profile *p,
					      const struct tally_session_sample *smp);
/* Samples (the rows' values summed) and rows (as the server merged them) read. */
TALLY_API uint64_t tally_store_profile__samples(const struct tally_store_profile *p);
TALLY_API size_t tally_store_profile__rows(const struct tally_store_profile *p);

/*
 * tally agent --upload-symbols: the function table of the ELF file at
 * path (its .symtab, else what a stripped file keeps, or its debug
 * file's), keyed by its GNU build id, into DB.symbols, for a reader
 * whose frames of that build came without names (a stripped binary on
 * the agent's host). Starts are file offsets, as the frames'. Once per
 * build id: a build the table has already is not sent again. Returns
 * the functions sent (0: none, or that build's are there), -ENOENT (no file),
 * -ENODATA (no build id), -ENOEXEC (not ELF), or as tally_store__query.
 */
TALLY_API int tally_store__upload_symbols(struct tally_store *s, const char *path);

#ifdef __cplusplus
}
#endif

#endif
