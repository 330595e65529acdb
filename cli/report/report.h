/* SPDX-License-Identifier: MIT */
/* What report's files share: the distinct sample shapes, and the exports drawn from them. */
#ifndef TALLY_CLI_REPORT_H
#define TALLY_CLI_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct tally_session;
struct resolver;

/*
 * A distinct sample shape (attr, thread, cpu, chain), with its samples'
 * count and period: rows, call graphs and pictures are built from these
 * once reading is done, so a million samples of a few thousand shapes
 * cost a few thousand merges.
 */
struct shape {
	uint64_t hash, period, count;
	const char *comm;
	const char *trace;		/* the trace key's text, NULL without it */
	int32_t pid, tid, cpu;
	int idx;
	uint8_t mode;
	uint32_t nr;			/* the chain as shown: 0 when perf drops it */
	uint32_t key_nr;		/* the chain as recorded, what samples match */
	uint64_t ip;
	uint64_t *ips;
	size_t seq;			/* its index in first-seen order */
	struct shape *next;		/* hash chain */
};

/* The pictures asked for (report's --folded, --flamegraph, --pprof). */
struct report_exports {
	bool folded;			/* to stdout */
	const char *flamegraph, *pprof;	/* files */
	const char *speedscope, *html, *firefox;
	/* --firefox's and --speedscope's timeline: each sample's shape (its index), time, period */
	struct report_timed { size_t shape; uint64_t time, period; } *timed;
	size_t ntimed, cap_timed;
	bool timed_short;		/* out of memory: the timeline lacks samples */
	uint64_t t_first, t_last;	/* the samples' time span */
};

static inline bool report_exports_any(const struct report_exports *x)
{
	return x->folded || x->flamegraph || x->pprof || x->speedscope || x->html || x->firefox;
}

/* Draw each asked picture from the shapes of event idx. 0, or 1 after saying why. */
int report_export(const struct report_exports *x, struct tally_session *ss, const char *path,
		  struct resolver *res,
		  struct shape *const *shapes, size_t n, int idx);

/*
 * The browser over text (what --stdio printed), the events printed being
 * idx[0..n): their collapsed stacks give the flame view and the HTML key.
 * 0, or the exit status after saying why.
 */
int report_browse(const char *text, struct tally_session *ss, const char *path,
		  struct resolver *res, struct shape *const *shapes, size_t nshapes,
		  const int *idx, int n);

#endif
