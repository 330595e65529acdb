/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.2: tracepoint fields of a perf.data file, printed as perf
 * script prints them: the file's TRACING_DATA feature (event formats)
 * parsed with libtraceevent, then each sample's RAW data through the
 * event's print format.
 */
#ifndef TALLY_TRACE_FMT_H
#define TALLY_TRACE_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_trace_fmt;

/* NULL with errno (EBADMSG: not tracing data perf or tally wrote). */
TALLY_API struct tally_trace_fmt *tally_trace_fmt__new(const void *tracing_data, size_t len);
TALLY_API void tally_trace_fmt__free(struct tally_trace_fmt *f);
/*
 * Added in 0.2: the i-th event (0 on) whose format in the tracing data
 * is damaged, as "sys:name", and what is wrong with it. 0: its print
 * format, its samples print their fields raw ("[FAILED TO PARSE] f=v ..."
 * as perf); 1: its fields too, its samples print nothing; -ENOENT past
 * the last, -EINVAL.
 */
TALLY_API int tally_trace_fmt__damaged(const struct tally_trace_fmt *f, int i,
				       const char **event, const char **why);
/*
 * Added in 0.3: how a kernel address printed with %pS / %ps (kmalloc's
 * call_site, timer_start's function) gets its name: fn returns the
 * symbol holding *addr and sets *addr to the symbol's start (the offset
 * printed is the difference), or NULL (printed as the bare address, as
 * without a resolver). perf script prints those fields so, through the
 * kernel's symbols; the caller supplies them (this module knows none).
 * fn NULL: none. 0, -EINVAL.
 */
typedef const char *(*tally_trace_fmt_resolver)(void *priv, uint64_t *addr);
TALLY_API int tally_trace_fmt__set_resolver(struct tally_trace_fmt *f,
					    tally_trace_fmt_resolver fn, void *priv);
/*
 * The fields of one sample's RAW data, perf script's text (libtraceevent's
 * INFO), into buf: its length, or -ENOENT (no format for the event id in
 * the data), -EBADMSG (a field runs past the data), -errno.
 */
TALLY_API int tally_trace_fmt__print(struct tally_trace_fmt *f, const void *raw, size_t len,
				     char *buf, size_t buflen);

/*
 * Added in 0.3: the formats of the tracepoints among attrs[nr], read from
 * tracefs now (a live session's, as the recorder writes them). NULL with
 * errno.
 */
struct perf_event_attr;
TALLY_API struct tally_trace_fmt *tally_trace_fmt__new_live(const struct perf_event_attr *const *attrs,
							    size_t nr);
/*
 * Added in 0.3: the fields of one sample's RAW data (its event's own,
 * not the common ones), in format order, into out[max] (tally/syscalls.h;
 * names and types point into f, data into raw). Returns how many the
 * event has (more than max: the rest left out), or -ENOENT (no format
 * for the event), -EBADMSG (a field runs past the data), -EINVAL.
 */
struct tally_tp_field;
TALLY_API int tally_trace_fmt__fields(struct tally_trace_fmt *f, const void *raw, size_t len,
				      struct tally_tp_field *out, int max);

/*
 * Added in 0.5: a tracepoint sample's fields by name, typed: the one
 * place sched, lock and kmem turn a sample's RAW data into the fields
 * they read. The names are looked up in each event's format once (the
 * format parsing is libtraceevent's), then each sample is read where its
 * format puts them, checked as tally_trace_fmt__fields checks a sample.
 * Not thread-safe: one reader per thread.
 *
 *	static const char *const names[] = { "prev_pid", "next_pid" };
 *	r = tally_tp_reader__new(fmt, names, 2);
 *	mask = tally_tp_reader__read(r, raw, len, vals);   vals[2]
 *	if (mask & 1) ... vals[0].val ...
 */
#define TALLY_TP_READER_MAX	30	/* names per reader */

/* One field's value in a sample. */
struct tally_tp_val {
	uint64_t val;			/* an integer: its bytes, unsigned, as perf reads them */
	const void *data;		/* an array: its bytes in the record; NULL otherwise */
	uint32_t data_len;		/* their length (a dynamic array's from its __data_loc) */
};

struct tally_tp_reader;
/* Reads names[nr] (nr <= TALLY_TP_READER_MAX) of f's events. NULL with errno. */
TALLY_API struct tally_tp_reader *tally_tp_reader__new(struct tally_trace_fmt *f,
							const char *const *names, int nr);
/*
 * The sample's fields into out[nr] (zeroed where its event has no such
 * field): a mask of those it has (bit i: names[i]), or -ENOENT (no format
 * for the event), -EBADMSG (a field runs past the data), -EINVAL, -ENOMEM.
 */
TALLY_API int tally_tp_reader__read(struct tally_tp_reader *r, const void *raw, size_t len,
				    struct tally_tp_val *out);
/* NULL-safe. */
TALLY_API void tally_tp_reader__free(struct tally_tp_reader *r);
/* An array field as a string, up to its first NUL, cut to fit buf[len]: its length. */
TALLY_API size_t tally_tp_val__str(const struct tally_tp_val *v, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
