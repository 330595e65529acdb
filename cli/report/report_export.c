// SPDX-License-Identifier: MIT
/*
 * report's pictures: the histogram's stacks (tally_stacks__from_hist),
 * written by the library's writers: collapsed stacks, SVG flame graph,
 * pprof, speedscope, Firefox's, one HTML page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tally/tally.h>
#include "report.h"

struct picture {
	struct tally_stacks *st;
	int (*fn)(struct tally_stacks *, FILE *, const char *);
	const char *title;
	struct tally_annotate *a;	/* the page's annotations, or NULL */
	int attr;
};

static int page(struct tally_stacks *st, FILE *fp, const char *title);

static int draw(FILE *fp, void *arg)
{
	const struct picture *p = arg;

	if (p->fn == page && p->a)
		return tally_stacks__write_html_annotated(p->st, fp, p->title, p->a, p->attr);
	return p->fn(p->st, fp, p->title);
}

static int annotate_sample(struct tally_session *s, const struct tally_session_sample *smp, void *ctx)
{
	struct tally_annotate **a = ctx;	/* made after the session it counts */

	(void)s;
	return tally_annotate__add(*a, smp) == -ENOMEM ? -ENOMEM : 0;
}

/*
 * The page's annotations: the file read again through the annotate
 * library, as the browser's 'a' does (the report's pass keeps no
 * per-instruction samples). NULL, the page without them, from a pipe.
 */
/* the report's --symfs and --kallsyms: the annotations read under them too */
static const char *symfs, *kallsyms;

static struct tally_annotate *annotations(const char *path, struct tally_session **ss)
{
	struct tally_annotate *a = NULL;

	*ss = NULL;
	if (!path || !strcmp(path, "-"))
		return NULL;
	{
		TALLY_OPTS(tally_session_opts, so, .sample = annotate_sample, .ctx = &a,
			   .no_unwind = true, .no_comm = true, .symfs = symfs,
			   .kallsyms = kallsyms);

		if (!(*ss = tally_session__open(path, &so)))
			return NULL;
	}
	if (!(a = tally_annotate__new(*ss, NULL)) || tally_session__run(*ss) == -ENOMEM) {
		tally_annotate__free(a);
		tally_session__close(*ss);
		*ss = NULL;
		return NULL;
	}
	return a;
}

/* All or nothing (tally_stacks__write_file): a full disk leaves no half picture. */
static int write_file(const char *path, const char *what, struct tally_stacks *st,
		      int (*fn)(struct tally_stacks *, FILE *, const char *), const char *title)
{
	struct picture p = { st, fn, title, NULL, 0 };
	int err = tally_stacks__write_file(path, draw, &p);

	if (err) {
		fprintf(stderr, "tally report: %s: writing the %s: %s\n", path, what, strerror(-err));
		return 1;
	}
	return 0;
}

static int page(struct tally_stacks *st, FILE *fp, const char *title);

/* The HTML page, with the annotations of the file at path (its event attr's). 0 or 1 (said). */
static int write_page(const char *out, const char *path, struct tally_stacks *st, const char *title,
		      int attr)
{
	struct tally_session *as;
	struct picture p = { st, page, title, annotations(path, &as), attr };
	int err = tally_stacks__write_file(out, draw, &p);

	if (err)
		fprintf(stderr, "tally report: %s: writing the page: %s\n", out, strerror(-err));
	tally_annotate__free(p.a);
	tally_session__close(as);
	return err ? 1 : 0;
}

static int svg(struct tally_stacks *st, FILE *fp, const char *title)
{
	return tally_stacks__write_svg(st, fp, title);
}

static int speedscope(struct tally_stacks *st, FILE *fp, const char *title)
{
	(void)title;
	return tally_stacks__write_speedscope(st, fp);
}

static int page(struct tally_stacks *st, FILE *fp, const char *title)
{
	return tally_stacks__write_html(st, fp, title);
}

static int firefox(struct tally_stacks *st, FILE *fp, const char *title)
{
	(void)title;
	return tally_stacks__write_firefox(st, fp);
}

static int pprof(struct tally_stacks *st, FILE *fp, const char *title)
{
	(void)title;
	return tally_stacks__write_pprof(st, fp);
}

/* The flame graph alone, drawn from the histogram: no stacks made (tally_stacks__svg_from_hist). */
struct direct {
	struct tally_hist *h;
	int idx;
	const char *title;
};

static int draw_direct(FILE *fp, void *arg)
{
	const struct direct *d = arg;

	return tally_stacks__svg_from_hist(d->h, d->idx, fp, d->title);
}

static int report_export_one(const struct report_exports *x, struct tally_hist *h,
			     struct tally_session *ss, const char *path, int idx);

int report_offcpu_event(struct tally_session *ss)
{
	for (int i = 0; i < tally_session__nr_events(ss); i++)
		if (!strcmp(tally_session__event_name(ss, i), "offcpu-time"))
			return i;
	return -1;
}

static bool has_samples(struct tally_hist *h, int idx)
{
	TALLY_OPTS(tally_hist_totals, t);

	return !tally_hist__totals(h, idx, &t) && t.samples;
}

/*
 * A record --off-cpu file's flame graph and page: on- and off-CPU time
 * side by side, per thread (tally_stacks__from_hist_offcpu), when it has
 * offcpu-time samples and a clock's. 0 when drawn, -1 when not such a
 * file (the first event's pictures then), 1 after an error said.
 */
