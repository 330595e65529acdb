/* SPDX-License-Identifier: MIT */
/*
 * Added in 0.2: a profile's call stacks, the one model every picture is
 * drawn from (collapsed stacks, flame graphs, pprof). Frames are
 * deduplicated (a function in a file, or an unresolved address; with a
 * source line, that function at that line: one function in every picture,
 * its lines apart in pprof's), stacks are a tree of frames from the root, samples are counted per (thread,
 * stack) with their weight (the event's period).
 *
 *	struct tally_stacks *s = tally_stacks__new();
 *	int t = tally_stacks__thread(s, pid, tid, "prog");
 *	int n = -1;
 *	for (each frame, root first)
 *		n = tally_stacks__push(s, n, tally_stacks__frame(s, &frame));
 *	tally_stacks__sample(s, t, n, 1, period);
 *	tally_stacks__write_pprof(s, fp);
 */
#ifndef TALLY_STACKS_H
#define TALLY_STACKS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <tally/core.h>

#ifdef __cplusplus
extern "C" {
#endif

struct tally_stacks;
struct tally_hist;

struct tally_stack_frame {
	const char *name;		/* the function; NULL: unresolved */
	const char *dso;		/* the file's path, "[kernel.kallsyms]"; NULL: no map */
	const char *build_id;		/* hex, or NULL */
	uint64_t addr;			/* in the file (map-relative); the ip without a map */
	uint64_t map_start, map_end;	/* where the file was mapped (pprof's mapping) */
	uint64_t map_pgoff;
	bool kernel;
};

/* What the profile is of, for the pictures' titles and pprof's header. */
struct tally_stacks_info {
	const char *event;		/* "cpu-clock" */
	const char *unit;		/* the weight's unit: "nanoseconds" for a clock, else "count" */
	uint64_t period;		/* the event's sampling period, 0 if by frequency */
	uint64_t time_ns, duration_ns;	/* first sample, span (0: unknown) */
	const char *command;		/* the recorded command line, or NULL */
	uint64_t lost;			/* samples the kernel could not write */
};

TALLY_API struct tally_stacks *tally_stacks__new(void);
TALLY_API void tally_stacks__free(struct tally_stacks *s);
/*
 * The frame's handle for tally_stacks__push (the function at f's source
 * line). Strings are copied. Negative -errno on failure.
 */
TALLY_API int tally_stacks__frame(struct tally_stacks *s, const struct tally_stack_frame *f);
/*
 * Added in 0.3: the same, at a source line: file (DWARF's name, copied)
 * and line, NULL/0 when unknown. One function in every picture, its lines
 * apart in pprof's. (A function, not new fields of tally_stack_frame:
 * callers of 0.2 pass the struct of 0.2's size.)
 */
TALLY_API int tally_stacks__frame_at(struct tally_stacks *s, const struct tally_stack_frame *f,
				     const char *file, int line);
/* The stack parent + frame (parent -1: a root). Its id, or -errno. */
TALLY_API int tally_stacks__push(struct tally_stacks *s, int parent, int frame);
TALLY_API int tally_stacks__thread(struct tally_stacks *s, int32_t pid, int32_t tid,
				   const char *comm);
/* count samples of weight in all on stack (leaf node), in thread. */
TALLY_API int tally_stacks__sample(struct tally_stacks *s, int thread, int stack, uint64_t count,
				   uint64_t weight);
/*
 * One sample at its time (ns) and of its weight (the event's period), for
 * the formats in time order (Firefox, speedscope); given in time order,
 * every sample once.
 */
TALLY_API int tally_stacks__timed(struct tally_stacks *s, int thread, int stack, uint64_t time_ns);
/* Added in 0.3: the same, of weight (the event's period; tally_stacks__timed's is 1). */
TALLY_API int tally_stacks__timed_weight(struct tally_stacks *s, int thread, int stack,
					 uint64_t time_ns, uint64_t weight);
/*
 * Added in 0.3: the stacks of one event of a histogram (tally/hist.h), a
 * view of it: each shape's chain resolved root first, its thread, its
 * samples and weight; the timeline when the histogram kept one; the
 * event's name, unit and period. NULL + errno.
 */
TALLY_API struct tally_stacks *tally_stacks__from_hist(struct tally_hist *h, int event);
/*
 * Added in 0.3: the same, with flags: TALLY_STACKS_FUNCTIONS, frames
 * without their source lines (much faster on DWARF files; for the
 * pictures that name functions alone: folded stacks, flame graphs).
 */
#define TALLY_STACKS_FUNCTIONS	1u
TALLY_API struct tally_stacks *tally_stacks__from_hist_flags(struct tally_hist *h, int event,
							     unsigned flags);
/*
 * Added in 0.3: the flame graph of one event of a histogram straight
 * from it, byte for byte what tally_stacks__write_svg writes of
 * tally_stacks__from_hist_flags(h, event, TALLY_STACKS_FUNCTIONS), without
 * the stacks in between (a third of a busy machine's picture). 0 or
 * -errno.
 */
TALLY_API int tally_stacks__svg_from_hist(struct tally_hist *h, int event, FILE *fp,
					  const char *title);
/*
 * Added in 0.4: on- and off-CPU time side by side (record --off-cpu):
 * the clock event on's stacks (cpu-clock, task-clock) under a root frame
 * "[on-CPU]", offcpu-time's (off) under "[off-CPU S: sleeping]" or
 * "[off-CPU D: uninterruptible]" (the wait state its samples carry; read
 * from the histogram's timeline, "[off-CPU]" without one), per thread,
 * both weighing nanoseconds, counted in microseconds (info.unit says
 * "microseconds"): the pictures draw time. NULL + errno (EINVAL: on not
 * a clock).
 */
TALLY_API struct tally_stacks *tally_stacks__from_hist_offcpu(struct tally_hist *h, int on,
							      int off, unsigned flags);
TALLY_API int tally_stacks__set_info(struct tally_stacks *s, const struct tally_stacks_info *info);
/* Added in 0.3: the info as set (its strings valid until the next set_info or free). 0 or -EINVAL. */
TALLY_API int tally_stacks__info(const struct tally_stacks *s, struct tally_stacks_info *out);
TALLY_API uint64_t tally_stacks__samples(const struct tally_stacks *s);

/*
 * Brendan Gregg's collapsed stacks: "comm;root;...;leaf count", one line
 * per distinct stack in byte order, kernel frames suffixed _[k], the
 * counts summing to the samples. 0 or -errno.
 */
TALLY_API int tally_stacks__write_folded(const struct tally_stacks *s, FILE *fp);
/*
 * A picture to path, all or nothing: fn writes it into a temporary file
 * beside path, renamed over it once flushed and closed without error
 * (not synced to the disk: a picture can be drawn again, and the flush
 * was half a small one's time); on failure the temporary is removed and
 * path is left as it was.
 * 0, or -errno of the first failure (-ENOSPC: the file system is full).
 */
typedef int (*tally_stacks_draw_fn)(FILE *fp, void *arg);
TALLY_API int tally_stacks__write_file(const char *path, tally_stacks_draw_fn fn, void *arg);
/*
 * A self-contained interactive flame graph (SVG with its script: hover,
 * click to zoom, search, reset; no remote resources). 0 or -errno.
 */
TALLY_API int tally_stacks__write_svg(const struct tally_stacks *s, FILE *fp, const char *title);
/*
 * A differential flame graph: s's stacks, each frame colored by the
 * change of its share since base (red grew, blue shrank). 0 or -errno.
 */
TALLY_API int tally_stacks__write_svg_diff(const struct tally_stacks *base,
					   const struct tally_stacks *s, FILE *fp,
					   const char *title);
/*
 * pprof's profile.proto, gzip-compressed: mappings with build ids,
 * locations, functions, samples valued [samples, weight]. 0 or -errno.
 */
TALLY_API int tally_stacks__write_pprof(const struct tally_stacks *s, FILE *fp);
/*
 * speedscope's JSON: shared frames, one "sampled" profile per thread
 * (weights in nanoseconds for a clock event, else sample counts), opened
 * on the busiest. With a timeline (tally_stacks__timed) each thread's
 * samples are in time order, a run of one stack as one sample; without,
 * each distinct stack once.
 */
TALLY_API int tally_stacks__write_speedscope(const struct tally_stacks *s, FILE *fp);
/*
 * One self-contained offline page: a summary, the functions' table (self
 * and with callees, sortable), the flame graph and the callers' icicle.
 */
/*
 * The Firefox Profiler's own (Gecko) JSON: one thread per thread, its
 * samples with their times (tally_stacks__timed), so the profiler shows
 * its timeline.
 */
TALLY_API int tally_stacks__write_firefox(const struct tally_stacks *s, FILE *fp);
TALLY_API int tally_stacks__write_html(const struct tally_stacks *s, FILE *fp, const char *title);
struct tally_annotate;
/*
 * Added in 0.3: the page, each hot function of the table (a self share
 * of the samples of TALLY_HTML_ANNOTATE_MIN percent or more, at
 * most TALLY_HTML_ANNOTATE_MAX of them, each at most
 * TALLY_HTML_ANNOTATE_LINES lines) opening its source and disassembly
 * with heat colours: a's (tally/annotate.h, sorted) of event attr, or
 * why there is none (JIT code, a file gone). The page's URL
 * "#ann=NAME" opens NAME's at load.
 */
#define TALLY_HTML_ANNOTATE_MIN 1.0
#define TALLY_HTML_ANNOTATE_MAX 16
#define TALLY_HTML_ANNOTATE_LINES 2000
TALLY_API int tally_stacks__write_html_annotated(const struct tally_stacks *s, FILE *fp,
						 const char *title, struct tally_annotate *a,
						 int attr);
/*
 * The page of a comparison: the functions with their share in each
 * profile and the change, the biggest first, and the differential flame
 * graph of s against base.
 */
TALLY_API int tally_stacks__write_html_diff(const struct tally_stacks *base,
					    const struct tally_stacks *s, FILE *fp,
					    const char *title);

#ifdef __cplusplus
}
#endif

#endif
