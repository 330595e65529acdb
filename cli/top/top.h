/* SPDX-License-Identifier: MIT */
/*
 * tally top, perf top's live profile:
 *   cmd_top.c    command line, events and targets, the loop (--stdio
 *                screens, or the browser of cli/tui refreshed)
 *   top_hist.c   the library's histogram of the live samples, as text
 *   top_reader.c the browser's reader thread: the rings drained whatever
 *                the screen does
 * (what ran before top, the session synthesizes: tally_session__synthesize)
 */
#ifndef TALLY_CLI_TOP_H
#define TALLY_CLI_TOP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <tally/hist.h>
#include "hist_cols.h"
#include "report_graph.h"

struct tally_session;
struct tally_session_sample;

enum top_key { TK_COMM, TK_PID, TK_DSO, TK_SYM, TK_CPU, TK__NR };

struct top_hist_opts {
	enum top_key keys[TK__NR];
	int nkeys;
	bool children;			/* --children: callers' share */
	bool chains;			/* samples carry chains (-g) */
	bool inline_frames;		/* DWARF-unwound frames show their inlined functions */
	struct cg_param cg;		/* how graphs print; mode CG_NONE: none */
	bool hide_kernel, hide_user;	/* -K, -U */
	double percent_limit;
	int entries;			/* -E: rows printed; 0: all */
	bool show_nr, show_period;	/* -n, --show-total-period: perf's Samples, Period */
	struct tally_hist_filter filter;	/* --comms, --dsos, --symbols (report's) */
	struct hist_fields fields;	/* --fields: the columns (n 0: perf top's own) */
	bool hierarchy;			/* --hierarchy: a level per key (report's layout) */
};

/* --fields as report's -F, on top's keys (o->keys: -s's when sort_given). 0, or -1 said. */
int top_hist_parse_fields(struct top_hist_opts *o, const char *spec, bool sort_given);

struct top_hist;

struct top_hist *top_hist_new(struct tally_session *ss, int nr_events,
			      const struct top_hist_opts *o);
void top_hist_free(struct top_hist *h);
/* The session's sample callback's work. 0 or -ENOMEM. */
int top_hist_add(struct top_hist *h, const struct tally_session_sample *smp);
/* Make the rows of what came so far (before printing). 0 or -ENOMEM. */
int top_hist_resort(struct top_hist *h);
/* Forget the rows (-z), keep the totals since the last interval. */
void top_hist_zero(struct top_hist *h);
/* Age what the rows counted by 7/8, dropping rows at zero (each refresh without -z, as perf top). */
int top_hist_decay(struct top_hist *h);
/* -K/-U/zoom switched on screen */
void top_hist_hide(struct top_hist *h, bool kernel, bool user);

/* What the screen's headline says of an event, counted since the last take. */
struct top_rate {
	uint64_t samples, kernel;	/* this interval */
	uint64_t total_samples;
};
void top_hist_take_rate(struct top_hist *h, int idx, struct top_rate *r);
int top_hist_nr_events(const struct top_hist *h);
uint64_t top_hist_samples(const struct top_hist *h, int idx);

/*
 * The rows of event idx as text: with hash, report's layout (the
 * '#' header the browser reads); without, perf top --stdio's rows only.
 * The same rows either way.
 */
void top_hist_print(struct top_hist *h, int idx, FILE *fp, bool hash);
/* The event's collapsed stacks ("comm;root;...;leaf N"), for the flame view. */
void top_hist_folded(struct top_hist *h, int idx, FILE *fp);

/*
 * The reader: a thread draining the rings into a backlog of raw records,
 * handed to the session (tally_session__feed) when *mu, the session's and
 * the rows' lock, is free. Fields: the reader's.
 */
struct top_reader {
	struct tally_evlist *l;
	struct tally_session *ss;
	pthread_mutex_t *mu;
	pthread_t th;
	pthread_mutex_t bl_mu;		/* the backlog's */
	unsigned char *buf, *spare;
	size_t len, cap, spare_cap;
	bool stop;			/* atomic: the main thread's word to end */
	bool running;
	int err;			/* atomic: reading failed, -errno */
};

struct tally_evlist;
/* Start reading l's rings for ss. 0 or -errno. */
int top_reader_start(struct top_reader *r, struct tally_evlist *l, struct tally_session *ss,
		     pthread_mutex_t *mu);
/* With *mu held: what was read so far, delivered. 0, or -errno (the reading's too). */
int top_reader_take(struct top_reader *r);
/* Stop the thread, what it read last delivered. */
void top_reader_stop(struct top_reader *r);

#endif