static int offcpu_pictures(const struct report_exports *x, struct tally_hist *h,
			   struct tally_session *ss, const char *path, bool lines)
{
	const struct tally_data_reader *rd = tally_session__reader(ss);
	int off = report_offcpu_event(ss), on = -1, ret = 0;
	struct tally_stacks *st;
	char title[512];

	if (off < 0 || !has_samples(h, off))
		return -1;
	for (int i = 0; i < tally_session__nr_events(ss) && on < 0; i++) {
		const struct perf_event_attr *a = tally_data_reader__attr(rd, i);

		if (i != off && a && a->type == PERF_TYPE_SOFTWARE &&
		    (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK) &&
		    has_samples(h, i))
			on = i;
	}
	if (on < 0)
		return -1;
	st = tally_stacks__from_hist_offcpu(h, on, off, lines ? 0 : TALLY_STACKS_FUNCTIONS);
	if (!st) {
		fprintf(stderr, "tally report: building the stacks: %s\n", strerror(errno));
		return 1;
	}
	snprintf(title, sizeof(title), "%s: on-CPU (%s) and off-CPU (offcpu-time) time, in ns", path,
		 tally_session__event_name(ss, on));
	if (x->flamegraph)
		ret |= write_file(x->flamegraph, "flame graph", st, svg, title);
	if (x->html)
		ret |= write_page(x->html, path, st, title, on);
	tally_stacks__free(st);
	return ret;
}

int report_export(const struct report_exports *x_in, struct tally_hist *h, struct tally_session *ss,
		  const char *path, int idx)
{
	struct report_exports xo = *x_in, *x = &xo;

	symfs = tally_session__symfs(ss);
	kallsyms = tally_session__kallsyms(ss);
	int oret = -1;

	/* the flame graph and the page of an --off-cpu file: both times side by side */
	if (x->flamegraph || x->html) {
		oret = offcpu_pictures(x, h, ss, path, x->html != NULL);
		if (oret >= 0) {
			x->flamegraph = x->html = NULL;
			if (!report_exports_any(x))
				return oret;
		}
	}
	return report_export_one(x, h, ss, path, idx) | (oret > 0);
}

static int report_export_one(const struct report_exports *x, struct tally_hist *h,
			     struct tally_session *ss, const char *path, int idx)
{
	/* only pprof, speedscope, the page and Firefox's show source lines */
	bool lines = x->pprof || x->speedscope || x->html || x->firefox;
	const struct perf_event_attr *a = tally_data_reader__attr(tally_session__reader(ss), idx);
	const char *ev = tally_session__event_name(ss, idx);
	struct tally_stacks_info info;
	struct tally_stacks *st;
	char title[512];
	int ret = 0;
	struct stat sb;
	const char *name = x->name ? x->name : path;

	/* without chains each stack is its sampled frame: say so once, and why */
	if ((x->flamegraph || x->html) && a && !(a->sample_type & PERF_SAMPLE_CALLCHAIN))
		fprintf(stderr, "tally report: %s has no call chains (recorded without -g/--call-graph): "
			"the flame graph is one level deep\n", name ? name : "perf.data");
	if (x->flamegraph && !lines && !x->folded) {
		TALLY_OPTS(tally_hist_totals, t);
		struct direct d = { h, idx, title };
		int err;

		/* the title counts what the stacks would: every sample of the event */
		if (tally_hist__totals(h, idx, &t))
			return 1;
		snprintf(title, sizeof(title), "%s: %llu samples of %s", name,
			 (unsigned long long)t.samples, ev);
		if ((err = tally_stacks__write_file(x->flamegraph, draw_direct, &d))) {
			fprintf(stderr, "tally report: %s: writing the flame graph: %s\n", x->flamegraph,
				strerror(-err));
			return 1;
		}
		return 0;
	}
	st = tally_stacks__from_hist_flags(h, idx, lines ? 0 : TALLY_STACKS_FUNCTIONS);
	if (!st) {
		fprintf(stderr, "tally report: building the stacks: %s\n", strerror(errno));
		return 1;
	}
	/*
	 * Sample times run from boot; pprof wants the wall clock: the file
	 * was last written when the recording ended.
	 */
	if (path && strcmp(path, "-") && !stat(path, &sb) && !tally_stacks__info(st, &info) &&
	    (uint64_t)sb.st_mtime * 1000000000ULL > info.duration_ns) {
		info.time_ns = (uint64_t)sb.st_mtime * 1000000000ULL - info.duration_ns;
		if (tally_stacks__set_info(st, &info)) {
			fprintf(stderr, "tally report: building the stacks: %s\n", strerror(ENOMEM));
			tally_stacks__free(st);
			return 1;
		}
	}
	snprintf(title, sizeof(title), "%s: %llu samples of %s", name,
		 (unsigned long long)tally_stacks__samples(st), ev);
	if (x->folded && tally_stacks__write_folded(st, stdout))
		ret = 1;
	if (x->flamegraph)
		ret |= write_file(x->flamegraph, "flame graph", st, svg, title);
	if (x->pprof)
		ret |= write_file(x->pprof, "pprof profile", st, pprof, title);
	if (x->speedscope)
		ret |= write_file(x->speedscope, "speedscope profile", st, speedscope, title);
	if (x->html)
		ret |= write_page(x->html, path, st, title, idx);
	if (x->firefox)
		ret |= write_file(x->firefox, "Firefox profile", st, firefox, title);
	tally_stacks__free(st);
	return ret;
}
