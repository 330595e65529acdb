/* SPDX-License-Identifier: MIT */
/* What report's files share: the pictures asked for, drawn from the histogram. */
#ifndef TALLY_CLI_REPORT_H
#define TALLY_CLI_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct tally_session;
struct tally_hist;

/* The pictures asked for (report's --folded, --flamegraph, --pprof). */
struct report_exports {
	bool folded;			/* to stdout */
	const char *flamegraph, *pprof;	/* files */
	const char *speedscope, *html, *firefox;
	const char *name;		/* the titles' name of the profile (NULL: its path) */
};

static inline bool report_exports_any(const struct report_exports *x)
{
	return x->folded || x->flamegraph || x->pprof || x->speedscope || x->html || x->firefox;
}

/* report_opts.c: -s naming overhead, sample or period (perf's hpp fields) */
bool report_sort_names_count(const char *sort);
/* "overhead," and the list less its overhead: the -F spec perf's -s amounts to; -1: no room */
int report_sort_count_fields(const char *sort, char *out, size_t n);
/* perf's --time-quantum: N with s, ms, us or ns (none: ns), not 0. 0 or -1, said. */
int report_parse_time_quantum(const char *arg, uint64_t *q);

/* --tasks (maps false) and --mmaps: perf's task tree, with each thread's maps (report_tasks.c). */
int report_tasks(const char *input, bool maps);
/*
 * --stats: perf's counts of the file's records by type and each event's
 * samples (report_stats.c); with dump, -D's records first (dump_raw.h),
 * each event's samples then counted as its histogram counts them: one
 * per branch in branch mode (branch: -b's tristate).
 */
int report_stats(const char *input, bool dump, int branch);
/* The index of a record --off-cpu file's offcpu-time event, or -1. */
int report_offcpu_event(struct tally_session *ss);
/*
 * Draw each asked picture of event idx of h (the flame graph and the page
 * of an --off-cpu file: on- and off-CPU time side by side). 0, or 1 after
 * saying why.
 */
int report_export(const struct report_exports *x, struct tally_hist *h, struct tally_session *ss,
		  const char *path, int idx);

/*
 * The browser over text (what --stdio printed), the events printed being
 * idx[0..n): their collapsed stacks give the flame view and the HTML key.
 * 0, or the exit status after saying why.
 */
int report_browse(const char *text, struct tally_hist *h, struct tally_session *ss,
		  const char *path, const int *idx, int n);

#endif
